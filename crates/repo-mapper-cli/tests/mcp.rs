//! `repo-mapper mcp` driven by a real MCP client: the Rust SDK's (rmcp), over the child
//! process's stdin and stdout, as an agent runs it. The official Python SDK's client runs
//! the same checks in `cargo xtask mcp-client` (CI runs both).

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/sample-repo")
        .canonicalize()
        .unwrap()
}

/// A copy of the sample repository (its tag cache must not land in the source tree).
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = StdCommand::new("cp")
        .arg("-r")
        .arg(format!("{}/.", fixture().display()))
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    dir
}

async fn client(args: &[&str]) -> RunningService<RoleClient, ()> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
    cmd.arg("mcp").args(args).env_remove("RUST_LOG");
    let transport = TokioChildProcess::new(cmd).unwrap();
    ().serve(transport).await.expect("the server initialises")
}

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> CallToolResult {
    let args = args.as_object().unwrap().clone();
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    client
        .call_tool(params)
        .await
        .expect("the call is answered")
}

fn text(result: &CallToolResult) -> &str {
    match &result.content[0] {
        ContentBlock::Text(t) => &t.text,
        other => panic!("not text: {other:?}"),
    }
}

fn json_of(result: &CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{}", text(result));
    serde_json::from_str(text(result)).unwrap()
}

/// The CLI's map for the same request.
fn cli_map(root: &Path, args: &[&str]) -> String {
    let out = StdCommand::new(env!("CARGO_BIN_EXE_repo-mapper"))
        .current_dir(root)
        .arg(root)
        .args(args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_both_tools_with_repomapper_parameters() {
    let client = client(&[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"repo_map") && names.contains(&"search_identifiers"));
    let repo_map = tools.iter().find(|t| t.name == "repo_map").unwrap();
    let props = repo_map.input_schema["properties"].as_object().unwrap();
    for p in [
        "project_root",
        "chat_files",
        "other_files",
        "token_limit",
        "exclude_unranked",
        "force_refresh",
        "mentioned_files",
        "mentioned_idents",
        "max_context_window",
        "message",
        "profile",
        "anchors",
    ] {
        assert!(props.contains_key(p), "{p}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn repo_map_equals_the_cli_and_stays_warm() {
    let r = repo();
    let root = r.path().canonicalize().unwrap();
    let client = client(&[]).await;
    let chat = "app/services/checkout.py";
    let args = json!({"project_root": root, "chat_files": [chat], "token_limit": 1024});
    let first = json_of(&call(&client, "repo_map", args).await);
    assert_eq!(first["map"], cli_map(&root, &["-c", chat]));
    assert_eq!(first["report"]["attempt"], 1);
    let included = first["report"]["included_files"].as_array().unwrap();
    assert!(included.contains(&json!("app/models/order.py")));
    assert!(
        !included.contains(&json!(chat)),
        "chat files are never shown"
    );
    // A second call with another chat file: same session, fresh answer.
    let other = "web/routes.py";
    let args = json!({"project_root": root, "chat_files": [other], "token_limit": 1024});
    let second = json_of(&call(&client, "repo_map", args).await);
    assert_eq!(second["map"], cli_map(&root, &["-c", other]));
    // The message's mentions, as the CLI derives them.
    let message = "Why does place_order fail in checkout.py?";
    let args = json!({"project_root": root, "message": message, "token_limit": 1024});
    let third = json_of(&call(&client, "repo_map", args).await);
    assert_eq!(third["map"], cli_map(&root, &["--message", message]));
    assert_eq!(
        third["report"]["mentions"]["files"],
        json!(["app/services/checkout.py"])
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn search_identifiers_finds_definitions_and_references() {
    let r = repo();
    let root = r.path().canonicalize().unwrap();
    let client = client(&[]).await;
    let args = json!({"project_root": root, "query": "place_order", "context_lines": 0});
    let found = json_of(&call(&client, "search_identifiers", args).await);
    let results = found["results"].as_array().unwrap();
    assert_eq!(results[0]["kind"], "definition");
    assert_eq!(results[0]["file"], "app/services/checkout.py");
    assert!(
        results[0]["context"]
            .as_str()
            .unwrap()
            .contains("def place_order")
    );
    assert!(
        results
            .iter()
            .any(|r| r["kind"] == "reference" && r["file"] == "web/routes.py")
    );
    let args = json!({"project_root": root, "query": "place_order", "include_references": false});
    let defs = json_of(&call(&client, "search_identifiers", args).await);
    assert!(
        defs["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["kind"] == "definition")
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_is_a_one_line_tool_error_and_the_server_goes_on() {
    let r = repo();
    let root = r.path().canonicalize().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let client = client(&["--root", root.to_str().unwrap()]).await;
    let cases = [
        (
            "repo_map",
            json!({"project_root": "/no/such/dir"}),
            "cannot be read",
        ),
        (
            "repo_map",
            json!({"project_root": "relative/dir"}),
            "absolute",
        ),
        (
            "repo_map",
            json!({"project_root": elsewhere.path()}),
            "outside the roots",
        ),
        (
            "repo_map",
            json!({"project_root": root, "profile": "nope"}),
            "profile",
        ),
        (
            "repo_map",
            json!({"project_root": root, "chat_files": ["../x.py"]}),
            "outside",
        ),
        (
            "search_identifiers",
            json!({"project_root": root, "query": " "}),
            "empty",
        ),
    ];
    for (tool, args, says) in cases {
        let result = call(&client, tool, args.clone()).await;
        assert_eq!(result.is_error, Some(true), "{args}");
        let line = text(&result);
        assert!(
            line.contains(says) && !line.contains('\n'),
            "{args}: {line}"
        );
    }
    // Parameters of the wrong type are refused (by rmcp, as an error answer), not a crash.
    let params = CallToolRequestParams::new("repo_map")
        .with_arguments(json!({"project_root": 7}).as_object().unwrap().clone());
    match client.call_tool(params).await {
        Err(e) => assert!(e.to_string().contains("project_root"), "{e}"),
        Ok(result) => assert_eq!(result.is_error, Some(true), "{}", text(&result)),
    }
    let ok = json_of(&call(&client, "repo_map", json!({"project_root": root})).await);
    assert!(ok["map"].as_str().unwrap().contains("class Order"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn concurrent_calls_are_answered_alike() {
    let r = repo();
    let root = r.path().canonicalize().unwrap();
    let client = client(&[]).await;
    let chats = ["app/services/checkout.py", "web/routes.py"];
    let mut in_flight = Vec::new();
    for i in 0..8 {
        let peer = client.peer().clone();
        let args = json!({"project_root": root, "chat_files": [chats[i % 2]]});
        let params = CallToolRequestParams::new("repo_map")
            .with_arguments(args.as_object().unwrap().clone());
        in_flight.push(tokio::spawn(async move { peer.call_tool(params).await }));
    }
    let mut answers = Vec::new();
    for task in in_flight {
        answers.push(json_of(&task.await.unwrap().unwrap()));
    }
    for (i, a) in answers.iter().enumerate() {
        assert_eq!(a["map"], answers[i % 2]["map"], "call {i}");
    }
    assert_ne!(answers[0]["map"], answers[1]["map"]);
    client.cancel().await.unwrap();
}
