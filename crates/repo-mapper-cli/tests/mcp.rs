//! `repo-mapper mcp` driven by a real MCP client: the Rust SDK's (rmcp), over the child
//! process's stdin and stdout, as an agent runs it. The official Python SDK's client runs
//! the same checks in `cargo xtask mcp-client` (CI runs both).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use common::{TEST_CACHE_HOME, call, json_of, mcp_client, text};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient, RunningService};
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
    // A project marker: a server started without --root serves only projects.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

async fn client(args: &[&str]) -> RunningService<RoleClient, ()> {
    mcp_client(Path::new(TEST_CACHE_HOME), args).await
}

/// The `outline` tool's answer to `args`, as JSON (it must not be an error).
async fn outlined(client: &Peer<RoleClient>, args: Value) -> Value {
    json_of(&call(client, "outline", args).await)
}

/// The two files the outline tests read.
const OUTLINED: [&str; 2] = ["app/models/user.py", "app/services/checkout.py"];

/// The CLI's map for the same request.
fn cli_map(root: &Path, args: &[&str]) -> String {
    let out = StdCommand::new(env!("CARGO_BIN_EXE_repo-mapper"))
        .current_dir(root)
        .arg(root)
        .args(args)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
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
    // RepoMapper's two, and ours.
    assert_eq!(names.len(), 4);
    assert!(names.contains(&"repo_map") && names.contains(&"search_identifiers"));
    assert!(names.contains(&"show_symbol") && names.contains(&"outline"));
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

/// Issue 27: each tool declares what it answers (`outputSchema`) and that it only reads
/// a closed world (annotations), in a `tools/list` that is the same on every start; each
/// answer is structured content, its text the same JSON; a tool error has no structure.
#[tokio::test(flavor = "multi_thread")]
async fn tools_declare_their_output_and_answer_with_structured_content() {
    let client = client(&[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["outline", "repo_map", "search_identifiers", "show_symbol"]
    );
    for tool in &tools {
        let hints = tool.annotations.as_ref().expect("annotations");
        assert_eq!(hints.read_only_hint, Some(true), "{}", tool.name);
        assert_eq!(hints.destructive_hint, Some(false), "{}", tool.name);
        assert_eq!(hints.idempotent_hint, Some(true), "{}", tool.name);
        assert_eq!(hints.open_world_hint, Some(false), "{}", tool.name);
        let schema = tool.output_schema.as_ref().expect("outputSchema");
        assert_eq!(schema["type"], "object", "{}", tool.name);
    }
    let again = client_listing().await;
    assert_eq!(serde_json::to_value(&tools).unwrap(), again);

    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let calls = [
        ("repo_map", json!({"project_root": root})),
        (
            "search_identifiers",
            json!({"project_root": root, "query": "place_order"}),
        ),
        (
            "show_symbol",
            json!({"project_root": root, "symbol": "app/models/user.py#User"}),
        ),
        (
            "outline",
            json!({"project_root": root, "paths": ["app/models/user.py"]}),
        ),
    ];
    for (name, args) in calls {
        let result = call(&client, name, args).await;
        let structured = result.structured_content.clone().expect(name);
        assert_eq!(
            structured,
            json_of(&result),
            "{name}: the text is the same JSON"
        );
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        let schema = tool.output_schema.as_ref().unwrap();
        let properties = schema["properties"].as_object().unwrap();
        let answer = structured.as_object().unwrap();
        assert_eq!(
            properties.keys().collect::<Vec<_>>(),
            answer.keys().collect::<Vec<_>>(),
            "{name}: the answer has the schema's fields, and only those"
        );
        for required in schema["required"].as_array().unwrap() {
            assert!(answer.contains_key(required.as_str().unwrap()), "{name}");
        }
    }
    let bad = call(&client, "repo_map", json!({"project_root": "relative"})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(bad.structured_content.is_none());
    client.cancel().await.unwrap();
}

/// Issue 27: a `repo_map` answer never passes `max_tokens` (its JSON text counted): the
/// map is made again within a smaller budget, which the report gives; a cap too small
/// for any map is a one-line tool error.
#[tokio::test(flavor = "multi_thread")]
async fn repo_map_answers_stay_within_max_tokens() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let tokenizer = repo_mapper::Tokenizer::default();
    let args = json!({"project_root": root, "token_limit": 4096});
    let full = call(&client, "repo_map", args).await;
    let full_tokens = tokenizer.count(text(&full));
    let cap = full_tokens * 2 / 3;
    let args = json!({"project_root": root, "token_limit": 4096, "max_tokens": cap});
    let capped = call(&client, "repo_map", args).await;
    assert!(
        tokenizer.count(text(&capped)) <= cap,
        "{full_tokens} → cap {cap}"
    );
    let answer = json_of(&capped);
    assert!(!answer["map"].as_str().unwrap().is_empty());
    assert!(answer["report"]["token_limit"].as_u64().unwrap() < 4096);
    // After an edit, the capped (warm) map is a fresh run's at the budget it reports.
    let app = dir.path().join("app/services/checkout.py");
    let mut edited = std::fs::read_to_string(&app).unwrap();
    edited.push_str("\ndef refund_order(order):\n    return order\n");
    std::fs::write(&app, edited).unwrap();
    let args = json!({"project_root": root, "token_limit": 4096, "max_tokens": cap});
    let after = json_of(&call(&client, "repo_map", args).await);
    let limit = after["report"]["token_limit"].to_string();
    let fresh = cli_map(dir.path(), &["--no-cache", "-t", &limit]);
    assert_eq!(after["map"].as_str().unwrap(), fresh);
    let args = json!({"project_root": root, "max_tokens": 20});
    let tiny = call(&client, "repo_map", args).await;
    assert_eq!(tiny.is_error, Some(true));
    assert!(text(&tiny).contains("max_tokens") && !text(&tiny).contains('\n'));
    client.cancel().await.unwrap();
}

/// One word of `len` letters in no order (a fixed seed): it merges into few tokens nowhere.
fn random_word(len: usize) -> String {
    let mut state = 7u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        char::from(b'a' + ((state >> 33) % 26) as u8)
    };
    (0..len).map(|_| next()).collect()
}

/// A message of any length gets a map within the answer's cap: the report echoes the
/// first of its mentions and how many there are, and a cap too small for those keeps
/// only the counts.
#[tokio::test(flavor = "multi_thread")]
async fn a_long_message_still_gets_a_map_within_the_cap() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let tokenizer = repo_mapper::Tokenizer::default();
    let many: String = (0..20_000).map(|i| format!("ident{i} ")).collect();
    let long = format!("{} place_order", random_word(100_000));
    let mut whole = Vec::new();
    for (message, idents) in [(&many, 20_001), (&long, 3)] {
        let args = json!({"project_root": root, "message": message});
        let result = call(&client, "repo_map", args).await;
        let answer = json_of(&result);
        assert!(tokenizer.count(text(&result)) <= 20_000);
        assert!(answer["map"].as_str().unwrap().contains("place_order"));
        let mentions = &answer["report"]["mentions"];
        assert_eq!(mentions["idents_count"], idents, "{mentions}");
        let echoed = mentions["idents"].as_array().unwrap();
        assert!(!echoed.is_empty() && echoed.len() < idents, "{mentions}");
        whole.push((tokenizer.count(text(&result)), answer));
    }
    // A cap that holds the map but not the echoed mentions too: the mentions give way.
    let (tokens, answer) = &whole[0];
    let echoed = tokenizer.count(&answer["report"]["mentions"]["idents"].to_string());
    let cap = tokens - echoed / 2;
    let args = json!({"project_root": root, "message": many, "max_tokens": cap});
    let result = call(&client, "repo_map", args).await;
    let capped = json_of(&result);
    assert!(tokenizer.count(text(&result)) <= cap);
    assert_eq!(
        capped["map"], answer["map"],
        "the whole map, at the same budget"
    );
    let mentions = &capped["report"]["mentions"];
    assert_eq!(mentions["idents"], json!([]), "{mentions}");
    assert_eq!(mentions["idents_count"], 20_001);
    client.cancel().await.unwrap();
}

/// Issue 27: a search answer never passes `max_tokens` (its JSON text counted), and its
/// pages, followed by `next_cursor`, are the whole answer in order.
#[tokio::test(flavor = "multi_thread")]
async fn search_answers_are_capped_and_go_on_by_cursor() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let search = |extra: Value| {
        let mut args = json!({"project_root": root, "query": "o", "context_lines": 3});
        args.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        args
    };
    let whole = json_of(
        &call(
            &client,
            "search_identifiers",
            search(json!({"max_results": 1000})),
        )
        .await,
    );
    let all = whole["results"].as_array().unwrap().clone();
    assert!(all.len() > 6, "{}", all.len());
    assert_eq!(whole["next_cursor"], Value::Null);
    let tokenizer = repo_mapper::Tokenizer::default();
    for (page_args, cap) in [
        (json!({"max_results": 4}), None),
        (json!({"max_results": 1000, "max_tokens": 300}), Some(300)),
    ] {
        let mut paged = Vec::new();
        let mut cursor = Value::Null;
        let mut pages = 0;
        loop {
            let mut args = page_args.clone();
            if !cursor.is_null() {
                args["cursor"] = cursor.clone();
            }
            let result = call(&client, "search_identifiers", search(args)).await;
            if let Some(cap) = cap {
                let tokens = tokenizer.count(text(&result));
                assert!(tokens <= cap, "{tokens} tokens over {cap}");
            }
            let answer = json_of(&result);
            let page = answer["results"].as_array().unwrap();
            assert_eq!(answer["count"], page.len());
            assert!(!page.is_empty());
            paged.extend(page.iter().cloned());
            pages += 1;
            cursor = answer["next_cursor"].clone();
            if cursor.is_null() {
                break;
            }
        }
        assert!(pages > 1, "{page_args}: {pages} page(s)");
        assert_eq!(paged, all, "{page_args}");
    }
    // A page of none is the last page; a cap that holds not one result is an error.
    let args = search(json!({"max_results": 0}));
    let none = json_of(&call(&client, "search_identifiers", args).await);
    assert_eq!(none["count"], 0);
    assert_eq!(none["next_cursor"], Value::Null);
    let args = search(json!({"max_tokens": 5}));
    let tiny = call(&client, "search_identifiers", args).await;
    assert_eq!(tiny.is_error, Some(true));
    assert!(text(&tiny).contains("max_tokens"), "{}", text(&tiny));
    let bad = call(
        &client,
        "search_identifiers",
        search(json!({"cursor": "x9"})),
    )
    .await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("cursor"), "{}", text(&bad));
    client.cancel().await.unwrap();
}

/// A search for a query of megabytes is answered as fast as the query is read: the answer
/// echoes its start only (the whole echo was counted in tokens, which took minutes).
#[tokio::test(flavor = "multi_thread")]
async fn a_query_of_megabytes_is_answered_with_a_short_echo() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let query = format!("place_order{}", random_word(12 << 20));
    let args = json!({"project_root": root, "query": query});
    // A watchdog, far above the second or so the answer takes.
    let watchdog = std::time::Duration::from_secs(120);
    let result = tokio::time::timeout(watchdog, call(&client, "search_identifiers", args))
        .await
        .expect("answered before the watchdog");
    let answer = json_of(&result);
    assert_eq!(answer["count"], 0);
    let echoed = answer["query"].as_str().unwrap();
    assert!(echoed.starts_with("place_order"), "{echoed}");
    assert!(
        echoed.len() < 400 && echoed.ends_with(" more bytes"),
        "{echoed}"
    );
    let short = json!({"project_root": root, "query": "place_order"});
    let short = json_of(&call(&client, "search_identifiers", short).await);
    assert_eq!(
        short["query"], "place_order",
        "a short query is echoed whole"
    );
    client.cancel().await.unwrap();
}

/// Issue 27: the server speaks every protocol revision rmcp knows that starts with
/// `initialize` (2024-11-05 to 2025-11-25), not only the newest: a client of each gets
/// its own revision, the tools and a map.
#[tokio::test(flavor = "multi_thread")]
async fn clients_of_earlier_protocol_revisions_are_served() {
    use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let revisions = [
        ProtocolVersion::V_2024_11_05,
        ProtocolVersion::V_2025_03_26,
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
    ];
    for revision in revisions {
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("revision-check", "0"),
        )
        .with_protocol_version(revision.clone());
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
        cmd.arg("mcp")
            .env_remove("RUST_LOG")
            .env("XDG_CACHE_HOME", TEST_CACHE_HOME);
        let client = info
            .serve(TokioChildProcess::new(cmd).unwrap())
            .await
            .unwrap_or_else(|e| panic!("{revision}: {e}"));
        let server = client.peer_info().expect("the handshake's answer");
        assert_eq!(server.protocol_version, revision);
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 4, "{revision}");
        let args = json!({"project_root": root}).as_object().unwrap().clone();
        let params = CallToolRequestParams::new("repo_map").with_arguments(args);
        let result = client.call_tool(params).await.unwrap();
        let answer = json_of(&result);
        assert!(
            answer["map"].as_str().unwrap().contains("place_order"),
            "{revision}"
        );
        client.cancel().await.unwrap();
    }
    // rmcp's own client, as the other tests run it, speaks the newest revision.
    let newest = client(&[]).await;
    let server = newest.peer_info().expect("the handshake's answer");
    assert_eq!(
        server.protocol_version,
        ProtocolVersion::LATEST_WITH_INITIALIZE
    );
    newest.cancel().await.unwrap();
}

/// A client that keeps the progress notifications it is sent.
#[derive(Clone, Default)]
struct ProgressKeeper(std::sync::Arc<std::sync::Mutex<Vec<Heard>>>);

/// A progress notification's progress and total.
type Heard = (f64, Option<f64>);

impl rmcp::ClientHandler for ProgressKeeper {
    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        let mut heard = self.0.lock().unwrap();
        heard.push((params.progress, params.total));
    }
}

impl ProgressKeeper {
    /// The notifications heard so far.
    fn heard(&self) -> Vec<Heard> {
        self.0.lock().unwrap().clone()
    }
}

/// A client of a new server that keeps the progress notifications it hears in `keeper`.
async fn keeping_client(keeper: &ProgressKeeper) -> RunningService<RoleClient, ProgressKeeper> {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
    cmd.arg("mcp")
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME);
    keeper
        .clone()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .expect("the server initialises")
}

/// Issue 27: a call with a progress token hears of its cold scan, file count by file
/// count, up to the whole, at most once a percent.
#[tokio::test(flavor = "multi_thread")]
async fn a_cold_scan_reports_its_progress_to_a_client_that_asks() {
    let dir = large_repo(300);
    let root = dir.path().to_str().unwrap();
    let keeper = ProgressKeeper::default();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_repo-mapper"));
    cmd.arg("mcp")
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME);
    let client = keeper
        .clone()
        .serve(TokioChildProcess::new(cmd).unwrap())
        .await
        .unwrap();
    let args = json!({"project_root": root}).as_object().unwrap().clone();
    // rmcp's client sends a progress token with every request.
    let params = CallToolRequestParams::new("repo_map").with_arguments(args);
    let answer = client.call_tool(params).await.unwrap();
    assert_ne!(answer.is_error, Some(true), "{}", text(&answer));
    // rmcp's client runs its handlers concurrently: the last may still be running, and
    // two may see their notifications swapped.
    let heard_all = || keeper.0.lock().unwrap().clone();
    for _ in 0..100 {
        if heard_all().iter().any(|h| h.0 == 300.0) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let mut heard = heard_all();
    assert!(heard.len() >= 2, "{heard:?}");
    assert!(heard.len() <= 102, "at most one a percent: {}", heard.len());
    assert!(
        heard.iter().all(|&(_, total)| total == Some(300.0)),
        "{heard:?}"
    );
    heard.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert!(
        heard.windows(2).all(|w| w[0].0 < w[1].0),
        "each value new: {heard:?}"
    );
    assert_eq!(heard.last().unwrap().0, 300.0, "the whole");
    client.cancel().await.unwrap();
}

/// `tools/list` of a freshly started server, as JSON.
async fn client_listing() -> Value {
    let client = client(&[]).await;
    let tools = client.list_all_tools().await.unwrap();
    client.cancel().await.unwrap();
    serde_json::to_value(&tools).unwrap()
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

/// A repository large enough that its cold scan takes a while: `n` Python files.
fn large_repo(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for i in 0..n {
        let body: String = (0..40)
            .map(|j| format!("def f{i}_{j}(x):\n    return g{j}(x) + h{i}(x)\n\n"))
            .collect();
        std::fs::write(dir.path().join(format!("m{i}.py")), body).unwrap();
    }
    dir
}

/// The answer of a call that was not to wait: the busy session's one line.
async fn busy_line(client: &Peer<RoleClient>, root: &Path) -> Option<String> {
    let args = json!({"project_root": root, "wait": false});
    let result = call(client, "repo_map", args).await;
    (result.is_error == Some(true)).then(|| text(&result).to_owned())
}

/// Issue 23: a call on one repository does not wait for a cold scan of another, and a
/// call on the repository being scanned that asks not to wait is told how far it is.
#[tokio::test(flavor = "multi_thread")]
async fn a_slow_scan_of_one_root_stalls_no_call_on_another() {
    // Large enough that its cold scan outlasts the other root's calls on a loaded
    // machine too (3,000 files did not, once, beside the other tests).
    let (small, large) = (repo(), large_repo(8000));
    let small = small.path().canonicalize().unwrap();
    let large = large.path().canonicalize().unwrap();
    let keeper = ProgressKeeper::default();
    let client = keeping_client(&keeper).await;
    json_of(&call(&client, "repo_map", json!({"project_root": small})).await);
    let peer = client.peer().clone();
    let args = json!({"project_root": large, "token_limit": 512});
    let params =
        CallToolRequestParams::new("repo_map").with_arguments(args.as_object().unwrap().clone());
    let slow = tokio::spawn(async move { peer.call_tool(params).await });
    // The slow call holds the session once its scan reports progress: a call that asks
    // not to wait before then may take the session first, scan every file itself, and
    // leave the slow call only the files too new to vouch for (the racy ones) to read.
    let scan_started = || keeper.heard().iter().any(|h| h.1 == Some(8000.0));
    for _ in 0..6000 {
        if scan_started() || slow.is_finished() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(
        scan_started(),
        "the large repository's scan reported progress"
    );
    let scanning = busy_line(&client, &large).await;
    let scanning = scanning.expect("the large repository's scan was seen in progress");
    assert!(
        scanning.starts_with("scanning: ") && scanning.ends_with(" of 8000 files"),
        "{scanning}"
    );
    let quick = json_of(&call(&client, "repo_map", json!({"project_root": small})).await);
    assert!(quick["map"].as_str().unwrap().contains("class Order"));
    // The drill-down tools take no session: the scan holds neither.
    let paths = ["app/models/user.py"];
    let outline = outlined(&client, json!({"project_root": small, "paths": paths})).await;
    assert!(outline["outline"].as_str().unwrap().contains("class User"));
    let shown = json!({"project_root": small, "symbol": "app/models/user.py#User"});
    let shown = json_of(&call(&client, "show_symbol", shown).await);
    assert_eq!(shown["definitions"][0]["name"], "User");
    let still = busy_line(&client, &large).await;
    assert!(
        still
            .as_deref()
            .is_some_and(|l| l.starts_with("scanning: ")),
        "the other root's call was answered while the scan went on: {still:?}"
    );
    let done = json_of(&slow.await.unwrap().unwrap());
    assert!(done["map"].as_str().unwrap().contains("def f"));
    client.cancel().await.unwrap();
}

/// Issue 23: without --root, a directory that is no project (no `.git`, `.hg`, …, no tag
/// store) is refused in one line, and nothing is written there.
#[tokio::test(flavor = "multi_thread")]
async fn a_root_that_is_no_project_is_refused_unless_allowed() {
    let plain = tempfile::tempdir().unwrap();
    std::fs::write(plain.path().join("a.py"), "def f():\n    pass\n").unwrap();
    let root = plain.path().canonicalize().unwrap();
    let server = client(&[]).await;
    let refused = call(&server, "repo_map", json!({"project_root": root})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("not a project") && !text(&refused).contains('\n'));
    assert!(!root.join(".repo-mapper").exists(), "no store written");
    server.cancel().await.unwrap();
    let allowed = client(&["--root", root.to_str().unwrap()]).await;
    let ok = json_of(&call(&allowed, "repo_map", json!({"project_root": root})).await);
    assert!(ok["map"].as_str().unwrap().contains("def f"));
    allowed.cancel().await.unwrap();
}

/// Issue 23: file names with control characters are escaped in `included_files` and in
/// the search's `file`, as the map text shows them.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn file_names_are_escaped_in_every_answer() {
    let r = repo();
    let root = r.path().canonicalize().unwrap();
    let odd = root.join("odd\nname\x1b.py");
    std::fs::write(&odd, "def odd_function_name():\n    return 1\n").unwrap();
    let shown = "odd\\nname\\x1b.py";
    let client = client(&[]).await;
    let args = json!({"project_root": root, "token_limit": 8192});
    let map = json_of(&call(&client, "repo_map", args).await);
    let included = map["report"]["included_files"].as_array().unwrap();
    assert!(included.iter().any(|f| f == shown), "{included:?}");
    let args = json!({"project_root": root, "query": "odd_function_name"});
    let found = json_of(&call(&client, "search_identifiers", args).await);
    assert_eq!(found["results"][0]["file"], shown);
    client.cancel().await.unwrap();
}

/// Issue 27: `show_symbol` gives a definition's whole source by name or by a line inside
/// it, cut at `max_tokens` with a line saying so; a symbol not there is a one-line error
/// naming what the file defines.
#[tokio::test(flavor = "multi_thread")]
async fn show_symbol_gives_a_definition_by_name_or_line() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let shown = |symbol: &str, cap: Option<usize>| {
        let mut args = json!({"project_root": root, "symbol": symbol});
        if let Some(cap) = cap {
            args["max_tokens"] = json!(cap);
        }
        args
    };
    let by_name = json_of(
        &call(
            &client,
            "show_symbol",
            shown("app/models/user.py#display_name", None),
        )
        .await,
    );
    let definition = &by_name["definitions"][0];
    assert_eq!(definition["start_line"], 12);
    assert_eq!(definition["end_line"], 13);
    assert!(
        definition["source"]
            .as_str()
            .unwrap()
            .starts_with("    def display_name(self)")
    );
    let by_line =
        json_of(&call(&client, "show_symbol", shown("app/models/user.py:13", None)).await);
    assert_eq!(by_line, by_name);
    let cut = json_of(
        &call(
            &client,
            "show_symbol",
            shown("app/models/user.py#User", Some(30)),
        )
        .await,
    );
    assert!(
        cut["definitions"][0]["omitted_lines"].as_u64().unwrap() > 0,
        "{cut}"
    );
    let missing = call(
        &client,
        "show_symbol",
        shown("app/models/user.py#nope", None),
    )
    .await;
    assert_eq!(missing.is_error, Some(true));
    assert!(text(&missing).contains("it defines User") && !text(&missing).contains('\n'));
    let bad = call(&client, "show_symbol", shown("app/models/user.py", None)).await;
    assert_eq!(bad.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// Issue 27: `outline` lists what files import and define, within `max_tokens`; the
/// answer says how many symbols and imports of each file it shows.
#[tokio::test(flavor = "multi_thread")]
async fn outline_lists_what_files_define_within_the_cap() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let paths = OUTLINED;
    let whole = outlined(&client, json!({"project_root": root, "paths": paths})).await;
    let text = whole["outline"].as_str().unwrap();
    assert!(
        text.starts_with(
            "app/models/user.py (python, 20 lines)\n  imports stdlib: dataclasses\n  class \
             User:  [7-16] public\n"
        ),
        "{text}"
    );
    assert!(text.contains(
        "  imports local: app.models.order → app/models/order.py, app.models.user → \
         app/models/user.py\n"
    ));
    assert!(
        text.contains(
            "    def place_order(self, user: User, cart: dict) -> Order:  [15-20] public"
        )
    );
    assert_eq!(whole["files"][0]["symbols"], whole["files"][0]["shown"]);
    assert_eq!(whole["files"][1]["imports"], 2);
    assert_eq!(whole["files"][1]["imports_shown"], 2);
    let capped = json!({"project_root": root, "paths": paths, "max_tokens": 100});
    let capped = outlined(&client, capped).await;
    let shown = capped["files"][1]["shown"].as_u64().unwrap();
    assert!(
        shown < capped["files"][1]["symbols"].as_u64().unwrap(),
        "{capped}"
    );
    assert!(capped["outline"].as_str().unwrap().contains("more\n"));
    let tiny = json!({"project_root": root, "paths": paths, "max_tokens": 20});
    let tiny = call(&client, "outline", tiny).await;
    assert_eq!(
        tiny.is_error,
        Some(true),
        "a cap that holds no line says so"
    );
    let missing = call(
        &client,
        "outline",
        json!({"project_root": root, "paths": ["nope.py"]}),
    )
    .await;
    assert_eq!(missing.is_error, Some(true));
    client.cancel().await.unwrap();
}

/// Issue 27: a capped outline pages: each page within the cap, cursor after cursor,
/// every symbol and import on exactly one page; a cursor names its request's paths.
#[tokio::test(flavor = "multi_thread")]
async fn outline_pages_follow_their_cursors() {
    let client = client(&[]).await;
    let dir = repo();
    let root = dir.path().to_str().unwrap();
    let paths = OUTLINED;
    let whole = outlined(&client, json!({"project_root": root, "paths": paths})).await;
    let mut request = json!({"project_root": root, "paths": paths, "max_tokens": 100});
    let (mut pages, mut symbols, mut imports) = (0, 0, 0);
    loop {
        let page = outlined(&client, request.clone()).await;
        pages += 1;
        for file in page["files"].as_array().unwrap() {
            symbols += file["shown"].as_u64().unwrap();
            imports += file["imports_shown"].as_u64().unwrap();
        }
        match page["next_cursor"].as_str() {
            Some(cursor) if pages < 50 => request["cursor"] = cursor.into(),
            _ => break,
        }
    }
    let total = |key: &str| -> u64 {
        whole["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f[key].as_u64().unwrap())
            .sum()
    };
    assert!(pages > 1);
    assert_eq!((symbols, imports), (total("symbols"), total("imports")));
    let other = call(
        &client,
        "outline",
        json!({"project_root": root, "paths": ["app/models/user.py"], "cursor": request["cursor"]}),
    )
    .await;
    assert_eq!(
        other.is_error,
        Some(true),
        "a cursor names its request's paths"
    );
    // An edit between pages makes the cursor stale: an error, not lines skipped.
    let user = dir.path().join("app/models/user.py");
    let text = std::fs::read_to_string(&user).unwrap();
    std::fs::write(&user, format!("{text}\ndef added():\n    pass\n")).unwrap();
    let stale = call(&client, "outline", request.clone()).await;
    assert_eq!(stale.is_error, Some(true), "a cursor from before an edit");
    client.cancel().await.unwrap();
}
