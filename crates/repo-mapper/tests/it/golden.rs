//! Golden maps: the aider profile reproduces, byte for byte, the map the real Aider 0.86.2
//! (with the sqrt fix) produced for the sample repositories, in every scenario where Aider
//! agrees with itself over repeated runs. Expected outputs and the scenario list are in
//! `fixtures/golden/`, written by `tests/gen/gen_golden.py` (see its docstring for why some
//! scenarios are unstable in Aider and are not compared).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use repo_mapper::{CacheLocation, Config, Profile, RepoMap};

fn top() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

#[test]
fn aider_profile_matches_aider_byte_for_byte() {
    let top = top();
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(top.join("fixtures/golden/scenarios.json")).unwrap(),
    )
    .unwrap();
    let mut compared = 0;
    let mut failures = Vec::new();
    for s in index["scenarios"].as_array().unwrap() {
        if !s["stable"].as_bool().unwrap() {
            continue;
        }
        let repo = s["repo"].as_str().unwrap();
        let id = s["id"].as_str().unwrap();
        let root = top.join("fixtures").join(repo);
        let files: Vec<PathBuf> = s["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| root.join(f.as_str().unwrap()))
            .collect();
        let chat: Vec<PathBuf> = s["chat_files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| root.join(f.as_str().unwrap()))
            .collect();
        let idents: BTreeSet<String> = s["mentioned_idents"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i.as_str().unwrap().to_owned())
            .collect();
        let mut config = Config::new(&root);
        config.set_profile(Profile::Aider);
        config.cache = CacheLocation::Memory;
        config.map_tokens = s["max_tokens"].as_u64().unwrap() as usize;
        config.max_context_window = s["max_context_window"].as_u64().map(|w| w as usize);
        let ours = RepoMap::new(config)
            .get_repo_map(&chat, &files, &BTreeSet::new(), &idents, false)
            .unwrap_or_default();
        let expected = std::fs::read_to_string(
            top.join("fixtures/golden")
                .join(repo)
                .join(format!("{id}.txt")),
        )
        .unwrap();
        compared += 1;
        if ours != expected {
            failures.push(format!(
                "{repo}/{id}:\n--- aider\n{expected}\n--- ours\n{ours}"
            ));
        }
    }
    assert!(compared >= 5, "only {compared} stable scenarios");
    assert!(
        failures.is_empty(),
        "{} of {compared} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
