//! `cargo xtask mcp-client`: `repo-mapper mcp` driven by the official MCP Python SDK
//! (issue 15), as agents written in Python run it. The SDK (`mcp` from PyPI, pinned) lives
//! in a private virtual environment under `target/mcp-python/`; the checks are
//! `xtask/python/mcp_client_check.py`, on a copy of `fixtures/sample-repo`.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, ensure};

use crate::parity::tools::build_cli;
use crate::{python, workspace_root};

/// The Python SDK, pinned: its client is what the check speaks.
const SDK: &str = "mcp==2.3.0";

pub fn run(rest: &[String]) -> Result<()> {
    ensure!(rest.is_empty(), "usage: cargo xtask mcp-client");
    let py = venv_python()?;
    let exe = build_cli()?;
    let copy = workspace_root().join("target/mcp-python/sample-repo");
    if copy.exists() {
        std::fs::remove_dir_all(&copy)?;
    }
    copy_dir(&workspace_root().join("fixtures/sample-repo"), &copy)?;
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

/// The environment's Python, made and given the SDK when missing (reused when present).
fn venv_python() -> Result<PathBuf> {
    let venv = workspace_root().join("target/mcp-python/venv");
    let py = venv.join("bin/python");
    let ready = venv.join(".mcp-installed");
    if py.exists() && std::fs::read_to_string(&ready).is_ok_and(|s| s == SDK) {
        return Ok(py);
    }
    let status = Command::new(python())
        .args(["-m", "venv"])
        .arg(&venv)
        .status()?;
    ensure!(status.success(), "python3 -m venv failed");
    eprintln!("mcp-client: pip install {SDK} (once)");
    let status = Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            SDK,
        ])
        .status()
        .context("running pip install")?;
    ensure!(status.success(), "pip install {SDK} failed");
    std::fs::write(&ready, SDK)?;
    Ok(py)
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
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
    Ok(())
}
