//! `cargo xtask mcp-client`: `repo-mapper mcp` driven by the official MCP Python SDK
//! (issue 15), as agents written in Python run it. The SDK (`mcp` from PyPI, pinned) lives
//! in a private virtual environment under `target/mcp-python/`; the checks are
//! `xtask/python/mcp_client_check.py`, on a copy of `fixtures/sample-repo`.

use std::process::Command;

use anyhow::{Context, Result, ensure};

use crate::corpus::copy_tree;
use crate::parity::tools::{build_cli, venv_with};
use crate::workspace_root;

/// The Python SDK, pinned: its client is what the check speaks.
const SDK: &str = "mcp==2.3.0";

pub(crate) fn run(rest: &[String]) -> Result<()> {
    ensure!(rest.is_empty(), "usage: cargo xtask mcp-client");
    let py = venv_with(&workspace_root().join("target/mcp-python/venv"), SDK)?;
    let exe = build_cli()?;
    let copy = workspace_root().join("target/mcp-python/sample-repo");
    if copy.exists() {
        std::fs::remove_dir_all(&copy)?;
    }
    copy_tree(&workspace_root().join("fixtures/sample-repo"), &copy)?;
    let status = Command::new(&py)
        .arg(workspace_root().join("xtask/python/mcp_client_check.py"))
        .arg(&exe)
        .arg(&copy)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .context("running the MCP Python client")?;
    ensure!(status.success(), "the MCP Python client's checks failed");
    Ok(())
}
