//! The benchmark's tasks, read from git history: which commits qualify, what each
//! modified, and the repository as it was at the parent.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

/// One public repository of the benchmark, at a pinned commit.
pub(super) struct Repo {
    /// Short name, used in tables and paths.
    pub name: &'static str,
    /// `owner/name` on GitHub.
    pub github: &'static str,
    /// The main language.
    pub language: &'static str,
    /// The commit the history is read back from.
    pub pin: &'static str,
}

/// The repositories: at least one per language the issue names, mid-sized, with long
/// first-parent histories of plain commits.
pub(super) const REPOS: &[Repo] = &[
    Repo {
        name: "rich",
        github: "Textualize/rich",
        language: "Python",
        pin: "42899d8a0a96b121a514516f4be9db44ff7aeaf3",
    },
    Repo {
        name: "flask",
        github: "pallets/flask",
        language: "Python",
        pin: "2ac89889f4cc330eabd50f295dcef02828522c69",
    },
    Repo {
        name: "fzf",
        github: "junegunn/fzf",
        language: "Go",
        pin: "956562daaa82ddf55ea8f7aeab56883377b742c6",
    },
    Repo {
        name: "ripgrep",
        github: "BurntSushi/ripgrep",
        language: "Rust",
        pin: "3fce3b5bb0236da2df6d99672afb8a719642eca7",
    },
    Repo {
        name: "hono",
        github: "honojs/hono",
        language: "TypeScript",
        pin: "28a9c128912de19f3fb28b00ae289c9b93f6f392",
    },
    Repo {
        name: "axios",
        github: "axios/axios",
        language: "JavaScript",
        pin: "23a25af0688d1db2c396deb09229d2271cc24f6c",
    },
    Repo {
        name: "jq",
        github: "jqlang/jq",
        language: "C",
        pin: "579e6f76cffd7643ba4002a2c3618a5ea710589a",
    },
    Repo {
        name: "gson",
        github: "google/gson",
        language: "Java",
        pin: "9835b6f90192f79cdf5300c528fc6212455fb6c1",
    },
    Repo {
        name: "rack",
        github: "rack/rack",
        language: "Ruby",
        pin: "8bf4eb078498edc9105fb04add80d89c5340e60b",
    },
    Repo {
        name: "catch2",
        github: "catchorg/Catch2",
        language: "C++",
        pin: "a6ee7e20cd4011129816df7992c1a9db2ef4b58f",
    },
    Repo {
        name: "slim",
        github: "slimphp/Slim",
        language: "PHP",
        pin: "038fd5713d5a41636fdff0e8dcceedecdd17fc17",
    },
];

/// One task: a commit, its message, and the files it modified.
#[derive(Debug, Clone)]
pub(super) struct Task {
    pub commit: String,
    pub parent: String,
    /// The whole commit message, trimmed.
    pub message: String,
    /// The non-test, non-doc source files the commit modified (all existed at the
    /// parent), most changed lines first, ties by path.
    pub modified: Vec<String>,
}

/// Extensions of the source files the benchmark counts (the languages of its repositories
/// and their neighbours).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "go", "rs", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "c", "h", "cc", "cpp",
    "hpp", "java", "rb", "php",
];

/// Directory names whose files are tests, benchmarks, examples or documentation.
const NON_SOURCE_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "fixtures",
    "e2e",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "doc",
    "docs",
    "documentation",
    "example",
    "examples",
];

/// Whether `path` is a source file (by extension), tests included.
pub(super) fn is_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTENSIONS.contains(&ext))
}

/// Whether `path` is a test, benchmark, example or documentation file. Deliberately not
/// `repo_mapper_rank::is_auxiliary`, though close to it: which commits are tasks must not
/// move when the system under test changes its own notion.
pub(super) fn is_test_or_doc(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let mut parts: Vec<&str> = lower.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    if parts.iter().any(|d| NON_SOURCE_DIRS.contains(d)) {
        return true;
    }
    let stem = name.split('.').next().unwrap_or(name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem.ends_with("_tests")
        || stem.ends_with("_spec")
        || stem == "test"
        || stem == "conftest"
        || name.contains(".test.")
        || name.contains(".spec.")
}

/// Runs git in `dir`, returning stdout.
pub(super) fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "core.quotepath=off"])
        .args(args)
        .output()
        .context("running git")?;
    ensure!(
        out.status.success(),
        "git {} in {}: {}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&out.stderr).trim()
    );
    Ok(String::from_utf8(out.stdout)?)
}

/// The benchmark's clone of `repo` (made from the mirror the first time), holding `pin`.
pub(super) fn clone(repo: &Repo, mirror: &Path, clones: &Path) -> Result<PathBuf> {
    let dir = clones.join(repo.name);
    if !dir.join(".git").exists() {
        let source = mirror_git_dir(repo, mirror)?;
        std::fs::create_dir_all(clones)?;
        git(
            clones,
            &[
                "clone",
                "-q",
                "--no-checkout",
                &path_str(&source)?,
                repo.name,
            ],
        )?;
    }
    let pinned = format!("{}^{{commit}}", repo.pin);
    if git(&dir, &["cat-file", "-e", &pinned]).is_err() {
        bail!(
            "{}: commit {} is not in {} (fetch a newer copy of github.com/{})",
            repo.name,
            repo.pin,
            dir.display(),
            repo.github
        );
    }
    Ok(dir.canonicalize()?)
}

/// `MIRROR/owner+name/repo` (a snapshot as the fetch tool leaves it), `MIRROR/owner+name`
/// or `MIRROR/name`: any git directory or clone of the repository.
fn mirror_git_dir(repo: &Repo, mirror: &Path) -> Result<PathBuf> {
    let flat = repo.github.replace('/', "+");
    let candidates = [
        mirror.join(&flat).join("repo"),
        mirror.join(&flat),
        mirror.join(repo.name),
    ];
    candidates
        .into_iter()
        .find(|c| c.join("HEAD").exists() || c.join(".git").exists())
        .with_context(|| {
            format!(
                "{}: no copy of github.com/{} under {} (clone it there as {flat})",
                repo.name,
                repo.github,
                mirror.display()
            )
        })
}

fn path_str(p: &Path) -> Result<String> {
    p.to_str()
        .map(str::to_owned)
        .with_context(|| format!("{} is not UTF-8", p.display()))
}

/// The qualifying commits walking back from the pin along first parents, `skip` passed
/// over, then `count` taken:
/// not merges, a subject of at least four words, and 2–6 modified non-test, non-doc
/// source files (status `M`: each existed at the parent).
pub(super) fn tasks(dir: &Path, repo: &Repo, skip: usize, count: usize) -> Result<Vec<Task>> {
    let log = git(
        dir,
        &[
            "log",
            "--first-parent",
            "--no-merges",
            "--no-renames",
            "--raw",
            "--format=%x00%H %P%n%s",
            repo.pin,
        ],
    )?;
    let mut tasks = Vec::new();
    let qualifying = log
        .split('\0')
        .filter(|c| !c.is_empty())
        .filter_map(qualify)
        .skip(skip);
    for mut task in qualifying.take(count) {
        order_by_change(dir, &mut task)?;
        task.message = git(dir, &["log", "-1", "--format=%B", &task.commit])?
            .trim()
            .to_owned();
        tasks.push(task);
    }
    Ok(tasks)
}

/// Orders the task's files by changed lines, most first, ties by path. Asked per
/// qualifying commit, for its source files only: a snapshot may lack big blobs elsewhere.
fn order_by_change(dir: &Path, task: &mut Task) -> Result<()> {
    let mut args = vec![
        "diff",
        "--numstat",
        "--no-renames",
        &task.parent,
        &task.commit,
        "--",
    ];
    args.extend(task.modified.iter().map(String::as_str));
    let numstat = git(dir, &args)?;
    let changed = changed_lines(&numstat);
    let lines = |f: &String| changed.get(f).copied().unwrap_or(0);
    task.modified
        .sort_by(|a, b| lines(b).cmp(&lines(a)).then_with(|| a.cmp(b)));
    Ok(())
}

/// Added plus deleted lines per path, from `--numstat` output.
fn changed_lines(numstat: &str) -> std::collections::HashMap<String, u64> {
    numstat
        .lines()
        .filter_map(|line| {
            let [added, deleted, path] = line.splitn(3, '\t').collect::<Vec<_>>()[..] else {
                return None;
            };
            let n = added.parse::<u64>().unwrap_or(0) + deleted.parse::<u64>().unwrap_or(0);
            Some((path.to_owned(), n))
        })
        .collect()
}

/// Parses one commit of the log (`HASH PARENTS`, the subject, `--raw` lines); `Some` when
/// it qualifies (message still empty, files in
/// path order).
fn qualify(chunk: &str) -> Option<Task> {
    let mut lines = chunk.lines();
    let mut ids = lines.next()?.split(' ');
    let (commit, parent) = (ids.next()?.to_owned(), ids.next()?.to_owned());
    let subject = lines.next()?;
    if subject.split_whitespace().count() < 4 {
        return None;
    }
    let mut modified = Vec::new();
    for raw in lines.filter_map(|l| l.strip_prefix(':')) {
        let (meta, path) = raw.split_once('\t')?;
        if meta.ends_with(" M") && is_source(path) && !is_test_or_doc(path) {
            modified.push(path.to_owned());
        }
    }
    if !(2..=6).contains(&modified.len()) {
        return None;
    }
    modified.sort();
    Some(Task {
        commit,
        parent,
        message: String::new(),
        modified,
    })
}

/// Checks out `parent` (clean) and lists its tracked regular files. Blobs the local copy
/// lacks (a snapshot may leave out files of 4 MiB and more) are left out of the work tree
/// by sparse checkout, and so out of the list.
pub(super) fn checkout(dir: &Path, parent: &str) -> Result<Vec<String>> {
    let mut patterns = String::from("/*\n");
    for path in missing_blobs(dir, parent)? {
        patterns.push_str(&format!("!/{}\n", glob_escape(&path)));
    }
    git(dir, &["config", "core.sparseCheckout", "true"])?;
    std::fs::write(dir.join(".git/info/sparse-checkout"), patterns)?;
    git(dir, &["checkout", "-q", "-f", "--detach", parent])?;
    git(dir, &["clean", "-q", "-f", "-f", "-d", "-x"])?;
    let listing = git(dir, &["ls-files", "-s"])?;
    let files = listing
        .lines()
        .filter_map(|line| {
            let (meta, path) = line.split_once('\t')?;
            let regular = meta.starts_with("100644") || meta.starts_with("100755");
            (regular && dir.join(path).is_file()).then(|| path.to_owned())
        })
        .collect();
    Ok(files)
}

/// The paths at `commit` whose blobs are not in the local copy.
fn missing_blobs(dir: &Path, commit: &str) -> Result<Vec<String>> {
    let tree = git(dir, &["ls-tree", "-r", commit])?;
    let blobs: Vec<(&str, &str)> = tree
        .lines()
        .filter_map(|l| {
            let (meta, path) = l.split_once('\t')?;
            let mut parts = meta.split(' ');
            (parts.nth(1)? == "blob").then_some((parts.next()?, path))
        })
        .collect();
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "--batch-check=%(objectname)"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()?;
    let ids: String = blobs.iter().map(|(id, _)| format!("{id}\n")).collect();
    let mut stdin = child.stdin.take().context("cat-file stdin")?;
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, ids.as_bytes()));
    let out = child.wait_with_output()?;
    writer.join().expect("writer thread")?;
    let answers = String::from_utf8(out.stdout)?;
    Ok(blobs
        .iter()
        .zip(answers.lines())
        .filter(|(_, a)| a.ends_with(" missing"))
        .map(|((_, path), _)| (*path).to_owned())
        .collect())
}

/// `path` as a gitignore-style pattern matching only itself.
fn glob_escape(path: &str) -> String {
    path.chars()
        .flat_map(|c| match c {
            '*' | '?' | '[' | '\\' | '!' | '#' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_and_docs_are_told_apart_from_source() {
        for path in [
            "tests/test_console.py",
            "src/foo_test.go",
            "src/app.test.ts",
            "docs/conf.py",
            "lib/__tests__/x.js",
            "conftest.py",
            "benches/a.rs",
        ] {
            assert!(is_test_or_doc(path), "{path}");
        }
        for path in ["rich/console.py", "src/main.rs", "src/hono.ts", "src/jv.c"] {
            assert!(!is_test_or_doc(path) && is_source(path), "{path}");
        }
        assert!(!is_source("README.md") && !is_source(".py"));
    }

    /// A throwaway repository: one commit adding three files, then one modifying two.
    fn history() -> (PathBuf, String) {
        let dir = std::env::temp_dir().join(format!("relevance-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let run = |args: &[&str]| git(&dir, args).unwrap();
        run(&["init", "-q"]);
        let commit = |message: &str| {
            run(&["add", "-A"]);
            run(&[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "-m",
                message,
            ]);
        };
        std::fs::write(dir.join("src/a.py"), "def a():\n    pass\n").unwrap();
        std::fs::write(dir.join("src/b.py"), "def b():\n    pass\n").unwrap();
        std::fs::write(dir.join("README.md"), "# r\n").unwrap();
        commit("Add the first two modules");
        std::fs::write(dir.join("src/a.py"), "def a():\n    return 1\n\n\n").unwrap();
        std::fs::write(dir.join("src/b.py"), "def b():\n    return 2\n").unwrap();
        commit("Make both modules return numbers");
        let head = run(&["rev-parse", "HEAD"]).trim().to_owned();
        (dir, head)
    }

    #[test]
    fn tasks_come_from_history_and_are_answered_at_the_parent() {
        let (dir, head) = history();
        let repo = Repo {
            name: "t",
            github: "t/t",
            language: "Python",
            pin: Box::leak(head.clone().into_boxed_str()),
        };
        let tasks = tasks(&dir, &repo, 0, 5).unwrap();
        assert_eq!(
            tasks.len(),
            1,
            "the first commit adds files: it does not qualify"
        );
        let task = &tasks[0];
        assert_eq!(
            (task.commit.as_str(), task.message.as_str()),
            (head.as_str(), "Make both modules return numbers")
        );
        assert_eq!(
            task.modified,
            ["src/a.py", "src/b.py"],
            "most changed lines first"
        );
        assert!(super::tasks(&dir, &repo, 1, 5).unwrap().is_empty());
        let files = checkout(&dir, &task.parent).unwrap();
        assert_eq!(files, ["README.md", "src/a.py", "src/b.py"]);
        let a = std::fs::read_to_string(dir.join("src/a.py")).unwrap();
        assert_eq!(a, "def a():\n    pass\n", "the parent's content");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_commit_qualifies_by_subject_and_modified_sources() {
        let chunk = "abc def\nFix the width of tables\n\n\
            :100644 100644 1 2 M\trich/table.py\n\
            :100644 100644 1 2 M\trich/console.py\n\
            :000000 100644 0 2 A\trich/new.py\n\
            :100644 100644 1 2 M\ttests/test_table.py\n";
        let task = qualify(chunk).expect("qualifies");
        assert_eq!(task.modified, ["rich/console.py", "rich/table.py"]);
        let changed =
            changed_lines("3\t1\trich/table.py\n-\t-\tlogo.png\n10\t2\trich/console.py\n");
        assert_eq!((changed["rich/table.py"], changed["logo.png"]), (4, 0));
        assert_eq!((task.commit.as_str(), task.parent.as_str()), ("abc", "def"));
        let short = chunk.replace("Fix the width of tables", "Fix tables");
        assert!(qualify(&short).is_none());
        let one = chunk.replace("M\trich/console.py", "A\trich/console.py");
        assert!(qualify(&one).is_none());
    }
}
