//! The two tools under comparison: Aider in its virtual environment (through our driver)
//! and the `repo-mapper` binary.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail, ensure};

use crate::{python, workspace_root};

pub(crate) const AIDER: &str = "aider-chat==0.86.2";

/// `target/parity/`: the virtual environment, work files and artifacts.
pub(crate) fn parity_dir() -> PathBuf {
    workspace_root().join("target").join("parity")
}

/// The virtual environment's Python, creating the environment and installing aider-chat
/// when missing (reused when present).
pub(crate) fn venv_python() -> Result<PathBuf> {
    venv_with(&parity_dir().join("venv"), AIDER)
}

/// The Python of the virtual environment `venv`, made and given the pip requirement
/// `spec` when missing (a marker file remembers what was installed; reused when present).
pub(crate) fn venv_with(venv: &Path, spec: &str) -> Result<PathBuf> {
    let py = venv.join("bin").join("python");
    let ready = venv.join(".installed");
    if py.exists() && std::fs::read_to_string(&ready).is_ok_and(|s| s == spec) {
        return Ok(py);
    }
    if !py.exists() {
        eprintln!("xtask: creating {}", venv.display());
        let status = Command::new(python())
            .args(["-m", "venv"])
            .arg(venv)
            .status()
            .context("running python3 -m venv")?;
        ensure!(status.success(), "python3 -m venv failed");
    }
    eprintln!("xtask: pip install {spec} (once)");
    let status = Command::new(&py)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            spec,
        ])
        .status()
        .context("running pip install")?;
    ensure!(status.success(), "pip install {spec} failed");
    std::fs::write(&ready, spec)?;
    Ok(py)
}

pub(crate) fn driver_script() -> PathBuf {
    workspace_root()
        .join("xtask")
        .join("python")
        .join("aider_driver.py")
}

/// Runs the driver: `job` and `out` are JSON files; `seed` is PYTHONHASHSEED.
pub(crate) fn run_driver(py: &Path, job: &Path, out: &Path, seed: u32, log: &Path) -> Result<()> {
    let log_file = std::fs::File::create(log)?;
    let status = Command::new(py)
        .arg(driver_script())
        .arg(job)
        .arg(out)
        .env("PYTHONHASHSEED", seed.to_string())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("TQDM_DISABLE", "1")
        .stdin(Stdio::null())
        .stdout(log_file.try_clone()?)
        .stderr(log_file)
        .status()
        .context("running the Aider driver")?;
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        bail!(
            "the Aider driver failed ({status}) on {}:\n{}",
            job.display(),
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
    }
    Ok(())
}

/// Builds `repo-mapper` (release) and returns the binary's path.
pub(crate) fn build_cli() -> Result<PathBuf> {
    eprintln!("parity: cargo build --release -p repo-mapper-cli");
    let mut child = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(workspace_root())
        .args([
            "build",
            "--release",
            "-p",
            "repo-mapper-cli",
            "--bin",
            "repo-mapper",
            "--message-format=json-render-diagnostics",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .context("running cargo build")?;
    let mut exe = None;
    let stdout = child.stdout.take().expect("piped");
    for line in BufReader::new(stdout).lines() {
        let line = line?;
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if msg["reason"] == "compiler-artifact"
            && let Some(path) = msg["executable"].as_str()
            && msg["target"]["name"] == "repo-mapper"
        {
            exe = Some(PathBuf::from(path));
        }
    }
    ensure!(
        child.wait()?.success(),
        "cargo build -p repo-mapper-cli failed"
    );
    exe.context("cargo build did not report the repo-mapper binary")
}

/// Our commit, with `+dirty` when the work tree differs from it.
pub(crate) fn our_commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(workspace_root())
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    let head = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&[
        "status",
        "--porcelain",
        "--",
        "crates",
        "queries",
        "Cargo.lock",
    ])
    .is_some_and(|s| !s.is_empty());
    if dirty { format!("{head}+dirty") } else { head }
}
