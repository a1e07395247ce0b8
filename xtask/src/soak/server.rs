//! The two sides of each comparison: `repo-mapper mcp` kept warm, driven by the official
//! Rust SDK's client (rmcp) over the child's stdin and stdout, and the fresh answer to the
//! same request (the command with `--no-cache` for a map; for a search, which the
//! command cannot do, a new server on a hard-linked copy of the root, so that it has no
//! tag store and nothing in memory).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ContentBlock};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;

use super::case::cli_args;

/// The longest a call may take before the soak gives up on the server.
const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// The client side: a runtime for rmcp, the binary to start and the directory its
/// servers serve.
pub(crate) struct Mcp {
    rt: tokio::runtime::Runtime,
    binary: PathBuf,
    serve: PathBuf,
}

/// A running `repo-mapper mcp` and the connection to it.
pub(crate) struct Server {
    service: RunningService<RoleClient, ()>,
    pid: Option<u32>,
}

impl Mcp {
    /// A client for `binary` (`repo-mapper`), its servers serving the roots inside
    /// `serve` (`--root`: they need not be projects).
    pub(super) fn new(binary: &Path, serve: &Path) -> Result<Mcp> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .context("starting the tokio runtime")?;
        Ok(Mcp {
            rt,
            binary: binary.to_path_buf(),
            serve: serve.to_path_buf(),
        })
    }

    /// Starts `repo-mapper mcp --root SERVE`, its stderr to `log`.
    /// Starts a server logging to `log`, its per-user cache in `cache_home` (the
    /// `XDG_CACHE_HOME` it sees).
    pub(super) fn start(&self, log: &Path, cache_home: &Path) -> Result<Server> {
        let stderr =
            std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let mut cmd = tokio::process::Command::new(&self.binary);
        cmd.arg("mcp")
            .arg("--root")
            .arg(&self.serve)
            .env_remove("RUST_LOG")
            .env("XDG_CACHE_HOME", cache_home);
        let _guard = self.rt.enter();
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(stderr)
            .spawn()
            .context("starting repo-mapper mcp")?;
        let pid = transport.id();
        let service = self
            .rt
            .block_on(().serve(transport))
            .context("initialising the MCP session")?;
        Ok(Server { service, pid })
    }

    /// Calls `tool` with `args`: its JSON answer, or the tool error's text as `Err`.
    pub(super) fn call(
        &self,
        server: &Server,
        tool: &str,
        args: &Value,
    ) -> Result<Result<Value, String>> {
        let arguments = args
            .as_object()
            .cloned()
            .context("arguments are an object")?;
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
        let call = server.service.call_tool(params);
        let result = self
            .rt
            .block_on(async { tokio::time::timeout(CALL_TIMEOUT, call).await })
            .with_context(|| format!("{tool} took over {CALL_TIMEOUT:?}"))?
            .with_context(|| format!("calling {tool}"))?;
        let text = match result.content.first() {
            Some(ContentBlock::Text(t)) => t.text.clone(),
            other => bail!("{tool} answered without text: {other:?}"),
        };
        if result.is_error == Some(true) {
            return Ok(Err(text));
        }
        Ok(Ok(serde_json::from_str(&text).context("the tool's JSON")?))
    }

    /// Ends the session; the server exits when its input closes.
    pub(super) fn stop(&self, server: Server) {
        let _ = self.rt.block_on(server.service.cancel());
    }

    /// The fresh answer to a search: a new server on a hard-linked copy of `root` (made
    /// at `scratch`, removed after), without the copy's tag store.
    pub(super) fn fresh_search(&self, root: &Path, args: &Value, scratch: &Path) -> Result<Value> {
        let copy = scratch.join("search-copy");
        if copy.exists() {
            std::fs::remove_dir_all(&copy)?;
        }
        let status = Command::new("cp")
            .arg("-al")
            .arg(root)
            .arg(&copy)
            .status()?;
        ensure!(status.success(), "cp -al {} failed", root.display());
        let store = copy.join(".repo-mapper");
        if store.exists() {
            std::fs::remove_dir_all(&store)?;
        }
        // A cache of its own: the copy shares no tags with the warm server's.
        let cache_home = scratch.join("fresh-cache");
        if cache_home.exists() {
            std::fs::remove_dir_all(&cache_home)?;
        }
        let server = self.start(&scratch.join("fresh-server.log"), &cache_home)?;
        let mut args = args.clone();
        args["project_root"] = Value::from(copy.to_string_lossy().into_owned());
        let answer = self.call(&server, "search_identifiers", &args);
        self.stop(server);
        std::fs::remove_dir_all(&copy)?;
        std::fs::remove_dir_all(&cache_home)?;
        Ok(answer?.unwrap_or_else(|e| Value::from(format!("tool error: {e}"))))
    }
}

impl Server {
    /// The server's resident memory now (`VmRSS`), in KiB.
    pub(super) fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid?)).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }
}

/// The fresh map of `args` on `root`: `repo-mapper ROOT --no-cache` with the same request,
/// run in `root`, or with `cold` set the same run into that cache directory (which the
/// caller makes empty), for a map from a cold cache. Without a message the command does
/// not fall back when the map is empty, and the tool does: the fallback's attempts are
/// run here instead.
pub(crate) fn fresh_map(
    binary: &Path,
    root: &Path,
    args: &Value,
    cold: Option<&Path>,
) -> Result<String> {
    let has = |key: &str| args[key].as_array().is_some_and(|a| !a.is_empty());
    let mut attempts = vec![1];
    if args["message"].is_null() {
        if has("chat_files") {
            attempts.push(2);
        }
        if has("mentioned_files") || has("mentioned_idents") {
            attempts.push(3);
        }
    }
    for attempt in attempts {
        let mut cli = cli_args(args, attempt);
        if let Some(dir) = cold {
            cli.retain(|a| a != "--no-cache");
            cli.extend(["--cache-dir".to_owned(), dir.to_string_lossy().into_owned()]);
        }
        let out = Command::new(binary)
            .current_dir(root)
            .arg(root)
            .args(&cli)
            .env_remove("RUST_LOG")
            .env_remove("REPO_MAPPER_CACHE_DIR")
            .stdin(Stdio::null())
            .output()
            .context("running repo-mapper")?;
        match out.status.code() {
            Some(0) => return Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
            Some(2) => continue,
            _ => bail!(
                "repo-mapper {:?} failed: {}",
                cli_args(args, attempt),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        }
    }
    Ok(String::new())
}
