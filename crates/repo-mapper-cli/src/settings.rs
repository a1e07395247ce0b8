//! Arguments to settings: every check and path resolution of the command line, giving the
//! library's [`Config`] and [`MapRequest`].

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use repo_mapper::{
    Anchors, CacheLocation, Config, Limits, MapRequest, RepoMap, list_files, list_files_kept,
    prune_shared_cache, shared_cache_dir, trusted_cache,
};

use crate::Failure;
use crate::args::{Cli, Format};

/// The smallest `--max-line-length`: below it a map line keeps too little to be useful (at
/// 0 every line is blank). Aider's default is 100.
const MIN_LINE_LENGTH: usize = 16;

/// The largest `--time-per-file`: a day (anything larger is no bound at all).
const MAX_TIME_PER_FILE: f64 = 86_400.0;

/// What one run does.
pub(crate) struct Settings {
    pub config: Config,
    pub request: MapRequest,
    pub format: Format,
    pub progress: bool,
    /// `--message` or `--message-file`: derive mentions and fall back as Aider does.
    pub message: Option<String>,
}

impl Settings {
    /// Checks `cli` and resolves its paths against the current directory; with the
    /// session that will map them, created before the walk lists the files so that what
    /// it starts on its own threads (reading the root's tag pack; the tokenizer's rank map
    /// unless counts kept from earlier runs may make it needless) overlaps the walk.
    pub(crate) fn from_cli(cli: &Cli) -> Result<(Settings, RepoMap), Failure> {
        let cwd = std::env::current_dir()
            .map_err(|e| Failure::fatal(format!("error: no current directory: {e}")))?;
        let root = detect_root(cli, &cwd)?;
        check_numbers(cli)?;
        let config = config(cli, &root, &cwd);
        let map = RepoMap::new(config.clone());
        let request = request(cli, &config, &cwd)?;
        let settings = Settings {
            config,
            request,
            format: cli.format,
            progress: cli.progress,
            message: message(cli)?,
        };
        Ok((settings, map))
    }
}

/// The per-user cache every repository's own directory goes in (behaviour.md §5.2.1):
/// `$XDG_CACHE_HOME/repo-mapper` (an absolute one), else `$HOME/.cache/repo-mapper`;
/// `None` without either (then each repository keeps `ROOT/.repo-mapper`).
pub(crate) fn user_cache_base() -> Option<PathBuf> {
    let base =
        absolute_env("XDG_CACHE_HOME").or_else(|| Some(absolute_env("HOME")?.join(".cache")))?;
    Some(base.join("repo-mapper"))
}

/// The directory environment variable `var` names, if it is set to an absolute path.
fn absolute_env(var: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os(var)?);
    dir.is_absolute().then_some(dir)
}

/// The user's git files that rule a walk from outside the repository: the global
/// configuration (`core.excludesFile`) and the default global ignore file, where git
/// looks for them (`$XDG_CONFIG_HOME/git`, else `$HOME/.config/git`; `$HOME/.gitconfig`).
/// A kept walk is walked again when one of them changes.
fn git_global_files() -> Vec<PathBuf> {
    let home = absolute_env("HOME");
    let config = absolute_env("XDG_CONFIG_HOME").or_else(|| Some(home.as_ref()?.join(".config")));
    let git = config.map(|c| c.join("git"));
    let mut files: Vec<PathBuf> = (git.iter())
        .flat_map(|g| [g.join("config"), g.join("ignore")])
        .collect();
    files.extend(home.map(|h| h.join(".gitconfig")));
    files
}

fn config(cli: &Cli, root: &Path, cwd: &Path) -> Config {
    let mut config = Config::new(root).with_profile(cli.profile.0);
    config.map_tokens = cli.max_tokens as usize;
    config.max_context_window = cli.max_context_window;
    config.refresh = cli.refresh.0;
    config.max_line_length = cli.max_line_length;
    config.rank.exclude_unranked = cli.exclude_unranked;
    config.rank.pagerank.damping = cli.pagerank_damping;
    config.rank.pagerank.tol = cli.pagerank_tol;
    config.rank.pagerank.max_iter = cli.pagerank_max_iter;
    config.tokenizer = cli.tokenizer.0;
    config.follow_external_symlinks = cli.follow_external_symlinks;
    config.history = !cli.no_history;
    config.limits = Limits::new(Duration::from_secs_f64(cli.time_per_file));
    if let Some(size) = cli.max_filesize {
        config.max_file_size = size.0;
    }
    if cli.no_cache {
        config.cache = CacheLocation::Memory;
    } else if let Some(dir) = &cli.cache_dir {
        config.cache = CacheLocation::Dir(absolute(cwd, dir));
    } else if let Some(base) = user_cache_base() {
        let dir = shared_cache_dir(&base, root);
        config.cache = CacheLocation::Dir(dir);
    }
    // Before anything reads or writes it (the kept walk, the pruning).
    config.cache = trusted_cache(std::mem::replace(&mut config.cache, CacheLocation::Memory)).0;
    if let (CacheLocation::Dir(dir), None, false) = (&config.cache, &cli.cache_dir, cli.no_cache)
        && let Some(base) = user_cache_base()
    {
        prune_shared_cache(&base, dir);
    }
    // Only JSON prints the ranked list; text needs the map alone.
    config.full_report = cli.format == Format::Json;
    // A walk lists the whole repository: stored tags of files no longer in it are pruned.
    config.prune_cache = cli.files_from.is_none();
    // The session is created before the walk (`Settings::from_cli`): the pack is read
    // meanwhile.
    config.read_ahead = true;
    config
}

fn request(cli: &Cli, config: &Config, cwd: &Path) -> Result<MapRequest, Failure> {
    let root = &config.root;
    let chat_files = cli
        .chat_files
        .iter()
        .map(|p| inside_root(root, cwd, p, "--chat-file"))
        .collect::<Result<_, _>>()?;
    let mentioned_files: Vec<String> = cli
        .mention_files
        .iter()
        .map(|p| rel_string(root, &inside_root(root, cwd, p, "--mention-file")?))
        .collect::<Result<_, _>>()?;
    let cache_dir = match &config.cache {
        CacheLocation::Dir(d) => Some(d.as_path()),
        CacheLocation::Memory => None,
    };
    let other_files = match (&cli.files_from, cache_dir) {
        (Some(source), _) => read_files_from(source, root)?,
        (None, Some(dir)) => list_files_kept(root, Some(dir), dir, &git_global_files()),
        (None, None) => list_files(root, None),
    };
    Ok(MapRequest::new(other_files)
        .with_chat_files(chat_files)
        .with_mentioned_files(mentioned_files)
        .with_mentioned_idents(cli.mention_idents.iter().cloned())
        .with_anchors(Anchors::resolve(&cli.anchors, root, cwd))
        .with_force_refresh(cli.force_refresh))
}

/// The numeric flags clap cannot check on its own.
fn check_numbers(cli: &Cli) -> Result<(), Failure> {
    if cli.max_tokens < 0 {
        return Err(Failure::fatal(format!(
            "error: --max-tokens must be 0 or more, got {}",
            cli.max_tokens
        )));
    }
    if cli.max_line_length < MIN_LINE_LENGTH {
        return Err(Failure::fatal(format!(
            "error: --max-line-length must be at least {MIN_LINE_LENGTH}, got {}",
            cli.max_line_length
        )));
    }
    if !(cli.time_per_file > 0.0 && cli.time_per_file <= MAX_TIME_PER_FILE) {
        return Err(Failure::fatal(format!(
            "error: --time-per-file must be more than 0 and at most {MAX_TIME_PER_FILE} seconds"
        )));
    }
    if !(0.0..1.0).contains(&cli.pagerank_damping) {
        return Err(Failure::fatal(
            "error: --pagerank-damping must be in [0, 1)",
        ));
    }
    if cli.pagerank_tol.is_nan() || cli.pagerank_tol <= 0.0 {
        return Err(Failure::fatal("error: --pagerank-tol must be positive"));
    }
    Ok(())
}

/// behaviour.md §17.2: `--root`, then REPO_PATH, then the nearest `.git` ancestor of the current
/// directory, then the current directory. The root must be a readable directory.
fn detect_root(cli: &Cli, cwd: &Path) -> Result<PathBuf, Failure> {
    root_from(cli.root.as_ref().or(cli.repo_path.as_ref()), cwd)
}

/// The repository root: `given` (against `cwd`), else the nearest ancestor of `cwd`
/// with a `.git` directory, else `cwd`; checked to be a readable directory.
pub(crate) fn root_from(given: Option<&PathBuf>, cwd: &Path) -> Result<PathBuf, Failure> {
    let root = match given {
        Some(p) => absolute(cwd, p),
        None => cwd
            .ancestors()
            .find(|d| d.join(".git").is_dir())
            .unwrap_or(cwd)
            .to_path_buf(),
    };
    let shown = root.display();
    let meta = std::fs::metadata(&root).map_err(|e| {
        Failure::fatal(format!(
            "error: cannot read the repository root {shown}: {e}"
        ))
    })?;
    if !meta.is_dir() {
        return Err(Failure::fatal(format!(
            "error: the repository root {shown} is not a directory"
        )));
    }
    std::fs::read_dir(&root).map_err(|e| {
        Failure::fatal(format!(
            "error: cannot list the repository root {shown}: {e}"
        ))
    })?;
    let root = root.canonicalize().unwrap_or(root);
    if root.to_str().is_none() {
        return Err(Failure::fatal(format!(
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
        return Err(Failure::fatal(format!(
            "error: {flag} {} is not valid UTF-8",
            p.display()
        )));
    }
    repo_mapper::inside_root(root, cwd, p).ok_or_else(|| {
        Failure::fatal(format!(
            "error: {flag} {} is outside the repository root {}",
            p.display(),
            root.display()
        ))
    })
}

fn rel_string(root: &Path, abs: &Path) -> Result<String, Failure> {
    let rel = abs.strip_prefix(root).unwrap_or(abs);
    rel.to_str()
        .map(str::to_owned)
        .ok_or_else(|| Failure::fatal(format!("error: {} is not valid UTF-8", abs.display())))
}

/// `--message TEXT` or `--message-file FILE|-` (stdin only once: not with `--files-from -`).
fn message(cli: &Cli) -> Result<Option<String>, Failure> {
    match cli.message_file.as_deref() {
        None => Ok(cli.message.clone()),
        Some("-") if cli.files_from.as_deref() == Some("-") => Err(Failure::fatal(
            "error: --message-file - and --files-from - cannot both read stdin",
        )),
        Some(source) => read_text(source, "the message").map(Some),
    }
}

/// The text of `source`, a file or `-` for stdin; `what` names it in the error.
fn read_text(source: &str, what: &str) -> Result<String, Failure> {
    let mut text = String::new();
    if source == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::fatal(format!("error: cannot read {what} from stdin: {e}")))?;
        return Ok(text);
    }
    std::fs::read_to_string(source)
        .map_err(|e| Failure::fatal(format!("error: cannot read {what} {source}: {e}")))
}

/// `--files-from`: paths relative to the root, one per line; blank lines ignored.
fn read_files_from(source: &str, root: &Path) -> Result<Vec<PathBuf>, Failure> {
    let text = read_text(source, "the file list")?;
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
