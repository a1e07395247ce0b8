//! Prints what tag extraction sees in a file: its language, the tags, and on request the
//! syntax tree or the captures of a query read from disk (for developing queries).
//!
//! ```text
//! cargo run -p repo-mapper-tags --example dump_tags -- [--aider] [--tree] [--query FILE.scm] FILE...
//! cargo run -p repo-mapper-tags --example dump_tags -- --pygments FILE...
//! ```
//!
//! `--pygments` prints, one per line as JSON strings, the names Aider's pygments fallback
//! yields for each file as repo-mapper replays it (`== FILE` then the names; `== FILE (not
//! replayed)` when it cannot be, `== FILE (no language)` for a file the aider dialect skips).

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::path::{Path, PathBuf};
use std::sync::Arc;

use repo_mapper_tags::{Dialect, Language, extract_source, grammar, pygments_names, read_source};
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator, Tree};

/// What the command line asks for.
struct Options {
    dialect: Dialect,
    show_tree: bool,
    pygments: bool,
    query_file: Option<PathBuf>,
    files: Vec<PathBuf>,
}

fn parse_args() -> Options {
    let mut options = Options {
        dialect: Dialect::Default,
        show_tree: false,
        pygments: false,
        query_file: None,
        files: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--aider" => options.dialect = Dialect::Aider,
            "--tree" => options.show_tree = true,
            "--pygments" => options.pygments = true,
            "--query" => options.query_file = args.next().map(PathBuf::from),
            _ => options.files.push(PathBuf::from(arg)),
        }
    }
    options
}

fn main() {
    let options = parse_args();
    for file in &options.files {
        if options.pygments {
            dump_pygments(file);
        } else {
            dump_file(file, &options);
        }
    }
}

/// `--pygments`: the names the aider dialect's pygments fallback yields for `file`.
fn dump_pygments(file: &Path) {
    let Ok(Some(source)) = read_source(file) else {
        return;
    };
    let base = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if Language::for_path(file, Dialect::Aider).is_none() {
        println!("== {} (no language)", file.display());
        return;
    }
    match pygments_names(base, &source) {
        Some(names) => {
            println!("== {}", file.display());
            for n in names {
                println!("{}", serde_json::Value::String(n));
            }
        }
        None => println!("== {} (not replayed)", file.display()),
    }
}

/// The tags of `file`, or with `--query` the `name.*` captures of that query; with
/// `--tree` the syntax tree first.
fn dump_file(file: &Path, options: &Options) {
    let Some(lang) = Language::for_path(file, options.dialect) else {
        println!("{}: no supported language", file.display());
        return;
    };
    let source = match read_source(file) {
        Ok(Some(s)) => s,
        Ok(None) => {
            println!("{}: not UTF-8", file.display());
            return;
        }
        Err(e) => {
            println!("{}: {e}", file.display());
            return;
        }
    };
    println!("== {} ({lang})", file.display());
    let mut parser = Parser::new();
    parser.set_language(&grammar(lang)).expect("grammar loads");
    let tree = parser.parse(&source, None).expect("parse");
    if options.show_tree {
        println!("{}", tree.root_node().to_sexp());
        println!("has_error: {}", tree.root_node().has_error());
    }
    if let Some(query_file) = &options.query_file {
        dump_query(query_file, lang, &tree, &source);
        return;
    }
    let rel: Arc<str> = Arc::from(file.to_string_lossy().as_ref());
    for tag in extract_source(lang, &source, rel, Arc::from(file), options.dialect) {
        println!(
            "{:>5} {} {:<12} {}",
            tag.line,
            tag.kind.as_str(),
            tag.sub_kind,
            tag.name
        );
    }
}

/// The `name.*` captures of the query in `query_file` over `tree`.
fn dump_query(query_file: &Path, lang: Language, tree: &Tree, source: &str) {
    let text = std::fs::read_to_string(query_file).expect("read query");
    let query = match Query::new(&grammar(lang), &text) {
        Ok(query) => query,
        Err(e) => {
            println!("query error: {e}");
            return;
        }
    };
    let mut cursor = QueryCursor::new();
    let mut caps = cursor.captures(&query, tree.root_node(), source.as_bytes());
    while let Some((m, i)) = caps.next() {
        let c = m.captures[*i];
        let name = query.capture_names()[c.index as usize];
        if name.starts_with("name.") {
            let text = &source[c.node.byte_range()];
            println!("{:>5} {name} {text}", c.node.start_position().row + 1);
        }
    }
}
