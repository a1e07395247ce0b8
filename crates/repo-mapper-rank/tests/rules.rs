//! One test per SPEC rule of §6–§8 (graph, weights, personalization, anchors, PageRank
//! fallbacks, ranked list, stages, important files), plus property tests.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use repo_mapper_rank::{
    Clues, Dialect, FileTags, GraphEdge, PageRankOutcome, RankConfig, RankRequest, RankedItem,
    Ranking, Relevance, Stage, Tag, TagKind, Why, graph_edges, query_term_counts, query_terms,
    rank,
};

// ---- helpers -------------------------------------------------------------------------

fn tag(file: &str, line: i32, name: &str, kind: TagKind) -> Tag {
    Tag {
        rel_fname: Arc::from(file),
        fname: Arc::from(Path::new("/repo").join(file).as_path()),
        line,
        name: name.to_owned(),
        kind,
        sub_kind: "function",
    }
}

/// A repository written as `(file, chat, "def:a def:b ref:c ref:c")`.
struct Repo {
    files: Vec<(String, bool, Vec<Tag>)>,
}

impl Repo {
    fn new(spec: &[(&str, bool, &str)]) -> Repo {
        let files = spec
            .iter()
            .map(|&(file, chat, tags)| {
                let tags = tags
                    .split_whitespace()
                    .enumerate()
                    .map(|(i, t)| {
                        let (kind, name) = t.split_once(':').expect("kind:name");
                        let kind = if kind == "def" {
                            TagKind::Def
                        } else {
                            TagKind::Ref
                        };
                        tag(file, i as i32 + 1, name, kind)
                    })
                    .collect();
                (file.to_owned(), chat, tags)
            })
            .collect();
        Repo { files }
    }

    /// A request over all files; every non-chat file is an "other" file.
    fn request(&self) -> RankRequest<'_> {
        let files = self
            .files
            .iter()
            .map(|(rel, chat, tags)| FileTags::new(rel, tags).with_chat(*chat))
            .collect();
        let mut request = RankRequest::new(files, 0);
        request.other_rel_fnames = self
            .files
            .iter()
            .filter(|f| !f.1)
            .map(|f| f.0.as_str())
            .collect();
        request
    }
}

fn edges_of<'a>(edges: &[GraphEdge<'a>], ident: &str) -> Vec<(&'a str, &'a str, f64)> {
    edges
        .iter()
        .filter(|e| e.ident == ident)
        .map(|e| (e.src, e.dst, e.weight))
        .collect()
}

fn listed<'a>(ranking: &Ranking<'a>) -> Vec<(Stage, &'a str, Option<&'a str>)> {
    ranking
        .entries
        .iter()
        .map(|e| (e.stage, e.rel_fname(), e.tag().map(|t| t.name.as_str())))
        .collect()
}

/// Collects WARN events (their message) while `f` runs on this thread.
fn warnings<R>(f: impl FnOnce() -> R) -> (R, Vec<String>) {
    let (r, events) = repo_mapper_test_support::logged(f);
    let warns = events
        .into_iter()
        .filter(|e| e.level == tracing::Level::WARN)
        .map(|e| e.message)
        .collect();
    (r, warns)
}

// ---- §6: graph -----------------------------------------------------------------------

#[test]
fn edge_weights_follow_the_multipliers() {
    let common_definers: Vec<String> = (0..6).map(|i| format!("d{i}.py")).collect();
    let mut spec: Vec<(&str, bool, &str)> = vec![
        (
            "a.py",
            false,
            "ref:foo ref:foo ref:bar ref:long_name ref:_hidden ref:common ref:mentioned",
        ),
        (
            "b.py",
            false,
            "def:foo def:bar def:long_name def:_hidden def:mentioned",
        ),
        ("c.py", true, "ref:foo ref:foo ref:foo ref:foo"),
    ];
    for d in &common_definers {
        spec.push((d, false, "def:common"));
    }
    let repo = Repo::new(&spec);
    let mut req = repo.request();
    req.mentioned_idents.insert("mentioned");
    let edges = graph_edges(&req, &RankConfig::default());
    let s2 = 2f64.sqrt();
    // Two references: sqrt(2) — one root per (referencer, definer), not Aider's repeated one.
    assert_eq!(
        edges_of(&edges, "foo"),
        [("a.py", "b.py", s2), ("c.py", "b.py", 50.0 * 2.0)]
    );
    assert_eq!(edges_of(&edges, "bar"), [("a.py", "b.py", 1.0)]);
    // Well named (>= 8 chars, snake case): ×10.
    assert_eq!(edges_of(&edges, "long_name"), [("a.py", "b.py", 10.0)]);
    // Leading underscore ×0.1 (and 7 characters: not well named).
    assert_eq!(edges_of(&edges, "_hidden"), [("a.py", "b.py", 0.1)]);
    // Mentioned ×10.
    assert_eq!(edges_of(&edges, "mentioned"), [("a.py", "b.py", 10.0)]);
    // More than five definers ×0.1, one edge per definer (a multigraph fan-out).
    let common = edges_of(&edges, "common");
    assert_eq!(common.len(), 6);
    assert!(common.iter().all(|&(s, _, w)| s == "a.py" && w == 0.1));
}

#[test]
fn parallel_edges_and_self_references_are_kept() {
    let repo = Repo::new(&[
        ("a.py", false, "def:x ref:x ref:y ref:z"),
        ("b.py", false, "def:y def:z"),
    ]);
    let req = repo.request();
    let edges = graph_edges(&req, &RankConfig::default());
    // a.py -> a.py for its own x (not filtered), and two parallel a.py -> b.py edges.
    let pairs: Vec<(&str, &str, &str)> = edges.iter().map(|e| (e.src, e.dst, e.ident)).collect();
    assert_eq!(
        pairs,
        [
            ("a.py", "a.py", "x"),
            ("a.py", "b.py", "y"),
            ("a.py", "b.py", "z")
        ]
    );
    let ranking = rank(&req, &RankConfig::default());
    assert_eq!(ranking.edge_count, 3);
    assert_eq!(ranking.nodes, ["a.py", "b.py"]);
}

#[test]
fn no_references_anywhere_means_definitions_reference_themselves() {
    let repo = Repo::new(&[("a.py", false, "def:x def:y"), ("b.py", false, "def:x")]);
    let req = repo.request();
    let edges = graph_edges(&req, &RankConfig::default());
    // references = defines: every definer refers once to every definer; no 0.1 self-edges.
    assert_eq!(
        edges_of(&edges, "x"),
        [
            ("a.py", "a.py", 1.0),
            ("a.py", "b.py", 1.0),
            ("b.py", "a.py", 1.0),
            ("b.py", "b.py", 1.0)
        ]
    );
    assert_eq!(edges_of(&edges, "y"), [("a.py", "a.py", 1.0)]);
}

#[test]
fn unreferenced_definitions_get_a_self_edge() {
    let repo = Repo::new(&[
        ("a.py", false, "def:lonely def:used"),
        ("b.py", false, "ref:used"),
    ]);
    let req = repo.request();
    let edges = graph_edges(&req, &RankConfig::default());
    assert_eq!(edges_of(&edges, "lonely"), [("a.py", "a.py", 0.1)]);
    assert_eq!(edges_of(&edges, "used"), [("b.py", "a.py", 1.0)]);
    let mut config = RankConfig::default();
    config.params.self_edge_weight = 0.5;
    assert_eq!(
        edges_of(&graph_edges(&req, &config), "lonely"),
        [("a.py", "a.py", 0.5)]
    );
    // Self-edges come first in insertion order, as in Aider.
    assert_eq!(edges[0].ident, "lonely");
}

// ---- §7.1: personalization -----------------------------------------------------------

#[test]
fn personalization_scores() {
    let repo = Repo::new(&[
        ("chat.py", true, "ref:x"),
        ("chat_mentioned.py", true, "ref:x"),
        ("mentioned.py", false, "ref:x"),
        ("auth/login.py", false, "def:x"),
        ("pkg/mod/thing.rs", false, "ref:x"),
        ("other.py", false, "ref:x"),
        ("models.py", false, ""),
    ]);
    let mut req = repo.request();
    req.num_files = 10; // three more files, missing from disk: N counts them
    req.mentioned_fnames
        .extend(["mentioned.py", "chat_mentioned.py"]);
    // Path components: a directory, a file name, a stem.
    req.mentioned_idents.extend(["auth", "thing.rs", "models"]);
    let ranking = rank(&req, &RankConfig::default());
    let p = 100.0 / 10.0;
    let expected: HashMap<&str, f64> = [
        ("chat.py", p),
        ("chat_mentioned.py", p), // max(chat, mentioned), not their sum
        ("mentioned.py", p),
        ("auth/login.py", p),
        ("pkg/mod/thing.rs", p),
        ("models.py", p), // no tags, still personalised
    ]
    .into_iter()
    .collect();
    assert_eq!(ranking.personalization, expected);
    assert!(ranking.pagerank.personalized);
}

#[test]
fn path_component_match_adds_once_on_top_of_chat() {
    let repo = Repo::new(&[("src/a.py", true, "ref:x"), ("b.py", false, "def:x")]);
    let mut req = repo.request();
    req.mentioned_idents.extend(["src", "a", "a.py"]);
    let ranking = rank(&req, &RankConfig::default());
    assert_eq!(ranking.personalization["src/a.py"], 50.0 + 50.0);
}

#[test]
fn personalization_changes_pagerank() {
    let repo = Repo::new(&[
        ("a.py", false, "def:fa ref:fb"),
        ("b.py", false, "def:fb ref:fc"),
        ("c.py", false, "def:fc ref:fa"),
    ]);
    let plain = rank(&repo.request(), &RankConfig::default());
    // A symmetric cycle: uniform.
    for r in plain.file_ranks.values() {
        assert!((r - 1.0 / 3.0).abs() < 1e-12);
    }
    let mut req = repo.request();
    req.mentioned_fnames.insert("a.py");
    let pers = rank(&req, &RankConfig::default());
    assert!(pers.file_ranks["a.py"] > pers.file_ranks["b.py"]);
    assert!(pers.file_ranks["b.py"] > pers.file_ranks["c.py"]);
}

// ---- §7.1a–b: anchors ----------------------------------------------------------------

#[test]
fn anchor_files_are_seeds_and_always_listed() {
    let repo = Repo::new(&[
        ("a.py", false, "def:fa ref:fb"),
        ("b.py", false, "def:fb ref:fa"),
        ("z.py", false, "ref:fa"),
    ]);
    let mut req = repo.request();
    req.num_files = 4;
    req.other_rel_fnames.push("notes.txt");
    req.anchor_fnames = vec!["z.py", "notes.txt", "ghost.py", "z.py", "b.py"];
    let ranking = rank(&req, &RankConfig::default());
    // 100/N × 10, additive over repeated anchors.
    assert_eq!(ranking.personalization["z.py"], 2.0 * 25.0 * 10.0);
    assert_eq!(ranking.personalization["notes.txt"], 25.0 * 10.0);
    assert_eq!(ranking.personalization["ghost.py"], 25.0 * 10.0);
    let l = listed(&ranking);
    // First a bare entry for the anchor listed nowhere, then the anchors' own entries in
    // list order (b.py's definition, z.py from stage 2, notes.txt from stage 3), then the rest.
    assert_eq!(
        &l[..4],
        [
            (Stage::Anchor, "ghost.py", None),
            (Stage::Anchor, "b.py", Some("fb")),
            (Stage::Anchor, "z.py", None),
            (Stage::Anchor, "notes.txt", None),
        ]
    );
    assert_eq!(l[4], (Stage::Definition, "a.py", Some("fa")));
    assert_eq!(l.len(), 5);
    assert_eq!(ranking.entries[2].rank(), Some(ranking.file_ranks["z.py"]));
}

#[test]
fn anchor_idents_share_their_weight() {
    let repo = Repo::new(&[
        ("a.py", false, "def:dup def:solo"),
        ("b.py", false, "def:dup"),
        ("c.py", false, "ref:dup ref:solo"),
    ]);
    let mut req = repo.request();
    req.anchor_idents = vec!["dup", "solo", "nowhere"];
    let (ranking, warns) = warnings(|| rank(&req, &RankConfig::default()));
    let p = 100.0 / 3.0;
    assert_eq!(ranking.personalization["a.py"], p * 10.0 / 2.0 + p * 10.0);
    assert_eq!(ranking.personalization["b.py"], p * 10.0 / 2.0);
    assert!(!ranking.personalization.contains_key("c.py"));
    assert_eq!(warns.len(), 1, "{warns:?}");
    assert!(warns[0].contains("2 files"), "{warns:?}");
    // Identifier anchors are not forced to the front.
    assert!(ranking.stage(Stage::Anchor).next().is_none());
}

#[test]
fn scoped_anchors_boost_their_identifier() {
    let repo = Repo::new(&[
        ("a.py", false, "def:thing"),
        ("b.py", false, "ref:thing"),
        ("c.py", false, ""),
    ]);
    let mut req = repo.request();
    req.anchor_scoped = vec![("c.py", "thing")];
    let edges = graph_edges(&req, &RankConfig::default());
    assert_eq!(edges_of(&edges, "thing"), [("b.py", "a.py", 10.0)]);
    let ranking = rank(&req, &RankConfig::default());
    assert_eq!(ranking.personalization["c.py"], 100.0 / 3.0 * 10.0);
    assert_eq!(listed(&ranking)[0], (Stage::Anchor, "c.py", None));
}

// ---- §7.2–§7.3: PageRank -------------------------------------------------------------

#[test]
fn zero_division_retries_without_personalization() {
    let repo = Repo::new(&[
        ("a.py", false, "def:x ref:y"),
        ("b.py", false, "def:y ref:x"),
        ("notes.txt", true, ""), // personalised, but not in the graph
    ]);
    let req = repo.request();
    let ranking = rank(&req, &RankConfig::default());
    assert!(ranking.pagerank.personalization_requested);
    assert!(!ranking.pagerank.personalized);
    assert!(matches!(
        ranking.pagerank.outcome,
        PageRankOutcome::Converged { .. }
    ));
    assert_eq!(ranking.file_ranks["a.py"], 0.5);
}

#[test]
fn non_convergence_warns_and_keeps_the_last_iterate() {
    let repo = Repo::new(&[
        ("a.py", false, "def:x ref:y"),
        ("b.py", false, "def:y"),
        ("c.py", false, "ref:x"),
    ]);
    let req = repo.request();
    let mut config = RankConfig::default();
    config.params.pagerank.max_iter = 1;
    let (ranking, warns) = warnings(|| rank(&req, &config));
    assert_eq!(
        ranking.pagerank.outcome,
        PageRankOutcome::NotConverged { iterations: 1 }
    );
    assert!(
        warns.iter().any(|w| w.contains("did not converge")),
        "{warns:?}"
    );
    let sum: f64 = ranking.file_ranks.values().sum();
    assert!((sum - 1.0).abs() < 1e-12);
    assert!(!ranking.entries.is_empty());
}

#[test]
fn rank_distribution_over_out_edges() {
    // a.py refers to x (defined in b.py) twice and to y (in c.py) once.
    let repo = Repo::new(&[
        ("a.py", false, "ref:x ref:x ref:y"),
        ("b.py", false, "def:x"),
        ("c.py", false, "def:y"),
    ]);
    let ranking = rank(&repo.request(), &RankConfig::default());
    let ra = ranking.file_ranks["a.py"];
    let total = 2f64.sqrt() + 1.0;
    let by_key: HashMap<(&str, &str), f64> = ranking
        .definition_ranks()
        .map(|d| ((d.rel_fname, d.ident), d.rank))
        .collect();
    assert_eq!(by_key[&("b.py", "x")], ra * 2f64.sqrt() / total);
    assert_eq!(by_key[&("c.py", "y")], ra * 1.0 / total);
}

// ---- §7.5: the ranked list -----------------------------------------------------------

#[test]
fn ties_sort_by_file_then_identifier_descending() {
    // b.py and c.py are symmetric: equal ranks; in each, two symmetric identifiers.
    let repo = Repo::new(&[
        ("a.py", false, "ref:p ref:q ref:r ref:s"),
        ("b.py", false, "def:p def:q"),
        ("c.py", false, "def:r def:s"),
    ]);
    let ranking = rank(&repo.request(), &RankConfig::default());
    let keys: Vec<(&str, &str)> = ranking
        .definition_ranks()
        .map(|d| (d.rel_fname, d.ident))
        .collect();
    assert_eq!(
        keys,
        [("c.py", "s"), ("c.py", "r"), ("b.py", "q"), ("b.py", "p")]
    );
    let l = listed(&ranking);
    assert_eq!(
        &l[..4],
        [
            (Stage::Definition, "c.py", Some("s")),
            (Stage::Definition, "c.py", Some("r")),
            (Stage::Definition, "b.py", Some("q")),
            (Stage::Definition, "b.py", Some("p")),
        ]
    );
    assert_eq!(l[4], (Stage::GraphFile, "a.py", None));
}

#[test]
fn stages_in_order() {
    let repo = Repo::new(&[
        ("chat.py", true, "def:c ref:x ref:y"),
        ("lib.py", false, "def:x def:x2 ref:x2"),
        ("caller.py", false, "ref:x"),
        ("y.py", false, "def:y"),
        ("empty.py", false, ""),
    ]);
    let mut req = repo.request();
    req.other_rel_fnames
        .extend(["zz_missing.py", "aa_missing.py", "empty.py"]);
    let ranking = rank(&req, &RankConfig::with_dialect(Dialect::Aider));
    let l = listed(&ranking);
    let stages: Vec<Stage> = l.iter().map(|e| e.0).collect();
    assert!(stages.windows(2).all(|w| w[0] <= w[1]), "{l:?}");
    // Stage 1: no chat-file definitions; the two (file, ident) groups by rank.
    let defs: Vec<&str> = l
        .iter()
        .filter(|e| e.0 == Stage::Definition)
        .map(|e| e.1)
        .collect();
    assert!(!defs.contains(&"chat.py"));
    assert!(defs.contains(&"lib.py") && defs.contains(&"y.py"));
    // Stage 2: graph files without definition entries — the chat file included, as Aider.
    let graph: Vec<&str> = l
        .iter()
        .filter(|e| e.0 == Stage::GraphFile)
        .map(|e| e.1)
        .collect();
    let mut expected_graph = vec!["chat.py", "caller.py"];
    expected_graph.sort_by(|a, b| {
        ranking.file_ranks[b]
            .total_cmp(&ranking.file_ranks[a])
            .then(b.cmp(a))
    });
    assert_eq!(graph, expected_graph);
    // Stage 3: other files outside the graph, sorted, once each.
    let rest: Vec<&str> = l
        .iter()
        .filter(|e| e.0 == Stage::OtherFile)
        .map(|e| e.1)
        .collect();
    assert_eq!(rest, ["aa_missing.py", "empty.py", "zz_missing.py"]);
    assert!(ranking.stage(Stage::OtherFile).all(|e| e.rank().is_none()));
}

#[test]
fn definition_entries_carry_their_tags_by_line() {
    let repo = Repo::new(&[
        ("a.py", false, "ref:f"),
        ("b.py", false, "def:f ref:g def:f def:g"),
    ]);
    let ranking = rank(&repo.request(), &RankConfig::default());
    let f_lines: Vec<i32> = ranking
        .entries
        .iter()
        .filter_map(|e| e.tag())
        .filter(|t| t.name == "f")
        .map(|t| t.line)
        .collect();
    assert_eq!(f_lines, [1, 3]);
    for e in &ranking.entries {
        if let RankedItem::Def { tag, rank } = e.item {
            let d = ranking
                .definition_ranks()
                .find(|d| d.rel_fname == &*tag.rel_fname && d.ident == tag.name);
            assert_eq!(Some(rank), d.map(|d| d.rank));
        }
    }
}

#[test]
fn exclude_unranked_drops_low_bare_files() {
    let mut spec: Vec<(String, bool, String)> = vec![
        ("hub.py".into(), false, "def:h".into()),
        ("README.md".into(), false, String::new()),
    ];
    // Referencers nobody points at, personalization on the hub only: their PageRank is 0.
    for i in 0..30 {
        spec.push((format!("r{i:02}.py"), false, "ref:h".into()));
    }
    let spec_ref: Vec<(&str, bool, &str)> = spec
        .iter()
        .map(|(a, b, c)| (a.as_str(), *b, c.as_str()))
        .collect();
    let repo = Repo::new(&spec_ref);
    let mut req = repo.request();
    req.mentioned_fnames.insert("hub.py");
    let keep = rank(&req, &RankConfig::with_dialect(Dialect::Aider));
    assert_eq!(keep.stage(Stage::GraphFile).count(), 30);
    assert_eq!(keep.file_ranks["r00.py"], 0.0);
    assert!(
        keep.stage(Stage::Important).next().is_none(),
        "Aider: README.md is already listed"
    );
    let mut config = RankConfig::with_dialect(Dialect::Aider);
    config.params.exclude_unranked = true;
    let drop = rank(&req, &config);
    assert_eq!(drop.stage(Stage::GraphFile).count(), 0);
    assert_eq!(drop.stage(Stage::OtherFile).count(), 0);
    assert_eq!(drop.stage(Stage::Definition).count(), 1);
    // README.md, dropped from stage 3, comes back as an important file (Aider's stage 0).
    let front: Vec<&str> = drop
        .stage(Stage::Important)
        .map(|e| e.rel_fname())
        .collect();
    assert_eq!(front, ["README.md"]);
    // Files above the threshold stay.
    let mut req = repo.request();
    req.mentioned_fnames.insert("r07.py");
    let some = rank(&req, &config);
    let graph: Vec<&str> = some
        .stage(Stage::GraphFile)
        .map(|e| e.rel_fname())
        .collect();
    assert_eq!(graph, ["r07.py"]);
}

// ---- §8: important files -------------------------------------------------------------

#[test]
fn important_files_by_dialect() {
    let repo = Repo::new(&[
        ("setup.py", false, "def:setup_it ref:helper"),
        ("lib.py", false, "def:helper ref:setup_it"),
        ("Makefile", false, ""),
    ]);
    let mut req = repo.request();
    req.other_rel_fnames
        .extend([".github/workflows/ci.yml", "README.md", "docs/README.md"]);
    // Aider: every other file is already in stage 1, 2 or 3, so nothing is prepended.
    let aider = rank(&req, &RankConfig::with_dialect(Dialect::Aider));
    assert!(aider.stage(Stage::Important).next().is_none());
    // Default: important files without definitions move to the front, in path order.
    let default = rank(&req, &RankConfig::default());
    let l = listed(&default);
    assert_eq!(
        &l[..2],
        [
            (Stage::Important, ".github/workflows/ci.yml", None),
            (Stage::Important, "README.md", None)
        ]
    );
    assert_eq!(l.iter().filter(|e| e.1 == "README.md").count(), 1);
    // setup.py keeps its definition entries; docs/README.md is not a root file.
    assert!(
        l.iter()
            .any(|e| e.1 == "setup.py" && e.0 == Stage::Definition)
    );
    assert!(
        l.iter()
            .any(|e| e.1 == "docs/README.md" && e.0 == Stage::OtherFile)
    );
    assert_eq!(aider.entries.len(), default.entries.len());
}

// ---- the default profile's departures (Relevance) ---------------------------------------

/// Files in list order, each once.
fn file_order<'a>(ranking: &Ranking<'a>) -> Vec<&'a str> {
    let mut seen = std::collections::HashSet::new();
    ranking
        .entries
        .iter()
        .map(|e| e.rel_fname())
        .filter(|f| seen.insert(*f))
        .collect()
}

/// One departure on, the others as the SPEC has them.
fn only(set: impl FnOnce(&mut Relevance)) -> RankConfig {
    let mut config = RankConfig::default();
    set(&mut config.relevance);
    config
}

/// Three definers referenced by `app.py`, `src/billing.py` least: the message names it.
fn lookalikes() -> Repo {
    Repo::new(&[
        (
            "app.py",
            false,
            "ref:Parser ref:Parser ref:Invoice ref:Cache ref:Cache",
        ),
        ("src/parse.py", false, "def:Parser"),
        ("src/billing.py", false, "def:Invoice ref:Cache"),
        ("src/store.py", false, "def:Cache"),
    ])
}

#[test]
fn the_message_words_lift_the_files_whose_path_or_names_match() {
    let repo = lookalikes();
    let terms = query_terms("Invoice lines are rounded twice");
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    let spec = rank(&req, &RankConfig::default());
    assert_ne!(
        file_order(&spec)[0],
        "src/billing.py",
        "the SPEC reads no message"
    );
    let boosted = rank(&req, &only(|r| r.lexical_boost = 10.0));
    assert_eq!(file_order(&boosted)[0], "src/billing.py");
    // No message: the same ranking as the SPEC's.
    let plain = rank(&repo.request(), &only(|r| *r = Relevance::MEASURED));
    assert_eq!(
        listed(&plain),
        listed(&rank(&repo.request(), &RankConfig::default()))
    );
}

/// Issue 45 (D13, behaviour.md §7.5.11): in the full-text score a word counts as often
/// as the message has it.
#[test]
fn a_word_the_message_repeats_weighs_its_count() {
    let repo = Repo::new(&[
        ("src/alpha.py", false, "def:Alpha"),
        ("src/beta.py", false, "def:Beta"),
        ("app.py", false, "ref:Alpha ref:Beta"),
    ]);
    let order_for = |message: &str| -> Vec<String> {
        let counts = query_term_counts(message);
        let mut req = repo.request();
        req.query = counts.iter().map(|(t, _)| t.as_str()).collect();
        req.query_counts = counts.iter().map(|&(_, n)| n).collect();
        let ranking = rank(&req, &only(|r| *r = Relevance::MEASURED));
        file_order(&ranking)
            .into_iter()
            .map(str::to_owned)
            .collect()
    };
    let place = |order: &[String], f: &str| order.iter().position(|x| x == f).unwrap();
    let beta = order_for("alpha beta beta beta");
    assert!(
        place(&beta, "src/beta.py") < place(&beta, "src/alpha.py"),
        "{beta:?}"
    );
    let alpha = order_for("alpha alpha alpha beta");
    assert!(
        place(&alpha, "src/alpha.py") < place(&alpha, "src/beta.py"),
        "{alpha:?}"
    );
}

/// Issue 45 (behaviour.md §7.5.11): with `clue_weight` (0.5 in the measured ranking),
/// the file that defines a symbol the text names joins the fusion ahead of a
/// better-referenced one; at 0, the clues are not read.
#[test]
fn a_named_symbol_lifts_its_definer_when_clues_are_read() {
    let repo = Repo::new(&[
        (
            "app.py",
            false,
            "ref:Table ref:Table ref:Cache ref:Cache ref:Cache",
        ),
        ("src/tables.py", false, "def:Table"),
        ("src/store.py", false, "def:Cache"),
    ]);
    let clues = Clues::of("It crashes when a `Table` is empty");
    let mut req = repo.request();
    req.clues = Some(&clues);
    let off = rank(
        &req,
        &only(|r| {
            *r = Relevance::MEASURED;
            r.clue_weight = 0.0;
        }),
    );
    assert_eq!(file_order(&off)[0], "src/store.py");
    let on = rank(&req, &only(|r| *r = Relevance::MEASURED));
    assert_eq!(file_order(&on)[0], "src/tables.py");
}

/// The text of each file, by its index in the request.
struct Texts(Vec<&'static str>);

impl repo_mapper_rank::Sources for Texts {
    fn text(&self, file: usize) -> Option<String> {
        self.0.get(file).map(|t| (*t).to_owned())
    }
}

/// Issue 45 (D18, behaviour.md §7.5.15): in a file the fused order puts first, the
/// definition whose text holds the message's words rises to just below the file's
/// first (its floor is `body_boost` × the file's fused score), ahead of the ones the
/// graph prefers; in the measured ranking only, and only when the text can be read.
#[test]
fn a_definition_whose_text_holds_the_message_rises_in_its_file() {
    let repo = Repo::new(&[
        (
            "app.py",
            false,
            "ref:total ref:total ref:total ref:total ref:total ref:total ref:split ref:carry",
        ),
        ("src/money.py", false, "def:total def:split def:carry"),
    ]);
    let texts = Texts(vec![
        "total()\n",
        "def total(items):\ndef split(items):\ndef carry(cents):\n    # the cents lost in rounding\n",
    ]);
    let terms = query_terms("The cents are lost when rounding money");
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    let defs = |ranking: &Ranking<'_>| -> Vec<String> {
        ranking
            .entries
            .iter()
            .filter(|e| e.stage == Stage::Definition && e.rel_fname() == "src/money.py")
            .filter_map(|e| e.tag().map(|t| t.name.clone()))
            .collect()
    };
    let measured = only(|r| *r = Relevance::MEASURED);
    let graph_order = ["total", "split", "carry"];
    assert_eq!(defs(&rank(&req, &measured)), graph_order);
    req.sources = Some(&texts);
    assert_eq!(defs(&rank(&req, &measured)), ["total", "carry", "split"]);
    let off = only(|r| {
        *r = Relevance::MEASURED;
        r.body_boost = 0.0;
    });
    assert_eq!(defs(&rank(&req, &off)), graph_order);
    assert_eq!(defs(&rank(&req, &RankConfig::default())), graph_order);
}

/// Issue 45 (D19, behaviour.md §7.5.15): with `passage_weight`, the files read are
/// ordered by their best definition's text score, one more order of the fusion: a file
/// whose code is about the message passes one the graph prefers — for a message of at
/// least `passage_min_terms` words.
#[test]
fn a_file_whose_code_is_about_the_message_rises_with_passages() {
    let repo = Repo::new(&[
        ("app.py", false, "ref:alpha ref:alpha ref:alpha ref:beta"),
        ("src/a.py", false, "def:alpha"),
        ("src/b.py", false, "def:beta"),
    ]);
    let texts = Texts(vec![
        "alpha()\n",
        "def alpha():\n    return 1\n",
        "def beta():\n    # the cents lost in rounding\n",
    ]);
    let terms = query_terms("The cents are lost when rounding money");
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    req.sources = Some(&texts);
    let with = |weight: f64, min_terms: usize| {
        only(|r| {
            *r = Relevance::MEASURED;
            r.passage_weight = weight;
            r.passage_min_terms = min_terms;
        })
    };
    assert_eq!(file_order(&rank(&req, &with(0.0, 0)))[0], "src/a.py");
    assert_eq!(file_order(&rank(&req, &with(2.0, 0)))[0], "src/b.py");
    // A message of fewer words than `passage_min_terms` (the default profile's) is not
    // read for it.
    assert!(terms.len() < Relevance::MEASURED.passage_min_terms);
    assert_eq!(
        file_order(&rank(&req, &with(2.0, terms.len() + 1)))[0],
        "src/a.py"
    );
    let measured = only(|r| *r = Relevance::MEASURED);
    assert_eq!(file_order(&rank(&req, &measured))[0], "src/a.py");
    req.sources = None;
    assert_eq!(file_order(&rank(&req, &with(2.0, 0)))[0], "src/a.py");
}

/// Issue 24 (D12, behaviour.md §7.5.10): a file the tags say nothing of (no definitions)
/// whose path matches the message is listed bare among the definitions, where its fused
/// score falls, in the measured ranking only; the others leave it to stage 2.
#[test]
fn a_matching_file_without_definitions_is_listed_where_it_matches() {
    let mut repo = lookalikes();
    repo.files.push((
        "src/invoice_rounding.py".to_owned(),
        false,
        vec![tag("src/invoice_rounding.py", 1, "Cache", TagKind::Ref)],
    ));
    // Given twice: ranked once, as its first copy.
    repo.files.push(repo.files.last().unwrap().clone());
    // No definitions, no references to any: outside the graph, stage 3's but for D12.
    repo.files.push((
        "tools/invoice_lines.py".to_owned(),
        false,
        vec![tag("tools/invoice_lines.py", 1, "print", TagKind::Ref)],
    ));
    let terms = query_terms("Invoice lines are rounded twice");
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    let measured = rank(&req, &only(|r| *r = Relevance::MEASURED));
    let stage_of = |ranking: &Ranking<'_>| {
        let e = ranking
            .entries
            .iter()
            .position(|e| e.rel_fname() == "src/invoice_rounding.py")
            .expect("listed");
        (e, ranking.entries[e].stage)
    };
    let (at, stage) = stage_of(&measured);
    assert_eq!(stage, Stage::Matched);
    let last_def = measured
        .entries
        .iter()
        .rposition(|e| e.stage == Stage::Definition)
        .unwrap();
    assert!(at < last_def, "{:?}", listed(&measured));
    assert_eq!(
        measured
            .entries
            .iter()
            .filter(|e| e.rel_fname() == "src/invoice_rounding.py")
            .count(),
        1
    );
    assert_eq!(
        stage_of(&rank(&req, &RankConfig::default())).1,
        Stage::GraphFile
    );
    // Each file once, whether in the graph or not.
    for f in ["src/invoice_rounding.py", "tools/invoice_lines.py"] {
        let entries: Vec<Stage> = measured
            .entries
            .iter()
            .filter(|e| e.rel_fname() == f)
            .map(|e| e.stage)
            .collect();
        assert_eq!(entries, [Stage::Matched], "{f}");
    }
    // Without a message nothing is fused: stage 2 as in the SPEC.
    let mut plain = repo.request();
    plain.query.clear();
    assert_eq!(
        stage_of(&rank(&plain, &only(|r| *r = Relevance::MEASURED))).1,
        Stage::GraphFile
    );
}

#[test]
fn files_that_changed_with_the_chat_files_rise_in_the_fused_order() {
    let repo = lookalikes();
    // `app.py` in the chat.
    let chat_request = || {
        let mut req = repo.request();
        req.files[0] = req.files[0].with_chat(true);
        req.other_rel_fnames.retain(|f| *f != "app.py");
        req
    };
    let config = only(|r| *r = Relevance::MEASURED);
    let without = file_order(&rank(&chat_request(), &config));
    let place = |order: &[&str]| order.iter().position(|f| *f == "src/billing.py");
    let before = place(&without).expect("listed");
    let mut req = chat_request();
    // `src/billing.py` changed in most of the commits that changed `app.py`.
    req.co_change = vec![0.0, 0.0, 2.0, 0.0];
    let after = place(&file_order(&rank(&req, &config))).expect("listed");
    assert!(after < before, "{after} < {before}: {without:?}");
    // Off in the SPEC's ranking, and a list that is not one score per file is not read.
    assert_eq!(
        file_order(&rank(&req, &RankConfig::default())),
        file_order(&rank(&chat_request(), &RankConfig::default()))
    );
    req.co_change = vec![2.0];
    assert_eq!(file_order(&rank(&req, &config)), without);
}

#[test]
fn the_aider_dialect_ignores_the_departures() {
    let repo = lookalikes();
    let terms = query_terms("Invoice lines");
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    let mut config = RankConfig::with_dialect(Dialect::Aider);
    config.relevance = Relevance::MEASURED;
    assert_eq!(
        listed(&rank(&req, &config)),
        listed(&rank(&req, &RankConfig::with_dialect(Dialect::Aider)))
    );
}

#[test]
fn tests_and_docs_are_down_weighted_unless_mentioned() {
    let repo = Repo::new(&[
        ("app.py", false, "ref:check_a ref:check_b"),
        ("tests/test_a.py", false, "def:check_a"),
        ("src/b.py", false, "def:check_b"),
    ]);
    let spec = rank(&repo.request(), &RankConfig::default());
    assert_eq!(
        file_order(&spec)[0],
        "tests/test_a.py",
        "name order breaks the tie"
    );
    let config = only(|r| r.test_factor = 0.25);
    assert_eq!(file_order(&rank(&repo.request(), &config))[0], "src/b.py");
    let mut req = repo.request();
    req.mentioned_fnames.insert("tests/test_a.py");
    assert_eq!(file_order(&rank(&req, &config))[0], "tests/test_a.py");
}

#[test]
fn breadth_lets_other_files_in_before_a_files_lesser_definitions() {
    let repo = Repo::new(&[
        (
            "app.py",
            false,
            "ref:a1 ref:a1 ref:a1 ref:a2 ref:a2 ref:a2 ref:a3 ref:a3 ref:a3 ref:b ref:b",
        ),
        ("x.py", false, "def:a1 def:a2 def:a3"),
        ("y.py", false, "def:b"),
    ]);
    let files = |r: &Ranking<'_>| -> Vec<String> {
        listed(r).iter().take(4).map(|e| e.1.to_owned()).collect()
    };
    let spec = rank(&repo.request(), &RankConfig::default());
    assert_eq!(files(&spec), ["x.py", "x.py", "x.py", "y.py"]);
    let wide = rank(&repo.request(), &only(|r| r.breadth = 0.5));
    assert_eq!(files(&wide), ["x.py", "y.py", "x.py", "x.py"]);
}

#[test]
fn callers_of_the_chat_files_definitions_are_lifted() {
    let repo = Repo::new(&[
        (
            "lib.py",
            true,
            "def:helper ref:run_other ref:run_other ref:run_user",
        ),
        ("user.py", false, "def:run_user ref:helper"),
        ("other.py", false, "def:run_other"),
    ]);
    let spec = rank(&repo.request(), &RankConfig::default());
    assert_eq!(file_order(&spec)[0], "other.py");
    let boosted = rank(&repo.request(), &only(|r| r.caller_boost = 10.0));
    assert_eq!(file_order(&boosted)[0], "user.py");
}

#[test]
fn important_files_stay_where_they_rank_unless_first_is_asked() {
    let repo = Repo::new(&[
        ("lib.py", false, "def:helper"),
        ("main.py", false, "ref:helper"),
    ]);
    let mut req = repo.request();
    req.other_rel_fnames.push("README.md");
    let spec = rank(&req, &RankConfig::default());
    assert_eq!(file_order(&spec)[0], "README.md");
    let ranked = rank(&req, &only(|r| r.important_first = false));
    assert_eq!(file_order(&ranked), ["lib.py", "main.py", "README.md"]);
}

// ---- edge cases ----------------------------------------------------------------------

#[test]
fn no_tags_anywhere_lists_the_files() {
    let repo = Repo::new(&[("b.txt", false, ""), ("a.txt", false, "")]);
    let ranking = rank(&repo.request(), &RankConfig::default());
    assert_eq!(ranking.pagerank.outcome, PageRankOutcome::EmptyGraph);
    assert_eq!(
        listed(&ranking),
        [
            (Stage::OtherFile, "a.txt", None),
            (Stage::OtherFile, "b.txt", None)
        ]
    );
    let empty = rank(&RankRequest::default(), &RankConfig::default());
    assert!(empty.entries.is_empty());
}

#[test]
fn a_file_given_twice_is_used_once() {
    let repo = Repo::new(&[
        ("a.py", false, "def:x"),
        ("a.py", false, "def:y"),
        ("b.py", false, "ref:x ref:y"),
    ]);
    let (ranking, warns) = warnings(|| rank(&repo.request(), &RankConfig::default()));
    assert_eq!(warns.len(), 1);
    assert!(ranking.definition_ranks().all(|d| d.ident == "x"));
}

// ---- properties ----------------------------------------------------------------------

fn arb_repo() -> impl Strategy<Value = Vec<(bool, Vec<(bool, u8)>)>> {
    // Up to 12 files; each a chat flag and tags (def?, identifier 0..10).
    proptest::collection::vec(
        (
            proptest::bool::weighted(0.2),
            proptest::collection::vec((any::<bool>(), 0u8..10), 0..12),
        ),
        0..12,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn ranking_invariants(
        repo in arb_repo(),
        mentioned in proptest::collection::vec(0u8..12, 0..3),
        dialect in prop_oneof![Just(Dialect::Default), Just(Dialect::Aider)],
        exclude in any::<bool>(),
    ) {
        let names: Vec<String> = (0..repo.len()).map(|i| format!("f{i}.py")).collect();
        let idents: Vec<String> = (0..12).map(|i| format!("id_{i}")).collect();
        let tags: Vec<Vec<Tag>> = repo
            .iter()
            .enumerate()
            .map(|(i, (_, ts))| {
                ts.iter()
                    .enumerate()
                    .map(|(l, &(d, id))| {
                        let kind = if d { TagKind::Def } else { TagKind::Ref };
                        tag(&names[i], l as i32 + 1, &idents[id as usize], kind)
                    })
                    .collect()
            })
            .collect();
        let files = repo
            .iter()
            .enumerate()
            .map(|(i, (chat, _))| FileTags::new(&names[i], &tags[i]).with_chat(*chat))
            .collect();
        let mut req = RankRequest::new(files, 0);
        req.other_rel_fnames = repo.iter().enumerate().filter(|(_, f)| !f.0).map(|(i, _)| names[i].as_str()).collect();
        for m in &mentioned {
            req.mentioned_idents.insert(&idents[*m as usize]);
        }
        let mut config = RankConfig::with_dialect(dialect);
        config.params.exclude_unranked = exclude;
        let ranking = rank(&req, &config);

        // PageRank: a distribution, no NaN.
        if !ranking.nodes.is_empty() {
            let sum: f64 = ranking.file_ranks.values().sum();
            prop_assert!((sum - 1.0).abs() < 1e-9, "sum {}", sum);
        }
        prop_assert!(ranking.file_ranks.values().all(|r| r.is_finite() && *r >= 0.0));
        prop_assert!(ranking.definition_ranks().all(|d| d.rank.is_finite() && d.rank >= 0.0));
        // Definition ranks sorted as Aider sorts them.
        let defs: Vec<_> = ranking.definition_ranks().collect();
        for w in defs.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            prop_assert!((a.rank, a.rel_fname, a.ident) > (b.rank, b.rel_fname, b.ident));
        }
        // Stages in order; no chat file has definition entries.
        let stages: Vec<Stage> = ranking.entries.iter().map(|e| e.stage).collect();
        prop_assert!(stages.windows(2).all(|w| w[0] <= w[1]));
        for e in ranking.stage(Stage::Definition) {
            let i = names.iter().position(|n| n == e.rel_fname()).unwrap();
            prop_assert!(!repo[i].0);
        }
        // Without exclude_unranked, every other file is listed; bare entries are unique.
        let mut bare: Vec<&str> = ranking.entries.iter().filter(|e| e.is_file()).map(|e| e.rel_fname()).collect();
        let n_bare = bare.len();
        bare.sort_unstable();
        bare.dedup();
        prop_assert_eq!(bare.len(), n_bare);
        if !exclude {
            for f in &req.other_rel_fnames {
                prop_assert!(ranking.entries.iter().any(|e| e.rel_fname() == *f));
            }
        }
        // Deterministic.
        let again = rank(&req, &config);
        prop_assert_eq!(&again.entries, &ranking.entries);
    }
}

/// Issue 45 (behaviour.md §7.5.12): when nothing steers the ranking, a name three files
/// define ranks by a third of its share, so a name one file defines comes first; a chat
/// file or a message's words leave the shares as they are.
#[test]
fn a_name_many_files_define_weighs_less_when_nothing_steers() {
    let spec = |chat: bool| {
        Repo::new(&[
            (
                "app.py",
                chat,
                "ref:is_empty ref:is_empty ref:is_empty ref:parse_rows",
            ),
            ("src/a.py", false, "def:is_empty def:parse_rows"),
            ("src/b.py", false, "def:is_empty"),
            ("src/c.py", false, "def:is_empty"),
        ])
    };
    let first_definition = |repo: &Repo, query: &[&str], relevance: Relevance| {
        let mut req = repo.request();
        req.query = query.to_vec();
        let ranking = rank(&req, &only(|r| *r = relevance));
        listed(&ranking)
            .into_iter()
            .find_map(|(_, _, name)| name.map(str::to_owned))
            .unwrap()
    };
    let unsteered = spec(false);
    assert_eq!(
        first_definition(&unsteered, &[], Relevance::SPEC),
        "is_empty"
    );
    assert_eq!(
        first_definition(&unsteered, &[], Relevance::MEASURED),
        "parse_rows"
    );
    let mut off = Relevance::MEASURED;
    off.specific_unsteered = false;
    assert_eq!(first_definition(&unsteered, &[], off), "is_empty");
    let chat = spec(true);
    assert_eq!(
        first_definition(&chat, &[], Relevance::MEASURED),
        "is_empty"
    );
}

/// Issue 45 (behaviour.md §7.5.14): `Ranking::whys` names what placed a file — the
/// message's words for the file they match, the clues for the definer of a named
/// symbol — and nothing for a file no signal points at, or in the SPEC's ranking.
#[test]
fn the_ranking_says_which_signals_placed_each_file() {
    let repo = lookalikes();
    // The helper's files carry no text: the words match paths.
    let message = "Billing rounds invoice lines twice in `Parser`";
    let terms = query_terms(message);
    let clues = Clues::of(message);
    let mut req = repo.request();
    req.query = terms.iter().map(String::as_str).collect();
    req.clues = Some(&clues);
    let measured = rank(&req, &only(|r| *r = Relevance::MEASURED));
    let whys: HashMap<&str, Why> = measured.whys().collect();
    let billing = whys["src/billing.py"];
    assert_eq!(billing.lexical, 1.0);
    assert_eq!(billing.graph, measured.file_rank("src/billing.py").unwrap());
    let parse = whys["src/parse.py"];
    assert_eq!(parse.clue, 1.0);
    assert!(!whys.contains_key("src/store.py"), "{whys:?}");
    let spec = rank(&req, &RankConfig::default());
    assert_eq!(spec.whys().count(), 0);
}
