//! End-to-end ranking against Aider 0.86.2's `get_ranked_tags` (with the one-`sqrt` fix of
//! docs/parity.md R1), on the same tags.
//!
//! Data from `tests/gen/gen_aider.py`: `tests/data/aider_fixture.json` always; more files
//! (e.g. a real repository, see the script) from `REPO_MAPPER_RANK_AIDER_DATA`, a
//! `:`-separated list of paths.
//!
//! Aider's node order follows Python's string hashing, so its floating-point sums differ
//! from ours in the last bits: ranks are compared to 1e-12 relative, orders up to swaps of
//! entries whose ranks are that close, stage 3 (a Python set in Aider) as a set.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use repo_mapper_rank::{
    Dialect, FileTags, RankConfig, RankRequest, RankedItem, Ranking, Stage, Tag, TagKind,
    is_important, rank,
};
use serde_json::Value;

const FIXTURE: &str = include_str!("data/aider_fixture.json");
const TOL: f64 = 1e-12;

fn f(v: &Value) -> f64 {
    v.as_str()
        .expect("floats are stored as strings")
        .parse()
        .expect("a float")
}

fn near(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= TOL * a.abs().max(b.abs())
}

/// [`near`], recording the difference between our value `a` and Aider's `b`.
fn close(a: f64, b: f64) -> bool {
    let ok = near(a, b);
    if ok && a != b {
        let e = (a - b).abs() / a.abs().max(b.abs());
        WORST.with(|w| w.set(w.get().max(e)));
    }
    ok
}

thread_local! {
    /// Largest relative difference seen among values within tolerance.
    static WORST: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
}

struct Case {
    name: String,
    /// rel, chat, tags
    files: Vec<(String, bool, Vec<Tag>)>,
    num_files: usize,
    others: Vec<String>,
    mentioned_fnames: Vec<String>,
    mentioned_idents: Vec<String>,
    expect: Value,
}

fn load(json: &str) -> Vec<Case> {
    let data: Value = serde_json::from_str(json).expect("valid JSON");
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    data["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let files = c["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|file| {
                    let rel = file["rel"].as_str().unwrap().to_owned();
                    let rel_arc: Arc<str> = Arc::from(rel.as_str());
                    let abs: Arc<Path> = Arc::from(Path::new("/repo").join(&rel).as_path());
                    let tags = file["tags"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|t| Tag {
                            rel_fname: rel_arc.clone(),
                            fname: abs.clone(),
                            line: t[0].as_i64().unwrap() as i32,
                            kind: if t[1] == "def" {
                                TagKind::Def
                            } else {
                                TagKind::Ref
                            },
                            name: t[2].as_str().unwrap().to_owned(),
                            sub_kind: "x",
                        })
                        .collect();
                    (rel, file["chat"].as_bool().unwrap(), tags)
                })
                .collect();
            Case {
                name: c["name"].as_str().unwrap().to_owned(),
                files,
                num_files: c["num_files"].as_u64().unwrap() as usize,
                others: strings(&c["other_rel_fnames"]),
                mentioned_fnames: strings(&c["mentioned_fnames"]),
                mentioned_idents: strings(&c["mentioned_idents"]),
                expect: c["expect"].clone(),
            }
        })
        .collect()
}

fn request(case: &Case) -> RankRequest<'_> {
    let files = case
        .files
        .iter()
        .map(|(rel, chat, tags)| FileTags::new(rel, tags).with_chat(*chat))
        .collect();
    let mut request = RankRequest::new(files, case.num_files);
    request.other_rel_fnames = case.others.iter().map(String::as_str).collect();
    request.mentioned_fnames = case.mentioned_fnames.iter().map(String::as_str).collect();
    request.mentioned_idents = case.mentioned_idents.iter().map(String::as_str).collect();
    request
}

/// Compares two ranked sequences of keys: equal, except that neighbours may be swapped
/// when their (expected) ranks are within tolerance. Returns the number of such swaps.
fn compare_orders<K: PartialEq + std::fmt::Debug + Clone>(
    what: &str,
    ours: &[K],
    theirs: &[K],
    rank_of: impl Fn(&K) -> f64,
) -> usize {
    assert_eq!(ours.len(), theirs.len(), "{what}: lengths differ");
    let mut swaps = 0;
    let mut i = 0;
    while i < ours.len() {
        if ours[i] == theirs[i] {
            i += 1;
            continue;
        }
        // A block of near-equal ranks starting at i, compared as a multiset.
        let r = rank_of(&theirs[i]);
        let mut j = i;
        while j < theirs.len() && near(rank_of(&theirs[j]), r) {
            j += 1;
        }
        let block: Vec<&K> = theirs[i..j].iter().collect();
        for k in &ours[i..j] {
            assert!(
                block.contains(&k),
                "{what}: at {i}, {k:?} is not a near-tie of {:?}",
                theirs[i]
            );
        }
        swaps += j - i;
        i = j;
    }
    swaps
}

/// Our `ranking` of `case` against what Aider computed; returns the near-tie swaps.
fn check(case: &Case, ranking: &Ranking<'_>) -> usize {
    let name = &case.name;
    check_personalization(case, ranking);
    let file_ranks = check_file_ranks(case, ranking);
    let (mut swaps, their_rank) = check_definitions(case, ranking);

    // The ranked list. Stage 0 (Aider dialect): Aider's prelude.
    let stage0 = check_stage0(case, ranking);
    let (their_runs, their_bare) = their_entries(&case.expect);
    swaps += compare_orders(
        &format!("{name}: stage 1"),
        &our_runs(ranking),
        &their_runs,
        |r| their_rank[&(r.0.clone(), r.1.clone())],
    );
    swaps += check_stage2(name, ranking, &their_bare, &file_ranks);
    check_stage3(name, ranking, &their_bare);

    // Nothing else: same length overall.
    let their_len = stage0 + case.expect["entries"].as_array().unwrap().len();
    assert_eq!(ranking.entries.len(), their_len, "{name}: entry count");
    swaps
}

/// The personalization dict.
fn check_personalization(case: &Case, ranking: &Ranking<'_>) {
    let pers: HashMap<&str, f64> = case.expect["personalization"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), f(v)))
        .collect();
    assert_eq!(
        ranking.personalization, pers,
        "{}: personalization",
        case.name
    );
}

/// PageRank per file; returns Aider's.
fn check_file_ranks<'c>(case: &'c Case, ranking: &Ranking<'_>) -> HashMap<&'c str, f64> {
    let name = &case.name;
    let file_ranks: HashMap<&str, f64> = case.expect["file_ranks"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str(), f(v)))
        .collect();
    assert_eq!(
        ranking.file_ranks.keys().collect::<HashSet<_>>(),
        file_ranks.keys().collect::<HashSet<_>>(),
        "{name}: graph nodes"
    );
    for (k, v) in &file_ranks {
        assert!(
            close(ranking.file_ranks[k], *v),
            "{name}: rank of {k}: {} vs {v}",
            ranking.file_ranks[k]
        );
    }
    file_ranks
}

/// Ranked definitions: values, then order. Returns the near-tie swaps and Aider's rank of
/// each (file, ident).
fn check_definitions(
    case: &Case,
    ranking: &Ranking<'_>,
) -> (usize, HashMap<(String, String), f64>) {
    let name = &case.name;
    let theirs: Vec<(String, String, f64)> = case.expect["definition_ranks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d[0].as_str().unwrap().to_owned(),
                d[1].as_str().unwrap().to_owned(),
                f(&d[2]),
            )
        })
        .collect();
    let their_rank: HashMap<(String, String), f64> = theirs
        .iter()
        .map(|(a, b, r)| ((a.clone(), b.clone()), *r))
        .collect();
    assert_eq!(
        ranking.definition_ranks().len(),
        theirs.len(),
        "{name}: definition count"
    );
    for d in ranking.definition_ranks() {
        let key = (d.rel_fname.to_owned(), d.ident.to_owned());
        let r = their_rank
            .get(&key)
            .unwrap_or_else(|| panic!("{name}: Aider has no {key:?}"));
        assert!(
            close(d.rank, *r),
            "{name}: rank of {key:?}: {} vs {r}",
            d.rank
        );
    }
    let ours_keys: Vec<(String, String)> = ranking
        .definition_ranks()
        .map(|d| (d.rel_fname.to_owned(), d.ident.to_owned()))
        .collect();
    let their_keys: Vec<(String, String)> = theirs
        .iter()
        .map(|(a, b, _)| (a.clone(), b.clone()))
        .collect();
    let swaps = compare_orders(
        &format!("{name}: definitions"),
        &ours_keys,
        &their_keys,
        |k| their_rank[k],
    );
    (swaps, their_rank)
}

/// Stage 0, the important files; returns its length.
fn check_stage0(case: &Case, ranking: &Ranking<'_>) -> usize {
    let stage0: Vec<&str> = case.expect["stage0"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    let ours0: Vec<&str> = ranking
        .stage(Stage::Important)
        .map(|e| e.rel_fname())
        .collect();
    assert_eq!(ours0, stage0, "{}: stage 0", case.name);
    stage0.len()
}

/// A run of stage 1: (file, ident) with its lines (a set in Aider).
type Run = (String, String, Vec<i32>);

/// Aider's entries after stage 0: stage 1 as runs, then the bare files (with their rank
/// in stage 2, without in stage 3).
fn their_entries(expect: &Value) -> (Vec<Run>, Vec<(String, Option<f64>)>) {
    let mut their_runs: Vec<Run> = Vec::new();
    let mut their_bare: Vec<(String, Option<f64>)> = Vec::new();
    for e in expect["entries"].as_array().unwrap() {
        let rel = e["rel"].as_str().unwrap().to_owned();
        match e.get("line") {
            Some(line) => {
                let ident = e["name"].as_str().unwrap().to_owned();
                let line = line.as_i64().unwrap() as i32;
                match their_runs.last_mut() {
                    Some(run) if run.0 == rel && run.1 == ident => run.2.push(line),
                    _ => their_runs.push((rel, ident, vec![line])),
                }
            }
            None => their_bare.push((rel, e["rank"].as_str().map(|s| s.parse().unwrap()))),
        }
    }
    for run in &mut their_runs {
        run.2.sort_unstable();
    }
    (their_runs, their_bare)
}

/// Our stage 1, as runs.
fn our_runs(ranking: &Ranking<'_>) -> Vec<Run> {
    let mut our_runs: Vec<Run> = Vec::new();
    for e in ranking.stage(Stage::Definition) {
        let tag = e.tag().unwrap();
        match our_runs.last_mut() {
            Some(run) if *run.0 == *tag.rel_fname && run.1 == tag.name => run.2.push(tag.line),
            _ => our_runs.push((tag.rel_fname.to_string(), tag.name.clone(), vec![tag.line])),
        }
    }
    our_runs
}

/// Stage 2 in order, with Aider's ranks; returns the near-tie swaps.
fn check_stage2(
    name: &str,
    ranking: &Ranking<'_>,
    their_bare: &[(String, Option<f64>)],
    file_ranks: &HashMap<&str, f64>,
) -> usize {
    let their2: Vec<String> = their_bare
        .iter()
        .filter(|b| b.1.is_some())
        .map(|b| b.0.clone())
        .collect();
    let ours2: Vec<String> = ranking
        .stage(Stage::GraphFile)
        .map(|e| e.rel_fname().to_owned())
        .collect();
    let swaps = compare_orders(&format!("{name}: stage 2"), &ours2, &their2, |k| {
        file_ranks[k.as_str()]
    });
    for e in ranking.stage(Stage::GraphFile) {
        let RankedItem::File { rank: Some(r), .. } = e.item else {
            panic!("{name}: stage 2 entry without rank")
        };
        assert!(close(r, file_ranks[e.rel_fname()]));
    }
    swaps
}

/// Stage 3 as a set (sorted by file in ours).
fn check_stage3(name: &str, ranking: &Ranking<'_>, their_bare: &[(String, Option<f64>)]) {
    let their3: HashSet<&str> = their_bare
        .iter()
        .filter(|b| b.1.is_none())
        .map(|b| b.0.as_str())
        .collect();
    let ours3: Vec<&str> = ranking
        .stage(Stage::OtherFile)
        .map(|e| e.rel_fname())
        .collect();
    assert_eq!(
        ours3.iter().copied().collect::<HashSet<_>>(),
        their3,
        "{name}: stage 3"
    );
    assert!(
        ours3.windows(2).all(|w| w[0] < w[1]),
        "{name}: stage 3 sorted"
    );
}

fn run(json: &str, source: &str) {
    for case in load(json) {
        let req = request(&case);
        // Exact (networkx's matrix) and factored adjacency (exact_edge_limit 0).
        for (mode, limit) in [("exact", usize::MAX), ("factored", 0)] {
            let mut config = RankConfig::with_dialect(Dialect::Aider);
            config.params.exact_edge_limit = limit;
            let ranking = rank(&req, &config);
            WORST.with(|w| w.set(0.0));
            let swaps = check(&case, &ranking);
            let worst = WORST.with(|w| w.get());
            eprintln!(
                "{source} {} ({mode}): {} files, {} nodes, {} edges, {} entries, \
                 {swaps} near-tie swaps, worst relative difference {worst:e}",
                case.name,
                case.files.len(),
                ranking.nodes.len(),
                ranking.edge_count,
                ranking.entries.len()
            );
        }
    }
}

#[test]
fn fixture_matches_aider() {
    run(FIXTURE, "fixture");
}

#[test]
fn extra_data_matches_aider() {
    let Ok(paths) = std::env::var("REPO_MAPPER_RANK_AIDER_DATA") else {
        return;
    };
    for path in paths.split(':').filter(|p| !p.is_empty()) {
        let json = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        run(&json, path);
    }
}

#[test]
fn default_dialect_moves_important_files_to_the_front() {
    for case in load(FIXTURE) {
        let req = request(&case);
        let aider = rank(&req, &RankConfig::with_dialect(Dialect::Aider));
        let default = rank(&req, &RankConfig::default());
        // Important other files without definition entries (setup.py has some: it stays).
        let mut expected: Vec<&str> = case
            .others
            .iter()
            .map(String::as_str)
            .filter(|f| is_important(f))
            .filter(|f| {
                !aider
                    .entries
                    .iter()
                    .any(|e| !e.is_file() && e.rel_fname() == *f)
            })
            .collect();
        expected.sort_unstable();
        let front: Vec<&str> = default
            .stage(Stage::Important)
            .map(|e| e.rel_fname())
            .collect();
        assert_eq!(front, expected, "{}", case.name);
        assert!(!front.is_empty());
        let k = front.len();
        assert!(
            default.entries[..k]
                .iter()
                .all(|e| e.stage == Stage::Important)
        );
        // Otherwise the same list, in the same order.
        let rest: Vec<_> = default.entries[k..]
            .iter()
            .map(|e| (e.rel_fname(), e.tag().map(|t| t.line)))
            .collect();
        let aider_rest: Vec<_> = aider
            .entries
            .iter()
            .filter(|e| !front.contains(&e.rel_fname()))
            .map(|e| (e.rel_fname(), e.tag().map(|t| t.line)))
            .collect();
        assert_eq!(rest, aider_rest, "{}", case.name);
    }
}
