//! Scale check on a synthetic 80,000-file repository. Ignored by default; run with
//!
//! ```text
//! cargo test --release -p repo-mapper-rank --test scale -- --ignored --nocapture
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use repo_mapper_rank::{FileTags, PageRankOutcome, RankConfig, RankRequest, Tag, TagKind, rank};

struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// `files` files, each defining `defs` identifiers of its own plus, with probability
/// 1/`common_every`, one of eight "common" names (`get`, `run`, ...), and referencing
/// `refs` random identifiers of other files plus two common names.
fn repo(
    files: usize,
    defs: usize,
    refs: usize,
    common_every: usize,
) -> (Vec<String>, Vec<Vec<Tag>>) {
    const COMMON: [&str; 8] = [
        "get", "run", "name", "value", "init", "update", "close", "setUp",
    ];
    let mut rng = Lcg(7);
    let names: Vec<String> = (0..files)
        .map(|i| format!("pkg{}/mod{}/file{i}.py", i % 97, i % 13))
        .collect();
    let tags = (0..files)
        .map(|i| {
            let rel: Arc<str> = Arc::from(names[i].as_str());
            let abs: Arc<Path> = Arc::from(Path::new("/repo").join(&names[i]).as_path());
            let mut out = Vec::with_capacity(defs + refs + 3);
            let mut push = |line: usize, name: String, kind: TagKind| {
                out.push(Tag {
                    rel_fname: rel.clone(),
                    fname: abs.clone(),
                    line: line as i32,
                    name,
                    kind,
                    sub_kind: "function",
                })
            };
            for d in 0..defs {
                push(d + 1, format!("ident_{i}_{d}"), TagKind::Def);
            }
            if rng.next(common_every) == 0 {
                push(
                    defs + 1,
                    COMMON[rng.next(COMMON.len())].to_owned(),
                    TagKind::Def,
                );
            }
            for r in 0..refs {
                let f = rng.next(files);
                let d = rng.next(defs);
                push(defs + 2 + r, format!("ident_{f}_{d}"), TagKind::Ref);
            }
            for c in 0..2 {
                push(
                    defs + refs + 2 + c,
                    COMMON[rng.next(COMMON.len())].to_owned(),
                    TagKind::Ref,
                );
            }
            out
        })
        .collect();
    (names, tags)
}

fn run(label: &str, files: usize, common_every: usize) {
    let t0 = Instant::now();
    let (names, tags) = repo(files, 15, 40, common_every);
    let generated = t0.elapsed();
    let file_tags = names
        .iter()
        .zip(&tags)
        .map(|(n, t)| FileTags::new(n, t))
        .collect();
    let mut request = RankRequest::new(file_tags, 0);
    request.other_rel_fnames = names.iter().map(String::as_str).collect();
    request.mentioned_idents = ["get"].into_iter().collect();
    let t1 = Instant::now();
    let ranking = rank(&request, &RankConfig::default());
    let took = t1.elapsed();
    eprintln!(
        "{label}: {files} files, {} tags, {} nodes, {} edges, {} entries, {:?}; generated in {generated:?}, ranked in {took:?}",
        tags.iter().map(Vec::len).sum::<usize>(),
        ranking.nodes.len(),
        ranking.edge_count,
        ranking.entries.len(),
        ranking.pagerank.outcome,
    );
    assert!(matches!(
        ranking.pagerank.outcome,
        PageRankOutcome::Converged { .. }
    ));
}

#[test]
#[ignore = "slow: run in release with --ignored"]
fn eighty_thousand_files() {
    // Common names defined by 1 file in 50 (1,600 definers, 80,000 referencers each).
    run("sparse common names", 80_000, 50);
    // Common names defined by 1 file in 5 (16,000 definers each).
    run("dense common names", 80_000, 5);
}
