//! Tag extraction throughput, in bytes of source per second on one core, for a few
//! languages: `cargo bench -p repo-mapper-tags` (or `cargo xtask bench`).
//!
//! Each input is the language's fixture repeated to about 256 KiB, so the figure covers
//! parsing, running the query and building the tags, not reading the file. The
//! `code_words` group counts the same texts' words ([`Terms::of_text`], which a cold run
//! of the default profile does for every file it reads).

use std::path::Path;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use repo_mapper_tags::{Dialect, Language, Terms, extract_source};

const TARGET_BYTES: usize = 256 * 1024;

/// The languages measured and the fixture each input repeats.
const INPUTS: [(Language, &str); 4] = [
    (Language::Python, "python/scheduler.py"),
    (Language::C, "c/ring_buffer.c"),
    (Language::TypeScript, "typescript/http_client.ts"),
    (Language::Rust, "rust/lru.rs"),
];

fn input(fixture: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/languages")
        .join(fixture);
    let one = std::fs::read_to_string(&path).expect("fixture exists");
    one.repeat(TARGET_BYTES.div_ceil(one.len()))
}

fn extraction(c: &mut Criterion) {
    let mut group = c.benchmark_group("extract_source");
    for (lang, fixture) in INPUTS {
        let src = input(fixture);
        let rel: Arc<str> = Arc::from(fixture);
        let fname: Arc<Path> = Arc::from(Path::new(fixture));
        group.throughput(Throughput::Bytes(src.len() as u64));
        group.bench_function(lang.name(), |b| {
            b.iter(|| {
                extract_source(lang, &src, rel.clone(), fname.clone(), Dialect::Default).len()
            })
        });
    }
    group.finish();
}

fn code_words(c: &mut Criterion) {
    let mut group = c.benchmark_group("code_words");
    for (lang, fixture) in INPUTS {
        let src = input(fixture);
        group.throughput(Throughput::Bytes(src.len() as u64));
        group.bench_function(lang.name(), |b| b.iter(|| Terms::of_text(&src).words()));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = extraction, code_words
}
criterion_main!(benches);
