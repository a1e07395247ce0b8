//! `repo-mapper [OPTIONS] [REPO_PATH]`: prints the repo map of a repository (SPEC §17).
//!
//! A thin shell over the `repo_mapper` facade: parse arguments, resolve paths, install
//! the diagnostics subscriber and the progress bar, print. stdout carries the map only.
//!
//! Exit codes: 0 map written; 1 fatal (bad arguments, unreadable root); 2 no map (budget 0,
//! no files, nothing fits).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use repo_mapper::{
    CacheLocation, Config, Limits, MapReport, Progress, Refresh, RepoMap, Tokenizer,
    escape_control, list_files, parse_profile, push_escaped,
};

/// The smallest `--max-line-length`: below it a map line keeps too little to be useful (at
/// 0 every line is blank). Aider's default is 100.
const MIN_LINE_LENGTH: usize = 16;

/// Log targets of sled's own diagnostics (sled logs through the `log` crate; its storage
/// layer was once the `pagecache` crate). They are off unless `RUST_LOG` names them.
const SLED_TARGETS: [&str; 2] = ["sled", "pagecache"];

/// Aider's repo map of a repository: the definitions that matter most, within a token
/// budget.
#[derive(Debug, Parser)]
#[command(name = "repo-mapper", version, about, long_about = None)]
struct Cli {
    /// Repository root (default: the nearest ancestor of the current directory with a
    /// `.git` directory, else the current directory).
    #[arg(value_name = "REPO_PATH")]
    repo_path: Option<PathBuf>,

    /// Repository root; overrides REPO_PATH.
    #[arg(long, value_name = "PATH")]
    root: Option<PathBuf>,

    /// Token budget of the map.
    #[arg(
        short = 't',
        long,
        value_name = "N",
        default_value_t = 1024,
        allow_negative_numbers = true
    )]
    max_tokens: i64,

    /// The model's context window; with no chat files the budget grows up to 8x within it.
    #[arg(long, value_name = "N")]
    max_context_window: Option<usize>,

    /// A file being edited (repeatable): it steers the ranking and is left out of the map.
    #[arg(short = 'c', long = "chat-file", value_name = "PATH")]
    chat_files: Vec<PathBuf>,

    /// A file mentioned in the conversation (repeatable).
    #[arg(short = 'm', long = "mention-file", value_name = "PATH")]
    mention_files: Vec<PathBuf>,

    /// An identifier mentioned in the conversation (repeatable).
    #[arg(short = 'i', long = "mention-ident", value_name = "NAME")]
    mention_idents: Vec<String>,

    /// Map cache policy: auto, files, manual or always.
    #[arg(long, value_name = "MODE", default_value = "auto", value_parser = parse_refresh)]
    refresh: Refresh,

    /// Recompute the map even if a cached one matches.
    #[arg(long)]
    force_refresh: bool,

    /// Leave out files whose PageRank is at most 0.0001.
    #[arg(long)]
    exclude_unranked: bool,

    /// Cut map lines to this many characters (at least 16).
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_line_length: usize,

    /// PageRank damping factor.
    #[arg(long, value_name = "F", default_value_t = 0.85)]
    pagerank_damping: f64,

    /// PageRank convergence tolerance.
    #[arg(long, value_name = "F", default_value_t = 1e-6)]
    pagerank_tol: f64,

    /// PageRank iteration limit.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pagerank_max_iter: usize,

    /// Anchor (repeatable): `FILE:IDENT`, a `FILE`, or an identifier.
    #[arg(short = 'a', long = "anchor", value_name = "VALUE")]
    anchors: Vec<String>,

    /// Debug diagnostics on stderr (RUST_LOG overrides).
    #[arg(short = 'v', long)]
    verbose: bool,

    /// A progress bar on stderr while files are scanned, and the elapsed time at the end.
    #[arg(short = 'p', long)]
    progress: bool,

    /// default (the SPEC; never over budget) or aider (Aider 0.86.2's output).
    #[arg(long, value_name = "PROFILE", default_value = "default", value_parser = parse_profile)]
    profile: repo_mapper::Profile,

    /// Tokenizer for counting: cl100k_base or o200k_base.
    #[arg(long, value_name = "NAME", default_value = "cl100k_base")]
    tokenizer: Tokenizer,

    /// Output format: text (the map) or json (map, counts and the ranked entries).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json"])]
    format: String,

    /// Map exactly these files (paths relative to the root, one per line; `-` for stdin)
    /// instead of walking the repository.
    #[arg(long, value_name = "FILE|-")]
    files_from: Option<String>,

    /// Directory of the tag cache (default: ROOT/.repo-mapper, or $REPO_MAPPER_CACHE_DIR).
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,

    /// Keep tags in memory only.
    #[arg(long, conflicts_with = "cache_dir")]
    no_cache: bool,

    /// Read files through symlinks whose target lies outside the repository root (by
    /// default they are left out of the map, with a warning).
    #[arg(long)]
    follow_external_symlinks: bool,

    /// Seconds one file's tags may take (parse and query); a file that takes longer keeps
    /// the tags found so far, with a warning.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    time_per_file: f64,
}

fn parse_refresh(s: &str) -> Result<Refresh, String> {
    s.parse()
}

/// A failure with its exit code and one-line message.
struct Failure {
    code: u8,
    message: String,
}

fn fatal(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            // One line: clap's first line, without its usage block.
            let text = err.render().to_string();
            let line = text.lines().next().unwrap_or("invalid arguments");
            let line = line.strip_prefix("error: ").unwrap_or(line);
            say(&format!("error: {line} (see --help)"));
            return ExitCode::from(1);
        }
    };
    init_tracing(cli.verbose);
    quiet_caught_sled_panics();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            say(&f.message);
            ExitCode::from(f.code)
        }
    }
}

/// Writes `repo-mapper: {message}` to stderr as one line, control characters escaped.
fn say(message: &str) {
    eprintln!("repo-mapper: {}", escape_control(message));
}

/// Installs the diagnostics subscriber: our events on stderr, one escaped line each
/// ([`EscapedStderr`]), coloured only on a terminal without `NO_COLOR`.
/// sled panics on some damaged data files; the store catches those panics and treats the
/// store as corrupt (one warning of ours), so the default hook's "thread … panicked at"
/// report would be noise on stderr. Panics anywhere else keep the default report.
fn quiet_caught_sled_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let in_sled = info.location().is_some_and(|l| l.file().contains("/sled-"));
        if in_sled {
            tracing::debug!("sled panicked (caught): {info}");
        } else {
            default(info);
        }
    }));
}

fn init_tracing(verbose: bool) {
    let ansi = colour_stderr();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(diagnostics_filter(verbose))
        .with_writer(EscapedStderr { ansi })
        .with_ansi(ansi)
        .without_time()
        .with_target(false)
        .try_init();
}

/// Colour only when stderr is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>).
fn colour_stderr() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `RUST_LOG` if set and valid, else `warn` (`debug` with `-v`); sled's own log lines
/// ([`SLED_TARGETS`]) are off unless `RUST_LOG` names them.
fn diagnostics_filter(verbose: bool) -> tracing_subscriber::EnvFilter {
    use tracing_subscriber::EnvFilter;
    let default = if verbose { "debug" } else { "warn" };
    let base = std::env::var("RUST_LOG")
        .ok()
        .filter(|s| !s.trim().is_empty() && EnvFilter::try_new(s).is_ok())
        .unwrap_or_else(|| default.to_owned());
    let mut directives = base.clone();
    for target in SLED_TARGETS.iter().filter(|t| !base.contains(*t)) {
        directives.push_str(&format!(",{target}=off"));
    }
    EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new(default))
}

/// Diagnostics' stderr: each event is buffered and written as one line with its control
/// characters escaped ([`escape_diagnostic`]), so a file name cannot split a warning or
/// reach the terminal raw.
struct EscapedStderr {
    /// Colour is on: the formatter's own SGR sequences (`ESC[…m`) pass through.
    ansi: bool,
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for EscapedStderr {
    type Writer = EventLine;

    fn make_writer(&'a self) -> EventLine {
        EventLine {
            bytes: Vec::new(),
            keep_sgr: self.ansi,
        }
    }
}

/// One diagnostic event on its way to stderr, written out when dropped.
struct EventLine {
    bytes: Vec<u8>,
    keep_sgr: bool,
}

impl Write for EventLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventLine {
    fn drop(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        let line = escape_diagnostic(&String::from_utf8_lossy(&self.bytes), self.keep_sgr);
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// `event` as one line: every control character escaped ([`push_escaped`]) except the
/// final `\n` (added if missing), and, with `keep_sgr`, SGR colour sequences.
fn escape_diagnostic(event: &str, keep_sgr: bool) -> String {
    let body = event.strip_suffix('\n').unwrap_or(event);
    let mut out = String::with_capacity(event.len() + 1);
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        let sgr = if keep_sgr { sgr_len(rest) } else { 0 };
        let len = if sgr > 0 { sgr } else { c.len_utf8() };
        if sgr > 0 {
            out.push_str(&rest[..sgr]);
        } else {
            push_escaped(&mut out, c);
        }
        rest = &rest[len..];
    }
    out.push('\n');
    out
}

/// The length of the SGR sequence (`ESC [ digits and ; m`) that `s` starts with, or 0.
fn sgr_len(s: &str) -> usize {
    let Some(params) = s.strip_prefix("\x1b[") else {
        return 0;
    };
    let digits = params
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    if params.as_bytes().get(digits) == Some(&b'm') {
        digits + 3
    } else {
        0
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    let started = Instant::now();
    let cwd =
        std::env::current_dir().map_err(|e| fatal(format!("error: no current directory: {e}")))?;
    let root = detect_root(&cli, &cwd)?;
    check_numbers(&cli)?;

    let mut config = Config::new(&root);
    config.map_tokens = cli.max_tokens as usize;
    config.max_context_window = cli.max_context_window;
    config.refresh = cli.refresh;
    config.exclude_unranked = cli.exclude_unranked;
    config.max_line_length = cli.max_line_length;
    config.pagerank_damping = cli.pagerank_damping;
    config.pagerank_tol = cli.pagerank_tol;
    config.pagerank_max_iter = cli.pagerank_max_iter;
    config.profile = cli.profile;
    config.tokenizer = cli.tokenizer;
    config.follow_external_symlinks = cli.follow_external_symlinks;
    config.limits = Limits::new(Duration::from_secs_f64(cli.time_per_file));
    if cli.no_cache {
        config.cache = CacheLocation::Memory;
    } else if let Some(dir) = &cli.cache_dir {
        config.cache = CacheLocation::Dir(absolute(&cwd, dir));
    }

    let chat: Vec<PathBuf> = cli
        .chat_files
        .iter()
        .map(|p| inside_root(&root, &cwd, p, "--chat-file"))
        .collect::<Result<_, _>>()?;
    let mentioned_fnames: BTreeSet<String> = cli
        .mention_files
        .iter()
        .map(|p| {
            let abs = inside_root(&root, &cwd, p, "--mention-file")?;
            rel_string(&root, &abs)
        })
        .collect::<Result<_, _>>()?;
    let mentioned_idents: BTreeSet<String> = cli.mention_idents.iter().cloned().collect();
    resolve_anchors(&cli.anchors, &root, &cwd, &mut config);

    let cache_dir = match &config.cache {
        CacheLocation::Dir(d) => Some(d.clone()),
        CacheLocation::Memory => None,
    };
    // A walk lists the whole repository: stored tags of files no longer in it are pruned.
    config.prune_cache = cli.files_from.is_none();
    let other: Vec<PathBuf> = match &cli.files_from {
        Some(source) => read_files_from(source, &root)?,
        None => list_files(&root, cache_dir.as_deref()),
    };
    if other.is_empty() {
        return Err(Failure {
            code: 2,
            message: format!("no map: no files under {}", root.display()),
        });
    }

    let mut map = RepoMap::new(config);
    let bar = ProgressBar::new(cli.progress, other.len());
    let bar_ref = bar.clone();
    map.set_progress(move |p| bar_ref.update(p));
    let text = map.get_repo_map(
        &chat,
        &other,
        &mentioned_fnames,
        &mentioned_idents,
        cli.force_refresh,
    );
    bar.finish();
    let report = map.last_report();

    let mut stdout = std::io::stdout().lock();
    let written = if cli.format == "json" {
        let json = report_json(report, text.as_deref(), &map);
        let json = serde_json::to_string_pretty(&json).expect("JSON values serialise");
        writeln!(stdout, "{}", escape_json_controls(&json))
    } else if let Some(text) = &text {
        stdout.write_all(text.as_bytes())
    } else {
        Ok(())
    };
    if let Err(e) = written.and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(());
        }
        return Err(fatal(format!("error: cannot write the map: {e}")));
    }
    if cli.progress {
        eprintln!("repo-mapper: done in {:.2?}", started.elapsed());
    }
    match text {
        Some(_) => Ok(()),
        None => Err(Failure {
            code: 2,
            message: format!(
                "no map: nothing fits in {} tokens, or no file has anything to show",
                map.config().map_tokens
            ),
        }),
    }
}

/// The largest `--time-per-file`: a day (anything larger is no bound at all).
const MAX_TIME_PER_FILE: f64 = 86_400.0;

/// The numeric flags clap cannot check on its own.
fn check_numbers(cli: &Cli) -> Result<(), Failure> {
    if cli.max_tokens < 0 {
        return Err(fatal(format!(
            "error: --max-tokens must be 0 or more, got {}",
            cli.max_tokens
        )));
    }
    if cli.max_tokens == 0 {
        return Err(Failure {
            code: 2,
            message: "no map: the token budget is 0".into(),
        });
    }
    if cli.max_line_length < MIN_LINE_LENGTH {
        return Err(fatal(format!(
            "error: --max-line-length must be at least {MIN_LINE_LENGTH}, got {}",
            cli.max_line_length
        )));
    }
    if !(cli.time_per_file > 0.0 && cli.time_per_file <= MAX_TIME_PER_FILE) {
        return Err(fatal(format!(
            "error: --time-per-file must be more than 0 and at most {MAX_TIME_PER_FILE} seconds"
        )));
    }
    if !(0.0..1.0).contains(&cli.pagerank_damping) {
        return Err(fatal("error: --pagerank-damping must be in [0, 1)"));
    }
    if cli.pagerank_tol.is_nan() || cli.pagerank_tol <= 0.0 {
        return Err(fatal("error: --pagerank-tol must be positive"));
    }
    Ok(())
}

/// SPEC §17.2: `--root`, then REPO_PATH, then the nearest `.git` ancestor of the current
/// directory, then the current directory. The root must be a readable directory.
fn detect_root(cli: &Cli, cwd: &Path) -> Result<PathBuf, Failure> {
    let root = match cli.root.as_ref().or(cli.repo_path.as_ref()) {
        Some(p) => absolute(cwd, p),
        None => cwd
            .ancestors()
            .find(|d| d.join(".git").is_dir())
            .unwrap_or(cwd)
            .to_path_buf(),
    };
    let meta = std::fs::metadata(&root).map_err(|e| {
        fatal(format!(
            "error: cannot read the repository root {}: {e}",
            root.display()
        ))
    })?;
    if !meta.is_dir() {
        return Err(fatal(format!(
            "error: the repository root {} is not a directory",
            root.display()
        )));
    }
    std::fs::read_dir(&root).map_err(|e| {
        fatal(format!(
            "error: cannot list the repository root {}: {e}",
            root.display()
        ))
    })?;
    let root = root.canonicalize().unwrap_or(root);
    if root.to_str().is_none() {
        return Err(fatal(format!(
            "error: the repository root {} is not valid UTF-8",
            root.display()
        )));
    }
    Ok(root)
}

fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

/// Resolves a user path (relative to the current directory) and checks it lies inside the
/// root and names valid UTF-8.
fn inside_root(root: &Path, cwd: &Path, p: &Path, flag: &str) -> Result<PathBuf, Failure> {
    if p.to_str().is_none() {
        return Err(fatal(format!(
            "error: {flag} {} is not valid UTF-8",
            p.display()
        )));
    }
    let abs = absolute(cwd, p);
    let abs = abs.canonicalize().unwrap_or(abs);
    if !abs.starts_with(root) {
        return Err(fatal(format!(
            "error: {flag} {} is outside the repository root {}",
            p.display(),
            root.display()
        )));
    }
    Ok(abs)
}

fn rel_string(root: &Path, abs: &Path) -> Result<String, Failure> {
    let rel = abs.strip_prefix(root).unwrap_or(abs);
    rel.to_str()
        .map(str::to_owned)
        .ok_or_else(|| fatal(format!("error: {} is not valid UTF-8", abs.display())))
}

/// SPEC §17.4 `--anchor`: `FILE:IDENT` if FILE exists, else `FILE` if it exists, else an
/// identifier. Files are tried as given (absolute or relative to the current directory)
/// and relative to the root.
fn resolve_anchors(values: &[String], root: &Path, cwd: &Path, config: &mut Config) {
    let existing = |s: &str| -> Option<PathBuf> {
        let p = Path::new(s);
        [absolute(cwd, p), root.join(p)]
            .into_iter()
            .find(|c| c.is_file())
    };
    for value in values {
        if let Some((file, ident)) = value.rsplit_once(':')
            && !ident.is_empty()
            && let Some(path) = existing(file)
        {
            config.anchor_scoped.push((path, ident.to_owned()));
        } else if let Some(path) = existing(value) {
            config.anchor_fnames.push(path);
        } else {
            config.anchor_idents.insert(value.clone());
        }
    }
}

/// `--files-from`: paths relative to the root, one per line; blank lines ignored.
fn read_files_from(source: &str, root: &Path) -> Result<Vec<PathBuf>, Failure> {
    let mut text = String::new();
    if source == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| fatal(format!("error: cannot read the file list from stdin: {e}")))?;
    } else {
        text = std::fs::read_to_string(source)
            .map_err(|e| fatal(format!("error: cannot read the file list {source}: {e}")))?;
    }
    let mut files: Vec<PathBuf> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty())
        .map(|l| root.join(l))
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// serde_json escapes U+0000–U+001F in strings but leaves DEL and C1 controls raw (JSON
/// allows them): escape those too, as `\u007f`. Outside strings pretty JSON has only `\n`
/// and spaces, so every other control character is inside a string.
fn escape_json_controls(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn report_json(report: Option<&MapReport>, text: Option<&str>, map: &RepoMap) -> serde_json::Value {
    let config = map.config();
    let entries: Vec<serde_json::Value> = report
        .map(|r| {
            r.entries
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "file": e.file,
                        "ident": e.ident,
                        "line": e.line,
                        "rank": e.rank,
                        "stage": e.stage,
                        "in_map": e.in_map,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    serde_json::json!({
        "map": text,
        "tokens": report.and_then(|r| r.tokens),
        "budget": report.map_or(config.map_tokens, |r| r.budget),
        "profile": if config.profile == repo_mapper::Profile::Aider { "aider" } else { "default" },
        "tokenizer": config.tokenizer.name(),
        "files": report.map(|r| r.files),
        "file_ranks": report.map(|r| {
            r.file_ranks.iter().map(|(f, rank)| (f.clone(), serde_json::json!(rank))).collect::<serde_json::Map<_, _>>()
        }),
        "entries": entries,
    })
}

/// The `--progress` bar (also shown when stderr is a terminal and over 1,000 files are
/// scanned); a no-op otherwise. `indicatif::ProgressBar` is a shared handle, safe to update
/// from the scan's worker threads.
#[derive(Clone)]
struct ProgressBar(Option<indicatif::ProgressBar>);

impl ProgressBar {
    fn new(requested: bool, files: usize) -> ProgressBar {
        let show = requested || (std::io::stderr().is_terminal() && files > 1000);
        ProgressBar(show.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(files as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} scanning {pos}/{len} files {wide_bar} {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        }))
    }

    fn update(&self, p: Progress) {
        if let Some(bar) = &self.0 {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_is_one_line_with_its_controls_escaped() {
        let event = " WARN can't include a\nb\x1b[2J\r\t.py\n";
        assert_eq!(
            escape_diagnostic(event, false),
            " WARN can't include a\\nb\\x1b[2J\\r\\t.py\n"
        );
        assert_eq!(escape_diagnostic("no newline", false), "no newline\n");
    }

    #[test]
    fn colour_sequences_pass_only_when_colour_is_on() {
        let event = "\x1b[33m WARN\x1b[0m x\x1b[2Jy\x1b[\n";
        assert_eq!(
            escape_diagnostic(event, true),
            "\x1b[33m WARN\x1b[0m x\\x1b[2Jy\\x1b[\n"
        );
        assert_eq!(
            escape_diagnostic(event, false),
            "\\x1b[33m WARN\\x1b[0m x\\x1b[2Jy\\x1b[\n"
        );
    }

    #[test]
    fn json_keeps_no_raw_control_character_but_its_line_breaks() {
        let json =
            serde_json::to_string_pretty(&serde_json::json!({"f": "a\x7f\u{85}\n\x1b"})).unwrap();
        let escaped = escape_json_controls(&json);
        assert!(!escaped.chars().any(|c| c.is_control() && c != '\n'));
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["f"], "a\x7f\u{85}\n\x1b");
    }
}
