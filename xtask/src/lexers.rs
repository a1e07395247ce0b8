//! `cargo xtask vendor-lexers [--check]`: export pygments' lexer tables for the aider
//! profile's identifier fallback (T8 in `docs/parity.md`) into `queries/pygments/`.
//!
//! The tables come from the pygments that `pip install aider-chat==0.86.2` brings into the
//! parity virtual environment (`target/parity/venv`), read by
//! `xtask/python/pygments_export.py` for the languages repo-mapper extracts in the aider
//! dialect; the licence is copied beside them. `--check` fails when the committed files
//! differ from a fresh export, or when the replay (`dump_tags --pygments`) yields other
//! names than pygments for any file under `fixtures/` (`pygments_replay_check.py`).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use repo_mapper_tags::Language;

use crate::parity::tools::venv_python;
use crate::workspace_root;

const LEXERS: &str = "queries/pygments/lexers.json";
const LICENSE: &str = "queries/pygments/LICENSE-pygments.txt";

pub(crate) fn run(args: &[String]) -> Result<()> {
    let check = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask vendor-lexers [--check]"),
    };
    let root = workspace_root();
    let py = venv_python()?;
    let out_dir = root.join("target").join("parity");
    std::fs::create_dir_all(&out_dir)?;
    let fresh = out_dir.join("lexers.json");
    let langs: Vec<&str> = Language::ALL
        .iter()
        .filter(|l| l.aider_supported())
        .map(|l| l.name())
        .collect();
    let status = Command::new(&py)
        .arg(root.join("xtask/python/pygments_export.py"))
        .arg(&fresh)
        .args(&langs)
        .current_dir(&root)
        .status()
        .context("running pygments_export.py")?;
    ensure!(status.success(), "pygments_export.py failed");
    let license = pygments_license(&py)?;
    let pairs = [
        (root.join(LEXERS), std::fs::read(&fresh)?),
        (root.join(LICENSE), std::fs::read(&license)?),
    ];
    if check {
        for (path, want) in &pairs {
            let have = std::fs::read(path).unwrap_or_default();
            ensure!(
                &have == want,
                "{} differs from pygments' export: run `cargo xtask vendor-lexers`",
                path.display()
            );
        }
        eprintln!("vendor-lexers: {LEXERS} matches pygments");
        // The replay itself, file by file against pygments, on every fixture.
        let status = Command::new(&py)
            .arg(root.join("xtask/python/pygments_replay_check.py"))
            .arg("--show")
            .arg("5")
            .arg("fixtures")
            .current_dir(&root)
            .status()
            .context("running pygments_replay_check.py")?;
        ensure!(
            status.success(),
            "the aider profile's pygments replay differs from pygments on fixtures/"
        );
        return Ok(());
    }
    for (path, bytes) in &pairs {
        std::fs::create_dir_all(path.parent().expect("a file in a directory"))?;
        std::fs::write(path, bytes)?;
        eprintln!("vendor-lexers: wrote {}", path.display());
    }
    Ok(())
}

/// The licence file of the venv's pygments distribution.
fn pygments_license(py: &std::path::Path) -> Result<PathBuf> {
    let out = Command::new(py)
        .args([
            "-c",
            "import importlib.metadata as m; d = m.distribution('pygments'); \
             print(next(str(d.locate_file(f)) for f in d.files if 'LICENSE' in str(f)))",
        ])
        .output()
        .context("locating pygments' licence")?;
    ensure!(out.status.success(), "cannot locate pygments' licence");
    Ok(PathBuf::from(String::from_utf8(out.stdout)?.trim()))
}
