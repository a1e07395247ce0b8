//! `cargo xtask fuzz --mcp`: hostile MCP requests against a live `repo-mapper mcp`.
//!
//! One server (the release binary) serves a copy of `fixtures/sample-repo` for the whole
//! run. Input *i* of seed *S* is always the same request: a valid call of one of the four
//! tools, then mutated one to three times — values nested thousands of levels deep,
//! strings of up to 10 MB (one word, many identifiers, Unicode of every kind: bidi
//! controls, NUL, lone surrogates, combining marks), every parameter given every JSON
//! type, unknown or missing parameters, paths out of the root, long arrays; or the
//! JSON-RPC envelope broken (unknown methods, ids of every type, batches, a wrong
//! version); or the line itself (truncated, a byte flipped, invalid UTF-8, a line break
//! inside).
//!
//! What must hold, each a failure otherwise: every request that has a usable id (a string
//! or an integer) gets one answer with that id, a result or an error, within
//! [`ANSWER_BOUND`]; every line, whatever it holds, is followed by a `ping` that must be
//! answered, so a line that wedges or kills the server shows at once; the server's
//! resident memory stays below [`MAX_RSS_KIB`]; every [`CHECK_EVERY`] inputs the same
//! well-formed `repo_map` call gives the answer it gave first; and when its input closes,
//! the server exits within [`EXIT_BOUND`]. A failing input is saved as
//! `target/fuzz/mcp-<seed>-<input>.jsonl` (the line as sent) and the server is started
//! again for the rest of the run.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use super::Rng;

/// The longest an answer may take, for the largest input made.
const ANSWER_BOUND: Duration = Duration::from_secs(60);

/// The longest the server may take to exit once its input is closed.
const EXIT_BOUND: Duration = Duration::from_secs(10);

/// The server's resident memory that counts as unbounded.
const MAX_RSS_KIB: u64 = 4 << 20;

/// How often the well-formed call is made again and compared.
const CHECK_EVERY: u64 = 25;

/// The longest string an input holds.
const MAX_STRING: usize = 10 << 20;

/// What `cargo xtask fuzz --mcp` was asked to do.
pub(super) struct McpOptions {
    pub seconds: u64,
    pub seed: u64,
    pub inputs: Option<u64>,
    pub binary: Option<PathBuf>,
}

/// Runs the MCP fuzzer; fails when any input failed.
pub(super) fn run(o: &McpOptions) -> Result<()> {
    let binary = match &o.binary {
        Some(b) => b.clone(),
        None => crate::scale::build_release()?,
    };
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    copy_fixture(
        &crate::workspace_root().join("fixtures/sample-repo"),
        &project,
    )?;
    let out_dir = crate::workspace_root().join("target/fuzz");
    std::fs::create_dir_all(&out_dir)?;
    let mut server = Server::start(&binary, scratch.path())?;
    let good = good_call(&project);
    let expected = server.call(&good)?;
    let started = Instant::now();
    let (mut done, mut failures) = (0u64, Vec::new());
    eprintln!(
        "fuzz --mcp: seed {}, {} s, server {}",
        o.seed,
        o.seconds,
        binary.display()
    );
    while o
        .inputs
        .map_or(started.elapsed().as_secs() < o.seconds, |n| done < n)
    {
        let mut rng = Rng::for_input(o.seed, done);
        let input = Input::make(&mut rng, &project);
        let checked = server.check(&input).and_then(|()| {
            if (done + 1) % CHECK_EVERY != 0 {
                return Ok(());
            }
            let again = server.call(&good)?;
            if again != expected {
                bail!("the well-formed call's answer changed:\n{expected}\n---\n{again}");
            }
            Ok(())
        });
        if let Err(why) = checked {
            let path = out_dir.join(format!("mcp-{}-{done}.jsonl", o.seed));
            std::fs::write(&path, &input.line)?;
            eprintln!("fuzz --mcp: input {done} ({}) failed: {why:#}", input.what);
            eprintln!("  saved as {}", path.display());
            failures.push(done);
            server.stop();
            server = Server::start(&binary, scratch.path())?;
        }
        done += 1;
        if done % 500 == 0 {
            eprintln!("fuzz --mcp: {done} inputs, {:.0?}", started.elapsed());
        }
    }
    let exit = server.close_and_wait();
    eprintln!(
        "fuzz --mcp: {done} inputs in {:.1?}, {} failed",
        started.elapsed(),
        failures.len()
    );
    exit?;
    if !failures.is_empty() {
        bail!(
            "{} of {done} MCP inputs failed: {failures:?}",
            failures.len()
        );
    }
    Ok(())
}

/// A copy of the fixture, marked as a project (the server serves only projects).
fn copy_fixture(from: &Path, to: &Path) -> Result<()> {
    let mut stack = vec![(from.to_path_buf(), to.to_path_buf())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst)?;
        for e in std::fs::read_dir(&src)? {
            let e = e?;
            let (s, d) = (e.path(), dst.join(e.file_name()));
            if e.file_type()?.is_dir() {
                stack.push((s, d));
            } else {
                std::fs::copy(&s, &d)?;
            }
        }
    }
    std::fs::create_dir_all(to.join(".git"))?;
    Ok(())
}

/// The call whose answer must not change.
fn good_call(project: &Path) -> Value {
    json!({"name": "repo_map", "arguments": {
        "project_root": project, "token_limit": 1024, "message": "deactivate the user"
    }})
}

/// One input: the line sent, the id whose answer is awaited, and what was done to it.
struct Input {
    line: Vec<u8>,
    id: Option<Value>,
    what: String,
}

impl Input {
    /// Input of `rng`: a tool call, mutated.
    fn make(rng: &mut Rng, project: &Path) -> Input {
        let mut args = valid_args(rng, project);
        let (mut what, mut raw) = (Vec::new(), Vec::new());
        for _ in 0..1 + rng.below(3) {
            what.push(mutate_args(rng, &mut args, &mut raw));
        }
        let tool = ["repo_map", "search_identifiers", "show_symbol", "outline"][rng.below(4)];
        let tool = args
            .get("__tool")
            .and_then(Value::as_str)
            .unwrap_or(tool)
            .to_owned();
        args.as_object_mut().map(|a| a.remove("__tool"));
        let mut id = json!(1_000_000 + rng.below(1_000_000));
        let mut request = json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        });
        if rng.one_in(4) {
            what.push(mutate_envelope(rng, &mut request));
            id = request.get("id").cloned().unwrap_or(Value::Null);
        }
        let mut line = with_raw(serde_json::to_vec(&request).unwrap_or_default(), &raw);
        if rng.one_in(8) {
            what.push(mutate_line(rng, &mut line));
            id = Value::Null;
        }
        line.push(b'\n');
        // Only a string or an integer is an id the server must echo.
        let usable = id.is_string() || id.as_i64().is_some() || id.as_u64().is_some();
        let id = (usable && request.get("method").is_some_and(Value::is_string)).then_some(id);
        Input {
            line,
            id,
            what: what.join(", "),
        }
    }
}

/// Valid arguments of some tool for `project` (any tool's: the mutations and the tool
/// chosen later mix them freely).
fn valid_args(rng: &mut Rng, project: &Path) -> Value {
    let root = project.to_string_lossy().into_owned();
    match rng.below(4) {
        0 => json!({"project_root": root, "token_limit": 512, "chat_files": ["app/models/user.py"],
                    "message": "fix checkout", "__tool": "repo_map"}),
        1 => json!({"project_root": root, "query": "User", "max_results": 5,
                    "__tool": "search_identifiers"}),
        2 => json!({"project_root": root, "symbol": "app/models/user.py#User",
                    "__tool": "show_symbol"}),
        _ => json!({"project_root": root, "paths": ["app/models/user.py"], "__tool": "outline"}),
    }
}

/// The parameter names the tools know, and a few they do not.
const PARAMS: [&str; 22] = [
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
    "max_tokens",
    "wait",
    "query",
    "max_results",
    "context_lines",
    "cursor",
    "symbol",
    "paths",
    "__proto__",
    "\u{202e}root",
];

/// The text that stands for the raw JSON `raw[i]` in a serialized input.
fn raw_mark(i: usize) -> String {
    format!("\"@@raw-{i}@@\"")
}

/// `line` with each [`raw_mark`] replaced by its raw JSON text (values too deep for
/// serde_json to write, or for anything to hold as a tree).
fn with_raw(line: Vec<u8>, raw: &[String]) -> Vec<u8> {
    let mut text = String::from_utf8(line).unwrap_or_default();
    for (i, json) in raw.iter().enumerate() {
        text = text.replacen(&raw_mark(i), json, 1);
    }
    text.into_bytes()
}

/// One change to `args` (a value too deep to hold goes to `raw`); says what it was.
fn mutate_args(rng: &mut Rng, args: &mut Value, raw: &mut Vec<String>) -> String {
    let name = PARAMS[rng.below(PARAMS.len())];
    let (value, what) = match rng.below(6) {
        0 => {
            let (text, what) = nested(rng);
            let mark = raw_mark(raw.len());
            raw.push(text);
            (Value::String(mark.trim_matches('"').to_owned()), what)
        }
        1 => (Value::String(big_string(rng)), "a long string".to_owned()),
        2 => any_type(rng),
        3 => (Value::String(odd_text(rng)), "odd Unicode".to_owned()),
        4 => long_array(rng),
        _ => {
            args.as_object_mut().map(|a| a.remove(name));
            return format!("{name} removed");
        }
    };
    if let Some(a) = args.as_object_mut() {
        a.insert(name.to_owned(), value);
    }
    format!("{name}: {what}")
}

/// The JSON text of a value nested deeply: arrays, objects or both.
fn nested(rng: &mut Rng) -> (String, String) {
    let depth = [10, 100, 126, 127, 128, 129, 500, 5_000, 100_000][rng.below(9)];
    let kind = rng.below(3);
    // Written as text: serde_json recurses to write or drop a value.
    let mut text = String::with_capacity(depth * 6);
    for i in 0..depth {
        text.push_str(if kind == 0 || (kind == 2 && i % 2 == 0) {
            "["
        } else {
            "{\"k\":"
        });
    }
    text.push('1');
    for i in (0..depth).rev() {
        text.push(if kind == 0 || (kind == 2 && i % 2 == 0) {
            ']'
        } else {
            '}'
        });
    }
    (text, format!("nested {depth} deep"))
}

/// A string of up to [`MAX_STRING`] bytes: one word, many distinct identifiers, or
/// repeated Unicode.
fn big_string(rng: &mut Rng) -> String {
    let len = [1 << 10, 100 << 10, 1 << 20, MAX_STRING][rng.below(4)];
    match rng.below(3) {
        0 => "x".repeat(len),
        1 => {
            let mut s = String::with_capacity(len + 16);
            let mut i = 0u64;
            while s.len() < len {
                s.push_str(&format!("ident_{i} "));
                i += 1;
            }
            s
        }
        _ => "é\u{202e}🦀 ".repeat(len / 10),
    }
}

/// Text with the characters that break naive handling.
fn odd_text(rng: &mut Rng) -> String {
    const PIECES: [&str; 12] = [
        "\u{202e}",
        "\u{2066}",
        "\0",
        "\u{feff}",
        "e\u{301}\u{301}\u{301}",
        "🦀",
        "\\",
        "../../../../etc/passwd",
        "/etc/shadow",
        "\r\n",
        "\u{1b}[2J",
        "#",
    ];
    (0..1 + rng.below(20))
        .map(|_| PIECES[rng.below(PIECES.len())])
        .collect()
}

/// A value of any JSON type.
fn any_type(rng: &mut Rng) -> (Value, String) {
    let value = match rng.below(9) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(u64::MAX),
        4 => json!(1e308),
        5 => json!(0.5),
        6 => json!({"a": [1, 2]}),
        7 => json!([]),
        _ => json!(""),
    };
    let what = format!("the type of {value}");
    (value, what)
}

/// A long array of strings.
fn long_array(rng: &mut Rng) -> (Value, String) {
    let n = [1_000, 100_000][rng.below(2)];
    let items = (0..n).map(|i| Value::String(format!("f{i}.py"))).collect();
    (Value::Array(items), format!("an array of {n}"))
}

/// One change to the JSON-RPC envelope; says what it was.
fn mutate_envelope(rng: &mut Rng, request: &mut Value) -> String {
    match rng.below(7) {
        0 => {
            request["method"] =
                json!(["tools/list", "nope", "", "initialize", "tools/call\u{0}"][rng.below(5)]);
            format!("method {}", request["method"])
        }
        1 => {
            request["id"] = [
                json!("id-\u{202e}"),
                json!(-7),
                json!(1.5),
                json!(null),
                json!({"x": 1}),
                json!(u64::MAX),
            ][rng.below(6)]
            .clone();
            format!("id {}", request["id"])
        }
        2 => {
            request["jsonrpc"] = json!("1.0");
            "version 1.0".into()
        }
        3 => {
            request["params"] = json!([1, 2, 3]);
            "params an array".into()
        }
        4 => {
            *request = json!([request.clone(), request.clone()]);
            "a batch".into()
        }
        5 => {
            request.as_object_mut().map(|r| r.remove("params"));
            "no params".into()
        }
        _ => {
            request["params"]["name"] = json!(odd_text(rng));
            "an unknown tool".into()
        }
    }
}

/// One change to the line's bytes; says what it was.
fn mutate_line(rng: &mut Rng, line: &mut Vec<u8>) -> String {
    let at = rng.below(line.len().max(1));
    match rng.below(5) {
        0 => {
            line.truncate(at);
            format!("cut at {at}")
        }
        1 => {
            if let Some(b) = line.get_mut(at) {
                *b ^= 1 << rng.below(8);
            }
            format!("bit flipped at {at}")
        }
        2 => {
            line.splice(at..at, [0xff, 0xfe, 0xc0]);
            "invalid UTF-8".into()
        }
        3 => {
            line.insert(at.min(line.len()), b'\n');
            "a line break inside".into()
        }
        _ => {
            line.splice(0..0, *b"\xEF\xBB\xBF");
            "a byte-order mark".into()
        }
    }
}

/// The live server and its answers, read on a thread of their own.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<Value>,
    next_id: u64,
}

impl Server {
    fn start(binary: &Path, scratch: &Path) -> Result<Server> {
        let mut child = Command::new(binary)
            .arg("mcp")
            .env("XDG_CACHE_HOME", scratch.join("cache"))
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(scratch.join("server.log"))?)
            .spawn()
            .context("starting repo-mapper mcp")?;
        let stdout = child.stdout.take().context("the server's stdout")?;
        let (send, answers) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let value = serde_json::from_slice(&line)
                    .unwrap_or_else(|e| json!({"unparsable": e.to_string()}));
                if send.send(value).is_err() {
                    break;
                }
                line.clear();
            }
        });
        let stdin = child.stdin.take();
        let mut server = Server {
            child,
            stdin,
            answers,
            next_id: 1,
        };
        server.handshake()?;
        Ok(server)
    }

    fn handshake(&mut self) -> Result<()> {
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "xtask-fuzz", "version": "0"}});
        self.request("initialize", init)?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        self.write(&line)
    }

    fn write(&mut self, line: &[u8]) -> Result<()> {
        let stdin = self.stdin.as_mut().context("input closed")?;
        stdin
            .write_all(line)
            .context("the server stopped reading")?;
        stdin.flush().context("the server stopped reading")
    }

    /// A request of ours, answered: its result.
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let answer = self.answer_to(&json!(id))?;
        answer
            .get("result")
            .cloned()
            .with_context(|| format!("an error: {answer}"))
    }

    /// The `tools/call` of `call`, answered: its text, but for what says how the answer
    /// was made (the report's timings, scan counts and whether a kept map served).
    fn call(&mut self, call: &Value) -> Result<String> {
        let result = self.request("tools/call", call.clone())?;
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let Ok(mut answer) = serde_json::from_str::<Value>(text) else {
            return Ok(text.to_owned());
        };
        if let Some(report) = answer.get_mut("report").and_then(Value::as_object_mut) {
            for key in ["timings", "scan", "from_cache"] {
                report.remove(key);
            }
        }
        Ok(answer.to_string())
    }

    /// The answer with `id`, skipping answers to other lines (a parse error's).
    fn answer_to(&mut self, id: &Value) -> Result<Value> {
        let deadline = Instant::now() + ANSWER_BOUND;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.answers.recv_timeout(left) {
                Ok(answer) if answer.get("id") == Some(id) => return self.well_formed(answer),
                Ok(answer) if answer.get("unparsable").is_some() => {
                    bail!("an answer that is not JSON: {answer}")
                }
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => {
                    bail!("no answer to {id} within {ANSWER_BOUND:?}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.try_wait().ok().flatten();
                    bail!("the server is gone ({status:?})")
                }
            }
        }
    }

    /// `answer` when it is a result or an error, as JSON-RPC has them.
    fn well_formed(&self, answer: Value) -> Result<Value> {
        if answer.get("result").is_some() != answer.get("error").is_none() {
            bail!("neither a result nor an error: {answer}");
        }
        Ok(answer)
    }

    /// Sends `input`, awaits its answer when it has an id, then a ping's; checks memory.
    fn check(&mut self, input: &Input) -> Result<()> {
        self.write(&input.line)?;
        if let Some(id) = &input.id {
            self.answer_to(id)?;
        }
        self.request("ping", json!({}))?;
        match rss_kib(self.child.id()) {
            Some(kib) if kib > MAX_RSS_KIB => bail!("resident memory {kib} KiB"),
            _ => Ok(()),
        }
    }

    fn stop(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes the server's input and waits for it to exit.
    fn close_and_wait(mut self) -> Result<()> {
        drop(self.stdin.take());
        let deadline = Instant::now() + EXIT_BOUND;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait()? {
                return match status.success() {
                    true => Ok(()),
                    false => bail!("the server exited with {status}"),
                };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.stop();
        bail!("the server did not exit within {EXIT_BOUND:?} of its input closing")
    }
}

/// The resident memory of process `pid`, from `/proc` (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
