//! What several of the binary's test suites share: a tree copied, and a real MCP client
//! (the Rust SDK's, rmcp) of `repo-mapper mcp` with its calls and answers.
#![allow(dead_code)] // each suite uses some of it

use std::path::Path;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
pub(crate) const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

/// Copies the tree at `from` to `to` (a walk with a stack).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            let (s, d) = (e.path(), dst.join(e.file_name()));
            if e.file_type().unwrap().is_dir() {
                stack.push((s, d));
            } else {
                std::fs::copy(&s, &d).unwrap();
            }
        }
    }
}

/// A client of the server `cmd` starts, initialised.
pub(crate) async fn serve(cmd: tokio::process::Command) -> RunningService<RoleClient, ()> {
    let transport = TokioChildProcess::new(cmd).unwrap();
    ().serve(transport).await.expect("the server initialises")
}

/// `repo-mapper mcp ARGS` with its per-user cache in `cache_home`, as a client.
pub(crate) async fn mcp_client(cache_home: &Path, args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
    cmd.arg("mcp")
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("REPO_MAPPER_CACHE_DIR")
        .env("XDG_CACHE_HOME", cache_home);
    serve(cmd).await
}

/// The answer to a call of `tool` with `args` (an object).
pub(crate) async fn call(client: &Peer<RoleClient>, tool: &str, args: Value) -> CallToolResult {
    let args = args.as_object().unwrap().clone();
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    client
        .call_tool(params)
        .await
        .expect("the call is answered")
}

/// The answer's text.
pub(crate) fn text(result: &CallToolResult) -> &str {
    match &result.content[0] {
        ContentBlock::Text(t) => &t.text,
        other => panic!("not text: {other:?}"),
    }
}

/// The answer as JSON; it must not be a tool error.
pub(crate) fn json_of(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    serde_json::from_str(text(result)).unwrap()
}
