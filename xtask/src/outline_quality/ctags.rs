//! `cargo xtask outline-quality --ctags [--files N] DIR...`: the outline's symbols against
//! Universal Ctags' (an independent oracle: regular-expression and hand-written parsers,
//! no tree-sitter) on up to `--files` files of each language in each repository (every
//! `k`-th file, so the sample spreads over the tree; minified files left out). A ctags tag and a symbol agree when
//! they have the same name and the tag's line lies in the symbol's range. Disagreements
//! are counted by ctags' kind (ctags only) and by our kind (ours only), with examples, so
//! that each class can be explained (docs/outline.md).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use repo_mapper::{Dialect, outlines};
use repo_mapper_tags::{Language, explore::explores};

/// Per language: agreements and each side's extras by kind, with examples.
#[derive(Default)]
struct Tally {
    files: usize,
    agree: usize,
    ours: usize,
    theirs: usize,
    /// (ctags kind) → (count, example).
    ctags_only: BTreeMap<String, (usize, String)>,
    /// (our kind) → (count, example).
    ours_only: BTreeMap<String, (usize, String)>,
}

pub(super) fn run(args: &[String]) -> Result<()> {
    let mut per_language = 40;
    let mut dirs = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--files" => per_language = it.next().context("--files needs N")?.parse()?,
            dir => dirs.push(dir.to_owned()),
        }
    }
    if dirs.is_empty() {
        bail!("usage: cargo xtask outline-quality --ctags [--files N] DIR...");
    }
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for dir in &dirs {
        let root = Path::new(dir)
            .canonicalize()
            .with_context(|| format!("repository {dir}"))?;
        for (language, files) in sample(&root, per_language) {
            let tally = tallies.entry(language).or_default();
            compare_files(&root, &files, tally)?;
        }
    }
    print(&tallies);
    Ok(())
}

/// Up to `n` files of each explored language under `root`, spread over the tree.
fn sample(root: &Path, n: usize) -> BTreeMap<String, Vec<String>> {
    let mut by_language: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in repo_mapper::list_files(root, None) {
        let Some(lang) = Language::for_path(&path, Dialect::Default) else {
            continue;
        };
        let size = path.metadata().map_or(u64::MAX, |m| m.len());
        if !explores(lang) || size > 200_000 || minified(&path) {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        by_language
            .entry(lang.name().to_owned())
            .or_default()
            .push(rel);
    }
    for files in by_language.values_mut() {
        files.sort();
        let step = files.len().div_ceil(n).max(1);
        *files = files.iter().step_by(step).take(n).cloned().collect();
    }
    by_language
}

/// Whether a file is minified code (`.min.` in its name, or a line over 1,000 bytes):
/// nobody outlines it, and it would outweigh the rest of a sample.
fn minified(path: &Path) -> bool {
    let named = path.to_string_lossy().contains(".min.");
    named
        || std::fs::read(path)
            .is_ok_and(|bytes| bytes.split(|&b| b == b'\n').any(|l| l.len() > 1000))
}

/// One ctags tag: name, line, kind.
type CtagsTag = (String, usize, String);

/// Ctags' tags of `files` (relative to `root`), by file.
fn ctags(root: &Path, files: &[String]) -> Result<BTreeMap<String, Vec<CtagsTag>>> {
    let out = Command::new("ctags")
        .current_dir(root)
        .args(["--output-format=json", "--fields=+nK", "-f", "-"])
        .args(files)
        .output()
        .context("running ctags (Debian package universal-ctags)")?;
    if !out.status.success() {
        bail!(
            "ctags failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        );
    }
    let mut tags: BTreeMap<String, Vec<CtagsTag>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(tag) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let field = |k: &str| tag.get(k).and_then(|v| v.as_str()).unwrap_or("").to_owned();
        let line = tag.get("line").and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        tags.entry(field("path"))
            .or_default()
            .push((field("name"), line, field("kind")));
    }
    Ok(tags)
}

/// Our symbols and ctags' tags of `files`, compared, into `tally`.
fn compare_files(root: &Path, files: &[String], tally: &mut Tally) -> Result<()> {
    let theirs = ctags(root, files)?;
    for file in files {
        let Ok(mut ours) = outlines(root, &[file], Dialect::Default) else {
            continue;
        };
        let ours = ours.remove(0).symbols;
        let tags = theirs.get(file).cloned().unwrap_or_default();
        tally.files += 1;
        tally.ours += ours.len();
        tally.theirs += tags.len();
        let mut used = vec![false; ours.len()];
        for (name, line, kind) in &tags {
            // The innermost symbol of that name holding the line (a constructor, not its
            // class).
            let hit = ours
                .iter()
                .enumerate()
                .filter(|(i, s)| {
                    !used[*i] && s.name == *name && (s.start_line..=s.end_line).contains(line)
                })
                .min_by_key(|(_, s)| s.end_line - s.start_line)
                .map(|(i, _)| i);
            match hit {
                Some(i) => {
                    used[i] = true;
                    tally.agree += 1;
                }
                None => note(
                    &mut tally.ctags_only,
                    kind,
                    &format!("{file}:{line} {name}"),
                ),
            }
        }
        for (s, used) in ours.iter().zip(&used) {
            if !used {
                let example = format!("{file}:{} {}", s.start_line, s.name);
                note(&mut tally.ours_only, &s.kind, &example);
            }
        }
    }
    Ok(())
}

fn note(counts: &mut BTreeMap<String, (usize, String)>, kind: &str, example: &str) {
    let entry = counts
        .entry(kind.to_owned())
        .or_insert_with(|| (0, example.to_owned()));
    entry.0 += 1;
}

fn print(tallies: &BTreeMap<String, Tally>) {
    println!("| language | files | ours | ctags | agree | of ours | of ctags |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (language, t) in tallies {
        let share = |n: usize| {
            if n == 0 {
                "n/a".to_owned()
            } else {
                format!("{:.3}", t.agree as f64 / n as f64)
            }
        };
        println!(
            "| {language} | {} | {} | {} | {} | {} | {} |",
            t.files,
            t.ours,
            t.theirs,
            t.agree,
            share(t.ours),
            share(t.theirs)
        );
    }
    for (language, t) in tallies {
        println!("\n{language}: ctags only, by ctags kind");
        for (kind, (n, example)) in &t.ctags_only {
            println!("  {kind}: {n} (e.g. {example})");
        }
        println!("{language}: ours only, by our kind");
        for (kind, (n, example)) in &t.ours_only {
            println!("  {kind}: {n} (e.g. {example})");
        }
    }
}
