//! The soak's requests: `repo_map` with chat files, mentions, a message, a budget and a
//! profile drawn at random (and often the last request again, unchanged, as an agent
//! asks after an edit), and now and then `search_identifiers`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::case::Step;
use super::rng::Rng;
use super::tree::{ident_pool, mapped};

/// The profiles a request names (or none: the tool's default).
const PROFILES: [&str; 3] = ["default", "spec", "aider"];

/// Draws requests; remembers the last map request to repeat it.
#[derive(Debug, Default)]
pub(crate) struct Requests {
    last_map: Option<Step>,
}

impl Requests {
    /// The next request, and whether it repeats the last map request (which it does
    /// only when `edited` says its root was edited since).
    pub(super) fn next(
        &mut self,
        rng: &mut Rng,
        roots: &[PathBuf],
        edited: impl Fn(usize) -> bool,
    ) -> (Step, bool) {
        if let Some(last) = self.last_map.clone().filter(|l| still_there(l, roots))
            && edited(last.root())
            && rng.percent(35)
        {
            return (last, true);
        }
        let root = if roots.len() > 1 && rng.percent(20) {
            1
        } else {
            0
        };
        let files = mapped(&roots[root]);
        let pool = ident_pool(rng, &roots[root], &files);
        if rng.percent(12)
            && let Some(query) = rng.pick(&pool).cloned()
        {
            return (search(rng, root, &query), false);
        }
        let step = Step::Map {
            root,
            args: map_args(rng, &files, &pool),
            check: true,
        };
        self.last_map = Some(step.clone());
        (step, false)
    }
}

/// Whether the files a map request names still exist.
fn still_there(step: &Step, roots: &[PathBuf]) -> bool {
    let Step::Map { root, args, .. } = step else {
        return false;
    };
    ["chat_files", "mentioned_files"].iter().all(|key| {
        let names = args[key].as_array().cloned().unwrap_or_default();
        names
            .iter()
            .filter_map(Value::as_str)
            .all(|f| roots[*root].join(f).is_file())
    })
}

/// The arguments of a `repo_map` call.
fn map_args(rng: &mut Rng, files: &[String], pool: &[String]) -> Value {
    let mut args = json!({ "token_limit": rng.between(256, 4096) });
    let chats = [0, 0, 1, 1, 1, 1, 2, 2, 3][rng.below(9)];
    let chat: BTreeSet<&String> = (0..chats).filter_map(|_| rng.pick(files)).collect();
    if !chat.is_empty() {
        args["chat_files"] = json!(chat);
    }
    if rng.percent(40) {
        let idents: BTreeSet<&String> = (0..rng.between(1, 3))
            .filter_map(|_| rng.pick(pool))
            .collect();
        args["mentioned_idents"] = json!(idents);
    }
    if rng.percent(15)
        && let Some(f) = rng.pick(files)
    {
        args["mentioned_files"] = json!([f]);
    }
    if rng.percent(30) {
        args["message"] = json!(message(rng, files, pool));
    }
    if rng.percent(75) {
        args["profile"] = json!(PROFILES[rng.below(PROFILES.len())]);
    }
    if rng.percent(10) {
        args["exclude_unranked"] = json!(true);
    }
    args
}

/// A user's message naming an identifier and a file of the repository.
fn message(rng: &mut Rng, files: &[String], pool: &[String]) -> String {
    let ident = rng.pick(pool).map_or("main", String::as_str);
    let file = rng
        .pick(files)
        .and_then(|f| f.rsplit('/').next())
        .unwrap_or("README.md");
    match rng.below(4) {
        0 => format!("Why does {ident} fail in {file}?"),
        1 => format!("Rename {ident} and update its callers"),
        2 => format!("Add a test for {file}"),
        _ => format!("Where is {ident} used? It changed in {file}."),
    }
}

/// A `search_identifiers` call for `query` or a part of it.
fn search(rng: &mut Rng, root: usize, query: &str) -> Step {
    let query = if rng.percent(40) && query.len() > 4 {
        &query[..rng.between(3, query.len() - 1)]
    } else {
        query
    };
    let mut args = json!({
        "query": query,
        "max_results": rng.between(5, 60),
        "context_lines": rng.below(4),
    });
    if rng.percent(20) {
        args["include_references"] = json!(false);
    }
    Step::Search {
        root,
        args,
        check: true,
    }
}
