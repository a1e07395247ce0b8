//! `cargo xtask bench scale [--repo linux|django|PATH] [--runs N] [--budget N] [--no-aider]
//! [--worktree] [--binary PATH]`: the whole `repo-mapper` process on a large repository,
//! cold then warm (issue 14); `--binary` times another build (an earlier commit's, to
//! compare two builds in one sitting) instead of this one's.
//!
//! Fetches the repository (Debian's `linux-source-6.1`, the Django 5.2 sdist from PyPI)
//! under `target/corpus/scale/`, builds the release binary, runs it once with an empty tag
//! cache (`--format json`) and `--runs` times warm (text, as users run it; median
//! reported), then once more warm in JSON for the per-step times the binary reports
//! (`timings`), and once after appending a comment to one file (`kernel/fork.c`,
//! Django's `query.py`, restored afterwards). It prints wall time, peak RSS, the store's
//! size and the steps; "outside the map" is the rest of the process (start-up, the walk,
//! printing, exit). With `--worktree` it then copies the tree (new inodes and times, as a
//! `git worktree add` or a fresh clone writes them) and times the copy's first run on the
//! same cache directory, then its second (issue 26: a second checkout starts warm). On
//! Django it also times stock Aider 0.86.2 in-process (`xtask/python/aider_scale.py`, in the
//! parity virtual environment) in the same run, and prints the ratios. Writes
//! `target/bench-scale/<repo>.json`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde_json::Value;

use crate::corpus::run_cmd;
use crate::workspace_root;

/// What `bench scale` was asked to do.
struct Options {
    repo: String,
    runs: usize,
    budget: usize,
    aider: bool,
    worktree: bool,
    /// The `repo-mapper` binary to time (default: this workspace's release build).
    binary: Option<PathBuf>,
}

/// One process run: wall time, peak RSS and the binary's JSON report.
struct Run {
    wall: Duration,
    peak_rss_kb: u64,
    report: Value,
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    let root = repository(&options.repo)?;
    let binary = match &options.binary {
        Some(binary) => binary.clone(),
        None => build_release()?,
    };
    let out_dir = workspace_root().join("target/bench-scale");
    let cache = out_dir.join(format!("cache-{}", name_of(&options.repo)));
    fs::create_dir_all(&out_dir)?;
    if cache.exists() {
        fs::remove_dir_all(&cache)?;
    }
    eprintln!(
        "scale: {} (cold, then {} warm runs)",
        root.display(),
        options.runs
    );
    let map = |format: &str| run_map(&binary, &root, &cache, options.budget, format);
    // The files the map's walk lists (its ignore rules), as the cold run parses them.
    let floor = parse_floor(&repo_mapper::list_files(&root, None), 1)?;
    let cold = map("json")?;
    let store_bytes = dir_size(&cache);
    // Wall time and memory of warm runs as users see them (text); the per-step times from
    // one more run in JSON, whose report of every ranked entry (a million on the Linux
    // tree) would otherwise weigh on the figures.
    let mut warm: Vec<Run> = (0..options.runs)
        .map(|_| map("text"))
        .collect::<Result<_>>()?;
    warm.sort_by_key(|r| r.wall);
    let median = &warm[warm.len() / 2];
    let steps = map("json")?;
    let edited = match edit_target(&options.repo) {
        Some(rel) => Some(after_edits(&root.join(rel), options.runs, &out_dir, map)?),
        None => None,
    };
    print_table(&cold, median, &steps, store_bytes);
    print_cold_floor(&cold, &floor);
    if let Some(edited) = &edited {
        print_after_edit(edited, median);
    }
    let checkout = match options.worktree {
        true => Some(second_checkout(&root, &out_dir, &options, median, |r| {
            run_map(&binary, r, &cache, options.budget, "text")
        })?),
        false => None,
    };
    let aider = if options.aider && options.repo == "django" {
        Some(time_aider(&root, &binary, options.budget, options.runs)?)
    } else {
        None
    };
    if let Some(aider) = &aider {
        print_aider(aider, &cold, median);
    }
    let artifact = serde_json::json!({
        "repository": root.display().to_string(),
        "budget": options.budget,
        "machine": machine(),
        "cold": run_json(&cold),
        "parse_floor": {
            "parse_s": floor.parse,
            "parse_and_walk_s": floor.walk,
            "parse_and_extract_s": floor.extract,
        },
        "warm": warm.iter().map(run_json).collect::<Vec<_>>(),
        "warm_steps": run_json(&steps),
        "warm_after_edit": edited.as_ref().map(|e| run_json(&e.median)),
        "edited_file_extract_s": edited.as_ref().map(|e| e.extract),
        "second_checkout": checkout.as_ref().map(|(first, second)| {
            serde_json::json!({ "first": run_json(first), "second": run_json(second) })
        }),
        "store_bytes": store_bytes,
        "aider": aider,
    });
    let path = out_dir.join(format!("{}.json", name_of(&options.repo)));
    fs::write(&path, serde_json::to_string_pretty(&artifact)?)?;
    eprintln!("scale: artifact {}", path.display());
    Ok(())
}

/// Copies `root` (its in-tree cache left out) and times the copy's first and second run
/// on the same cache directory; prints them against the warm median.
fn second_checkout(
    root: &Path,
    out_dir: &Path,
    options: &Options,
    warm: &Run,
    map: impl Fn(&Path) -> Result<Run>,
) -> Result<(Run, Run)> {
    let copy = out_dir.join(format!("checkout-{}", name_of(&options.repo)));
    if copy.exists() {
        fs::remove_dir_all(&copy)?;
    }
    run_cmd(Command::new("cp").arg("-r").arg(root).arg(&copy))?;
    let in_tree = copy.join(".repo-mapper");
    if in_tree.exists() {
        fs::remove_dir_all(&in_tree)?;
    }
    let first = map(&copy)?;
    let second = map(&copy)?;
    fs::remove_dir_all(&copy)?;
    let ratio = |r: &Run| r.wall.as_secs_f64() / warm.wall.as_secs_f64();
    println!(
        "second checkout (a copy, same cache): first run {:.3} s ({:.2} x warm), then {:.3} s \
         ({:.2} x warm), peak {:.2} GiB",
        first.wall.as_secs_f64(),
        ratio(&first),
        second.wall.as_secs_f64(),
        ratio(&second),
        first.peak_rss_kb as f64 / (1024.0 * 1024.0),
    );
    Ok((first, second))
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut options = Options {
        repo: "django".into(),
        runs: 3,
        budget: 1024,
        aider: true,
        worktree: false,
        binary: None,
    };
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--repo" => options.repo = value()?.clone(),
            "--runs" => options.runs = value()?.parse().context("--runs")?,
            "--budget" => options.budget = value()?.parse().context("--budget")?,
            "--no-aider" => options.aider = false,
            "--worktree" => options.worktree = true,
            "--binary" => options.binary = Some(PathBuf::from(value()?)),
            other => bail!("unknown argument `{other}`"),
        }
    }
    ensure!(options.runs > 0, "--runs must be at least 1");
    Ok(options)
}

pub(crate) fn name_of(repo: &str) -> String {
    match repo {
        "linux" | "django" => repo.to_owned(),
        path => Path::new(path)
            .file_name()
            .map_or("repo".into(), |n| n.to_string_lossy().into_owned()),
    }
}

/// The repository's root, fetched on first use.
pub(crate) fn repository(repo: &str) -> Result<PathBuf> {
    let dir = workspace_root().join("target/corpus/scale");
    match repo {
        "django" => fetch_django(&dir.join("django-5.2")),
        "linux" => fetch_linux(&dir.join("linux-6.1")),
        path => {
            let path = PathBuf::from(path);
            ensure!(path.is_dir(), "{} is not a directory", path.display());
            Ok(path.canonicalize()?)
        }
    }
}

fn fetch_django(dir: &Path) -> Result<PathBuf> {
    let root = dir.join("Django-5.2");
    if root.is_dir() {
        return Ok(root);
    }
    fs::create_dir_all(dir)?;
    run_cmd(
        Command::new(crate::python())
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--no-binary=:all:",
            ])
            .args(["--disable-pip-version-check", "Django==5.2", "-d"])
            .arg(dir),
    )?;
    // PyPI names it `Django-5.2.tar.gz` (older sdists were lower-case).
    let sdist = fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            p.to_string_lossy()
                .to_lowercase()
                .ends_with("django-5.2.tar.gz")
        })
        .context("pip download left no Django 5.2 sdist")?;
    run_cmd(
        Command::new("tar")
            .arg("-xzf")
            .arg(&sdist)
            .arg("-C")
            .arg(dir),
    )?;
    ensure!(root.is_dir(), "{} is not in the sdist", root.display());
    Ok(root)
}

/// Debian bookworm's `linux-source-6.1` (the tarball inside the package, unpacked).
fn fetch_linux(dir: &Path) -> Result<PathBuf> {
    let root = dir.join("linux-source-6.1");
    if root.is_dir() {
        strip_debian_ignore(&root)?;
        return Ok(root);
    }
    fs::create_dir_all(dir)?;
    run_cmd(
        Command::new("apt-get")
            .current_dir(dir)
            .args(["download", "linux-source-6.1"]),
    )?;
    let deb = fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|e| e == "deb"))
        .context("apt-get download left no .deb")?;
    let unpacked = dir.join("deb");
    run_cmd(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(&unpacked))?;
    let tarball = unpacked.join("usr/src/linux-source-6.1.tar.xz");
    run_cmd(
        Command::new("tar")
            .arg("-xJf")
            .arg(&tarball)
            .arg("-C")
            .arg(dir),
    )?;
    fs::remove_dir_all(&unpacked)?;
    strip_debian_ignore(&root)?;
    Ok(root)
}

/// Debian appends `/*` to the top-level `.gitignore` ("ignore everything at the top level,
/// since it isn't included in our repository"), which would hide the whole tree from the
/// walk; cut its packaging block so the tree is listed as upstream's is.
fn strip_debian_ignore(root: &Path) -> Result<()> {
    const MARKER: &str = "# Debian packaging";
    let path = root.join(".gitignore");
    let text = fs::read_to_string(&path).context("the kernel's .gitignore")?;
    let Some(at) = text.find(MARKER) else {
        return Ok(());
    };
    // The block starts with a lone `#` line just before the marker.
    let start = text[..at]
        .trim_end_matches('\n')
        .rfind('\n')
        .map_or(0, |i| i + 1);
    fs::write(&path, &text[..start])?;
    Ok(())
}

pub(crate) fn build_release() -> Result<PathBuf> {
    let root = workspace_root();
    run_cmd(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args(["build", "--release", "--quiet", "-p", "repo-mapper-cli"]),
    )?;
    Ok(root.join("target/release/repo-mapper"))
}

/// One whole-process run of the binary, with its peak RSS (from `wait4`).
fn run_map(binary: &Path, root: &Path, cache: &Path, budget: usize, format: &str) -> Result<Run> {
    let started = Instant::now();
    let child = Command::new(binary)
        .arg(root)
        .arg("--cache-dir")
        .arg(cache)
        .args(["--format", format, "-t", &budget.to_string()])
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("starting repo-mapper")?;
    let (stdout, peak_rss_kb) = wait_with_rusage(child)?;
    let wall = started.elapsed();
    let report: Value = match format {
        "json" => {
            let slim: SlimReport = serde_json::from_slice(&stdout).context("repo-mapper's JSON")?;
            serde_json::json!({ "timings": slim.timings, "scan": slim.scan })
        }
        _ => Value::Null,
    };
    Ok(Run {
        wall,
        peak_rss_kb,
        report,
    })
}

/// What the benchmark reads of the binary's JSON report. The rest (a million ranked
/// entries on the Linux tree) is skipped while parsing: a child forked from a process
/// holding it would carry that memory into its own peak RSS as `wait4` reports it.
#[derive(serde::Deserialize)]
struct SlimReport {
    timings: Value,
    scan: Value,
}

/// The child's stdout and peak RSS in KiB; fails unless it exits 0.
#[allow(unsafe_code)] // wait4: the child's peak RSS, which std does not give
fn wait_with_rusage(mut child: std::process::Child) -> Result<(Vec<u8>, u64)> {
    use std::io::Read;
    let mut stdout = Vec::new();
    child
        .stdout
        .take()
        .context("piped stdout")?
        .read_to_end(&mut stdout)?;
    let pid = i32::try_from(child.id())?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    ensure!(
        waited == pid,
        "wait4 failed: {}",
        std::io::Error::last_os_error()
    );
    ensure!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "repo-mapper failed (status {status})"
    );
    Ok((stdout, u64::try_from(usage.ru_maxrss).unwrap_or(0)))
}

/// The steps of the binary's `timings`, in pipeline order.
const STEPS: [&str; 7] = ["admit", "scan", "index", "graph", "pagerank", "list", "fit"];

fn ms(report: &Value, step: &str) -> f64 {
    report["timings"][format!("{step}_ms")]
        .as_f64()
        .unwrap_or(0.0)
}

/// The file a "warm run after editing one file" edits, per known repository.
fn edit_target(repo: &str) -> Option<&'static str> {
    match repo {
        "linux" => Some("kernel/fork.c"),
        "django" => Some("django/db/models/query.py"),
        _ => None,
    }
}

/// Warm runs after an edit of one file: the median run, and the floor under it.
struct AfterEdit {
    median: Run,
    /// The median time, in seconds, of extracting the edited file's tags alone (its
    /// parse and tag query, `parse_floor`): what a run after the edit must add to a warm
    /// run.
    extract: f64,
}

/// `runs` warm runs, each after appending a comment line to `path` that no earlier run
/// saw (so that no cache keyed by content answers for it), each followed by a run with the
/// file put back; and the time of extracting the edited file's tags alone.
fn after_edits(
    path: &Path,
    runs: usize,
    out_dir: &Path,
    map: impl Fn(&str) -> Result<Run>,
) -> Result<AfterEdit> {
    let original = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let edited = |i: usize| {
        let comment = match path.extension().and_then(|e| e.to_str()) {
            Some("py") => format!(
                "\n# edited by cargo xtask bench scale: {i} {}\n",
                std::process::id()
            ),
            _ => format!(
                "\n/* edited by cargo xtask bench scale: {i} {} */\n",
                std::process::id()
            ),
        };
        [original.as_slice(), comment.as_bytes()].concat()
    };
    let mut timed = Vec::with_capacity(runs);
    for i in 0..runs {
        fs::write(path, edited(i))?;
        let run = map("text");
        // Put back before anything can fail.
        fs::write(path, &original)?;
        timed.push(run?);
        map("text")?;
    }
    timed.sort_by_key(|r| r.wall);
    let median = timed.swap_remove(timed.len() / 2);
    // The edited text, under the file's own name (its language), timed alone.
    let copy = out_dir
        .join("edited")
        .join(path.file_name().context("a file name")?);
    fs::create_dir_all(copy.parent().context("a parent")?)?;
    fs::write(&copy, edited(runs))?;
    let extract = parse_floor(&[copy], runs.max(3))?.extract;
    Ok(AfterEdit { median, extract })
}

/// What `parse_floor` measured: seconds to parse the files, to parse them and visit every
/// node of each tree once (what finding any tag needs), and to extract their tags.
struct Floor {
    parse: f64,
    walk: f64,
    extract: f64,
}

/// Runs the `parse_floor` example (built `--release`) on `files`, each pass `repeat`
/// times (the median).
fn parse_floor(files: &[PathBuf], repeat: usize) -> Result<Floor> {
    let root = workspace_root();
    run_cmd(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&root)
            .args(["build", "--release", "--quiet", "-p", "repo-mapper-tags"])
            .args(["--example", "parse_floor"]),
    )?;
    let mut child = Command::new(root.join("target/release/examples/parse_floor"))
        .args([(1u64 << 20).to_string(), repeat.to_string()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .context("running parse_floor")?;
    let list: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
    let mut stdin = child.stdin.take().context("parse_floor's stdin")?;
    std::io::Write::write_all(&mut stdin, list.as_bytes())?;
    drop(stdin);
    let out = child.wait_with_output()?;
    ensure!(out.status.success(), "parse_floor failed");
    let text = String::from_utf8_lossy(&out.stdout);
    let seconds = |label: &str| -> Result<f64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(label))
            .with_context(|| format!("parse_floor printed no `{label}`: {text}"))?;
        let value = line[label.len()..].split_whitespace().next().unwrap_or("");
        value.parse().with_context(|| format!("`{line}`"))
    };
    Ok(Floor {
        parse: seconds("parse only:")?,
        walk: seconds("parse + one walk:")?,
        extract: seconds("parse + extract:")?,
    })
}

/// The cold run against what parsing alone costs (`parse_floor`, in this run).
fn print_cold_floor(cold: &Run, floor: &Floor) {
    let wall = cold.wall.as_secs_f64();
    println!(
        "cold against its floor: parse only {:.3} s ({:.2} x), parse and one walk over every \
         node {:.3} s ({:.2} x), parse and extract {:.3} s ({:.2} x)",
        floor.parse,
        wall / floor.parse,
        floor.walk,
        wall / floor.walk,
        floor.extract,
        wall / floor.extract
    );
}

/// The runs after an edit against the warm median, and against their floor: the warm
/// median plus extracting the edited file's tags.
fn print_after_edit(edited: &AfterEdit, warm: &Run) {
    let (wall, warm) = (edited.median.wall.as_secs_f64(), warm.wall.as_secs_f64());
    let floor = warm + edited.extract;
    println!(
        "warm after editing one file (median): {wall:.3} s ({:.2} x warm); floor, warm + \
         extracting that file's tags ({:.1} ms): {floor:.3} s ({:.2} x floor)",
        wall / warm,
        edited.extract * 1e3,
        wall / floor
    );
}

fn print_table(cold: &Run, warm: &Run, steps: &Run, store_bytes: u64) {
    println!("{:<22} {:>12} {:>12}", "", "cold", "warm (median)");
    let row = |what: &str, c: f64, w: f64| println!("{what:<22} {c:>12.3} {w:>12.3}");
    row("wall (s)", cold.wall.as_secs_f64(), warm.wall.as_secs_f64());
    let total = |r: &Run| ms(&r.report, "total") / 1000.0;
    row(
        "  outside the map (s)",
        cold.wall.as_secs_f64() - total(cold),
        warm.wall.as_secs_f64() - total(steps),
    );
    for step in STEPS {
        row(
            &format!("  {step} (s)"),
            ms(&cold.report, step) / 1000.0,
            ms(&steps.report, step) / 1000.0,
        );
    }
    let gib = |kb: u64| kb as f64 / (1024.0 * 1024.0);
    row(
        "peak RSS (GiB)",
        gib(cold.peak_rss_kb),
        gib(warm.peak_rss_kb),
    );
    let scan = |r: &Run, k: &str| r.report["scan"][k].as_u64().unwrap_or(0) as f64;
    row("files", scan(cold, "files"), scan(steps, "files"));
    row("parsed", scan(cold, "parsed"), scan(steps, "parsed"));
    row(
        "too large",
        scan(cold, "too_large"),
        scan(steps, "too_large"),
    );
    println!("store: {:.1} MiB", store_bytes as f64 / (1024.0 * 1024.0));
}

fn run_json(run: &Run) -> Value {
    serde_json::json!({
        "wall_s": run.wall.as_secs_f64(),
        "peak_rss_kb": run.peak_rss_kb,
        "timings": run.report["timings"],
        "scan": run.report["scan"],
    })
}

/// Stock Aider's cold and warm `get_repo_map` on the files repo-mapper's walk lists.
fn time_aider(root: &Path, binary: &Path, budget: usize, runs: usize) -> Result<Value> {
    let out_dir = workspace_root().join("target/bench-scale");
    let files = list_files(binary, root)?;
    let list = out_dir.join("aider-files.txt");
    fs::write(&list, files.join("\n"))?;
    let out = out_dir.join("aider.json");
    let venv_python = workspace_root().join("target/parity/venv/bin/python");
    ensure!(
        venv_python.is_file(),
        "no parity environment: run `cargo xtask parity` once (it installs aider-chat 0.86.2)"
    );
    eprintln!(
        "scale: stock Aider 0.86.2 in-process, {} files",
        files.len()
    );
    run_cmd(
        Command::new(venv_python)
            .arg(workspace_root().join("xtask/python/aider_scale.py"))
            .arg(root)
            .arg(&list)
            .arg(budget.to_string())
            .arg(runs.to_string())
            .arg(&out),
    )?;
    Ok(serde_json::from_str(&fs::read_to_string(&out)?)?)
}

/// The files of repo-mapper's walk, relative to `root` (from the JSON of a map with every
/// file listed).
fn list_files(binary: &Path, root: &Path) -> Result<Vec<String>> {
    let output = Command::new(binary)
        .arg(root)
        .args(["--no-cache", "--format", "json", "-t", "100000"])
        .output()
        .context("listing files with repo-mapper")?;
    let report: Value = serde_json::from_slice(&output.stdout)?;
    let mut files: Vec<String> = report["entries"]
        .as_array()
        .context("entries")?
        .iter()
        .filter_map(|e| e["file"].as_str().map(str::to_owned))
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

fn print_aider(aider: &Value, cold: &Run, warm: &Run) {
    let cold_s = aider["cold_s"].as_f64().unwrap_or(f64::NAN);
    let mut warm_s: Vec<f64> = aider["warm_s"]
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    warm_s.sort_by(f64::total_cmp);
    let aider_warm = warm_s.get(warm_s.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "stock Aider 0.86.2 (in-process get_repo_map): cold {cold_s:.2} s, warm {aider_warm:.2} s"
    );
    println!(
        "Aider / repo-mapper (whole process): cold {:.1}x, warm {:.1}x",
        cold_s / cold.wall.as_secs_f64(),
        aider_warm / warm.wall.as_secs_f64()
    );
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

fn machine() -> Value {
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let mem_kb = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").parse::<u64>().ok())
        })
        .unwrap_or(0);
    serde_json::json!({ "cores": cores, "memory_gib": mem_kb / (1024 * 1024) })
}
