//! `cargo xtask fuzz`: a mutation and generation fuzzer for hostile input (issue 12).
//!
//! Every input starts from a sample of `fixtures/languages/<language>/`, mutated one to
//! four times (bit flips, odd bytes, NUL and invalid UTF-8, splices from other samples,
//! repeated lines, deep nesting of an opening construct, truncation, CRLF/CR and the line
//! breaks only Python counts, one huge line, deletions), and goes through [`check::check`]:
//! tag extraction in both dialects and the rendering of the tags found, each step bounded
//! by `--time-limit-ms` ([`check::step_bound`]) and free of panics. Input *i* of seed *S*
//! is always the same bytes, whatever the number of threads.
//!
//! A failing input is saved as `fixtures/fuzz-regressions/<language>-<hash>.<ext>`, which
//! the render crate's `fuzz_regressions` test replays through the same checks. An input
//! that never finishes (a hang) is saved by a watchdog, which then ends the run. An input
//! that kills the process (a C assertion in a grammar or in tree-sitter) cannot be saved
//! after the fact, so each job writes the input it is about to check to
//! `target/fuzz/running-<job>.<ext>` first: after an abort, the culprit is there.

mod check;
mod mcp;
mod mutate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use repo_mapper_tags::Language;

/// The largest input made: mutations that grow a file stop here.
const MAX_LEN: usize = 2 << 20;

/// What `cargo xtask fuzz` was asked to do.
#[derive(Debug, Clone)]
struct Options {
    seconds: u64,
    seed: u64,
    limit: Duration,
    jobs: usize,
    inputs: Option<u64>,
    langs: Vec<String>,
    verbose: bool,
    only: Option<u64>,
    replay: Vec<PathBuf>,
    /// Hostile MCP requests against a live server instead ([`mcp`]).
    mcp: bool,
    /// The binary `--mcp` starts (default: the release build, built first).
    binary: Option<PathBuf>,
}

/// Runs `cargo xtask fuzz [--seconds N] [--seed S] [--time-limit-ms M] [--jobs J]
/// [--inputs N] [--lang NAME]... [--verbose]` (or one input: `--input I`; or saved inputs:
/// `--replay FILE`...; or hostile MCP requests against a live server: `--mcp [--binary
/// PATH]` with `--seconds`, `--seed`, `--inputs`); fails when any input failed.
pub(crate) fn run(args: &[String]) -> Result<()> {
    let options = parse_args(args)?;
    if options.mcp {
        return mcp::run(&mcp::McpOptions {
            seconds: options.seconds,
            seed: options.seed,
            inputs: options.inputs,
            binary: options.binary.clone(),
        });
    }
    if !options.replay.is_empty() {
        check::record_panic_locations();
        return replay(&options.replay, options.limit);
    }
    let root = crate::workspace_root();
    let samples = load_samples(&root.join("fixtures/languages"), &options.langs)?;
    let out_dir = root.join("fixtures/fuzz-regressions");
    eprintln!(
        "fuzz: seed {}, {} s, time limit {:?} (step bound {:?}), {} jobs, {} samples",
        options.seed,
        options.seconds,
        options.limit,
        check::step_bound(options.limit),
        options.jobs,
        samples.len()
    );
    check::record_panic_locations();
    if let Some(index) = options.only {
        return run_one(&options, &samples, index, &root.join("target/fuzz"));
    }
    let started = Instant::now();
    warm_up(&samples, options.jobs);
    eprintln!("fuzz: warmed up in {:.1?}", started.elapsed());
    let started = Instant::now();
    let running_dir = root.join("target/fuzz");
    std::fs::create_dir_all(&running_dir)?;
    let tally = Fuzz::new(&options, &samples, &out_dir, &running_dir).run();
    tally.print(started.elapsed());
    if !tally.failures.is_empty() {
        bail!("{} failing inputs", tally.failures.len());
    }
    Ok(())
}

/// Runs every sample once, on `jobs` threads, so that no input pays for compiling queries
/// or loading tables ([`check::warm_up`]).
fn warm_up(samples: &[Sample], jobs: usize) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                while let Some(s) = samples.get(next.fetch_add(1, Ordering::SeqCst)) {
                    check::warm_up(s.lang, &s.file_name, &s.bytes);
                }
            });
        }
    });
}

/// Runs saved inputs (named `<language>-<hash>.<ext>`) through the checks, verbosely.
fn replay(paths: &[PathBuf], limit: Duration) -> Result<()> {
    let mut failed = 0;
    for path in paths {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let lang = check::regression_language(&name)
            .with_context(|| format!("{name}: not <language>-<hash>.<ext>"))?;
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        check::warm_up_language(lang, &crate::workspace_root().join("fixtures/languages"));
        let outcome = check::check(lang, &name, &bytes, limit);
        let steps: Vec<String> = outcome
            .steps
            .iter()
            .map(|(s, t)| format!("{s} {t:.0?}"))
            .collect();
        eprintln!("{name}: {}", steps.join(", "));
        for failure in &outcome.failures {
            eprintln!("    {failure}");
        }
        failed += usize::from(!outcome.failures.is_empty());
    }
    if failed > 0 {
        bail!("{failed} of {} inputs fail", paths.len());
    }
    Ok(())
}

/// Runs input `index` alone, verbosely, and writes it to `dir` for a closer look.
fn run_one(options: &Options, samples: &[Sample], index: u64, dir: &Path) -> Result<()> {
    let own = (index % samples.len() as u64) as usize;
    let sample = &samples[own];
    let (bytes, mutations) = mutate::input(&mut Rng::for_input(options.seed, index), samples, own);
    let path = dir.join(format!("input-{}-{index}.{}", options.seed, sample.ext));
    std::fs::create_dir_all(dir)?;
    std::fs::write(&path, &bytes)?;
    eprintln!("fuzz: input #{index} written to {}", path.display());
    check::warm_up(sample.lang, &sample.file_name, &sample.bytes);
    let outcome = check::check(sample.lang, &sample.file_name, &bytes, options.limit);
    print_input(index, sample, &bytes, &mutations, &outcome);
    for failure in &outcome.failures {
        eprintln!("    {failure}");
    }
    if !outcome.failures.is_empty() {
        bail!("input #{index} fails");
    }
    Ok(())
}

fn parse_args(args: &[String]) -> Result<Options> {
    let jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut options = Options {
        seconds: 60,
        seed: 1,
        limit: check::DEFAULT_TIME_LIMIT,
        jobs,
        inputs: None,
        langs: Vec::new(),
        verbose: false,
        only: None,
        replay: Vec::new(),
        mcp: false,
        binary: None,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || args.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--seconds" => options.seconds = value()?.parse().context("--seconds")?,
            "--seed" => options.seed = value()?.parse().context("--seed")?,
            "--time-limit-ms" => {
                options.limit = Duration::from_millis(value()?.parse().context("--time-limit-ms")?);
            }
            "--jobs" => options.jobs = value()?.parse::<usize>().context("--jobs")?.max(1),
            "--inputs" => options.inputs = Some(value()?.parse().context("--inputs")?),
            "--lang" => options.langs.push(value()?.clone()),
            "--verbose" => options.verbose = true,
            "--input" => options.only = Some(value()?.parse().context("--input")?),
            "--replay" => options.replay.push(PathBuf::from(value()?)),
            "--mcp" => options.mcp = true,
            "--binary" => options.binary = Some(PathBuf::from(value()?)),
            other => bail!("fuzz: unknown argument `{other}`"),
        }
    }
    Ok(options)
}

/// One sample file of `fixtures/languages/`.
#[derive(Debug)]
struct Sample {
    lang: Language,
    file_name: String,
    ext: String,
    bytes: Vec<u8>,
}

/// Every sample, in name order; only those of `langs` when given.
fn load_samples(dir: &Path, langs: &[String]) -> Result<Vec<Sample>> {
    let mut samples = Vec::new();
    for lang in Language::ALL {
        if !langs.is_empty() && !langs.iter().any(|l| l == lang.name()) {
            continue;
        }
        let lang_dir = dir.join(lang.name());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&lang_dir)
            .with_context(|| format!("reading {}", lang_dir.display()))?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        files.sort();
        for path in files {
            let file_name = path.file_name().unwrap_or_default().to_string_lossy();
            let ext = path
                .extension()
                .map_or("txt".into(), |e| e.to_string_lossy());
            samples.push(Sample {
                lang,
                file_name: file_name.into_owned(),
                ext: ext.into_owned(),
                bytes: std::fs::read(&path)?,
            });
        }
    }
    if samples.is_empty() {
        bail!("no samples under {} for {langs:?}", dir.display());
    }
    Ok(samples)
}

/// splitmix64: a small, fast, seedable generator (reproducible runs need nothing more).
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    /// The generator of input `index` of run `seed`.
    fn for_input(seed: u64, index: u64) -> Rng {
        let mut rng = Rng(seed ^ 0x5851_f42d_4c95_7f2d);
        rng.0 ^= rng
            .next()
            .wrapping_add(index.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        rng
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        (self.next() % n as u64) as usize
    }

    /// True one time in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// A run in progress: the inputs handed out, the ones running (for the watchdog) and the
/// tally.
struct Fuzz<'a> {
    options: &'a Options,
    samples: &'a [Sample],
    out_dir: &'a Path,
    running_dir: &'a Path,
    started: Instant,
    stop_at: Instant,
    next: AtomicU64,
    stop: AtomicBool,
    running: Mutex<BTreeMap<usize, Running>>,
    tally: Mutex<Tally>,
}

/// An input being checked.
struct Running {
    index: u64,
    sample: usize,
    bytes: Arc<Vec<u8>>,
    started: Instant,
    step: String,
}

impl<'a> Fuzz<'a> {
    fn new(
        options: &'a Options,
        samples: &'a [Sample],
        out_dir: &'a Path,
        running_dir: &'a Path,
    ) -> Fuzz<'a> {
        Fuzz {
            options,
            samples,
            out_dir,
            running_dir,
            started: Instant::now(),
            stop_at: Instant::now() + Duration::from_secs(options.seconds),
            next: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            running: Mutex::new(BTreeMap::new()),
            tally: Mutex::new(Tally::default()),
        }
    }

    /// Runs the workers and the watchdog until time or inputs run out.
    fn run(self) -> Tally {
        let done = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for worker in 0..self.options.jobs {
                let (fuzz, done) = (&self, &done);
                scope.spawn(move || {
                    fuzz.work(worker);
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
            while done.load(Ordering::SeqCst) < self.options.jobs {
                std::thread::sleep(Duration::from_millis(200));
                self.watch();
            }
        });
        self.tally.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    /// The next input's index, or `None` when the run is over.
    fn next_index(&self) -> Option<u64> {
        if self.stop.load(Ordering::SeqCst) || Instant::now() >= self.stop_at {
            return None;
        }
        let index = self.next.fetch_add(1, Ordering::SeqCst);
        (self.options.inputs.is_none_or(|n| index < n)).then_some(index)
    }

    /// One worker: checks inputs until the run is over.
    fn work(&self, worker: usize) {
        let mut kept = None;
        while let Some(index) = self.next_index() {
            let sample = (index % self.samples.len() as u64) as usize;
            let mut rng = Rng::for_input(self.options.seed, index);
            let (bytes, mutations) = mutate::input(&mut rng, self.samples, sample);
            let bytes = Arc::new(bytes);
            let running = Running {
                index,
                sample,
                bytes: Arc::clone(&bytes),
                started: Instant::now(),
                step: String::new(),
            };
            self.lock_running().insert(worker, running);
            let s = &self.samples[sample];
            kept = self.keep_running_input(worker, s, &bytes, kept);
            let on_step = |step: &str| {
                if let Some(r) = self.lock_running().get_mut(&worker) {
                    r.step = step.to_owned();
                }
            };
            let limit = self.options.limit;
            let outcome = check::check_telling(s.lang, &s.file_name, &bytes, limit, &on_step);
            self.lock_running().remove(&worker);
            if self.options.verbose {
                print_input(index, &self.samples[sample], &bytes, &mutations, &outcome);
            }
            self.record(index, sample, &bytes, outcome);
        }
    }

    /// Writes the input job `worker` is about to check where an abort leaves it, removing
    /// the previous one (`kept`) if its extension differed; the path written.
    fn keep_running_input(
        &self,
        worker: usize,
        sample: &Sample,
        bytes: &[u8],
        kept: Option<PathBuf>,
    ) -> Option<PathBuf> {
        let path = self
            .running_dir
            .join(format!("running-{worker}.{}", sample.ext));
        if let Some(old) = kept.filter(|old| *old != path) {
            let _ = std::fs::remove_file(old);
        }
        match std::fs::write(&path, bytes) {
            Ok(()) => Some(path),
            Err(err) => {
                eprintln!(
                    "fuzz: cannot keep the running input: {}: {err}",
                    path.display()
                );
                None
            }
        }
    }

    fn lock_running(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds an input's outcome to the tally, saving the input if it failed.
    fn record(&self, index: u64, sample: usize, bytes: &[u8], outcome: check::Outcome) {
        let s = &self.samples[sample];
        let saved = if outcome.failures.is_empty() {
            None
        } else {
            Some(self.save(s, bytes))
        };
        let mut tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.add(index, s.lang.name(), &outcome);
        if let Some(saved) = saved {
            let failure = Failure {
                index,
                lang: s.lang.name(),
                saved,
                reasons: outcome.failures,
            };
            failure.print();
            tally.failures.push(failure);
        }
    }

    /// Saves a failing input as `<language>-<hash>.<ext>`; its path (or why not).
    fn save(&self, sample: &Sample, bytes: &[u8]) -> String {
        let hash = blake3::hash(bytes);
        let hex: String = hash.as_bytes()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = format!("{}-{hex}.{}", sample.lang.name(), sample.ext);
        let path = self.out_dir.join(name);
        let written = std::fs::create_dir_all(self.out_dir).and_then(|()| {
            if path.exists() {
                Ok(())
            } else {
                std::fs::write(&path, bytes)
            }
        });
        match written {
            Ok(()) => path.display().to_string(),
            Err(err) => format!("(not saved: {}: {err})", path.display()),
        }
    }

    /// Ends the run when an input has been running far longer than any step may: saves it,
    /// prints the tally so far and exits (a hung thread cannot be stopped).
    fn watch(&self) {
        let steps = 7; // decode, 2 extractions, up to 4 renderings
        let hang = check::step_bound(self.options.limit) * steps + Duration::from_secs(10);
        let running = self.lock_running();
        let Some(hung) = running.values().find(|r| r.started.elapsed() > hang) else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        let s = &self.samples[hung.sample];
        let failure = Failure {
            index: hung.index,
            lang: s.lang.name(),
            saved: self.save(s, &hung.bytes),
            reasons: vec![format!(
                "{}: still running after {:.1?}: a hang",
                hung.step,
                hung.started.elapsed()
            )],
        };
        failure.print();
        let mut tally = self.tally.lock().unwrap_or_else(|e| e.into_inner());
        tally.failures.push(failure);
        tally.print(self.started.elapsed());
        eprintln!("fuzz: FAILED (a hang: exiting without waiting for it)");
        std::process::exit(1);
    }
}

/// One line per input: index, language, size, mutations, its steps' times.
fn print_input(index: u64, s: &Sample, bytes: &[u8], mutations: &[&str], out: &check::Outcome) {
    let steps: Vec<String> = out
        .steps
        .iter()
        .map(|(step, took)| format!("{step} {took:.0?}"))
        .collect();
    eprintln!(
        "#{index} {} {} bytes [{}]: {}",
        s.lang.name(),
        bytes.len(),
        mutations.join(", "),
        steps.join(", ")
    );
}

/// One failing input.
#[derive(Debug)]
struct Failure {
    index: u64,
    lang: &'static str,
    saved: String,
    reasons: Vec<String>,
}

impl Failure {
    fn print(&self) {
        eprintln!(
            "fuzz: FAIL input #{} ({}): saved {}",
            self.index, self.lang, self.saved
        );
        for reason in &self.reasons {
            eprintln!("    {reason}");
        }
    }
}

/// Per language: inputs, inputs not UTF-8, inputs cut short, the slowest step.
#[derive(Debug, Default)]
struct LangTally {
    inputs: u64,
    rejected: u64,
    cut_short: u64,
    slowest: Duration,
}

/// What a run saw.
#[derive(Debug, Default)]
struct Tally {
    per_lang: BTreeMap<&'static str, LangTally>,
    inputs: u64,
    slowest: Option<(Duration, String)>,
    failures: Vec<Failure>,
}

impl Tally {
    fn add(&mut self, index: u64, lang: &'static str, outcome: &check::Outcome) {
        self.inputs += 1;
        let entry = self.per_lang.entry(lang).or_default();
        entry.inputs += 1;
        entry.rejected += u64::from(outcome.rejected);
        entry.cut_short += u64::from(outcome.cut_short);
        let Some((step, took)) = outcome.slowest() else {
            return;
        };
        entry.slowest = entry.slowest.max(took);
        if self.slowest.as_ref().is_none_or(|(t, _)| took > *t) {
            self.slowest = Some((took, format!("input #{index} ({lang}, {step})")));
        }
    }

    fn print(&self, elapsed: Duration) {
        let rate = self.inputs as f64 / elapsed.as_secs_f64().max(1e-3);
        eprintln!(
            "\nfuzz: {} inputs in {elapsed:.1?} ({rate:.1}/s)",
            self.inputs
        );
        eprintln!(
            "{:<16} {:>7} {:>9} {:>9} {:>10}",
            "language", "inputs", "not utf8", "cut short", "slowest"
        );
        for (lang, t) in &self.per_lang {
            let slowest = format!("{:.0?}", t.slowest);
            eprintln!(
                "{lang:<16} {:>7} {:>9} {:>9} {slowest:>10}",
                t.inputs, t.rejected, t.cut_short
            );
        }
        if let Some((took, what)) = &self.slowest {
            eprintln!("slowest: {what}: {took:.2?}");
        }
        eprintln!("failures: {}", self.failures.len());
        for f in &self.failures {
            eprintln!("  #{} {}: {}", f.index, f.lang, f.saved);
        }
    }
}
