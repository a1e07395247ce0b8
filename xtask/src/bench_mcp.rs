//! `cargo xtask bench mcp [--repo linux|django|PATH] [--calls N] [--budget N] [--message
//! TEXT] [--profile P] [--binary PATH]`: the MCP server kept warm (issue 15), optionally
//! with a user message per call and another profile; `--binary` times another build (an
//! earlier commit's, to compare two builds in one sitting) instead of this one's.
//!
//! Starts `repo-mapper mcp` (release) as an agent does, speaks JSON-RPC to it on its
//! stdin and stdout, and calls `repo_map` `--calls` times, each with another chat file
//! (50 of the repository's source files in turn), after one first call that loads the
//! session from the repository's store in the per-user cache (the server's default:
//! the first call parses every file when that store is empty; one CLI run on the
//! repository fills it). Reports
//! the first call, then the median and 90th percentile of the rest, client-side wall time
//! and the server's own `timings.total_ms`, the median of each step (and what they leave out of
//! the server's median), the last call's steps, and the server's resident
//! memory after the 10th call and every 50th (flat: no growth per call). Writes
//! `target/bench-scale/mcp-<repo>.json`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};

use crate::scale::{build_release, name_of, repository};
use crate::workspace_root;

struct Options {
    repo: String,
    calls: usize,
    budget: usize,
    /// A user message sent with every call (the default profile then scores it).
    message: Option<String>,
    /// The profile asked for (the server's default when unset).
    profile: Option<String>,
    /// The `repo-mapper` binary to time (default: this workspace's release build).
    binary: Option<PathBuf>,
}

/// A running server and the connection to it.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let o = parse_args(args)?;
    let root = repository(&o.repo)?;
    let binary = match &o.binary {
        Some(binary) => binary.clone(),
        None => build_release()?,
    };
    let chats = chat_files(&root)?;
    ensure!(!chats.is_empty(), "no source file to put in the chat");
    let mut server = Server::start(&binary, &root)?;
    let mut first = None;
    let (mut wall, mut server_ms, mut rss) = (Vec::new(), Vec::new(), Vec::new());
    let mut steps = Vec::new();
    for i in 0..=o.calls {
        let chat = &chats[i % chats.len()];
        let mut args = json!({"project_root": root, "chat_files": [chat], "token_limit": o.budget});
        if let Some(m) = &o.message {
            args["message"] = json!(m);
        }
        if let Some(p) = &o.profile {
            args["profile"] = json!(p);
        }
        let started = Instant::now();
        let answer = server.call("repo_map", args)?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let elapsed = answer["report"]["timings"]["total_ms"]
            .as_f64()
            .unwrap_or(f64::NAN);
        if i == 0 {
            first = Some((ms, elapsed));
        } else {
            wall.push(ms);
            server_ms.push(elapsed);
            steps.push(answer["report"]["timings"].clone());
        }
        if i == 10 || i % 50 == 0 && i > 0 {
            rss.push((i, server.rss_kib()?));
        }
        if i == o.calls {
            println!("  last call's steps: {}", answer["report"]["timings"]);
        }
    }
    server.stop();
    print_step_medians(&steps, &server_ms);
    report(
        &o,
        &root,
        first.expect("one call"),
        &mut wall,
        &mut server_ms,
        &rss,
    )
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        repo: "django".to_owned(),
        calls: 200,
        budget: 1024,
        message: None,
        profile: None,
        binary: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().context("a value after the flag");
        match a.as_str() {
            "--repo" => o.repo = value()?.clone(),
            "--calls" => o.calls = value()?.parse()?,
            "--budget" => o.budget = value()?.parse()?,
            "--message" => o.message = Some(value()?.clone()),
            "--profile" => o.profile = Some(value()?.clone()),
            "--binary" => o.binary = Some(PathBuf::from(value()?)),
            _ => bail!(
                "usage: cargo xtask bench mcp [--repo linux|django|PATH] [--calls N] [--budget N] \
                 [--message TEXT] [--profile P] [--binary PATH]"
            ),
        }
    }
    ensure!(o.calls >= 10, "--calls must be at least 10");
    Ok(o)
}

/// Up to 50 source files of the repository (as the map's walk lists it), spread over it,
/// to take turns in the chat.
fn chat_files(root: &Path) -> Result<Vec<String>> {
    let sources = [".py", ".c", ".rs", ".go", ".js", ".ts"];
    let files: Vec<String> = repo_mapper::list_files(root, None)
        .iter()
        .filter_map(|f| f.strip_prefix(root).ok()?.to_str().map(str::to_owned))
        .filter(|f| sources.iter().any(|e| f.ends_with(e)))
        .collect();
    let step = (files.len() / 50).max(1);
    Ok(files.into_iter().step_by(step).take(50).collect())
}

impl Server {
    fn start(binary: &Path, root: &Path) -> Result<Server> {
        let mut child = Command::new(binary)
            .args(["mcp", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .context("starting repo-mapper mcp")?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut server = Server {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "1"}});
        server.request("initialize", init)?;
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(server)
    }

    fn send(&mut self, message: &Value) -> Result<()> {
        writeln!(self.stdin, "{message}")?;
        Ok(self.stdin.flush()?)
    }

    /// Sends a request and returns its result (notifications in between are skipped).
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            ensure!(
                self.stdout.read_line(&mut line)? > 0,
                "the server closed its output"
            );
            let message: Value = serde_json::from_str(&line)?;
            if message["id"] == id {
                ensure!(
                    message.get("error").is_none(),
                    "error: {}",
                    message["error"]
                );
                return Ok(message["result"].clone());
            }
        }
    }

    /// Calls `tool`; its text answer parsed as JSON.
    fn call(&mut self, tool: &str, arguments: Value) -> Result<Value> {
        let result = self.request("tools/call", json!({"name": tool, "arguments": arguments}))?;
        let text = result["content"][0]["text"]
            .as_str()
            .context("a text answer")?;
        ensure!(result["isError"] != true, "tool error: {text}");
        Ok(serde_json::from_str(text)?)
    }

    /// The server's resident memory now (`VmRSS`), in KiB.
    fn rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        let line = status
            .lines()
            .find(|l| l.starts_with("VmRSS:"))
            .context("VmRSS")?;
        let kib = line.split_whitespace().nth(1).context("VmRSS value")?;
        Ok(kib.parse()?)
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// The median of each step over the calls after the first, and what the steps leave out
/// of the server's median (naming the request's files, building the rank request).
fn print_step_medians(steps: &[Value], server_ms: &[f64]) {
    let step = |v: &Value, key: &str| v[key].as_f64();
    let keys = [
        ("history", "history_ms"),
        ("admit", "admit_ms"),
        ("scan", "scan_ms"),
        ("index", "index_ms"),
        ("graph", "graph_ms"),
        ("pagerank", "pagerank_ms"),
        ("list", "list_ms"),
        ("fit", "fit_ms"),
        ("report", "report_ms"),
    ];
    let mut line = String::from("  median steps, ms    ");
    let mut sum = 0.0;
    for (name, key) in keys {
        let mut values: Vec<f64> = steps.iter().filter_map(|v| step(v, key)).collect();
        if values.is_empty() {
            continue;
        }
        let median = percentile(&mut values, 0.5);
        sum += median;
        line += &format!("{name} {median:.1}, ");
    }
    let mut server = server_ms.to_vec();
    let rest = percentile(&mut server, 0.5) - sum;
    println!("{line}rest {rest:.1}");
}

fn percentile(values: &mut [f64], p: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    let at = ((values.len() as f64 - 1.0) * p).round() as usize;
    values[at]
}

fn report(
    o: &Options,
    root: &Path,
    first: (f64, f64),
    wall: &mut [f64],
    server_ms: &mut [f64],
    rss: &[(usize, u64)],
) -> Result<()> {
    let (wall_med, wall_p90) = (percentile(wall, 0.5), percentile(wall, 0.9));
    let (srv_med, srv_p90) = (percentile(server_ms, 0.5), percentile(server_ms, 0.9));
    println!(
        "bench mcp: {} ({}), {} calls, budget {}",
        o.repo,
        root.display(),
        o.calls,
        o.budget
    );
    println!(
        "  first call           {:9.1} ms (server {:.1} ms)",
        first.0, first.1
    );
    println!("  next calls, median   {wall_med:9.1} ms (server {srv_med:.1} ms)");
    println!("  next calls, p90      {wall_p90:9.1} ms (server {srv_p90:.1} ms)");
    for (call, kib) in rss {
        println!(
            "  RSS after call {call:<5} {:9.1} MiB",
            *kib as f64 / 1024.0
        );
    }
    let out = json!({
        "repo": o.repo, "calls": o.calls, "budget": o.budget,
        "first_ms": first.0, "first_server_ms": first.1,
        "median_ms": wall_med, "p90_ms": wall_p90,
        "median_server_ms": srv_med, "p90_server_ms": srv_p90,
        "rss_kib": rss.iter().map(|(c, k)| json!({"after_call": c, "kib": k})).collect::<Vec<_>>(),
    });
    let dir: PathBuf = workspace_root().join("target/bench-scale");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join(format!("mcp-{}.json", name_of(&o.repo))),
        out.to_string(),
    )?;
    Ok(())
}
