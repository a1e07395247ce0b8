//! The command line, as clap parses it. Defaults come from the library (each is written
//! once, there); checks clap cannot make are in [`crate::settings`].

use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Args, Parser, Subcommand, ValueEnum};
use repo_mapper::{Config, Limits, PROFILES, PageRankParams, Profile, Refresh, Tokenizer};

/// Aider's repo map of a repository: the definitions that matter most, within a token
/// budget.
#[derive(Debug, Parser)]
#[command(name = "repo-mapper", version, about, long_about = None,
          args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    /// Another job than printing a map.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Repository root (default: the nearest ancestor of the current directory with a
    /// `.git` directory, else the current directory).
    #[arg(value_name = "REPO_PATH")]
    pub repo_path: Option<PathBuf>,

    /// Repository root; overrides REPO_PATH.
    #[arg(long, value_name = "PATH")]
    pub root: Option<PathBuf>,

    /// Token budget of the map.
    #[arg(short = 't', long, value_name = "N", allow_negative_numbers = true,
          default_value_t = Config::DEFAULT_MAP_TOKENS as i64)]
    pub max_tokens: i64,

    /// The model's context window; with no chat files the budget grows up to 8x within it.
    #[arg(long, value_name = "N")]
    pub max_context_window: Option<usize>,

    /// A file being edited (repeatable): it steers the ranking and is left out of the map.
    #[arg(short = 'c', long = "chat-file", value_name = "PATH")]
    pub chat_files: Vec<PathBuf>,

    /// A file mentioned in the conversation (repeatable).
    #[arg(short = 'm', long = "mention-file", value_name = "PATH")]
    pub mention_files: Vec<PathBuf>,

    /// An identifier mentioned in the conversation (repeatable).
    #[arg(short = 'i', long = "mention-ident", value_name = "NAME")]
    pub mention_idents: Vec<String>,

    /// The user's message: the identifiers and files it mentions steer the map, as in
    /// Aider, and an empty map is retried without chat files, then without mentions.
    #[arg(long, value_name = "TEXT", conflicts_with = "message_file")]
    pub message: Option<String>,

    /// Read the user's message from FILE (`-`: stdin); see --message.
    #[arg(long, value_name = "FILE|-")]
    pub message_file: Option<String>,

    /// Map cache policy.
    #[arg(long, value_name = "MODE", default_value_t = Named(Refresh::default()))]
    pub refresh: Named<Refresh>,

    /// Recompute the map even if a cached one matches.
    #[arg(long)]
    pub force_refresh: bool,

    /// Leave out files whose PageRank is at most 0.0001.
    #[arg(long)]
    pub exclude_unranked: bool,

    /// Cut map lines to this many characters (at least 16).
    #[arg(long, value_name = "N", default_value_t = Config::DEFAULT_MAX_LINE_LENGTH)]
    pub max_line_length: usize,

    /// PageRank damping factor.
    #[arg(long, value_name = "F", default_value_t = PageRankParams::default().damping)]
    pub pagerank_damping: f64,

    /// PageRank convergence tolerance.
    #[arg(long, value_name = "F", default_value_t = PageRankParams::default().tol)]
    pub pagerank_tol: f64,

    /// PageRank iteration limit.
    #[arg(long, value_name = "N", default_value_t = PageRankParams::default().max_iter)]
    pub pagerank_max_iter: usize,

    /// Anchor (repeatable): `FILE:IDENT`, a `FILE`, or an identifier.
    #[arg(short = 'a', long = "anchor", value_name = "VALUE")]
    pub anchors: Vec<String>,

    /// Debug diagnostics on stderr (RUST_LOG overrides).
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// A progress bar on stderr while files are parsed (shown anyway on a terminal when
    /// 1,000 or more must be), and the elapsed time at the end.
    #[arg(short = 'p', long)]
    pub progress: bool,

    /// default: the SPEC's map, never over budget, ranked with the message's words and
    /// tests down-weighted (measured: docs/relevance.md); spec: docs/behaviour.md exactly; aider:
    /// Aider 0.86.2's output.
    #[arg(long, value_name = "PROFILE", default_value_t = Named(Profile::default()))]
    pub profile: Named<Profile>,

    /// Tokenizer for counting.
    #[arg(long, value_name = "NAME", default_value_t = Named(Tokenizer::default()))]
    pub tokenizer: Named<Tokenizer>,

    /// Output format: text (the map) or json (map, counts and the ranked entries).
    #[arg(long, value_name = "FORMAT", value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Map exactly these files (paths relative to the root, one per line; `-` for stdin)
    /// instead of walking the repository.
    #[arg(long, value_name = "FILE|-")]
    pub files_from: Option<String>,

    /// Directory of the tag cache (default: the repository's own directory in
    /// $XDG_CACHE_HOME/repo-mapper, shared by its worktrees and clones; ROOT/.repo-mapper
    /// without a cache home).
    #[arg(long, value_name = "DIR", env = "REPO_MAPPER_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,

    /// Keep tags in memory only.
    #[arg(long)]
    pub no_cache: bool,

    /// Do not read the repository's recent commits (`git log`). The default profile
    /// orders files by the commits they share with the chat files.
    #[arg(long)]
    pub no_history: bool,

    /// Read files through symlinks whose target lies outside the repository root (by
    /// default they are left out of the map, with a warning).
    #[arg(long)]
    pub follow_external_symlinks: bool,

    /// Files larger than SIZE bytes are not parsed, with one warning (default 1M; suffixes
    /// K, M, G; `none`: no limit). The aider profile parses every file, as Aider does.
    #[arg(long, value_name = "SIZE", value_parser = parse_file_size)]
    pub max_filesize: Option<FileSize>,

    /// Seconds one file's tags may take (parse and query); a file that takes longer keeps
    /// the tags found so far, with a warning.
    #[arg(long, value_name = "SECS",
          default_value_t = Limits::DEFAULT_TIME_PER_FILE.as_secs_f64())]
    pub time_per_file: f64,
}

/// The subcommands (`repo-mapper mcp`, …); without one, the command prints a map.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Serve the map to coding agents over MCP on stdin and stdout (tools `repo_map`,
    /// `search_identifiers`, `show_symbol` and `outline`), keeping each repository's
    /// session warm between calls.
    Mcp {
        /// Serve only repositories inside DIR (repeatable; default: any directory).
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,

        /// Live sessions kept (one per repository and profile); the least recently used
        /// is dropped past this many.
        #[arg(long, value_name = "N", default_value_t = 4)]
        max_sessions: usize,
    },
    /// Print the whole source of a definition: every definition of NAME in FILE
    /// (`FILE#NAME`), or the innermost definition holding LINE (`FILE:LINE`, from 1).
    Show {
        /// `FILE#NAME` or `FILE:LINE`, FILE relative to the repository root. A definition
        /// cut short by `-t` ends with a line saying how many lines were left out.
        target: String,

        #[command(flatten)]
        source: SourceArgs,
    },
    /// Print what files define: each symbol's kind, signature and line range, nested in
    /// the symbols that hold it. Under `-t` the outermost symbols are kept, and each file
    /// whose symbols were left out ends with `... and N more`.
    Outline {
        /// Files, relative to the repository root.
        #[arg(required = true)]
        paths: Vec<PathBuf>,

        #[command(flatten)]
        source: SourceArgs,
    },
    /// Print a completion script for SHELL on stdout.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff) on stdout; `cargo xtask man` writes it to a file.
    #[command(hide = true)]
    Man,
}

/// What `show` and `outline` share: where the repository is, the cap, the format.
#[derive(Debug, Args)]
pub(crate) struct SourceArgs {
    /// Repository root (default: the nearest ancestor of the current directory with a
    /// `.git` directory, else the current directory).
    #[arg(long, value_name = "PATH")]
    pub root: Option<PathBuf>,

    /// Show at most this many tokens.
    #[arg(short = 't', long, value_name = "N")]
    pub max_tokens: Option<usize>,

    /// Output format: text, or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// `--max-filesize`: a number of bytes, or no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileSize(pub Option<u64>);

/// `1048576`, `512K`, `1M`, `2G` (powers of 1,024), or `none`.
fn parse_file_size(s: &str) -> Result<FileSize, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(FileSize(None));
    }
    let (digits, shift) = match s.as_bytes().last().map(u8::to_ascii_uppercase) {
        Some(b'K') => (&s[..s.len() - 1], 10),
        Some(b'M') => (&s[..s.len() - 1], 20),
        Some(b'G') => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("`{s}` is not a size (e.g. 1048576, 512K, 1M, 2G or none)"))?;
    n.checked_mul(1 << shift)
        .map(|n| FileSize(Some(n)))
        .ok_or_else(|| format!("`{s}` is too large"))
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// The map.
    Text,
    /// The map, counts and the ranked entries.
    Json,
}

/// A library value the command line names by the library's own name for it (so each
/// name is written once, in the library).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Named<T>(pub T);

/// `all`, each wrapped in [`Named`] (at compile time).
const fn named<T: Copy, const N: usize>(all: [T; N]) -> [Named<T>; N] {
    let mut out = [Named(all[0]); N];
    let mut i = 1;
    while i < N {
        out[i] = Named(all[i]);
        i += 1;
    }
    out
}

/// `ValueEnum` and `Display` for `Named<$type>`, from the library's list and names.
macro_rules! value_enum {
    ($type:ty, $all:expr, $name:expr) => {
        impl ValueEnum for Named<$type> {
            fn value_variants<'a>() -> &'a [Self] {
                static ALL: [Named<$type>; $all.len()] = named($all);
                &ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(($name)(self.0)))
            }
        }

        impl std::fmt::Display for Named<$type> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(($name)(self.0))
            }
        }
    };
}

value_enum!(Refresh, Refresh::ALL, Refresh::name);
value_enum!(Profile, PROFILES, repo_mapper::profile_name);
value_enum!(Tokenizer, Tokenizer::ALL, Tokenizer::name);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_sizes_take_suffixes_and_none() {
        assert_eq!(parse_file_size("1048576"), Ok(FileSize(Some(1 << 20))));
        assert_eq!(parse_file_size("512K"), Ok(FileSize(Some(512 << 10))));
        assert_eq!(parse_file_size("1m"), Ok(FileSize(Some(1 << 20))));
        assert_eq!(parse_file_size("2G"), Ok(FileSize(Some(2 << 30))));
        assert_eq!(parse_file_size("none"), Ok(FileSize(None)));
        assert!(parse_file_size("1.5M").is_err());
        assert!(parse_file_size("M").is_err());
        assert!(parse_file_size("99999999999999999999G").is_err());
        assert!(parse_file_size("17179869184G").is_err());
    }
}
