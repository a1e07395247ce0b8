//! Replays every case of `fixtures/soak-regressions/` (its README defines the format): the
//! roots are made, one warm `repo-mapper mcp` is driven through the Rust SDK's client
//! (rmcp) while the steps edit the roots, and each checked request's answer must equal a
//! fresh one on the same tree: `repo-mapper ROOT --no-cache` for a map, a new server on a
//! hard-linked copy of the root for a search. `cargo xtask soak` saves the cases it finds;
//! `hand-*.json` are written by hand. `REPO_MAPPER_SOAK_BINARY` replays against another
//! build, `REPO_MAPPER_SOAK_CASES` the cases of another directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

type Client = RunningService<RoleClient, ()>;

/// The pause around each request, so that no edit shares a timestamp tick with a scan.
const SETTLE: Duration = Duration::from_millis(20);

/// The operations a case may hold.
const OPS: [&str; 9] = [
    "write", "delete", "rename", "touch", "git_away", "git_back", "map", "search", "wait",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The `repo-mapper` replayed: this build, or `REPO_MAPPER_SOAK_BINARY`.
fn binary() -> PathBuf {
    std::env::var_os("REPO_MAPPER_SOAK_BINARY").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_repo-mapper")),
        PathBuf::from,
    )
}

/// Every case, by name: those of `fixtures/soak-regressions/`, or of
/// `REPO_MAPPER_SOAK_CASES` (a soak's `--out` directory, say).
fn cases() -> Vec<(String, Value)> {
    let dir = std::env::var_os("REPO_MAPPER_SOAK_CASES").map_or_else(
        || workspace().join("fixtures/soak-regressions"),
        PathBuf::from,
    );
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(p).unwrap();
            let case = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, case)
        })
        .collect()
}

#[test]
fn cases_are_in_the_documented_format() {
    let cases = cases();
    assert!(!cases.is_empty(), "fixtures/soak-regressions/ has no case");
    for (name, case) in cases {
        assert_eq!(case["format"], 1, "{name}: format");
        let roots = case["roots"].as_array().expect("roots").len();
        for (n, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
            let op = step["op"].as_str().unwrap_or_default();
            assert!(OPS.contains(&op), "{name}: step {n}: op {op:?}");
            let root = step["root"].as_u64().unwrap_or(0) as usize;
            assert!(root < roots, "{name}: step {n}: root {root}");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn saved_cases_replay_warm_as_fresh() {
    let mut failures = Vec::new();
    for (name, case) in cases() {
        for failure in replay(&case).await {
            failures.push(format!("{name}: {failure}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} warm answers differ from fresh ones:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Replays `case`; what differed, one entry per checked request.
async fn replay(case: &Value) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path().canonicalize().unwrap();
    let mut roots = Vec::new();
    for (i, base) in case["roots"].as_array().unwrap().iter().enumerate() {
        let root = top.join(format!("root{i}"));
        materialise(base, &root);
        roots.push(root);
    }
    let client = start(&top, Path::new(TEST_CACHE_HOME)).await;
    let mut failures = Vec::new();
    for (n, step) in case["steps"].as_array().unwrap().iter().enumerate() {
        let root = &roots[step["root"].as_u64().unwrap_or(0) as usize];
        match step["op"].as_str().unwrap() {
            "map" | "search" => {
                std::thread::sleep(SETTLE);
                if let Some(why) = request(&client, &top, root, step).await {
                    failures.push(format!("step {n}: {why}"));
                }
                std::thread::sleep(SETTLE);
            }
            _ => edit(root, step),
        }
    }
    client.cancel().await.unwrap();
    failures
}

/// Makes a root from its base.
fn materialise(base: &Value, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    if let Some(files) = base["files"].as_object() {
        for (path, text) in files {
            write(&dir.join(path), text.as_str().unwrap(), false);
        }
    } else if let Some(rel) = base["fixture"].as_str() {
        let src = workspace().join(rel);
        run(Command::new("cp").arg("-r").arg(src.join(".")).arg(dir));
    } else {
        let git = &base["git"];
        let repo = git["repository"]
            .as_str()
            .map_or_else(workspace, PathBuf::from);
        run(Command::new("git")
            .args(["clone", "-q", "--no-hardlinks"])
            .arg(&repo)
            .arg(dir));
        let commit = git["commit"]
            .as_str()
            .expect("a base is files, fixture or git");
        run(git_in(dir).args(["checkout", "-q", "-f", "--detach", commit]));
        let exclude = dir.join(".git/info/exclude");
        let mut lines = std::fs::read_to_string(&exclude).unwrap_or_default();
        for pattern in git["exclude"].as_array().into_iter().flatten() {
            lines += &format!("{}\n", pattern.as_str().unwrap());
        }
        std::fs::create_dir_all(exclude.parent().unwrap()).unwrap();
        std::fs::write(&exclude, lines).unwrap();
    }
}

/// Applies an edit step.
fn edit(root: &Path, step: &Value) {
    let path = || root.join(step["path"].as_str().unwrap());
    match step["op"].as_str().unwrap() {
        "write" => write_step(root, step),
        "delete" if path().is_dir() => std::fs::remove_dir_all(path()).unwrap(),
        "delete" => std::fs::remove_file(path()).unwrap(),
        "rename" => {
            let to = root.join(step["to"].as_str().unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::rename(path(), to).unwrap();
        }
        "touch" => set_mtime(&path(), SystemTime::now()),
        "git_away" => {
            run(git_in(root).args(["add", "-A"]));
            run(git_in(root)
                .args(["-c", "user.name=soak", "-c", "user.email=soak@localhost"])
                .args(["-c", "commit.gpgsign=false", "commit", "-q", "--no-verify"])
                .args([
                    "--allow-empty",
                    "-m",
                    "soak: the working tree before git_away",
                ]));
            run(git_in(root).args(["update-ref", "refs/soak/back", "HEAD"]));
            let commit = step["commit"].as_str().unwrap();
            run(git_in(root).args(["checkout", "-q", "-f", "--detach", commit]));
        }
        "git_back" => {
            run(git_in(root).args(["checkout", "-q", "-f", "--detach", "refs/soak/back"]))
        }
        "wait" => std::thread::sleep(Duration::from_millis(step["ms"].as_u64().unwrap())),
        op => panic!("unknown op {op:?}"),
    }
}

/// A `write` step, with its `copies` and `repeat` templates when it has them.
fn write_step(root: &Path, step: &Value) {
    let keep = step["keep_mtime"].as_bool().unwrap_or(false);
    let (path, text) = (
        step["path"].as_str().unwrap(),
        step["text"].as_str().unwrap(),
    );
    let text = match step["repeat"].as_u64() {
        Some(n) => (0..n)
            .map(|r| text.replace("{r}", &r.to_string()))
            .collect(),
        None => text.to_owned(),
    };
    match step["copies"].as_u64() {
        Some(n) => (0..n).for_each(|i| {
            let i = i.to_string();
            write(
                &root.join(path.replace("{i}", &i)),
                &text.replace("{i}", &i),
                keep,
            );
        }),
        None => write(&root.join(path), &text, keep),
    }
}

fn write(path: &Path, text: &str, keep_mtime: bool) {
    let before = keep_mtime.then(|| std::fs::metadata(path).unwrap().modified().unwrap());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    if let Some(mtime) = before {
        set_mtime(path, mtime);
    }
}

fn set_mtime(path: &Path, mtime: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(mtime).unwrap();
}

fn git_in(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir);
    cmd
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A server serving the roots in `top`.
async fn start(top: &Path, cache_home: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(binary());
    cmd.arg("mcp")
        .arg("--root")
        .arg(top)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", cache_home);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    ().serve(transport).await.expect("the server initialises")
}

/// Calls `tool`: its JSON answer, or the tool error's text.
async fn call(client: &Client, tool: &str, args: &Value) -> Result<Value, String> {
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(args.as_object().unwrap().clone());
    let result = client
        .call_tool(params)
        .await
        .expect("the call is answered");
    let text = match &result.content[0] {
        ContentBlock::Text(t) => t.text.clone(),
        other => panic!("not text: {other:?}"),
    };
    if result.is_error == Some(true) {
        return Err(text);
    }
    Ok(serde_json::from_str(&text).unwrap())
}

/// A request step, answered warm and (when checked) fresh; why they differ.
async fn request(client: &Client, top: &Path, root: &Path, step: &Value) -> Option<String> {
    let op = step["op"].as_str().unwrap();
    let tool = if op == "map" {
        "repo_map"
    } else {
        "search_identifiers"
    };
    let mut args = step["args"].clone();
    args["project_root"] = json!(root);
    let warm = call(client, tool, &args).await;
    if step["check"] == false {
        return None;
    }
    let shown = |answer: Result<Value, String>| match answer {
        Ok(v) if op == "map" => v["map"].as_str().unwrap_or_default().to_owned(),
        Ok(v) => serde_json::to_string_pretty(&v).unwrap(),
        Err(e) => format!("tool error: {e}"),
    };
    let fresh = match op {
        "map" => fresh_map(root, &step["args"]),
        _ => shown(fresh_search(top, root, &step["args"]).await),
    };
    let warm = shown(warm);
    (warm != fresh).then(|| {
        let args = &step["args"];
        format!(
            "{op} {args} differs from a fresh run:\n{}",
            difference(&warm, &fresh)
        )
    })
}

/// The fresh map: `repo-mapper ROOT --no-cache` with the request, falling back as the
/// tool does when there is no message (the command falls back only with one).
fn fresh_map(root: &Path, args: &Value) -> String {
    let has = |key: &str| args[key].as_array().is_some_and(|a| !a.is_empty());
    let mut attempts = vec![1];
    if args["message"].is_null() {
        attempts.extend(has("chat_files").then_some(2));
        attempts.extend((has("mentioned_files") || has("mentioned_idents")).then_some(3));
    }
    for attempt in attempts {
        let out = Command::new(binary())
            .current_dir(root)
            .arg(root)
            .args(cli_args(args, attempt))
            .env_remove("RUST_LOG")
            .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
            .env_remove("REPO_MAPPER_CACHE_DIR")
            .output()
            .unwrap();
        match out.status.code() {
            Some(0) => return String::from_utf8(out.stdout).unwrap(),
            Some(2) => continue,
            _ => panic!("repo-mapper: {}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    String::new()
}

/// The command's arguments for the map `args` asks for; attempt 2 drops the chat files,
/// 3 the mentions too.
fn cli_args(args: &Value, attempt: u8) -> Vec<String> {
    let mut out = vec!["--no-cache".to_owned()];
    let mut flag = |name: &str, key: &str| {
        let values = match &args[key] {
            Value::Array(a) => a.iter().map(|v| v.as_str().unwrap().to_owned()).collect(),
            Value::String(s) => vec![s.clone()],
            _ => Vec::new(),
        };
        for v in values {
            out.extend([name.to_owned(), v]);
        }
    };
    if attempt < 2 {
        flag("-c", "chat_files");
    }
    if attempt < 3 {
        flag("-m", "mentioned_files");
        flag("-i", "mentioned_idents");
    }
    flag("--message", "message");
    flag("--profile", "profile");
    if args["exclude_unranked"] == true {
        out.push("--exclude-unranked".to_owned());
    }
    let budget = args["token_limit"].as_u64().unwrap_or(8192);
    out.extend(["-t".to_owned(), budget.to_string()]);
    out
}

/// The fresh search: a new server on a hard-linked copy of `root` without its tag store.
async fn fresh_search(top: &Path, root: &Path, args: &Value) -> Result<Value, String> {
    let copy = top.join("search-copy");
    run(Command::new("cp").arg("-al").arg(root).arg(&copy));
    let store = copy.join(".repo-mapper");
    if store.exists() {
        std::fs::remove_dir_all(&store).unwrap();
    }
    // A cache of its own: the copy shares no tags with the warm server's.
    let cache_home = top.join("fresh-cache");
    let client = start(top, &cache_home).await;
    let mut args = args.clone();
    args["project_root"] = json!(copy);
    let answer = call(&client, "search_identifiers", &args).await;
    client.cancel().await.unwrap();
    std::fs::remove_dir_all(&copy).unwrap();
    let _ = std::fs::remove_dir_all(&cache_home);
    answer
}

/// Where `warm` and `fresh` part: the first differing line, with what follows on each side.
fn difference(warm: &str, fresh: &str) -> String {
    let (w, f): (Vec<&str>, Vec<&str>) = (warm.lines().collect(), fresh.lines().collect());
    let at = w.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let side = |lines: &[&str]| -> String {
        let shown: Vec<&str> = lines.iter().skip(at).take(6).copied().collect();
        format!("    {}", shown.join("\n    "))
    };
    format!(
        "  from line {} (warm {} lines, fresh {}):\n  warm:\n{}\n  fresh:\n{}",
        at + 1,
        w.len(),
        f.len(),
        side(&w),
        side(&f)
    )
}
