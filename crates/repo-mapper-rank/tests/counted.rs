//! Issue 14: a file whose references are counted ([`FileTags::counted`]) ranks exactly as
//! the same file with every reference tag, in both dialects, with and without chat files
//! and mentions.

use std::path::Path;
use std::sync::Arc;

use repo_mapper_rank::{
    CountedTags, Dialect, FileTags, RankConfig, RankRequest, Ranking, Tag, TagKind, rank,
};

/// A small repository whose files define and reference names from a shared pool, some
/// names many times per file, some never defined (deterministic).
fn repo() -> (Vec<String>, Vec<Vec<Tag>>) {
    let mut state = 11u64;
    let mut next = |n: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let names: Vec<String> = (0..40).map(|i| format!("src/m{i}.py")).collect();
    let tags = names
        .iter()
        .map(|rel| {
            let rel_arc: Arc<str> = Arc::from(rel.as_str());
            let abs: Arc<Path> = Arc::from(Path::new("/repo").join(rel).as_path());
            (0..30)
                .map(|line| {
                    let kind = if next(3) == 0 {
                        TagKind::Def
                    } else {
                        TagKind::Ref
                    };
                    Tag {
                        rel_fname: rel_arc.clone(),
                        fname: abs.clone(),
                        line: if next(5) == 0 { -1 } else { line },
                        name: format!("name_{}", next(25)),
                        kind,
                        sub_kind: if kind == TagKind::Def {
                            "function"
                        } else {
                            "call"
                        },
                    }
                })
                .collect()
        })
        .collect();
    (names, tags)
}

fn request(files: Vec<FileTags<'_>>, chat: Option<usize>, n: usize) -> RankRequest<'_> {
    let files = files
        .into_iter()
        .enumerate()
        .map(|(i, f)| f.with_chat(Some(i) == chat))
        .collect();
    let mut r = RankRequest::new(files, n);
    r.mentioned_idents = ["name_4"].into_iter().collect();
    r
}

fn summary(r: &Ranking<'_>) -> Vec<String> {
    let mut out: Vec<String> = r
        .entries
        .iter()
        .map(|e| {
            let tag = e.tag().map(|t| format!("{}:{}", t.line, t.name));
            format!("{} {tag:?} {:?}", e.rel_fname(), e.rank().map(f64::to_bits))
        })
        .collect();
    let mut ranks: Vec<String> = r
        .file_ranks
        .iter()
        .map(|(f, x)| format!("{f}={}", x.to_bits()))
        .collect();
    ranks.sort();
    out.extend(ranks);
    out
}

#[test]
fn counted_references_rank_as_reference_tags() {
    let (names, tags) = repo();
    let counted: Vec<CountedTags> = tags.iter().cloned().map(CountedTags::from_tags).collect();
    for dialect in [Dialect::Default, Dialect::Aider] {
        for chat in [None, Some(3)] {
            let mut config = RankConfig::default();
            config.dialect = dialect;
            let full: Vec<FileTags<'_>> = names
                .iter()
                .zip(&tags)
                .map(|(n, t)| FileTags::new(n, t))
                .collect();
            let packed: Vec<FileTags<'_>> = names
                .iter()
                .zip(&counted)
                .map(|(n, t)| FileTags::counted(n, t))
                .collect();
            let full = request(full, chat, names.len());
            let packed = request(packed, chat, names.len());
            let (a, b) = (rank(&full, &config), rank(&packed, &config));
            assert!(!a.entries.is_empty());
            assert_eq!(summary(&a), summary(&b), "{dialect:?}, chat {chat:?}");
        }
    }
}

/// Identifier ids depend on how many threads intern them; no rank may, on either
/// adjacency (the factored one sums per identifier, in first-definition order).
#[test]
fn rankings_do_not_depend_on_the_number_of_threads() {
    let (names, tags) = repo();
    let counted: Vec<CountedTags> = tags.iter().cloned().map(CountedTags::from_tags).collect();
    for exact_edge_limit in [0, usize::MAX] {
        let mut config = RankConfig::default();
        config.params.exact_edge_limit = exact_edge_limit;
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let files = names
                    .iter()
                    .zip(&counted)
                    .map(|(n, t)| FileTags::counted(n, t))
                    .collect();
                summary(&rank(&request(files, Some(1), names.len()), &config))
            })
        };
        let one = on(1);
        assert!(one.len() > names.len());
        for threads in [2, 3, 5] {
            assert_eq!(
                on(threads),
                one,
                "{threads} threads, limit {exact_edge_limit}"
            );
        }
    }
}
