//! The replayable case format of `fixtures/soak-regressions/` (its README is the
//! reference): the roots' starting points, then every edit and request in order. The soak
//! makes each edit as a [`Step`] and applies it with [`apply`], so what a case records is
//! exactly what was done. `crates/repo-mapper-cli/tests/soak_replay.rs` replays cases
//! with its own reading of the same format.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The case format's version.
pub(crate) const FORMAT: u32 = 1;

/// The ref a `git_away` step leaves the working tree's snapshot under.
const BACK_REF: &str = "refs/soak/back";

/// Where a root starts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Base {
    /// A `git clone --no-hardlinks` of `repository` (default: the workspace) at `commit`,
    /// with `exclude` appended to its `.git/info/exclude`.
    Git {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repository: Option<String>,
        commit: String,
        #[serde(default)]
        exclude: Vec<String>,
    },
    /// A copy of a directory of the workspace (relative to the workspace root).
    Fixture(String),
    /// These files (relative path → text).
    Files(BTreeMap<String, String>),
}

/// One edit or request. Paths are relative to the root numbered `root` (0: the first).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(crate) enum Step {
    /// Write `text` to `path` (parent directories made); with `keep_mtime` the file's
    /// modification time is put back to what it was before the write.
    Write {
        root: usize,
        path: String,
        text: String,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        keep_mtime: bool,
    },
    /// Delete a file, or a directory and everything in it.
    Delete { root: usize, path: String },
    /// Rename a file or directory (the target's parent directories made).
    Rename {
        root: usize,
        path: String,
        to: String,
    },
    /// Set a file's modification time to now, its content unchanged.
    Touch { root: usize, path: String },
    /// Commit the working tree as it is (`git add -A`) under `refs/soak/back`, then
    /// `git checkout -f` `commit`.
    GitAway { root: usize, commit: String },
    /// `git checkout -f refs/soak/back`.
    GitBack { root: usize },
    /// A `repo_map` call: the tool's arguments but `project_root`; with `check` its
    /// answer is compared with a fresh one.
    Map {
        root: usize,
        args: Value,
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        check: bool,
    },
    /// A `search_identifiers` call: the tool's arguments but `project_root`.
    Search {
        root: usize,
        args: Value,
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        check: bool,
    },
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl Step {
    /// The root the step is about.
    pub(super) fn root(&self) -> usize {
        match self {
            Step::Write { root, .. }
            | Step::Delete { root, .. }
            | Step::Rename { root, .. }
            | Step::Touch { root, .. }
            | Step::GitAway { root, .. }
            | Step::GitBack { root }
            | Step::Map { root, .. }
            | Step::Search { root, .. } => *root,
        }
    }

    /// The step, a request no longer compared (a case checks only its last request).
    pub(super) fn unchecked(&self) -> Step {
        let mut step = self.clone();
        if let Step::Map { check, .. } | Step::Search { check, .. } = &mut step {
            *check = false;
        }
        step
    }
}

/// What the soak saw at the case's last step (information only; a replay recomputes it).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Observed {
    /// `map` or `search`.
    pub tool: String,
    /// Whether the warm server said its map came from its map cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_cache: Option<bool>,
    /// The edits of the root since the previous call on the same session (root and
    /// profile), by kind.
    pub edits_before: Vec<String>,
    /// The warm answer against the fresh one, as a unified diff.
    pub diff: String,
}

/// A replayable case.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Case {
    pub format: u32,
    /// How the case was found.
    pub origin: String,
    pub roots: Vec<Base>,
    pub steps: Vec<Step>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Observed>,
}

/// Makes `base` at `dir` (which must not exist); `workspace` resolves relative names.
pub(crate) fn materialise(base: &Base, dir: &Path, workspace: &Path) -> Result<()> {
    match base {
        Base::Git {
            repository,
            commit,
            exclude,
        } => {
            let repo = repository
                .as_ref()
                .map_or_else(|| workspace.to_path_buf(), PathBuf::from);
            clone_at(&repo, commit, exclude, dir)
        }
        Base::Fixture(rel) => crate::corpus::copy_tree(&workspace.join(rel), dir),
        Base::Files(files) => {
            std::fs::create_dir_all(dir)?;
            files
                .iter()
                .try_for_each(|(path, text)| write_file(&dir.join(path), text))
        }
    }
}

/// `git clone --no-hardlinks repo dir`, checked out at `commit`, `exclude` appended to its
/// `.git/info/exclude`, automatic garbage collection off.
fn clone_at(repo: &Path, commit: &str, exclude: &[String], dir: &Path) -> Result<()> {
    git(
        Path::new("."),
        &[
            "clone",
            "-q",
            "--no-hardlinks",
            path_str(repo)?,
            path_str(dir)?,
        ],
    )?;
    git(dir, &["checkout", "-q", "-f", "--detach", commit])?;
    // No background `git gc --auto` after a checkout: it moves objects while a search's
    // fresh run copies the tree (`cp -al` failed on a vanished objects directory after
    // 39 minutes of soak).
    git(dir, &["config", "gc.auto", "0"])?;
    git(dir, &["config", "gc.autoDetach", "false"])?;
    let info = dir.join(".git/info");
    std::fs::create_dir_all(&info)?;
    let mut lines = std::fs::read_to_string(info.join("exclude")).unwrap_or_default();
    for pattern in exclude {
        lines.push_str(pattern);
        lines.push('\n');
    }
    Ok(std::fs::write(info.join("exclude"), lines)?)
}

/// Applies an edit step to `roots`; requests are not edits (an error).
pub(crate) fn apply(step: &Step, roots: &[PathBuf]) -> Result<()> {
    let root = roots.get(step.root()).context("no such root")?;
    match step {
        Step::Write {
            path,
            text,
            keep_mtime,
            ..
        } => write_step(&root.join(path), text, *keep_mtime),
        Step::Delete { path, .. } => {
            let path = root.join(path);
            if path.is_dir() {
                Ok(std::fs::remove_dir_all(&path)?)
            } else {
                Ok(std::fs::remove_file(&path)?)
            }
        }
        Step::Rename { path, to, .. } => {
            let to = root.join(to);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent)?;
            }
            Ok(std::fs::rename(root.join(path), to)?)
        }
        Step::Touch { path, .. } => set_mtime(&root.join(path), SystemTime::now()),
        Step::GitAway { commit, .. } => git_away(root, commit),
        Step::GitBack { .. } => git(root, &["checkout", "-q", "-f", "--detach", BACK_REF]),
        Step::Map { .. } | Step::Search { .. } => bail!("a request is not an edit"),
    }
    .with_context(|| {
        format!(
            "applying {}",
            serde_json::to_string(step).unwrap_or_default()
        )
    })
}

fn write_step(path: &Path, text: &str, keep_mtime: bool) -> Result<()> {
    let before = if keep_mtime {
        Some(std::fs::metadata(path)?.modified()?)
    } else {
        None
    };
    write_file(path, text)?;
    match before {
        Some(mtime) => set_mtime(path, mtime),
        None => Ok(()),
    }
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    Ok(std::fs::write(path, text)?)
}

/// Sets `path`'s modification time, as `touch -d` (or `touch -r`) does.
fn set_mtime(path: &Path, mtime: SystemTime) -> Result<()> {
    let file = File::options().write(true).open(path)?;
    Ok(file.set_modified(mtime)?)
}

/// Commits the working tree under [`BACK_REF`] and checks `commit` out.
fn git_away(root: &Path, commit: &str) -> Result<()> {
    git(root, &["add", "-A"])?;
    git(
        root,
        &[
            "-c",
            "user.name=soak",
            "-c",
            "user.email=soak@localhost",
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "--no-verify",
            "--allow-empty",
            "-m",
            "soak: the working tree before git_away",
        ],
    )?;
    git(root, &["update-ref", BACK_REF, "HEAD"])?;
    git(root, &["checkout", "-q", "-f", "--detach", commit])
}

/// Runs `git args` in `dir`; fails with its stderr.
pub(crate) fn git(dir: &Path, args: &[&str]) -> Result<()> {
    git_output(dir, args).map(drop)
}

/// Runs `git args` in `dir` and returns its stdout; fails with its stderr.
pub(crate) fn git_output(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .context("running git")?;
    ensure!(
        out.status.success(),
        "git {} failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn path_str(path: &Path) -> Result<&str> {
    path.to_str()
        .with_context(|| format!("{} is not UTF-8", path.display()))
}

/// The `repo-mapper` command-line arguments (after the root) of the map `args` asks for,
/// for a fresh run: `--no-cache`, every parameter explicit (the tool's budget default is
/// 8192, the command's 1024). `attempt` 2 drops the chat files, 3 the mentions too
/// (the fallback the tool runs and the command runs only with `--message`).
pub(crate) fn cli_args(args: &Value, attempt: u8) -> Vec<String> {
    let list = |key: &str| -> Vec<String> {
        args[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut out = vec!["--no-cache".to_owned()];
    let mut flag = |name: &str, values: Vec<String>| {
        for v in values {
            out.push(name.to_owned());
            out.push(v);
        }
    };
    if attempt < 2 {
        flag("-c", list("chat_files"));
    }
    if attempt < 3 {
        flag("-m", list("mentioned_files"));
        flag("-i", list("mentioned_idents"));
    }
    let text = |key: &str| args[key].as_str().map(str::to_owned);
    flag("--message", text("message").into_iter().collect());
    flag("--profile", text("profile").into_iter().collect());
    let budget = args["token_limit"].as_u64().unwrap_or(8192);
    flag("-t", vec![budget.to_string()]);
    if args["exclude_unranked"] == true {
        out.push("--exclude-unranked".to_owned());
    }
    out
}
