//! Splits extraction time into parsing and querying for one file:
//! `cargo run --release -p repo-mapper-tags --example parse_speed -- FILE [REPEAT]`.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use repo_mapper_tags::{Dialect, Language, extract_source, grammar};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = Path::new(&args[0]);
    let repeat: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let lang = Language::for_path(path, Dialect::Default).expect("supported language");
    let src = std::fs::read_to_string(path)
        .expect("readable")
        .repeat(repeat);
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&grammar(lang)).expect("grammar");
    let t = Instant::now();
    let tree = parser.parse(&src, None).expect("parse");
    let parse = t.elapsed();
    drop(tree);
    let t = Instant::now();
    let n = extract_source(
        lang,
        &src,
        Arc::from("x"),
        Arc::from(path),
        Dialect::Default,
    )
    .len();
    let all = t.elapsed();
    let mb = src.len() as f64 / 1e6;
    println!(
        "{lang}: {:.2} MB, parse {:.1} MB/s, parse+query {:.1} MB/s, {n} tags",
        mb,
        mb / parse.as_secs_f64(),
        mb / all.as_secs_f64()
    );
}
