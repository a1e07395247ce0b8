//! Project automation, run as `cargo xtask <command>`.
//!
//! * `vendor-queries [--check | --record-patches]`: vendor Aider's `*-tags.scm` queries.
//! * `snapshots`: regenerate the insta snapshots of the tag extraction tests.

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
        "snapshots" => snapshots(rest),
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
  snapshots                      regenerate the insta snapshots (cargo insta semantics, no cargo-insta needed)"
    );
}

/// The workspace root (the parent of this crate's directory).
pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace root")
        .to_path_buf()
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
