//! `cargo xtask soak [--calls N] [--seed S] [--minutes M] [--repo DIR] [--out DIR]
//! [--max-cases N] [--binary PATH] [--verbose]`: the differential soak (issue 23). A warm
//! `repo-mapper mcp` must answer every call as a fresh run would, however the repository
//! changed in between.
//!
//! The soak clones a real repository into a temporary directory (by default the
//! workspace itself, at its last commit: `git clone --no-hardlinks`, so it runs offline;
//! `--repo DIR` another git repository), plus a copy of `fixtures/sample-repo` as a second
//! root. It starts the release `repo-mapper mcp --root <that directory>` (or `--binary
//! PATH`'s) and drives it through the official Rust SDK's client (rmcp). Before each call
//! it makes up to three random edits ([`edits`]), most of them to the files the last
//! fresh map showed: files and directories added, deleted and renamed; files rewritten at
//! the same size (an identifier the map shows renamed) or another, sometimes with their
//! modification time put back; files touched; `.gitignore` edited; another of the last 30
//! commits checked out, and back later. The call ([`requests`]) is `repo_map` with random
//! chat files, mentions, message, budget (256–4096), profile and `exclude_unranked`, often
//! the last request unchanged, or now and then `search_identifiers`. Each answer is
//! compared with a fresh one on the same tree ([`server`]): the command `repo-mapper ROOT
//! --no-cache` with the same request for a map, a new server on a hard-linked copy of the
//! root for a search.
//!
//! Every difference is saved as a replayable case, `OUT/<seed>-<call>.json` (default
//! `fixtures/soak-regressions/`; at most `--max-cases`): the roots' starting points and
//! every step up to the call ([`case`], documented in that directory's README), which
//! `crates/repo-mapper-cli/tests/soak_replay.rs` replays. The run ends with a summary
//! (calls, edits by kind, each difference, the server's resident memory) and fails when
//! there was a difference. A run depends only on the seed, the starting commit and the
//! fresh answers (so, on one build, only on the seed and the commit).
//!
//! The workspace's clone leaves out (`.git/info/exclude`) the fuzz regressions and the
//! generated grammar sources: hostile files cut short by the per-file time limit have
//! tags that depend on the machine's speed, and they would make each fresh run slow.

mod case;
mod edits;
mod requests;
mod rng;
mod server;
mod tally;
mod tree;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

use self::case::{Base, Case, FORMAT, Observed, Step, apply, git_output, materialise};
use self::edits::Editor;
use self::requests::Requests;
use self::rng::Rng;
use self::server::{Mcp, Server, fresh_map};
use self::tally::{Difference, Tally, first_difference};
use crate::workspace_root;

/// What the workspace's clone leaves out (patterns of `.git/info/exclude`).
const WORKSPACE_EXCLUDES: [&str; 3] = ["fuzz-regressions/", "grammars/", ".repo-mapper/"];

/// The pause after the last call before editing and after the last edit before calling,
/// so that an edit never shares a file-system timestamp tick with a scan.
const SETTLE: Duration = Duration::from_millis(20);

const USAGE: &str = "usage: cargo xtask soak [--calls N] [--seed S] [--minutes M] [--repo DIR] \
                     [--out DIR] [--max-cases N] [--binary PATH] [--verbose]";

/// What `cargo xtask soak` was asked to do.
#[derive(Debug)]
struct Options {
    /// Default: 100, or no bound with `--minutes`.
    calls: Option<usize>,
    seed: u64,
    minutes: Option<f64>,
    repo: Option<PathBuf>,
    out: PathBuf,
    max_cases: usize,
    /// A `repo-mapper` to soak instead of the release build of the workspace.
    binary: Option<PathBuf>,
    /// Print each edit and request.
    verbose: bool,
}

/// A soak in progress.
struct Soak {
    o: Options,
    binary: PathBuf,
    mcp: Mcp,
    warm: Server,
    scratch: PathBuf,
    roots: Vec<PathBuf>,
    bases: Vec<Base>,
    steps: Vec<Step>,
    rng: Rng,
    editor: Editor,
    requests: Requests,
    /// Every edit so far: its root and kind.
    edit_log: Vec<(usize, String)>,
    /// How long `edit_log` was at the last call.
    logged_at_call: usize,
    /// Each session's (root, profile) last call: how long `edit_log` was then.
    last_call: HashMap<(usize, String), usize>,
    tally: Tally,
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let o = parse_args(args)?;
    let binary = match &o.binary {
        Some(path) => path.canonicalize().context("--binary")?,
        None => crate::scale::build_release()?,
    };
    let tmp = tempfile::Builder::new()
        .prefix("repo-mapper-soak-")
        .tempdir()
        .context("making a temporary directory")?;
    let tmp_root = tmp.path().canonicalize()?;
    let (bases, commits) = bases(&o)?;
    let roots: Vec<PathBuf> = (0..bases.len())
        .map(|i| tmp_root.join(format!("root{i}")))
        .collect();
    for (base, dir) in bases.iter().zip(&roots) {
        materialise(base, dir, &workspace_root())?;
    }
    let scratch = tmp_root.join("scratch");
    std::fs::create_dir_all(&scratch)?;
    let logs = workspace_root().join("target/soak");
    std::fs::create_dir_all(&logs)?;
    let mcp = Mcp::new(&binary, &tmp_root)?;
    let warm = mcp.start(&logs.join("warm-server.log"), &logs.join("cache-home"))?;
    let mut soak = Soak {
        rng: Rng::new(o.seed),
        editor: Editor::new(commits),
        requests: Requests::default(),
        edit_log: Vec::new(),
        logged_at_call: 0,
        last_call: HashMap::new(),
        tally: Tally::default(),
        steps: Vec::new(),
        o,
        binary,
        mcp,
        warm,
        scratch,
        roots,
        bases,
    };
    let started = Instant::now();
    let outcome = soak.run_calls(started);
    soak.mcp.stop(soak.warm);
    let header = header(&soak.o, &soak.bases);
    soak.tally.print(&header, started.elapsed());
    outcome.context("the soak stopped (the server's stderr: target/soak/warm-server.log)")?;
    let n = soak.tally.differences.len();
    ensure!(n == 0, "{n} warm answers differed from fresh ones");
    Ok(())
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut o = Options {
        calls: None,
        seed: 1,
        minutes: None,
        repo: None,
        out: workspace_root().join("fixtures/soak-regressions"),
        max_cases: 5,
        binary: None,
        verbose: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().context(USAGE);
        match a.as_str() {
            "--calls" => o.calls = Some(value()?.parse()?),
            "--seed" => o.seed = value()?.parse()?,
            "--minutes" => o.minutes = Some(value()?.parse()?),
            "--repo" => o.repo = Some(PathBuf::from(value()?)),
            "--out" => o.out = PathBuf::from(value()?),
            "--max-cases" => o.max_cases = value()?.parse()?,
            "--binary" => o.binary = Some(PathBuf::from(value()?)),
            "--verbose" => o.verbose = true,
            _ => bail!(USAGE),
        }
    }
    ensure!(o.calls != Some(0), "--calls must be at least 1");
    ensure!(
        o.minutes.is_none_or(|m| m.is_finite() && m > 0.0),
        "--minutes must be a positive number"
    );
    Ok(o)
}

/// The roots' starting points (the repository's clone, then the sample repository) and
/// the commits the clone may check out (its last 30 before its head).
fn bases(o: &Options) -> Result<(Vec<Base>, Vec<String>)> {
    let (repo, repository, exclude) = match &o.repo {
        Some(dir) => {
            let dir = dir
                .canonicalize()
                .with_context(|| format!("--repo {}", dir.display()))?;
            ensure!(
                dir.join(".git").exists(),
                "--repo {} is not a git repository",
                dir.display()
            );
            let shown = dir.to_string_lossy().into_owned();
            (dir, Some(shown), vec![".repo-mapper/".to_owned()])
        }
        None => {
            let excludes = WORKSPACE_EXCLUDES.map(str::to_owned).to_vec();
            (workspace_root(), None, excludes)
        }
    };
    let log = git_output(&repo, &["rev-list", "--max-count=31", "HEAD"])?;
    let mut commits: Vec<String> = log.lines().map(str::to_owned).collect();
    ensure!(!commits.is_empty(), "{} has no commit", repo.display());
    let commit = commits.remove(0);
    let git = Base::Git {
        repository,
        commit,
        exclude,
    };
    let sample = Base::Fixture("fixtures/sample-repo".to_owned());
    Ok((vec![git, sample], commits))
}

/// The summary's first line.
fn header(o: &Options, bases: &[Base]) -> String {
    let what = match bases.first() {
        Some(Base::Git {
            repository, commit, ..
        }) => format!(
            "{} at {}",
            repository.as_deref().unwrap_or("the workspace"),
            &commit[..commit.len().min(10)]
        ),
        _ => "?".to_owned(),
    };
    format!("soak: seed {}, {what} and fixtures/sample-repo", o.seed)
}

impl Soak {
    /// The calls, until `--calls` or `--minutes` is reached.
    fn run_calls(&mut self, started: Instant) -> Result<()> {
        let limit = self.o.minutes.map(|m| Duration::from_secs_f64(m * 60.0));
        let calls = match (self.o.calls, limit) {
            (Some(n), _) => n,
            (None, Some(_)) => usize::MAX,
            (None, None) => 100,
        };
        for call in 1..=calls {
            if limit.is_some_and(|l| started.elapsed() > l) {
                eprintln!("soak: --minutes reached after {} calls", call - 1);
                break;
            }
            std::thread::sleep(SETTLE);
            self.edit()?;
            std::thread::sleep(SETTLE);
            self.call(call).with_context(|| format!("call {call}"))?;
        }
        Ok(())
    }

    /// Up to three edits (most often of the last request's root), each applied and
    /// recorded.
    fn edit(&mut self) -> Result<()> {
        let n = [0, 1, 1, 1, 2, 2, 2, 3, 3, 3][self.rng.below(10)];
        let focus = self.steps.iter().rev().find_map(|s| match s {
            Step::Map { root, .. } | Step::Search { root, .. } => Some(*root),
            _ => None,
        });
        for _ in 0..n {
            let next = self
                .editor
                .next(&mut self.rng, &self.roots, focus.unwrap_or(0))?;
            let Some((kind, step)) = next else {
                continue;
            };
            if self.o.verbose {
                eprintln!("soak:   {kind}: {}", brief(&step));
            }
            apply(&step, &self.roots)?;
            self.edit_log.push((step.root(), kind.clone()));
            *self.tally.edits.entry(kind).or_default() += 1;
            self.steps.push(step);
        }
        Ok(())
    }

    /// One request, answered warm and fresh, compared.
    fn call(&mut self, call: usize) -> Result<()> {
        let since = &self.edit_log[self.logged_at_call..];
        let edited = |root: usize| since.iter().any(|(r, _)| *r == root);
        let (step, repeated) = self.requests.next(&mut self.rng, &self.roots, edited);
        self.logged_at_call = self.edit_log.len();
        if self.o.verbose {
            eprintln!("soak:   request: {}", brief(&step));
        }
        self.steps.push(step.clone());
        let (warm, fresh, from_cache) = self.answers(&step)?;
        if let Some(kib) = self.warm.rss_kib() {
            self.tally.rss.push(kib);
            let files = self.roots.iter().map(|r| tree::mapped(r).len()).sum();
            self.tally.files.push(files);
        }
        self.tally.repeats += usize::from(repeated);
        let root = step.root();
        let edits_before = self.edits_since(root, &step);
        let tool = match step {
            Step::Search { .. } => "search",
            _ => "map",
        };
        let same = warm == fresh;
        let rss = self.tally.rss.last().map_or(0.0, |k| *k as f64 / 1024.0);
        eprintln!(
            "soak: call {call:>3} {tool:<6} root {root} {:<10} edits {:<2} RSS {rss:6.1} MiB {}",
            profile_of(&step),
            edits_before.len(),
            if same { "same" } else { "DIFFERENT" }
        );
        if same {
            return Ok(());
        }
        let difference = Difference {
            call,
            tool,
            root,
            profile: profile_of(&step),
            repeated,
            from_cache,
            edits_before,
            first: first_difference(&warm, &fresh),
        };
        self.save(&difference, &warm, &fresh)?;
        self.tally.differences.push(difference);
        Ok(())
    }

    /// The kinds of the edits of `root` since the last call on `step`'s session (its
    /// root and profile; a search uses the default profile's).
    fn edits_since(&mut self, root: usize, step: &Step) -> Vec<String> {
        let mut profile = profile_of(step);
        if profile.is_empty() || profile == "(default)" {
            profile = "default".to_owned();
        }
        let now = self.edit_log.len();
        let from = self.last_call.insert((root, profile), now).unwrap_or(0);
        let edits = self.edit_log[from..now].iter();
        edits
            .filter(|(r, _)| *r == root)
            .map(|(_, k)| k.clone())
            .collect()
    }

    /// The warm and the fresh answer to `step` as text, and whether the warm map came
    /// from the map cache.
    fn answers(&mut self, step: &Step) -> Result<(String, String, Option<bool>)> {
        let (root, args, tool) = match step {
            Step::Map { root, args, .. } => (&self.roots[*root], args, "repo_map"),
            Step::Search { root, args, .. } => (&self.roots[*root], args, "search_identifiers"),
            _ => bail!("not a request"),
        };
        let mut with_root = args.clone();
        with_root["project_root"] = Value::from(root.to_string_lossy().into_owned());
        let clock = Instant::now();
        let answer = self.mcp.call(&self.warm, tool, &with_root)?;
        self.tally.warm += clock.elapsed();
        let clock = Instant::now();
        let result = if tool == "repo_map" {
            self.tally.maps += 1;
            let fresh = self.fresh_and_cold(root, args)?;
            self.editor.saw(step.root(), &fresh);
            let from_cache = answer
                .as_ref()
                .ok()
                .and_then(|a| a["report"]["from_cache"].as_bool());
            let warm = match answer {
                Ok(a) => a["map"].as_str().unwrap_or_default().to_owned(),
                Err(e) => format!("tool error: {e}"),
            };
            (warm, fresh, from_cache)
        } else {
            self.tally.searches += 1;
            let fresh = self.mcp.fresh_search(root, args, &self.scratch)?;
            let warm = answer.unwrap_or_else(|e| Value::from(format!("tool error: {e}")));
            (pretty(&warm), pretty(&fresh), None)
        };
        self.tally.fresh += clock.elapsed();
        Ok(result)
    }

    /// The `--no-cache` map of `args` on `root`, and the map of a run into an empty cache
    /// directory: the first when they agree, else both, which no warm answer equals.
    fn fresh_and_cold(&self, root: &Path, args: &Value) -> Result<String> {
        let fresh = fresh_map(&self.binary, root, args, None)?;
        let cold_dir = self.scratch.join("cold-cache");
        let _ = std::fs::remove_dir_all(&cold_dir);
        let cold = fresh_map(&self.binary, root, args, Some(&cold_dir))?;
        let _ = std::fs::remove_dir_all(&cold_dir);
        if cold == fresh {
            return Ok(fresh);
        }
        Ok(format!(
            "{fresh}\n--- a run into an empty cache directory printed otherwise:\n{cold}"
        ))
    }

    /// Saves the steps so far as `OUT/<seed>-<call>.json` (up to `--max-cases`).
    fn save(&mut self, d: &Difference, warm: &str, fresh: &str) -> Result<()> {
        if self.tally.saved.len() >= self.o.max_cases {
            return Ok(());
        }
        let mut options = diffy::DiffOptions::new();
        options
            .set_original_filename("fresh")
            .set_modified_filename("warm");
        let mut diff = options.create_patch(fresh, warm).to_string();
        if diff.len() > 8000 {
            let cut = diff.char_indices().nth(8000).map_or(diff.len(), |(i, _)| i);
            diff.truncate(cut);
            diff.push_str("\n[… cut]\n");
        }
        let case = Case {
            format: FORMAT,
            origin: format!(
                "cargo xtask soak --seed {} (call {}); warm server: {}",
                self.o.seed,
                d.call,
                built_from(self.o.binary.as_deref())
            ),
            roots: self.bases.clone(),
            steps: checked_last(&self.steps),
            observed: Some(Observed {
                tool: d.tool.to_owned(),
                from_cache: d.from_cache,
                edits_before: d.edits_before.clone(),
                diff,
            }),
        };
        std::fs::create_dir_all(&self.o.out)?;
        let path = self.o.out.join(format!("{}-{}.json", self.o.seed, d.call));
        std::fs::write(&path, serde_json::to_string_pretty(&case)? + "\n")?;
        self.tally.saved.push(path);
        Ok(())
    }
}

/// `steps`, only the last request checked.
fn checked_last(steps: &[Step]) -> Vec<Step> {
    let Some((last, before)) = steps.split_last() else {
        return Vec::new();
    };
    let mut out: Vec<Step> = before.iter().map(Step::unchecked).collect();
    out.push(last.clone());
    out
}

/// The request's profile as the summary shows it.
fn profile_of(step: &Step) -> String {
    match step {
        Step::Map { args, .. } => args["profile"].as_str().unwrap_or("(default)").to_owned(),
        _ => String::new(),
    }
}

/// `step` as JSON on one line, a written text cut to 60 characters.
fn brief(step: &Step) -> String {
    let mut step = step.clone();
    if let Step::Write { text, .. } = &mut step
        && let Some((at, _)) = text.char_indices().nth(60)
    {
        text.truncate(at);
        text.push('…');
    }
    serde_json::to_string(&step).unwrap_or_default()
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// The binary soaked: `--binary`'s path, or the workspace commit the release build was
/// made from (and whether the tree had changes).
fn built_from(binary: Option<&std::path::Path>) -> String {
    if let Some(path) = binary {
        return path.display().to_string();
    }
    let root = workspace_root();
    let head = git_output(&root, &["rev-parse", "--short=10", "HEAD"]).unwrap_or_default();
    let dirty = git_output(&root, &["status", "--porcelain", "--untracked-files=no"])
        .is_ok_and(|s| !s.trim().is_empty());
    let changes = if dirty {
        " with uncommitted changes"
    } else {
        ""
    };
    format!("repo-mapper at {}{changes}", head.trim())
}
