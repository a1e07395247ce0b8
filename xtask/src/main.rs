//! Project automation, run as `cargo xtask <command>`.
//!
//! * `vendor-queries [--check | --record-patches]`: vendor Aider's `*-tags.scm` queries.
//! * `vendor-ranks [--check]`: tiktoken's rank tables, compact, for the token counter.
//! * `snapshots`: regenerate the insta snapshots of the tag extraction tests.
//! * `parity [--gate] [--corpus]`: measure repo-mapper against Aider 0.86.2 (issue 6).
//! * `corpus`: fetch the real projects `parity --corpus` runs on.
//! * `fuzz [--seconds N] [--seed S] [--time-limit-ms M]`: fuzz extraction and rendering
//!   with hostile input (issue 12).
//! * `mentions`: message mentions against Aider's (issue 15).
//! * `relevance`: do maps show the files real commits modified? Against Aider (issue 16).
//! * `mcp-client`: the MCP server through the Python SDK's client (issue 15).
//! * `man`: the man page, from the command's own definition (clap_mangen).
//! * `lint`: the house rules clippy does not check (functions fit on a screen).
//! * `bench [scale …]`: the criterion benchmarks, or the whole binary at scale (issue 14).
//! * `soak [--calls N] [--seed S] [--minutes M] [--repo DIR]`: a warm `repo-mapper mcp`
//!   against fresh runs while the repository changes between calls (issue 23).
#![allow(clippy::print_stdout, clippy::print_stderr)] // a command: it prints by design

mod bench_mcp;
mod corpus;
mod fuzz;
mod lexers;
mod lint;
mod mcp_client;
mod mentions;
mod outline_quality;
mod parity;
mod ranks;
mod relevance;
mod scale;
mod soak;
mod vendor;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

fn main() {
    if let Err(err) = run() {
        eprintln!("xtask: error: {err:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((command, rest)) = args.split_first() else {
        print_help();
        bail!("no command given");
    };
    match command.as_str() {
        "vendor-queries" => vendor::run(rest),
        "vendor-lexers" => lexers::run(rest),
        "vendor-ranks" => ranks::run(rest),
        "snapshots" => snapshots(rest),
        "bench" => bench(rest),
        "parity" => parity::run(rest),
        "corpus" => corpus::run(rest),
        "fuzz" => fuzz::run(rest),
        "lint" => lint::run(rest),
        "mentions" => mentions::run(rest),
        "relevance" => relevance::run(rest),
        "outline-quality" => outline_quality::run(rest),
        "mcp-client" => mcp_client::run(rest),
        "soak" => soak::run(rest),
        "man" => man(rest),
        "help" | "--help" | "-h" => {
            print_help();
            Ok(())
        }
        other => {
            print_help();
            bail!("unknown command `{other}`")
        }
    }
}

fn print_help() {
    eprintln!(
        "usage: cargo xtask <command>

commands:
  vendor-queries                 fetch aider-chat from PyPI and (re)write queries/ from it
  vendor-queries --check         fail when queries/ differs from that source plus queries/patches/
  vendor-queries --record-patches
                                 record the local edits of vendored queries as queries/patches/
  vendor-lexers [--check]        export pygments' lexer tables (aider profile's identifier fallback)
                                 into queries/pygments/ (--check: fail when they differ)
  vendor-ranks [--check]         write (or check) tiktoken's rank tables for the token counter
  snapshots                      regenerate the insta snapshots (cargo insta semantics, no cargo-insta needed)
  bench                          run the benchmarks; the store's on the Django sdist (fetched from PyPI)
  bench scale [--repo linux|django|PATH] [--runs N] [--budget N] [--no-aider]
                                 the whole binary cold and warm on a large repository: wall time,
                                 peak RSS, store size, per-step times (and stock Aider on Django)
  bench mcp [--repo linux|django|PATH] [--calls N] [--budget N] [--message TEXT] [--profile P]
                                 repo-mapper mcp kept warm: repo_map calls with changing chat
                                 files, per-call time and the server's memory
  parity [--gate]                measure repo-mapper against Aider 0.86.2 (fixed and stock) on fixtures/;
                                 --gate fails on a parity regression (see docs/parity.md)
    --corpus                     on the real projects of `cargo xtask corpus` instead
    --repo NAME                  only this repository (repeatable)
    --fixed-seeds N / --pinned-seeds N / --stock-seeds N / --repeat N / --jobs N
    --pin-captures               pin py-tree-sitter's capture order in the fixed and stock
                                 comparators too (docs/parity.md T2)
  corpus                         fetch the parity corpus into target/corpus/ (PyPI, npm, crates.io, Debian)
  mentions                       the mentions derived from real commit messages (fixtures/mentions/)
                                 against Aider 0.86.2's own Coder methods; fails on any difference
  relevance [--mirror DIR] [--commits N] [--skip N] [--repo NAME]... [--out FILE]
            [--reuse-aider FILE] [--set KEY=VALUE]...
                                 maps against the files real commits modified, for stock Aider
                                 and our profiles (docs/relevance.md); repositories are read
                                 from DIR/owner+name (default ../.mirror)
  outline-quality [--gate] [--case NAME]...
                                 the outline against hand-checked labels of real files
                                 (fixtures/outline/): symbol recall and precision, visibility
                                 and import-category accuracy per language; --gate fails below
                                 issue 27's thresholds
  outline-quality --ctags [--files N] DIR...
                                 the outline's symbols against Universal Ctags' on whole
                                 repositories (N files per language, default 40)
  mcp-client                     `repo-mapper mcp` through the official MCP Python SDK (pip, once)
  soak [--calls N] [--seed S] [--minutes M] [--repo DIR] [--out DIR] [--max-cases N]
       [--binary PATH] [--verbose]
                                 differential soak: a warm repo-mapper mcp (rmcp client) on a clone
                                 of the workspace (or DIR) edited at random between calls, each
                                 answer against a fresh run; differences saved as replayable cases
                                 under fixtures/soak-regressions/ (replayed by cargo test)
  man                            write the man page to target/man/repo-mapper.1
  lint                           house rules clippy does not check: no function over 80 lines
  fuzz                           mutate fixtures/languages/ samples; fail on a panic or a slow file,
                                 saving it under fixtures/fuzz-regressions/ (replayed by cargo test)
    --seconds N / --seed S       run time (60) and seed (1): input i of seed S is always the same
    --time-limit-ms M            per-file limit of each extraction and render parse (1000)
    --jobs N / --inputs N / --lang NAME
                                 threads, stop after N inputs, only this language (repeatable)
    --verbose                    one line per input: mutations and each step's time
    --input I                    run input I alone, writing it to target/fuzz/
    --replay FILE                check saved inputs (<language>-<hash>.<ext>) instead (repeatable)"
    );
}

/// `cargo xtask man`: the release binary renders its man page (clap_mangen, from the
/// same definition as `--help`) into `target/man/repo-mapper.1`.
fn man(rest: &[String]) -> Result<()> {
    if !rest.is_empty() {
        bail!("usage: cargo xtask man");
    }
    let exe = parity::tools::build_cli()?;
    let out = Command::new(&exe)
        .arg("man")
        .output()
        .context("running repo-mapper man")?;
    if !out.status.success() || out.stdout.is_empty() {
        bail!(
            "repo-mapper man failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let dir = workspace_root().join("target/man");
    std::fs::create_dir_all(&dir)?;
    let page = dir.join("repo-mapper.1");
    std::fs::write(&page, &out.stdout)?;
    println!("{}", page.display());
    Ok(())
}

/// The Python interpreter used for pip (`$PYTHON`, else `python3`).
pub(crate) fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned())
}

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
}

/// Fetches the benchmark corpus (the corpus project `py-django`, a real 3,000-file Python
/// tree) and runs every benchmark.
fn bench(rest: &[String]) -> Result<()> {
    if let Some((first, args)) = rest.split_first() {
        match first.as_str() {
            "scale" => return scale::run(args),
            "mcp" => return bench_mcp::run(args),
            _ => {}
        }
    }
    let root = workspace_root();
    let tree = corpus::project_root("py-django")?;
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .env("REPO_MAPPER_BENCH_CORPUS", &tree)
        .args(["bench", "--workspace"])
        .args(rest)
        .status()
        .context("running cargo bench")?;
    if !status.success() {
        bail!("cargo bench failed");
    }
    Ok(())
}

/// Runs the snapshot tests with `INSTA_UPDATE=always`, so every snapshot is rewritten
/// from the current output; review the result with `git diff`.
fn snapshots(rest: &[String]) -> Result<()> {
    let root = workspace_root();
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(&root)
        .env("INSTA_UPDATE", "always")
        .env("INSTA_FORCE_PASS", "1")
        .args(["test", "--workspace", "--quiet"])
        .args(rest)
        .status()
        .context("running cargo test")?;
    if !status.success() {
        bail!("cargo test failed while regenerating snapshots");
    }
    eprintln!("snapshots regenerated; review them with `git diff -- '*.snap'`");
    Ok(())
}
