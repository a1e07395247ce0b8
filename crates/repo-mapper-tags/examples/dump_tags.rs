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

use std::path::PathBuf;
use std::sync::Arc;

use repo_mapper_tags::{Dialect, Language, extract_source, grammar, pygments_names, read_source};
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

fn main() {
    let mut dialect = Dialect::Default;
    let mut show_tree = false;
    let mut pygments = false;
    let mut query_file: Option<PathBuf> = None;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--aider" => dialect = Dialect::Aider,
            "--tree" => show_tree = true,
            "--pygments" => pygments = true,
            "--query" => query_file = args.next().map(PathBuf::from),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    for file in files {
        if pygments {
            let source = match read_source(&file) {
                Ok(Some(s)) => s,
                _ => continue,
            };
            let base = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if Language::for_path(&file, Dialect::Aider).is_none() {
                println!("== {} (no language)", file.display());
                continue;
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
            continue;
        }
        let Some(lang) = Language::for_path(&file, dialect) else {
            println!("{}: no supported language", file.display());
            continue;
        };
        let source = match read_source(&file) {
            Ok(Some(s)) => s,
            Ok(None) => {
                println!("{}: not UTF-8", file.display());
                continue;
            }
            Err(e) => {
                println!("{}: {e}", file.display());
                continue;
            }
        };
        println!("== {} ({lang})", file.display());
        let mut parser = Parser::new();
        parser.set_language(&grammar(lang)).expect("grammar loads");
        let tree = parser.parse(&source, None).expect("parse");
        if show_tree {
            println!("{}", tree.root_node().to_sexp());
            println!("has_error: {}", tree.root_node().has_error());
        }
        if let Some(qf) = &query_file {
            let text = std::fs::read_to_string(qf).expect("read query");
            match Query::new(&grammar(lang), &text) {
                Err(e) => println!("query error: {e}"),
                Ok(q) => {
                    let mut cursor = QueryCursor::new();
                    let mut caps = cursor.captures(&q, tree.root_node(), source.as_bytes());
                    while let Some((m, i)) = caps.next() {
                        let c = m.captures[*i];
                        let name = q.capture_names()[c.index as usize];
                        if name.starts_with("name.") {
                            let text = &source[c.node.byte_range()];
                            println!("{:>5} {name} {text}", c.node.start_position().row + 1);
                        }
                    }
                }
            }
            continue;
        }
        let rel: Arc<str> = Arc::from(file.to_string_lossy().as_ref());
        for tag in extract_source(lang, &source, rel, Arc::from(file.as_path()), dialect) {
            println!(
                "{:>5} {} {:<12} {}",
                tag.line,
                tag.kind.as_str(),
                tag.sub_kind,
                tag.name
            );
        }
    }
}
