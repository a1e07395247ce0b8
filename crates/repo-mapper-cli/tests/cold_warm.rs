//! One answer whatever the cache holds: every fixture repository and a generated one,
//! in every profile, mapped with `--no-cache`, cold into an empty cache, warm, after the
//! store's pack was written anew, and through the MCP server (a real client, rmcp) on the
//! cache the CLI left — and again on its second call, from its warm session. The maps and
//! the JSON reports must be byte-identical, but for what says how the work was done
//! (timings, the scan's counts, whether a kept map served).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{call, copy_dir, json_of, mcp_client};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

/// The report's fields that say how a map was made rather than what it is.
const HOW_IT_WAS_MADE: [&str; 3] = ["timings", "scan", "from_cache"];

/// The profiles: each must hold the property.
const PROFILES: [&str; 3] = ["default", "spec", "aider"];

/// One request, as CLI arguments and as the `repo_map` tool's arguments.
struct Request {
    tokens: usize,
    chat: Option<&'static str>,
    message: Option<&'static str>,
}

impl Request {
    fn cli_args(&self, profile: &str) -> Vec<String> {
        let mut args = vec![
            "--format".into(),
            "json".into(),
            "--profile".into(),
            profile.into(),
            "-t".into(),
            self.tokens.to_string(),
        ];
        if let Some(chat) = self.chat {
            args.extend(["-c".into(), chat.into()]);
        }
        if let Some(message) = self.message {
            args.extend(["--message".into(), message.into()]);
        }
        args
    }

    fn tool_args(&self, root: &Path, profile: &str) -> Value {
        let mut args = json!({
            "project_root": root.to_str().unwrap(),
            "profile": profile,
            "token_limit": self.tokens,
        });
        if let Some(chat) = self.chat {
            args["chat_files"] = json!([chat]);
        }
        if let Some(message) = self.message {
            args["message"] = json!(message);
        }
        args
    }
}

/// A repository under test: its files and the requests made of it.
struct Repo {
    name: &'static str,
    dir: tempfile::TempDir,
    requests: Vec<Request>,
}

/// Where a repository's caches go: outside it, so that no walk lists them.
fn caches() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A copy of `fixtures/{name}`, marked as a project (the server serves only projects).
fn fixture(name: &'static str, requests: Vec<Request>) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join(name), dir.path());
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    Repo {
        name,
        dir,
        requests,
    }
}

/// A generated package whose modules define many names of equal rank: constants used
/// only inside their own module, in an order unlike any sorted order, plus functions the
/// other modules call. Ties are where an order that depends on how names were numbered
/// (a fresh parse, or a store's pack) would show.
fn generated() -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    let words = ["zeta", "alpha", "mid", "omega", "beta", "kappa", "delta"];
    for m in 0..12 {
        let mut text = format!("\"\"\"Module {m}.\"\"\"\nimport re\n\n");
        let names: Vec<String> = (0..words.len())
            .map(|i| {
                format!(
                    "_{}_{}_RE",
                    words[(i * 3 + m) % words.len()].to_uppercase(),
                    m
                )
            })
            .collect();
        for name in &names {
            text.push_str(&format!("{name} = re.compile(r\"^{m}$\")\n"));
        }
        text.push_str(&format!("\nVALIDATORS_{m} = ({})\n", names.join(", ")));
        text.push_str(&format!(
            "\n\ndef check_{m}(value):\n    return any(v.match(value) for v in VALIDATORS_{m})\n"
        ));
        let next = (m + 1) % 12;
        text.push_str(&format!(
            "\n\ndef relay_{m}(value):\n    from pkg.mod{next} import check_{next}\n    return check_{next}(value)\n"
        ));
        std::fs::write(pkg.join(format!("mod{m}.py")), text).unwrap();
    }
    std::fs::write(
        dir.path().join("version.py"),
        "__title__ = \"pkg\"\n__description__ = \"d\"\n__url__ = \"u\"\n__version__ = \"1\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.py"),
        "from pkg.mod0 import relay_0, check_3\nfrom version import __title__, __version__, __url__, __description__\n\n\ndef main():\n    return relay_0(__title__) and check_3(__version__)\n",
    )
    .unwrap();
    Repo {
        name: "generated",
        dir,
        requests: vec![
            Request {
                tokens: 1024,
                chat: None,
                message: None,
            },
            Request {
                tokens: 512,
                chat: Some("main.py"),
                message: Some(
                    "relay_0 fails to match the validators; see check_5, then relay_0 again",
                ),
            },
            // An issue's length (20 distinct words or more): the default profile reads
            // the definitions' text and orders files by their best one too (D18, D19).
            Request {
                tokens: 1024,
                chat: None,
                message: Some(
                    "When a value does not match, check_7 returns False although one of its \
                     validators should match it: relay_4 passes the value on, the compiled \
                     patterns are anchored, and any of them failing makes every relay in the \
                     chain fail. Expected the first matching validator to win.",
                ),
            },
        ],
    }
}

fn plain(tokens: usize) -> Request {
    Request {
        tokens,
        chat: None,
        message: None,
    }
}

fn repos() -> Vec<Repo> {
    vec![
        generated(),
        fixture(
            "sample-repo",
            vec![
                plain(1024),
                Request {
                    tokens: 512,
                    chat: Some("app/models/user.py"),
                    message: Some("checkout should deactivate the user"),
                },
            ],
        ),
        fixture("parity", vec![plain(1024), plain(4096)]),
        fixture("languages", vec![plain(2048)]),
    ]
}

/// The CLI's JSON report for `args` on `root`, `cache` being `--no-cache`, a cache
/// directory or the per-user cache home.
fn cli_report(root: &Path, cache: &Cache, args: &[String]) -> Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
    cmd.current_dir(root)
        .arg(root)
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("REPO_MAPPER_CACHE_DIR");
    match cache {
        Cache::None(home) => cmd.arg("--no-cache").env("XDG_CACHE_HOME", home),
        Cache::Dir(dir) => cmd.arg("--cache-dir").arg(dir),
        Cache::Home(home) => cmd.env("XDG_CACHE_HOME", home),
    };
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    what_it_is(serde_json::from_slice(&out.stdout).unwrap())
}

enum Cache {
    /// `--no-cache`, with a cache home that must stay empty.
    None(PathBuf),
    Dir(PathBuf),
    Home(PathBuf),
}

/// `report` without [`HOW_IT_WAS_MADE`].
fn what_it_is(mut report: Value) -> Value {
    for key in HOW_IT_WAS_MADE {
        report.as_object_mut().unwrap().remove(key);
    }
    report
}

/// The server's answer as the CLI's JSON would give it: the map put back into the
/// report, and the server's own field (`token_limit`) taken out.
async fn server_report(client: &RunningService<RoleClient, ()>, args: Value) -> Value {
    let answer = json_of(&call(client, "repo_map", args).await);
    let mut report = answer["report"].clone();
    let fields = report.as_object_mut().unwrap();
    fields.remove("token_limit");
    fields.insert("map".into(), answer["map"].clone());
    what_it_is(report)
}

/// The fields of the CLI's JSON report the server's answer has too: all but the
/// ranked list (`entries`, `file_ranks`), which only the CLI prints.
fn served_part(report: &Value) -> Value {
    let mut report = report.clone();
    for key in ["entries", "file_ranks"] {
        report.as_object_mut().unwrap().remove(key);
    }
    report
}

/// Whether two reports are the same, field by field (so a failure names the field).
fn assert_same(expected: &Value, got: &Value, what: &str) {
    let (e, g) = (expected.as_object().unwrap(), got.as_object().unwrap());
    let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(e), keys(g), "{what}: the report's fields");
    for (key, value) in e {
        if let (Some(a), Some(b)) = (value.as_array(), g[key].as_array()) {
            let at = a.iter().zip(b).position(|(x, y)| x != y);
            let (x, y) = at.map_or((None, None), |i| (a.get(i), b.get(i)));
            assert!(
                a == b,
                "{what}: `{key}` differs at {at:?} of {}/{}:\n{x:?}\n{y:?}",
                a.len(),
                b.len()
            );
        }
        assert!(
            &g[key] == value,
            "{what}: `{key}` differs:\n{value}\n---\n{}",
            g[key]
        );
    }
}

/// Every file of `root` (not the project marker) rewritten with its own bytes, so that
/// no stored stamp vouches for any of them and the store checks every hash.
fn rewrite_all(root: &Path) {
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_name() == ".git" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                let bytes = std::fs::read(e.path()).unwrap();
                std::fs::remove_file(e.path()).unwrap();
                std::fs::write(e.path(), bytes).unwrap();
            }
        }
    }
}

/// The first file the walk would map, removed and then put back: the pack is written
/// anew without it, and the file comes back through sled.
fn remove_and_restore(root: &Path, home: &Path, args: &[String]) -> Value {
    let victim = first_code_file(root);
    let bytes = std::fs::read(&victim).unwrap();
    std::fs::remove_file(&victim).unwrap();
    cli_report(root, &Cache::Home(home.to_path_buf()), args);
    std::fs::write(&victim, bytes).unwrap();
    cli_report(root, &Cache::Home(home.to_path_buf()), args)
}

fn first_code_file(root: &Path) -> PathBuf {
    let mut stack = vec![root.to_path_buf()];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else if e.path().extension().is_some_and(|x| x == "py" || x == "rs") {
                files.push(e.path());
            }
        }
    }
    files.sort();
    files.into_iter().next().expect("a code file")
}

#[tokio::test(flavor = "multi_thread")]
async fn every_map_is_the_same_cold_warm_repacked_and_served() {
    for repo in repos() {
        let root = repo.dir.path().canonicalize().unwrap();
        let caches = caches();
        let home = caches.path().join("home");
        let untouched = caches.path().join("untouched");
        for profile in PROFILES {
            let mut fresh = Vec::new();
            for (i, request) in repo.requests.iter().enumerate() {
                let args = request.cli_args(profile);
                let what = |state: &str| format!("{} {profile} request {i}, {state}", repo.name);
                let expected = cli_report(&root, &Cache::None(untouched.clone()), &args);
                let empty = caches.path().join(format!("cold-{profile}-{i}"));
                let cold = cli_report(&root, &Cache::Dir(empty), &args);
                assert_same(&expected, &cold, &what("cold"));
                for pass in ["first in the shared cache", "warm", "warm again"] {
                    let got = cli_report(&root, &Cache::Home(home.clone()), &args);
                    assert_same(&expected, &got, &what(pass));
                }
                fresh.push(expected);
            }
            rewrite_all(&root);
            for (i, request) in repo.requests.iter().enumerate() {
                let args = request.cli_args(profile);
                let what = |state: &str| format!("{} {profile} request {i}, {state}", repo.name);
                let got = cli_report(&root, &Cache::Home(home.clone()), &args);
                assert_same(&fresh[i], &got, &what("every file rewritten"));
                let got = remove_and_restore(&root, &home, &args);
                assert_same(&fresh[i], &got, &what("after a repack"));
                let got = cli_report(&root, &Cache::Home(home.clone()), &args);
                assert_same(&fresh[i], &got, &what("warm after a repack"));
            }
            let client = mcp_client(&home, &[]).await;
            for call in ["the server's first call", "the server's warm call"] {
                for (i, request) in repo.requests.iter().enumerate() {
                    let got = server_report(&client, request.tool_args(&root, profile)).await;
                    let what = format!("{} {profile} request {i}, {call}", repo.name);
                    assert_same(&served_part(&fresh[i]), &got, &what);
                }
            }
            client.cancel().await.unwrap();
        }
        assert!(!untouched.exists(), "--no-cache wrote a cache");
    }
}
