//! The facade's promises: never over budget (default profile), determinism, the SPEC's
//! early exits and the refresh modes of the map cache.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use proptest::prelude::*;
use repo_mapper::{
    CacheLocation, Config, MapRequest, NoMap, Profile, Refresh, RepoMap, Tokenizer, list_files,
};

fn languages() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/languages")
        .canonicalize()
        .unwrap()
}

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sample-repo")
        .canonicalize()
        .unwrap()
}

fn config(root: &Path) -> Config {
    let mut c = Config::new(root);
    c.cache = CacheLocation::Memory;
    c
}

fn none() -> BTreeSet<String> {
    BTreeSet::new()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Default profile: the counted tokens of the map never exceed the budget.
    #[test]
    fn default_profile_is_never_over_budget(
        budget in 1usize..3000,
        picks in proptest::collection::vec(any::<bool>(), 43),
        chat_pick in any::<prop::sample::Index>(),
        use_chat in any::<bool>(),
        with_message in any::<bool>(),
    ) {
        let root = languages();
        let all = list_files(&root, None);
        let files: Vec<PathBuf> =
            all.iter().zip(picks.iter().cycle()).filter(|(_, p)| **p).map(|(f, _)| f.clone()).collect();
        prop_assume!(!files.is_empty());
        let chat = if use_chat { vec![chat_pick.get(&files).clone()] } else { vec![] };
        let mut c = config(&root);
        c.map_tokens = budget;
        let mut map = RepoMap::new(c);
        let mut request = MapRequest::new(files).with_chat_files(chat);
        if with_message {
            // The default profile's lexical ranking reorders the list; the budget holds.
            request = request.with_message("Scheduler tasks run twice: fix the parser's queue");
        }
        if let Ok(out) = map.map(&request) {
            let tokens = Tokenizer::Cl100kBase.count(&out.text);
            prop_assert!(tokens <= budget, "{tokens} tokens for a budget of {budget}");
            prop_assert_eq!(out.report.tokens, Some(tokens as f64));
        }
    }
}

#[test]
fn ten_runs_are_identical_in_files_and_manual_modes() {
    let root = languages();
    let files = list_files(&root, None);
    let chat = vec![root.join("python/scheduler.py")];
    let idents: BTreeSet<String> = ["Scheduler".to_owned()].into();
    for profile in [Profile::Default, Profile::Aider] {
        for refresh in [Refresh::Files, Refresh::Manual] {
            let maps: Vec<Option<String>> = (0..10)
                .map(|_| {
                    let mut c = config(&root);
                    c.set_profile(profile);
                    c.refresh = refresh;
                    c.map_tokens = 2048;
                    RepoMap::new(c).get_repo_map(&chat, &files, &none(), &idents, false)
                })
                .collect();
            assert!(maps[0].is_some());
            assert!(
                maps.iter().all(|m| m == &maps[0]),
                "{profile:?} {refresh:?}"
            );
        }
    }
}

#[test]
fn early_exits() {
    let root = sample();
    let files = list_files(&root, None);
    let mut c = config(&root);
    c.map_tokens = 0;
    assert_eq!(
        RepoMap::new(c).get_repo_map(&[], &files, &none(), &none(), false),
        None
    );
    let mut map = RepoMap::new(config(&root));
    assert_eq!(
        map.get_repo_map(&files, &[], &none(), &none(), false),
        None,
        "no other files"
    );
}

#[test]
fn prefix_gets_other_when_there_are_chat_files() {
    let root = sample();
    let files = list_files(&root, None);
    let mut c = config(&root);
    c.repo_content_prefix = Some("Here are summaries of some {other}files:\n".into());
    let mut map = RepoMap::new(c);
    let without = map
        .get_repo_map(&[], &files, &none(), &none(), true)
        .unwrap();
    assert!(without.starts_with("Here are summaries of some files:\n"));
    let with = map
        .get_repo_map(&files[..1], &files, &none(), &none(), true)
        .unwrap();
    assert!(
        with.starts_with("Here are summaries of some other files:\n"),
        "{with}"
    );
}

#[test]
fn missing_files_are_skipped() {
    let root = sample();
    let mut files = list_files(&root, None);
    files.push(root.join("gone.py"));
    let mut map = RepoMap::new(config(&root));
    let text = map
        .get_repo_map(&[], &files, &none(), &none(), false)
        .unwrap();
    assert!(!text.contains("gone.py"), "{text}");
    // Aider lists it as a bare entry all the same.
    let mut c = config(&root);
    c.set_profile(Profile::Aider);
    c.map_tokens = 4096;
    let text = RepoMap::new(c)
        .get_repo_map(&[], &files, &none(), &none(), false)
        .unwrap();
    assert!(text.contains("\ngone.py\n"), "{text}");
}

#[test]
fn no_chat_files_expand_the_budget_within_the_context_window() {
    let root = sample();
    let files = list_files(&root, None);
    let mut c = config(&root);
    c.max_context_window = Some(16384);
    let mut map = RepoMap::new(c.clone());
    let request = MapRequest::new(files.clone());
    assert_eq!(map.map(&request).unwrap().report.budget, 8192);
    let with_chat = request.clone().with_chat_files(files[..1].to_vec());
    assert_eq!(
        map.map(&with_chat).unwrap().report.budget,
        1024,
        "not with chat files"
    );
    c.max_context_window = Some(4000);
    let mut map = RepoMap::new(c);
    assert_eq!(
        map.map(&request).unwrap().report.budget,
        1024,
        "window below the padding"
    );
}

/// The map cache (behaviour.md §11), observed through whether a file edit shows up.
#[test]
fn refresh_modes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let a = root.join("a.py");
    let b = root.join("b.py");
    std::fs::write(&a, "def alpha():\n    beta()\n").unwrap();
    std::fs::write(&b, "def beta():\n    alpha()\n").unwrap();
    let files = vec![a.clone(), b.clone()];
    let edit = |name: &str| {
        std::fs::write(&b, format!("def {name}():\n    alpha()\n")).unwrap();
        // A different mtime second, so the tag store and render caches see the change.
        let t = std::time::SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&b)
            .unwrap()
            .set_modified(t)
            .unwrap();
    };
    let run = |refresh: Refresh, names: &[&str]| -> Vec<String> {
        edit("beta");
        let mut c = config(&root);
        c.refresh = refresh;
        let mut map = RepoMap::new(c);
        let mut out = Vec::new();
        for name in names {
            edit(name);
            out.push(
                map.get_repo_map(&[], &files, &none(), &none(), false)
                    .unwrap(),
            );
        }
        out
    };
    let has = |maps: &[String], i: usize, name: &str| maps[i].contains(&format!("def {name}()"));

    let m = run(Refresh::Always, &["one", "two"]);
    assert!(has(&m, 0, "one") && has(&m, 1, "two"), "always recomputes");
    let m = run(Refresh::Files, &["one", "two"]);
    assert!(has(&m, 1, "one"), "files: same key, cached map");
    let m = run(Refresh::Manual, &["one", "two"]);
    assert!(has(&m, 1, "one"), "manual: the last map");
    let m = run(Refresh::Auto, &["one", "two"]);
    assert!(has(&m, 1, "two"), "auto: fast maps are recomputed");

    // force_refresh bypasses reads but writes back.
    let mut c = config(&root);
    c.refresh = Refresh::Files;
    let mut map = RepoMap::new(c);
    edit("three");
    map.get_repo_map(&[], &files, &none(), &none(), false);
    edit("four");
    let forced = map
        .get_repo_map(&[], &files, &none(), &none(), true)
        .unwrap();
    assert!(forced.contains("def four()"));
    edit("five");
    let cached = map
        .get_repo_map(&[], &files, &none(), &none(), false)
        .unwrap();
    assert!(
        cached.contains("def four()"),
        "the forced result was written back"
    );

    // Manual returns the last map whatever the input.
    let mut c = config(&root);
    c.refresh = Refresh::Manual;
    let mut map = RepoMap::new(c);
    let first = map
        .get_repo_map(&[], &files, &none(), &none(), false)
        .unwrap();
    let other = map
        .get_repo_map(&[], &files[..1], &none(), &none(), false)
        .unwrap();
    assert_eq!(first, other);
}

#[test]
fn aider_profile_uses_the_estimate_and_may_go_fifteen_percent_over() {
    let root = languages();
    let files = list_files(&root, None);
    for budget in [256usize, 512, 1024, 2048] {
        let mut c = config(&root);
        c.set_profile(Profile::Aider);
        c.map_tokens = budget;
        let mut map = RepoMap::new(c);
        let out = map.map(&MapRequest::new(files.clone())).unwrap();
        let (text, est) = (&out.text, out.report.tokens.unwrap());
        assert_eq!(est, Tokenizer::Cl100kBase.aider_estimate(text));
        assert!(est <= budget as f64 * 1.15, "{est} for {budget}");
    }
}

#[test]
fn no_map_says_why() {
    let root = sample();
    let files = list_files(&root, None);
    let mut c = config(&root);
    c.map_tokens = 0;
    let request = MapRequest::new(files.clone());
    assert_eq!(RepoMap::new(c).map(&request), Err(NoMap::ZeroBudget));
    let mut map = RepoMap::new(config(&root));
    let only_chat = MapRequest::new(vec![]).with_chat_files(files.clone());
    assert_eq!(map.map(&only_chat), Err(NoMap::NoFiles));
    let mut c = config(&root);
    c.map_tokens = 1;
    match RepoMap::new(c).map(&request) {
        Err(NoMap::NothingFits { budget, report }) => {
            assert_eq!(budget, 1);
            assert!(!report.entries.is_empty(), "the ranking is reported");
            assert!(report.entries.iter().all(|e| !e.in_map));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_report_comes_with_the_map_and_says_when_it_was_cached() {
    let root = sample();
    let files = list_files(&root, None);
    let mut c = config(&root);
    c.refresh = Refresh::Files;
    let mut map = RepoMap::new(c);
    let request = MapRequest::new(files);
    let first = map.map(&request).unwrap();
    assert!(!first.from_cache);
    assert!(first.report.elapsed > Duration::ZERO);
    let again = map.map(&request).unwrap();
    assert!(again.from_cache);
    assert_eq!(again.text, first.text);
    assert!(std::sync::Arc::ptr_eq(&again.report, &first.report));
    let forced = map.map(&request.clone().with_force_refresh(true)).unwrap();
    assert!(!forced.from_cache);
}

#[test]
fn without_a_full_report_only_the_maps_entries_are_listed() {
    let root = sample();
    let request = MapRequest::new(list_files(&root, None));
    let mut c = config(&root);
    c.map_tokens = 128;
    let full = RepoMap::new(c.clone()).map(&request).unwrap();
    c.full_report = false;
    let short = RepoMap::new(c).map(&request).unwrap();
    assert_eq!(short.text, full.text);
    let in_map: Vec<_> = full.report.entries.iter().filter(|e| e.in_map).collect();
    assert!(!in_map.is_empty() && in_map.len() < full.report.entries.len());
    assert_eq!(short.report.entries.iter().collect::<Vec<_>>(), in_map);
    assert!(!full.report.file_ranks.is_empty());
    assert!(short.report.file_ranks.is_empty());
}

/// Issue 26: without a full report the default profile ranks only the head of the list
/// its budget can read (`RankRequest::list_limit`), and the map is the same; where the
/// head is used up (definitions that share a line cost one line for all of them), the
/// whole list is ranked again and the map still the same. Every budget, every language.
#[test]
fn a_map_from_the_lists_head_is_the_map_from_the_whole_list() {
    let dir = tempfile::tempdir().unwrap();
    let one_line: String = (0..400).map(|i| format!("function f{i}(){{}} ")).collect();
    std::fs::write(dir.path().join("packed.js"), one_line + "\n").unwrap();
    std::fs::write(dir.path().join("use.js"), "f1(); f2(); f399();\n").unwrap();
    for root in [languages(), sample(), dir.path().to_path_buf()] {
        let files = list_files(&root, None);
        // Without chat files, and with the one whose definitions rank first in the chat
        // (stage 1 leaves them out, so the head must too).
        let first = RepoMap::new(config(&root))
            .map(&MapRequest::new(files.clone()))
            .ok()
            .and_then(|m| m.report.entries.first().map(|e| root.join(&e.file)));
        let requests = [
            MapRequest::new(files.clone()),
            MapRequest::new(files.clone()).with_chat_files(first.into_iter().collect()),
        ];
        for (request, budget) in requests
            .iter()
            .flat_map(|r| [16, 64, 256, 1024, 4096].map(|b| (r, b)))
        {
            let mut c = config(&root);
            c.map_tokens = budget;
            let text = |c: Config| match RepoMap::new(c).map(request) {
                Ok(map) => map.text,
                Err(no_map) => no_map.to_string(), // its report differs: the text says why
            };
            let full = text(c.clone());
            c.full_report = false;
            let head = text(c);
            assert_eq!(head, full, "{} at {budget}", root.display());
        }
    }
}

#[test]
fn anchors_belong_to_the_request() {
    let root = sample();
    let files = list_files(&root, None);
    let mut map = RepoMap::new(config(&root));
    let last = files.last().unwrap().clone();
    let mut anchors = repo_mapper::Anchors::new();
    anchors.files.push(last.clone());
    let anchored = map
        .map(&MapRequest::new(files.clone()).with_anchors(anchors))
        .unwrap();
    let first = &anchored.report.entries[0];
    assert_eq!(first.stage, repo_mapper::Stage::Anchor, "{first:?}");
    let plain = map.map(&MapRequest::new(files)).unwrap();
    assert!(
        plain
            .report
            .entries
            .iter()
            .all(|e| e.stage != repo_mapper::Stage::Anchor),
        "the next request has no anchors"
    );
}
