//! The checks one fuzz input goes through (issue 12): tag extraction in both dialects and
//! the rendering of the tags found, each step bounded in time and free of panics.
//!
//! Shared, as this one file, by `cargo xtask fuzz` and the replay test of the saved inputs
//! (`crates/repo-mapper-render/tests/it/fuzz_regressions.rs` includes it with `#[path]`), so
//! both judge an input alike. It needs nothing but std and the two crates it checks.

use std::any::Any;
use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use repo_mapper_render::{TreeContext, line_of_interest};
use repo_mapper_tags::{
    Dialect, Language, Limits, Tag, extract_source_within, normalize_newlines, source_from_bytes,
};

/// The time limit each extraction and each render parse gets unless told otherwise.
pub(super) const DEFAULT_TIME_LIMIT: Duration = Duration::from_millis(1000);

/// The most one step may take under `limit`: three times the limit plus two seconds, for
/// the work outside the bounded parse and query and for a loaded machine.
pub(super) fn step_bound(limit: Duration) -> Duration {
    limit
        .saturating_mul(3)
        .saturating_add(Duration::from_secs(2))
}

/// What one input cost and whether it failed.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    /// Every step run, with its time.
    pub steps: Vec<(String, Duration)>,
    /// Panics and over-long steps, one line each.
    pub failures: Vec<String>,
    /// The bytes are not UTF-8: extraction never sees them (only rendering does).
    pub rejected: bool,
    /// Some extraction ran out of time (which is allowed: the bound held).
    pub cut_short: bool,
}

impl Outcome {
    /// The slowest step and its time.
    pub(super) fn slowest(&self) -> Option<(&str, Duration)> {
        let slowest = self.steps.iter().max_by_key(|(_, took)| *took)?;
        Some((slowest.0.as_str(), slowest.1))
    }
}

/// The steps of one input as they run: the outcome so far, the bound of each step, and
/// whom to tell when a step starts.
struct Steps<'a> {
    out: Outcome,
    bound: Duration,
    on_step: &'a dyn Fn(&str),
}

impl Steps<'_> {
    /// Runs `f` as step `name`: catches a panic and checks its time against the bound.
    fn run<T>(&mut self, name: &str, f: impl FnOnce() -> T) -> Option<T> {
        (self.on_step)(name);
        let started = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(f));
        let took = started.elapsed();
        let out = &mut self.out;
        out.steps.push((name.to_owned(), took));
        if took > self.bound {
            let bound = self.bound;
            out.failures.push(format!(
                "{name}: took {took:.2?}, over the bound {bound:.2?}"
            ));
        }
        match result {
            Ok(value) => Some(value),
            Err(payload) => {
                let msg = panic_message(payload.as_ref());
                out.failures.push(format!("{name}: panicked: {msg}"));
                None
            }
        }
    }
}

/// Runs `bytes`, a file called `file_name` in language `lang`, through every check with
/// `limit` per extraction and per render parse.
///
/// Steps: `source_from_bytes`; `extract_source_within` in each dialect; the rendering of
/// each dialect's tag lines (and a few out-of-range lines) from the text the renderer
/// builds from the bytes; and, for text holding `\r`, a rendering of the raw text.
pub(super) fn check(lang: Language, file_name: &str, bytes: &[u8], limit: Duration) -> Outcome {
    check_telling(lang, file_name, bytes, limit, &|_| {})
}

/// [`check`], calling `on_step` with each step's name as it starts (for a watchdog).
pub(super) fn check_telling(
    lang: Language,
    file_name: &str,
    bytes: &[u8],
    limit: Duration,
    on_step: &dyn Fn(&str),
) -> Outcome {
    let bound = step_bound(limit);
    let mut steps = Steps {
        out: Outcome::default(),
        bound,
        on_step,
    };
    let limits = Limits::new(limit);
    let source = steps
        .run("decode", || source_from_bytes(bytes.to_vec()))
        .flatten();
    steps.out.rejected = source.is_none();
    for dialect in [Dialect::Default, Dialect::Aider] {
        let tags = match &source {
            Some(source) => extract(&mut steps, lang, file_name, source, dialect, &limits),
            None => Vec::new(),
        };
        let lois = lines_of_interest(&tags);
        let code = render_text(bytes, source.as_deref(), dialect);
        let name = format!("render {dialect:?}");
        steps.run(&name, || render(code, lang, dialect, &limits, &lois));
        if let Ok(raw) = std::str::from_utf8(bytes)
            && raw.contains('\r')
        {
            let name = format!("render raw {dialect:?}");
            steps.run(&name, || render(raw, lang, dialect, &limits, &lois));
        }
    }
    steps.out
}

/// Runs `bytes` through every step once, unjudged. A language's first extraction in a
/// process compiles its queries, and the aider dialect's first fallback loads pygments'
/// tables: once-per-process costs (seconds, unoptimised) no input should be charged.
pub(super) fn warm_up(lang: Language, file_name: &str, bytes: &[u8]) {
    let _ = check(lang, file_name, bytes, Limits::default().time_per_file);
    // A definition and no reference: the aider dialect's fallback replays pygments.
    let _ = check(
        Language::Python,
        "warm.py",
        b"def f():\n    pass\n",
        Duration::MAX,
    );
}

/// [`warm_up`] with the first sample of `lang` under `samples_dir` (`fixtures/languages/`),
/// if there is one.
pub(super) fn warm_up_language(lang: Language, samples_dir: &Path) {
    let dir = samples_dir.join(lang.name());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    if let Some(path) = files.first()
        && let Ok(bytes) = std::fs::read(path)
    {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        warm_up(lang, &name, &bytes);
    }
}

/// One dialect's extraction, as a step; the tags found (none on a panic).
fn extract(
    steps: &mut Steps<'_>,
    lang: Language,
    file_name: &str,
    source: &str,
    dialect: Dialect,
    limits: &Limits,
) -> Vec<Tag> {
    let rel: Arc<str> = Arc::from(file_name);
    let fname: Arc<Path> = Arc::from(Path::new("/fuzz").join(file_name).as_path());
    let name = format!("extract {dialect:?}");
    let run = || extract_source_within(lang, source, rel, fname, dialect, limits);
    let extraction = steps.run(&name, run).unwrap_or_default();
    steps.out.cut_short |= extraction.cut_short.is_some();
    extraction.tags
}

/// The rows a map would show for `tags`, plus rows a hostile caller might pass: the first,
/// far past the end, negative ones and the extremes of `i64`.
fn lines_of_interest(tags: &[Tag]) -> Vec<i64> {
    let mut lois: Vec<i64> = tags.iter().map(|t| line_of_interest(t.line)).collect();
    lois.extend([0, 1, -1, -2, 1 << 40, i64::MIN, i64::MAX]);
    lois
}

/// The text the renderer builds from a file's bytes: Aider's `read_text` (not UTF-8: empty)
/// or the default dialect's lossy decoding, newlines normalised, then a final newline.
fn render_text(bytes: &[u8], source: Option<&str>, dialect: Dialect) -> String {
    let mut code = match dialect {
        Dialect::Aider => source.unwrap_or_default().to_owned(),
        Dialect::Default => normalize_newlines(String::from_utf8_lossy(bytes).into_owned()),
    };
    if !code.ends_with('\n') {
        code.push('\n');
    }
    code
}

/// Builds the file's context within `limits` and renders `lois`; the output's length.
fn render(
    code: impl Into<String>,
    lang: Language,
    dialect: Dialect,
    limits: &Limits,
    lois: &[i64],
) -> usize {
    let context = TreeContext::new_within(code, Some(lang), dialect, limits);
    context.render(lois).len()
}

thread_local! {
    /// Where the last panic on this thread happened (set by [`record_panic_locations`]).
    static PANIC_AT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Replaces the panic hook with one that prints nothing and records where a panic
/// happened, so a caught panic is reported once, with its location, by [`check`].
pub(super) fn record_panic_locations() {
    panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()));
        PANIC_AT.with(|cell| *cell.borrow_mut() = at);
    }));
}

/// A caught panic's message, with its location when the hook recorded one.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_owned()
    };
    match PANIC_AT.with(|cell| cell.borrow_mut().take()) {
        Some(at) => format!("{msg} (at {at})"),
        None => msg,
    }
}

/// The language of a saved input, from its file name: `<language>-<hash>.<ext>`.
pub(super) fn regression_language(file_name: &str) -> Option<Language> {
    Language::from_name(file_name.split_once('-')?.0)
}
