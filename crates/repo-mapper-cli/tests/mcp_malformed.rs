//! `repo-mapper mcp` given lines that are not JSON (issue 23): each is answered with a
//! JSON-RPC parse error (−32700, `"id": null`) and one warning on stderr, and the session
//! goes on. The exchange is written by hand, as JSON lines, since no MCP client sends such
//! lines; so is the one that closes stdin during a call and waits for the server to exit
//! (rmcp's client sends SIGTERM to a server that takes more than 3 seconds to exit).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

/// How long to wait for one line of the server's before calling it hung: a watchdog, far
/// above what any answer here takes.
const HUNG: Duration = Duration::from_secs(120);

/// The lines that are not JSON: a typo, a `tools/call` cut short, bytes that are not
/// UTF-8, a NUL byte inside a string and NUL bytes alone.
const BAD_LINES: [&[u8]; 5] = [
    b"{not json",
    br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"repo_map","argum"#,
    b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"\xff\xfe\xfd\"}",
    b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/\0list\"}",
    b"\0\0\0",
];

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_repo-mapper"))
            .arg("mcp")
            .env_remove("RUST_LOG")
            .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if tx
                    .send(line.expect("the server writes UTF-8 lines"))
                    .is_err()
                {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).unwrap();
        self.stdin.write_all(b"\n").unwrap();
        self.stdin.flush().unwrap();
    }

    fn send_json(&mut self, message: &Value) {
        self.send(message.to_string().as_bytes());
    }

    /// The server's next line, as JSON.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(HUNG)
            .expect("the server answers (or it hung, or exited)");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The server's lines up to and including the answer to request `id`.
    fn until_answer(&self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self.next();
            let done = message["id"] == id;
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    /// Closes stdin and returns stderr, once the server has exited successfully.
    fn stop(self) -> String {
        drop(self.stdin);
        let out = self.child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{:?}: {stderr}", out.status);
        stderr
    }
}

fn initialize(server: &mut Server) {
    server.send_json(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": { "name": "mcp_malformed", "version": "0" },
        },
    }));
    let answer = server.until_answer(1);
    let init = answer.last().unwrap();
    assert!(init["result"]["serverInfo"].is_object(), "{init}");
    server.send_json(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
}

#[test]
fn each_line_that_is_not_json_gets_a_parse_error_and_the_session_goes_on() {
    let mut server = Server::start();
    initialize(&mut server);
    for line in BAD_LINES {
        server.send(line);
    }
    server.send_json(&json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list" }));
    let answers = server.until_answer(9);

    let (errors, others): (Vec<&Value>, Vec<&Value>) =
        answers.iter().partition(|m| m["error"]["code"] == -32700);
    assert_eq!(
        errors.len(),
        BAD_LINES.len(),
        "one per bad line: {answers:#?}"
    );
    for error in &errors {
        assert_eq!(error["jsonrpc"], "2.0", "{error}");
        assert!(error.get("id").is_some_and(Value::is_null), "{error}");
        assert_eq!(error["error"]["message"], "Parse error", "{error}");
    }
    assert_eq!(others.len(), 1, "{answers:#?}");
    let tools: Vec<&str> = others[0]["result"]["tools"]
        .as_array()
        .expect("tools/list is answered")
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"repo_map"), "{tools:?}");

    let stderr = server.stop();
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("answered with a JSON-RPC parse error"))
        .collect();
    assert_eq!(warnings.len(), BAD_LINES.len(), "{stderr}");
    assert!(warnings.iter().all(|w| w.contains("WARN")), "{stderr}");
}

/// JSON that is no message is no parse error: an invalid request, with a null id.
#[test]
fn well_formed_json_that_is_no_message_is_an_invalid_request() {
    let mut server = Server::start();
    initialize(&mut server);
    server.send(br#"{"not":"a message"}"#);
    server.send_json(&json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/list" }));
    let answers = server.until_answer(5);
    assert_eq!(answers.len(), 2, "{answers:#?}");
    assert_eq!(answers[0]["error"]["code"], -32600, "{answers:#?}");
    let stderr = server.stop();
    assert!(!stderr.contains("parse error"), "{stderr}");
}

/// A `tools/call` whose arguments nest a list `levels` deep, with this `id` (JSON text).
fn nested_call(id: &str, levels: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"search_identifiers","arguments":{{"project_root":"/no/such/dir","query":"x","deep":{}{}}}}}}}"#,
        "[".repeat(levels),
        "]".repeat(levels)
    )
    .into_bytes()
}

/// JSON nested deeper than rmcp's parser takes (serde_json stops at 128 levels) is
/// answered with an invalid-request error carrying the request's id, however deep; a
/// request just within the limit is rmcp's to answer; a deep notification gets no answer;
/// the session goes on.
#[test]
fn a_request_nested_too_deep_gets_an_error_with_its_id() {
    let mut server = Server::start();
    initialize(&mut server);
    // The message, `params` and `arguments` are three levels: 124 more make 127.
    server.send(&nested_call("10", 124));
    let within = server.until_answer(10);
    assert_eq!(within.len(), 1, "{within:#?}");
    assert!(within[0]["result"]["isError"] == true, "{within:#?}");
    for (id, levels) in [(json!(11), 125), (json!(12), 126), (json!("deep"), 100_000)] {
        server.send(&nested_call(&id.to_string(), levels));
        let answer = server.next();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        let data = answer["error"]["data"].as_str().unwrap();
        assert!(data.contains(&format!("{} levels", levels + 3)), "{answer}");
    }
    let notification = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{}{}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    server.send(notification.as_bytes());
    server.send_json(&json!({ "jsonrpc": "2.0", "id": 13, "method": "tools/list" }));
    let answers = server.until_answer(13);
    assert_eq!(
        answers.len(),
        1,
        "the notification is not answered: {answers:#?}"
    );
    assert!(answers[0]["result"]["tools"].is_array(), "{answers:#?}");
    let stderr = server.stop();
    let warned = stderr.lines().filter(|l| l.contains("levels deep")).count();
    assert_eq!(warned, 4, "{stderr}");
}

/// `n` Python files in a new project, old enough (past the store's two-second racy
/// window) that a scan which read them all would vouch for every one afterwards.
fn settled_repo(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for i in 0..n {
        let body: String = (0..40)
            .map(|j| format!("def f{i}_{j}(x):\n    return g{j}(x) + h{i}(x)\n\n"))
            .collect();
        std::fs::write(dir.path().join(format!("m{i}.py")), body).unwrap();
    }
    std::thread::sleep(Duration::from_secs(3));
    dir
}

/// Calls `repo_map` on `root` with a progress token, and returns the first thing the
/// server says about it: a progress notification or the answer.
fn first_word_on_a_map(server: &mut Server, id: u64, root: &std::path::Path) -> Value {
    server.send_json(&json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "repo_map",
            "arguments": { "project_root": root, "token_limit": 512 },
            "_meta": { "progressToken": id },
        },
    }));
    server.next()
}

/// When stdin closes during a long call (a cold scan), the server exits without
/// finishing it: the scan is abandoned, so the next server on the same cache still has
/// every file to read.
#[test]
fn closing_stdin_during_a_cold_scan_ends_the_server_without_finishing_it() {
    const FILES: usize = 8000;
    let dir = settled_repo(FILES);
    let root = dir.path().canonicalize().unwrap();
    let mut server = Server::start();
    initialize(&mut server);
    let first = first_word_on_a_map(&mut server, 2, &root);
    assert_eq!(first["method"], "notifications/progress", "{first}");
    server.stop();
    let mut again = Server::start();
    initialize(&mut again);
    let first = first_word_on_a_map(&mut again, 2, &root);
    assert_eq!(
        first["params"]["total"].as_f64(),
        Some(FILES as f64),
        "the scan was finished before the exit: {first}"
    );
    again.stop();
}

/// An `initialize` whose `protocolVersion` is no string is refused as invalid params,
/// saying what is wrong (rmcp answered that `_meta` was missing); the client may then
/// initialize properly, and a client that leaves without initializing ends the server
/// without an error.
#[test]
fn an_initialize_without_a_string_protocol_version_is_told_so() {
    let unversioned = |id: u64, version: Value| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "mcp_malformed", "version": "0" },
            },
        })
    };
    let mut server = Server::start();
    server.send_json(&unversioned(1, json!(2025)));
    let refused = server.next();
    assert_eq!(refused["id"], 1, "{refused}");
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let data = refused["error"]["data"].as_str().unwrap();
    assert!(data.contains("protocolVersion"), "{refused}");
    initialize(&mut server);
    server.send_json(&json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list" }));
    assert!(server.until_answer(9).last().unwrap()["result"]["tools"].is_array());
    server.stop();

    let mut leaving = Server::start();
    leaving.send_json(&unversioned(1, Value::Null));
    assert_eq!(leaving.next()["error"]["code"], -32602);
    let stderr = leaving.stop();
    assert!(!stderr.contains("the MCP server stopped"), "{stderr}");
}

/// A request rmcp would drop without a word gets an error with its id, and the session
/// goes on: one whose line is longer than rmcp reads (the id found as the line streams
/// past), one with another `jsonrpc` version, one whose `params` are an array.
#[test]
fn requests_rmcp_cannot_read_get_an_error_with_their_id() {
    let mut server = Server::start();
    initialize(&mut server);
    let huge = "x".repeat(17 << 20);
    let overlong = format!(
        r#"{{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{{"name":"search_identifiers","arguments":{{"project_root":"/no","query":"{huge}"}}}}}}"#
    );
    server.send(overlong.as_bytes());
    server.send(br#"{"jsonrpc":"1.0","id":21,"method":"tools/list"}"#);
    server.send(br#"{"jsonrpc":"2.0","id":"p","method":"tools/call","params":[1,2]}"#);
    for id in [json!(20), json!(21), json!("p")] {
        let answer = server.next();
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
    }
    server.send_json(&json!({ "jsonrpc": "2.0", "id": 22, "method": "tools/list" }));
    let answers = server.until_answer(22);
    assert!(answers[0]["result"]["tools"].is_array(), "{answers:#?}");
    server.stop();
}
