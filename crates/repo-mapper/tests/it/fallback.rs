//! Aider's progressive fallback (`Coder.get_repo_map`), one test per attempt, and the
//! mentions a message adds to a request.

use std::path::{Path, PathBuf};

use repo_mapper::{
    Attempt, CacheLocation, Config, MapRequest, NoMap, Profile, RepoMap, list_files,
};

/// `a.py` defines `f`, which `c.py` calls three times; `b.py` defines one function whose
/// signature is too long for a budget of 15 tokens, while `a.py`'s fits.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let long = format!("g_{}", "x".repeat(90));
    let files = [
        ("a.py", "def f():\n    pass\n".to_owned()),
        (
            "b.py",
            format!("def {long}(alpha, beta, gamma, delta, epsilon):\n    pass\n"),
        ),
        ("c.py", "from a import f\nf()\nf()\nf()\n".to_owned()),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn session(root: &Path, budget: usize) -> RepoMap {
    let mut config = Config::new(root);
    config.cache = CacheLocation::Memory;
    config.map_tokens = budget;
    RepoMap::new(config)
}

fn all(root: &Path) -> Vec<PathBuf> {
    list_files(root, None)
}

#[test]
fn attempt_1_is_the_request_when_it_makes_a_map() {
    let dir = repo();
    let mut map = session(dir.path(), 1024);
    let out = map
        .map_with_fallback(&MapRequest::new(all(dir.path())))
        .unwrap();
    assert_eq!(out.attempt, Attempt::Requested);
    let plain = map.map(&MapRequest::new(all(dir.path()))).unwrap();
    assert_eq!(out.text, plain.text);
}

#[test]
fn attempt_2_maps_every_file_when_all_are_in_the_chat() {
    let dir = repo();
    let mut map = session(dir.path(), 1024);
    let request = MapRequest::new(vec![]).with_chat_files(all(dir.path()));
    assert_eq!(map.map(&request), Err(NoMap::NoFiles));
    let out = map.map_with_fallback(&request).unwrap();
    assert_eq!(out.attempt, Attempt::NoChatFiles);
    assert!(
        out.text.contains("a.py:") && out.text.contains("\nc.py\n"),
        "{}",
        out.text
    );
}

#[test]
fn attempt_3_drops_the_mentions_that_emptied_the_map() {
    let dir = repo();
    let mut map = session(dir.path(), 15);
    let files = all(dir.path());
    let mentions = map.mentions(&MapRequest::new(files.clone()), "fix b.py");
    assert_eq!(mentions.files.iter().collect::<Vec<_>>(), ["b.py"]);
    let request = MapRequest::new(files).with_mentioned_files(mentions.files);
    assert!(matches!(map.map(&request), Err(NoMap::NothingFits { .. })));
    let out = map.map_with_fallback(&request).unwrap();
    assert_eq!(out.attempt, Attempt::Unhinted);
    assert_eq!(out.text, "\na.py:\n│def f():\n⋮\n");
}

#[test]
fn with_no_attempt_left_the_last_reason_is_returned() {
    let dir = repo();
    let request = MapRequest::new(all(dir.path())).with_mentioned_idents(["f".to_owned()]);
    let err = session(dir.path(), 8)
        .map_with_fallback(&request)
        .unwrap_err();
    assert!(
        matches!(err, NoMap::NothingFits { budget: 8, .. }),
        "{err:?}"
    );
    let err = session(dir.path(), 0)
        .map_with_fallback(&request)
        .unwrap_err();
    assert_eq!(err, NoMap::ZeroBudget);
}

#[test]
fn mentions_see_chat_files_relative_to_the_root() {
    let dir = repo();
    let map = session(dir.path(), 1024);
    let files = all(dir.path());
    let chat = vec![dir.path().join("b.py")];
    let request = MapRequest::new(files).with_chat_files(chat);
    // A chat file is not mentioned by its name; identifiers are words of the message.
    let m = map.mentions(&request, "b.py and c.py call f");
    assert_eq!(m.files.iter().collect::<Vec<_>>(), ["c.py"]);
    assert!(m.idents.contains("call") && m.idents.contains("f"));
}

/// Issue 23 (soak case 7-1660): a chat file that is among the other files too (the command
/// passes every file of the walk) is a chat file only, as in Aider, whose other files are
/// all files less the chat files. Untagged, it was a stage-3 entry of the plain `map`
/// (never shown, but counted by Aider's budget search, which then stopped at another
/// prefix) and not of `map_with_fallback` (the MCP tool), whose first attempt takes the
/// chat files out of the candidates.
#[test]
fn a_chat_file_among_the_other_files_is_no_other_file() {
    let dir = repo();
    let root = dir.path();
    std::fs::write(root.join("empty.py"), "").unwrap();
    std::fs::write(root.join("README.md"), "# notes\n").unwrap();
    let chat = vec![root.join("empty.py"), root.join("README.md")];
    for profile in [Profile::Aider, Profile::Default, Profile::Spec] {
        let request = MapRequest::new(all(root)).with_chat_files(chat.clone());
        let listed = |out: &repo_mapper::MapOutput| -> Vec<(String, String)> {
            let entries = out.report.entries.iter();
            entries
                .map(|e| (e.file.clone(), format!("{:?}", e.stage)))
                .collect()
        };
        let mut config = Config::new(root).with_profile(profile);
        config.cache = CacheLocation::Memory;
        let plain = RepoMap::new(config.clone()).map(&request).unwrap();
        let chained = RepoMap::new(config).map_with_fallback(&request).unwrap();
        assert_eq!(chained.attempt, Attempt::Requested);
        let names = listed(&plain);
        assert!(
            names
                .iter()
                .all(|(f, _)| f != "empty.py" && f != "README.md"),
            "{profile:?}: {names:?}"
        );
        assert_eq!(names, listed(&chained), "{profile:?}");
        assert_eq!(plain.text, chained.text, "{profile:?}");
    }
}
