//! [`History`]: which files changed together in a repository's recent commits, read from
//! git when [`Config::history`](crate::Config::history) is on. The default profile orders
//! files by it too: those that changed in the same commits as the chat files
//! ([`Relevance::co_change_weight`](crate::Relevance::co_change_weight)).
//!
//! Only the history of the checked-out commit is read (`git log HEAD`): never a commit
//! after it, so a checkout of an old commit sees the history as it was then.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use repo_mapper_tags::FileStamp;

/// Commits read back from `HEAD`: enough to cover weeks of an active repository, few
/// enough that git answers in tens of milliseconds.
pub const HISTORY_COMMITS: usize = 1000;

/// Commits that changed more files than this say nothing about which files belong
/// together (formatting passes, renames, vendored updates): they are left out.
const MAX_COMMIT_FILES: usize = 50;

/// The files each recent commit changed, most recent first, relative to the root.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct History {
    commits: Vec<Vec<String>>,
    /// What tells this history apart: the commit it was read back from, or a digest of
    /// the commits it was built from.
    id: String,
}

impl History {
    /// A history of these commits (each the files it changed, relative to the root), most
    /// recent first.
    pub fn from_commits(commits: Vec<Vec<String>>) -> History {
        let mut digest = blake3::Hasher::new();
        for commit in &commits {
            for f in commit {
                digest.update(f.as_bytes());
                digest.update(&[0]);
            }
            digest.update(&[1]);
        }
        let id = format!("list:{}", digest.finalize().to_hex());
        History { commits, id }
    }

    /// What tells this history apart from another: the commit it was read back from (a
    /// digest of the list for [`History::from_commits`]).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The last [`HISTORY_COMMITS`] commits before and at `HEAD` of the git work tree
    /// `root` lies in (merges left out), paths relative to `root`; `None` where there is
    /// no git, no repository or no commit.
    pub fn read_git(root: &Path) -> Option<History> {
        History::read_git_at(root, head_commit(root)?)
    }

    /// [`History::read_git`] from `head` (a commit id).
    pub(crate) fn read_git_at(root: &Path, head: String) -> Option<History> {
        let count = format!("-n{HISTORY_COMMITS}");
        let log = git(
            root,
            &[
                "log",
                "--no-merges",
                "--relative",
                "--name-only",
                "--format=%x01",
                &count,
                &head,
            ],
        )?;
        let commits = log.split('\u{1}').skip(1).map(|block| {
            block
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        });
        Some(History {
            commits: commits.collect(),
            id: head,
        })
    }

    /// Per file of `files`: the commits that changed it and one of `chat`, each counted
    /// as 1 / the files it changed (a commit of two files ties them more than one of
    /// twenty). A chat file's own score is 0.
    pub fn co_change(&self, chat: &[&str], files: &[&str]) -> Vec<f64> {
        let mut score: HashMap<&str, f64> = HashMap::new();
        for commit in &self.commits {
            let size = commit.len();
            if size > MAX_COMMIT_FILES || !commit.iter().any(|f| chat.contains(&f.as_str())) {
                continue;
            }
            for f in commit {
                *score.entry(f).or_default() += 1.0 / size as f64;
            }
        }
        let of = |f: &&str| match chat.contains(f) {
            true => 0.0,
            false => score.get(f).copied().unwrap_or(0.0),
        };
        files.iter().map(of).collect()
    }
}

/// The commit `HEAD` names in the repository `root` lies in; `None`, without running git,
/// where neither `root` nor a directory above it holds `.git` (a directory, or a
/// worktree's file): a map of such a root would otherwise pay a failing `git` per call.
pub(crate) fn head_commit(root: &Path) -> Option<String> {
    HeadWitness::read(root).map(|w| w.commit)
}

/// The commit `HEAD` named when it was read, and the files git resolved it from (the
/// work tree's `HEAD`, the branch's loose ref, `packed-refs`) with their stamps: while
/// none of them changes, `HEAD` names the same commit, and a long-lived session need not
/// run git again to know it (issue 26: `git rev-parse` cost a warm call 1.2 ms).
#[derive(Debug, Clone)]
pub(crate) struct HeadWitness {
    /// The commit id.
    pub(crate) commit: String,
    files: Vec<(PathBuf, Option<FileStamp>)>,
    /// Whether a stamp was racy when taken: then only git can tell.
    racy: bool,
}

impl HeadWitness {
    /// `HEAD` of the git work tree `root` lies in, by `git rev-parse`, with its witness
    /// files' stamps taken first (so a change between the two shows next time).
    pub(crate) fn read(root: &Path) -> Option<HeadWitness> {
        let (git_dir, common_dir) = git_dirs(root)?;
        let head_file = git_dir.join("HEAD");
        let mut paths = vec![head_file.clone(), common_dir.join("packed-refs")];
        let mut known = true;
        match std::fs::read_to_string(&head_file) {
            Ok(text) => {
                if let Some(name) = text.trim().strip_prefix("ref: ") {
                    let branch = common_dir.join(name);
                    // A loose ref must name a commit: one that names another ref is
                    // followed by git but not by this witness.
                    known =
                        std::fs::read_to_string(&branch).map_or(true, |t| !t.starts_with("ref:"));
                    paths.push(branch);
                }
            }
            Err(_) => known = false,
        }
        // Refs in a reftable (`HEAD` then names `refs/heads/.invalid`) are not files.
        known &= !common_dir.join("reftable").exists();
        let now = SystemTime::now();
        let files: Vec<(PathBuf, Option<FileStamp>)> =
            paths.into_iter().map(|p| (p.clone(), stamp(&p))).collect();
        // A layout this reading does not know is never trusted: git is asked each time.
        let racy = !known || files.iter().any(|(_, s)| s.is_some_and(|s| s.racy_at(now)));
        let out = git(root, &["rev-parse", "--verify", "--quiet", "HEAD"])?;
        let commit = out.trim();
        (!commit.is_empty()).then(|| HeadWitness {
            commit: commit.to_owned(),
            files,
            racy,
        })
    }

    /// Whether `HEAD` surely still names [`HeadWitness::commit`]: every witness file has
    /// the stamp it had (or is still missing), and none was racy when taken.
    pub(crate) fn still_holds(&self) -> bool {
        !self.racy && self.files.iter().all(|(path, was)| stamp(path) == *was)
    }
}

/// The git directory and the common directory (where refs live) of the work tree `root`
/// lies in, by git's repository layout: the nearest `.git` above it, a directory or a
/// worktree's file (`gitdir: …`), whose `commondir` names the common directory. `None`
/// without any `.git`: then git is not run at all.
fn git_dirs(root: &Path) -> Option<(PathBuf, PathBuf)> {
    let dot_git = root
        .ancestors()
        .map(|dir| dir.join(".git"))
        .find(|p| p.exists())?;
    let git_dir = match std::fs::read_to_string(&dot_git) {
        Ok(text) => {
            let named = text.trim().strip_prefix("gitdir: ").unwrap_or(text.trim());
            dot_git.parent().unwrap_or(root).join(named)
        }
        Err(_) => dot_git,
    };
    let common_dir = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir.clone(),
    };
    Some((git_dir, common_dir))
}

fn stamp(path: &Path) -> Option<FileStamp> {
    std::fs::metadata(path).ok().map(|m| FileStamp::of(&m))
}

/// `git -C root ARGS`'s output, `None` if git is missing or fails.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    // The repository is the one `root` lies in, as `git_dirs` finds it, whatever
    // repository the caller's environment points git at.
    let out = Command::new("git")
        .env_remove("GIT_DIR")
        .env_remove("GIT_COMMON_DIR")
        .env_remove("GIT_WORK_TREE")
        .arg("-C")
        .arg(root)
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match out {
        Ok(out) if out.status.success() => String::from_utf8(out.stdout).ok(),
        Ok(_) => None,
        Err(e) => {
            tracing::debug!("no history: git did not run: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commits(list: &[&[&str]]) -> History {
        let owned = list
            .iter()
            .map(|c| c.iter().map(|f| (*f).to_owned()).collect());
        History::from_commits(owned.collect())
    }

    #[test]
    fn files_score_by_the_commits_they_share_with_the_chat_files() {
        let history = commits(&[
            &["a.py", "b.py"],
            &["a.py", "b.py", "c.py", "d.py"],
            &["c.py", "e.py"],
        ]);
        let scores = history.co_change(&["a.py"], &["a.py", "b.py", "c.py", "e.py", "f.py"]);
        assert_eq!(scores, [0.0, 0.5 + 0.25, 0.25, 0.0, 0.0]);
    }

    #[test]
    fn commits_of_many_files_tie_nothing() {
        let mut big: Vec<String> = (0..=MAX_COMMIT_FILES).map(|i| format!("f{i}.py")).collect();
        big.push("a.py".to_owned());
        let history = History::from_commits(vec![big]);
        assert_eq!(history.co_change(&["a.py"], &["f1.py"]), [0.0]);
    }
}
