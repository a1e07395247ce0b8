//! `repo-mapper [OPTIONS] [REPO_PATH]`: prints the repo map of a repository (behaviour.md §17).
//!
//! A thin shell over the `repo_mapper` facade, in ripgrep's split: [`args`] is the command
//! line (clap), [`settings`] checks it and turns it into the library's `Config` and
//! `MapRequest`, this file runs the map and [`output`] prints it. stdout carries the map
//! only; [`diagnostics`] puts one escaped line per problem on stderr.
//!
//! Exit codes: 0 map written; 1 fatal (bad arguments, unreadable root); 2 no map (budget 0,
//! no files, nothing fits).
#![allow(clippy::print_stdout, clippy::print_stderr)] // a command: it prints by design

mod args;
mod diagnostics;
mod output;
mod progress;
mod settings;
mod show;
mod trim;

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use repo_mapper::{NoMap, RepoMap};

use crate::args::{Cli, Command};
use crate::diagnostics::say;
use crate::progress::ProgressBar;
use crate::settings::Settings;

/// A failure with its exit code and one-line message.
pub(crate) struct Failure {
    code: u8,
    message: String,
}

impl Failure {
    /// Exit code 1: the run could not be made.
    pub(crate) fn fatal(message: impl Into<String>) -> Failure {
        Failure {
            code: 1,
            message: message.into(),
        }
    }

    /// Exit code 2: the run was made and there is nothing to show (`show`).
    pub(crate) fn nothing(message: String) -> Failure {
        Failure { code: 2, message }
    }

    /// Exit code 2: the run was made and there is no map.
    fn no_map(why: &NoMap, settings: &Settings) -> Failure {
        let message = match why {
            NoMap::NoFiles => format!("no map: no files under {}", settings.config.root.display()),
            why => format!("no map: {why}"),
        };
        Failure { code: 2, message }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return clap_failure(&err),
    };
    diagnostics::init_tracing(cli.verbose);
    diagnostics::quiet_caught_store_panics();
    let outcome = match cli.command {
        Some(command) => subcommand(command),
        None => Settings::from_cli(&cli).and_then(run),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            say(&f.message);
            ExitCode::from(f.code)
        }
    }
}

/// `repo-mapper mcp`, `completions`, `man`.
fn subcommand(command: Command) -> Result<(), Failure> {
    use clap::CommandFactory;
    match command {
        Command::Mcp {
            roots,
            max_sessions,
        } => {
            let mut options = repo_mapper_mcp::ServerOptions::default();
            options.roots = roots;
            options.max_sessions = max_sessions;
            options.cache_base = settings::user_cache_base();
            trim::start();
            repo_mapper_mcp::serve_stdio(options)
                .map_err(|e| Failure::fatal(format!("error: the MCP server stopped: {e}")))
        }
        Command::Show { target, source } => show::run(&target, &source),
        Command::Outline { paths, source } => show::outline(&paths, &source),
        Command::Completions { shell } => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "repo-mapper", &mut std::io::stdout());
            Ok(())
        }
        Command::Man => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map_err(|e| Failure::fatal(format!("error: cannot write the man page: {e}"))),
    }
}

/// `--help` and `--version` on stdout; an argument error as one line on stderr (clap's
/// message and its possible values, without the usage block), exit code 1.
fn clap_failure(err: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        let _ = err.print();
        return ExitCode::SUCCESS;
    }
    let text = err.render().to_string();
    let first: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect();
    let line = first.join(" ");
    let line = line.strip_prefix("error: ").unwrap_or(&line);
    say(&format!("error: {line} (see --help)"));
    ExitCode::from(1)
}

/// Maps, prints, and says why there is no map.
fn run((mut settings, mut map): (Settings, RepoMap)) -> Result<(), Failure> {
    let started = Instant::now();
    let bar = ProgressBar::new(settings.progress);
    let bar_ref = bar.clone();
    map.set_progress(move |p| bar_ref.update(p));
    let request = std::mem::take(&mut settings.request);
    let answer = map.answer(request, settings.message.as_deref(), false);
    bar.finish();
    // Nothing is printed when no computation ran (budget 0, no files).
    let written = match (&answer.result, answer.report()) {
        (Err(_), None) => Ok(()),
        _ => output::write(
            &mut std::io::stdout().lock(),
            settings.format,
            &answer,
            map.config(),
        ),
    };
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
        Err(e) => return Err(Failure::fatal(format!("error: cannot write the map: {e}"))),
        Ok(()) => {}
    }
    if settings.progress {
        eprintln!("repo-mapper: done in {:.2?}", started.elapsed());
    }
    answer
        .result
        .map(drop)
        .map_err(|why| Failure::no_map(&why, &settings))
}
