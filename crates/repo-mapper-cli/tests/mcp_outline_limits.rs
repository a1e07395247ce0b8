//! The MCP server's `outline` and `show_symbol` on minified files, driven by the Rust
//! SDK's client (rmcp) as `tests/mcp.rs` does: one call on a 1 MiB one-line script is
//! answered within its cap and the server lives on; a 50 MB one is not parsed and both
//! tools say so. The server runs under a 4 GiB address-space limit, so a call whose memory
//! grows with the file's size squared kills it (and fails the test) instead of the machine.

mod common;

use std::io::Write;

use common::{TEST_CACHE_HOME, call, json_of, serve, text};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;

/// A minified script of about `size` bytes on one line (`f<i>` functions, `v<i>` values,
/// `K<i>` classes with a method `m<i>`).
fn minified(size: usize) -> String {
    let mut out = String::with_capacity(size + 128);
    let mut i = 0;
    while out.len() < size - 64 {
        let part = match i % 3 {
            0 => format!("function f{i}(e,t){{var n=e+t;return n*{i}}}"),
            1 => format!("var v{i}=function(e){{return e+{i}}};"),
            _ => format!("class K{i}{{m{i}(e){{return e}}}}"),
        };
        out.push_str(&part);
        i += 1;
    }
    out
}

/// A repository (a project: it has `.git`) holding `files`.
fn repo_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (name, text) in files {
        let file = std::fs::File::create(dir.path().join(name)).unwrap();
        let mut file = std::io::BufWriter::new(file);
        file.write_all(text.as_bytes()).unwrap();
        file.flush().unwrap();
    }
    dir
}

/// `repo-mapper mcp` under a 4 GiB address-space limit.
async fn client() -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" mcp")
        .arg(env!("CARGO_BIN_EXE_repo-mapper"))
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME);
    serve(cmd).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minified_files_cost_one_call_its_cap_and_never_the_server() {
    let one = minified(1 << 20);
    let r = repo_with(&[("bundle.min.js", &one), ("huge.min.js", &one.repeat(50))]);
    let root = r.path().canonicalize().unwrap();
    let root = root.to_str().unwrap();
    let client = client().await;

    let outline = json_of(
        &call(
            &client,
            "outline",
            json!({"project_root": root, "paths": ["bundle.min.js"], "max_tokens": 4000}),
        )
        .await,
    );
    let page = outline["outline"].as_str().unwrap();
    assert!(page.len() < 64 * 1024, "{} bytes", page.len());
    assert!(
        page.contains("\n  function f0(e,t){  [1-1] private\n"),
        "{page}"
    );
    assert!(outline["next_cursor"].is_string());
    assert!(outline["files"][0]["symbols"].as_u64().unwrap() > 10_000);

    let shown = json_of(
        &call(
            &client,
            "show_symbol",
            json!({"project_root": root, "symbol": "bundle.min.js#f30"}),
        )
        .await,
    );
    assert_eq!(
        shown["definitions"][0]["source"],
        "function f30(e,t){var n=e+t;return n*30}\n"
    );

    let huge = json_of(
        &call(
            &client,
            "outline",
            json!({"project_root": root, "paths": ["huge.min.js"]}),
        )
        .await,
    );
    let page = huge["outline"].as_str().unwrap();
    assert!(
        page.contains("warning: larger than 1 MiB not parsed"),
        "{page}"
    );
    let warning = huge["files"][0]["warning"].as_str().unwrap_or_default();
    assert!(
        warning.starts_with("larger than 1 MiB not parsed"),
        "{huge}"
    );
    assert!(
        outline["files"][0]["warning"].is_null(),
        "a parsed file has none"
    );
    let refused = call(
        &client,
        "show_symbol",
        json!({"project_root": root, "symbol": "huge.min.js#f815143"}),
    )
    .await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("huge.min.js: larger than 1 MiB not parsed"),
        "{}",
        text(&refused)
    );
    client.cancel().await.unwrap();
}
