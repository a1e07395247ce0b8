//! The soak's random edits between calls, each made as a [`Step`]: files and directories
//! added, deleted and renamed; files rewritten at the same size or another, sometimes with
//! their old modification time put back; files touched; `.gitignore` edited; another
//! commit checked out and back.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Result;

use super::case::Step;
use super::rng::Rng;
use super::tree::{directories, ident_pool, identifiers, mapped, pick_small};

/// The kinds of edit, by name (the tally and the cases' notes use the names).
const KINDS: [(&str, usize); 11] = [
    ("add-file", 16),
    ("add-dir", 5),
    ("delete-file", 7),
    ("delete-dir", 2),
    ("rename-file", 7),
    ("rename-dir", 3),
    ("rewrite-same-size", 13),
    ("rewrite-resized", 13),
    ("touch", 4),
    ("gitignore", 6),
    ("git-checkout", 4),
];

/// The largest directory (in mapped files) deleted or renamed whole.
const MAX_DIR_FILES: usize = 12;

/// Makes edits; remembers what later edits depend on.
#[derive(Debug)]
pub(crate) struct Editor {
    /// The commits root 0 may check out (none: root 0 is not a git clone).
    commits: Vec<String>,
    /// Whether root 0 is checked out at another commit (a `git_away` not yet undone).
    away: bool,
    /// Patterns the soak added to `.gitignore` files: (root, pattern).
    ignored: Vec<(usize, String)>,
    /// Each root's last fresh map: most edits go to the files it shows, and rename the
    /// identifiers it shows, so that a stale answer shows.
    shown: Vec<String>,
    /// Each root's file count when first edited: the size [`Self::balanced`] holds it near.
    start_files: Vec<Option<usize>>,
}

impl Editor {
    /// An editor; `commits` are those root 0 may check out.
    pub(super) fn new(commits: Vec<String>) -> Editor {
        Editor {
            commits,
            away: false,
            ignored: Vec::new(),
            shown: Vec::new(),
            start_files: Vec::new(),
        }
    }

    /// Remembers `map`, the fresh map of `root`.
    pub(super) fn saw(&mut self, root: usize, map: &str) {
        if self.shown.len() <= root {
            self.shown.resize(root + 1, String::new());
        }
        self.shown[root] = map.to_owned();
    }

    /// The files an edit of `root` picks from: seven times in ten those of `files` its
    /// last fresh map showed (when there are some), else `files`.
    fn targets(&self, rng: &mut Rng, root: usize, files: &[String]) -> Vec<String> {
        let map = self.shown.get(root).map_or("", String::as_str);
        let mapped: HashSet<&String> = files.iter().collect();
        let shown: Vec<String> = map_files(map)
            .into_iter()
            .filter(|f| mapped.contains(f))
            .collect();
        if shown.is_empty() || rng.percent(30) {
            files.to_vec()
        } else {
            shown
        }
    }

    /// The next edit, most often of root `focus` (the last request's): its kind and step
    /// (`None` when the kind drawn had no target).
    pub(super) fn next(
        &mut self,
        rng: &mut Rng,
        roots: &[PathBuf],
        focus: usize,
    ) -> Result<Option<(String, Step)>> {
        if self.away && rng.percent(50) {
            self.away = false;
            return Ok(Some(("git-back".to_owned(), Step::GitBack { root: 0 })));
        }
        let weights: Vec<usize> = KINDS.iter().map(|k| k.1).collect();
        let kind = KINDS[rng.weighted(&weights)].0;
        let root = if rng.percent(75) {
            focus
        } else {
            rng.below(roots.len())
        };
        let dir = &roots[root];
        let files = mapped(dir);
        let kind = self.balanced(kind, root, files.len());
        let targets = self.targets(rng, root, &files);
        let map = self.shown.get(root).map_or("", String::as_str);
        let step = match kind {
            "add-file" => Some(add_file(rng, root, dir, &files, None)),
            "add-dir" => {
                let new_dir = rng.word(5);
                Some(add_file(rng, root, dir, &files, Some(new_dir)))
            }
            "delete-file" => rng.pick(&targets).map(|f| Step::Delete {
                root,
                path: f.clone(),
            }),
            "delete-dir" => pick_dir(rng, &files).map(|path| Step::Delete { root, path }),
            "rename-file" => rename_file(rng, root, &targets, &files),
            "rename-dir" => pick_dir(rng, &files).map(|path| Step::Rename {
                root,
                to: format!("{path}_{}", rng.word(3)),
                path,
            }),
            "rewrite-same-size" => same_size(rng, root, dir, &targets, map),
            "rewrite-resized" => resized(rng, root, dir, &targets),
            "touch" => rng.pick(&targets).map(|f| Step::Touch {
                root,
                path: f.clone(),
            }),
            "gitignore" => self.gitignore(rng, root, dir, &files),
            _ => self.checkout(rng),
        };
        // A rename onto something that is there (an unmapped file, a directory) is no edit.
        let step = step.filter(|s| !matches!(s, Step::Rename { to, .. } if dir.join(to).exists()));
        Ok(step.map(|s| (name_of(kind, &s), s)))
    }

    /// `kind`, or the opposite kind when the root has drifted more than a tenth from its
    /// first size: over a long run the repositories keep their size, so that the server's
    /// memory over the run shows what it keeps per call, not a repository that grows.
    fn balanced(&mut self, kind: &'static str, root: usize, files: usize) -> &'static str {
        if self.start_files.len() <= root {
            self.start_files.resize(root + 1, None);
        }
        let start = *self.start_files[root].get_or_insert(files);
        let adds = kind.starts_with("add-");
        let deletes = kind.starts_with("delete-");
        if adds && files * 10 > start * 11 {
            "delete-file"
        } else if deletes && files * 10 < start * 9 {
            "add-file"
        } else {
            kind
        }
    }

    /// Checks another commit out (root 0, when it is a clone).
    fn checkout(&mut self, rng: &mut Rng) -> Option<Step> {
        if self.away {
            return None;
        }
        let commit = rng.pick(&self.commits)?.clone();
        self.away = true;
        Some(Step::GitAway { root: 0, commit })
    }

    /// Adds a pattern to the root's `.gitignore`, takes one out, or touches the file.
    fn gitignore(
        &mut self,
        rng: &mut Rng,
        root: usize,
        dir: &Path,
        files: &[String],
    ) -> Option<Step> {
        let path = ".gitignore".to_owned();
        let text = std::fs::read_to_string(dir.join(&path)).unwrap_or_default();
        let mine: Vec<usize> = (0..self.ignored.len())
            .filter(|i| self.ignored[*i].0 == root)
            .collect();
        if let Some(&i) = rng.pick(&mine).filter(|_| rng.percent(40)) {
            let (_, pattern) = self.ignored.remove(i);
            let text = text.replacen(&format!("{pattern}\n"), "", 1);
            return Some(Step::Write {
                root,
                path,
                text,
                keep_mtime: false,
            });
        }
        if !text.is_empty() && rng.percent(20) {
            return Some(Step::Touch { root, path });
        }
        let dirs = directories(files);
        let pattern = match rng.below(3) {
            0 => format!("/{}/", rng.pick(&dirs)?.0),
            1 => format!("/{}", rng.pick(files)?),
            _ => rng
                .pick(&["*.md", "*.json", "*.txt", "*.toml"])?
                .to_string(),
        };
        let sep = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        self.ignored.push((root, pattern.clone()));
        Some(Step::Write {
            root,
            path,
            text: format!("{text}{sep}{pattern}\n"),
            keep_mtime: false,
        })
    }
}

/// The kind's name, `-mtime-kept` added when the write puts the old time back.
fn name_of(kind: &str, step: &Step) -> String {
    match step {
        Step::Write {
            keep_mtime: true, ..
        } => format!("{kind}-mtime-kept"),
        _ => kind.to_owned(),
    }
}

/// A directory of at most [`MAX_DIR_FILES`] mapped files.
fn pick_dir(rng: &mut Rng, files: &[String]) -> Option<String> {
    let small: Vec<String> = directories(files)
        .into_iter()
        .filter(|(_, n)| *n <= MAX_DIR_FILES)
        .map(|(d, _)| d)
        .collect();
    rng.pick(&small).cloned()
}

/// A new source file next to an existing one, or in a new directory `new_dir` there.
fn add_file(
    rng: &mut Rng,
    root: usize,
    dir: &Path,
    files: &[String],
    new_dir: Option<String>,
) -> Step {
    let parent = rng
        .pick(files)
        .and_then(|f| Path::new(f).parent()?.to_str().map(str::to_owned))
        .unwrap_or_default();
    let ext = *rng.pick(&["py", "rs", "js", "go"]).unwrap_or(&"py");
    let name = format!("soak_{}.{ext}", rng.word(6));
    let path = [
        parent.as_str(),
        new_dir.as_deref().unwrap_or(""),
        name.as_str(),
    ]
    .iter()
    .filter(|p| !p.is_empty())
    .copied()
    .collect::<Vec<_>>()
    .join("/");
    let pool = ident_pool(rng, dir, files);
    let mut text = if ext == "go" {
        "package soak\n\n".to_owned()
    } else {
        String::new()
    };
    for _ in 0..rng.between(1, 4) {
        text += &function(rng, ext, &pool);
    }
    Step::Write {
        root,
        path,
        text,
        keep_mtime: false,
    }
}

/// A function in `ext`'s language that calls one of `pool`.
fn function(rng: &mut Rng, ext: &str, pool: &[String]) -> String {
    let name = format!("soak_{}", rng.word(7));
    let callee = rng
        .pick(pool)
        .cloned()
        .unwrap_or_else(|| "print".to_owned());
    match ext {
        "rs" => format!("pub fn {name}(value: u32) -> u32 {{\n    {callee}(value)\n}}\n\n"),
        "js" => format!("export function {name}(value) {{\n  return {callee}(value);\n}}\n\n"),
        "go" => format!("func {name}(value int) int {{\n\treturn {callee}(value)\n}}\n\n"),
        "py" if rng.percent(30) => {
            format!(
                "class {}:\n    def run(self):\n        return {callee}(self)\n\n",
                name.to_uppercase()
            )
        }
        _ => format!("def {name}(value):\n    return {callee}(value)\n\n"),
    }
}

/// One of `targets` moved into another directory of `files`, or renamed where it is.
fn rename_file(rng: &mut Rng, root: usize, targets: &[String], files: &[String]) -> Option<Step> {
    let path = rng.pick(targets)?.clone();
    let name = Path::new(&path).file_name()?.to_str()?.to_owned();
    let dirs = directories(files);
    let to = match rng.pick(&dirs).filter(|_| rng.percent(50)) {
        Some((d, _)) => format!("{d}/{name}"),
        None => {
            let parent = Path::new(&path).parent()?.to_str()?;
            let renamed = format!("{}_{name}", rng.word(3));
            if parent.is_empty() {
                renamed
            } else {
                format!("{parent}/{renamed}")
            }
        }
    };
    (to != path && !files.contains(&to)).then_some(Step::Rename { root, path, to })
}

/// A file with one identifier renamed to another of the same length (so the same size),
/// one that `map` shows when there is one; sometimes with its modification time put back.
fn same_size(rng: &mut Rng, root: usize, dir: &Path, files: &[String], map: &str) -> Option<Step> {
    let (path, text) = pick_small(rng, dir, files, 8)?;
    let in_map = map_section(map, &path);
    let all: Vec<&str> = identifiers(&text).into_iter().map(|(_, w)| w).collect();
    let shown: Vec<&str> = all.iter().copied().filter(|w| in_map.contains(w)).collect();
    let old = *rng.pick(if shown.is_empty() { &all } else { &shown })?;
    let new = rng.word(old.len());
    let text = replace_word(&text, old, &new);
    let keep_mtime = rng.percent(40);
    Some(Step::Write {
        root,
        path,
        text,
        keep_mtime,
    })
}

/// The files a map shows (its header lines, `path:`).
fn map_files(map: &str) -> Vec<String> {
    map.lines()
        .filter(|l| l.ends_with(':') && !l.starts_with(['│', '⋮', ' ', '\t']))
        .map(|l| l[..l.len() - 1].to_owned())
        .collect()
}

/// The identifiers `map` shows under `file`'s header.
fn map_section<'m>(map: &'m str, file: &str) -> Vec<&'m str> {
    let header = format!("{file}:");
    let mut lines = map.lines().skip_while(|l| *l != header).skip(1);
    let body = lines.by_ref().take_while(|l| l.starts_with(['│', '⋮']));
    body.flat_map(|l| identifiers(l).into_iter().map(|(_, w)| w))
        .collect()
}

/// `text` with each whole-word `old` replaced by `new`.
fn replace_word(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (at, word) in identifiers(text) {
        if word == old {
            out.push_str(&text[last..at]);
            out.push_str(new);
            last = at + word.len();
        }
    }
    out.push_str(&text[last..]);
    out
}

/// A file grown by a function, cut to its first half, or emptied; sometimes with its
/// modification time put back.
fn resized(rng: &mut Rng, root: usize, dir: &Path, files: &[String]) -> Option<Step> {
    let (path, text) = pick_small(rng, dir, files, 8)?;
    let ext = Path::new(&path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("py");
    let text = match rng.below(3) {
        0 => {
            let pool = ident_pool(rng, dir, files);
            format!("{text}\n{}", function(rng, ext, &pool))
        }
        1 => {
            let half = text.floor_char_boundary(text.len() / 2);
            let cut = text[..half].rfind('\n').map_or(0, |i| i + 1);
            text[..cut].to_owned()
        }
        _ => String::new(),
    };
    let keep_mtime = rng.percent(40);
    Some(Step::Write {
        root,
        path,
        text,
        keep_mtime,
    })
}
