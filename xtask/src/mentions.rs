//! `cargo xtask mentions`: the mentions repo-mapper derives from a message against those
//! Aider 0.86.2's own `Coder` methods derive (issue 15), on real commit messages.
//!
//! Each `fixtures/mentions/*.json` holds a repository's file list and commit messages from
//! its history, some with the commit's files as chat files (made by
//! `xtask/python/mentions_fixture.py`). `xtask/python/aider_mentions.py` runs Aider's
//! methods on a stand-in `Coder` in the parity virtual environment; the facade's
//! [`Mentions::from_message`] runs here. Any message whose sets differ fails the run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use repo_mapper::Mentions;
use serde::Deserialize;

use crate::parity::tools::{parity_dir, venv_python};
use crate::workspace_root;

#[derive(Deserialize)]
struct Fixture {
    files: Vec<String>,
    messages: Vec<Message>,
}

#[derive(Deserialize)]
struct Message {
    commit: String,
    text: String,
    chat: Vec<String>,
}

#[derive(Deserialize, PartialEq, Debug)]
struct Sets {
    files: Vec<String>,
    idents: Vec<String>,
}

pub(crate) fn run(rest: &[String]) -> Result<()> {
    ensure!(rest.is_empty(), "usage: cargo xtask mentions");
    let py = venv_python()?;
    let mut fixtures: Vec<PathBuf> = fs::read_dir(workspace_root().join("fixtures/mentions"))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    fixtures.sort();
    let (mut messages, mut failures) = (0, 0);
    for path in fixtures
        .iter()
        .filter(|p| p.extension() == Some("json".as_ref()))
    {
        let (n, bad) = check(&py, path)?;
        messages += n;
        failures += bad;
    }
    println!("mentions: {messages} messages, {failures} differ from Aider");
    if failures > 0 {
        bail!("{failures} of {messages} messages give other mentions than Aider's");
    }
    Ok(())
}

/// Compares one fixture's messages; returns (messages, differing).
fn check(py: &Path, path: &Path) -> Result<(usize, usize)> {
    let fixture: Fixture = serde_json::from_str(&fs::read_to_string(path)?)
        .with_context(|| format!("reading {}", path.display()))?;
    let theirs = aider_sets(py, path)?;
    ensure!(
        theirs.len() == fixture.messages.len(),
        "the driver skipped messages"
    );
    let mut bad = 0;
    for (message, theirs) in fixture.messages.iter().zip(&theirs) {
        let ours = Mentions::from_message(&message.text, &fixture.files, &message.chat);
        let ours = Sets {
            files: ours.files.into_iter().collect(),
            idents: ours.idents.into_iter().collect(),
        };
        if &ours != theirs {
            bad += 1;
            eprintln!(
                "mentions: {} {}: ours {ours:?}\n  Aider's {theirs:?}",
                path.display(),
                message.commit
            );
        }
    }
    println!(
        "mentions: {}: {} messages, {bad} differ",
        path.display(),
        fixture.messages.len()
    );
    Ok((fixture.messages.len(), bad))
}

/// Aider's sets for every message of the fixture at `path`.
fn aider_sets(py: &Path, path: &Path) -> Result<Vec<Sets>> {
    let out = parity_dir().join("mentions.json");
    let script = workspace_root().join("xtask/python/aider_mentions.py");
    let status = Command::new(py)
        .arg(script)
        .arg(path)
        .arg(&out)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .status()
        .context("running the Aider mention driver")?;
    ensure!(
        status.success(),
        "the Aider mention driver failed ({status})"
    );
    Ok(serde_json::from_str(&fs::read_to_string(&out)?)?)
}
