//! `cargo xtask outline-quality [--gate] [--case NAME]...`: the outline (issue 27, part 1)
//! against hand-checked labels of real files (`fixtures/outline/`), and `--ctags DIR...`:
//! its symbols against Universal Ctags' on whole repositories.
//!
//! Each case is one file of a public repository with its provenance and licence
//! (`case.json`, `LICENSE`), the file itself (`source.*`) and its labels (`labels.json`:
//! the symbols a reader would list, with the line their name is on and their visibility,
//! and every import with its category). The repository is rebuilt around the file in a
//! temporary directory (every path of its tree, empty; its manifests with their text), so
//! that imports resolve as they would in the repository. A symbol matches a label of the
//! same name whose line lies in its line range; visibility is scored on matched symbols,
//! import categories on every labelled import (one not found is wrong).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use serde::Deserialize;

use repo_mapper::{Dialect, FileOutline, outline};

mod ctags;

/// Issue 27's thresholds.
const MICRO: f64 = 0.95;
const MACRO: f64 = 0.93;
const PER_LANGUAGE: f64 = 0.90;
const ACCURACY: f64 = 0.95;

pub(crate) fn run(args: &[String]) -> Result<()> {
    if args.first().map(String::as_str) == Some("--ctags") {
        return ctags::run(&args[1..]);
    }
    let mut gate = false;
    let mut only = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--gate" => gate = true,
            "--case" => only.push(it.next().context("--case needs a name")?.clone()),
            other => bail!("outline-quality: unknown argument {other}"),
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/outline");
    // Per set (the rules were developed on `dev`; `held-` cases were labelled after, and
    // no rule was changed for them), per language.
    let mut sets: BTreeMap<&str, BTreeMap<String, Score>> = BTreeMap::new();
    for case in cases(&dir)? {
        let name = file_name(&case);
        if !only.is_empty() && !only.contains(&name) {
            continue;
        }
        let (language, score) = score_case(&case).with_context(|| format!("case {name}"))?;
        let set = if name.starts_with("held-") {
            "held-out"
        } else {
            "dev"
        };
        for key in [set, "all"] {
            sets.entry(key)
                .or_default()
                .entry(language.clone())
                .or_default()
                .add(&score);
        }
    }
    ensure!(!sets.is_empty(), "no case in {}", dir.display());
    let mut failed = Vec::new();
    for (set, scores) in &sets {
        println!("\n## {set}\n");
        let below = report(scores);
        if *set == "all" {
            failed = below;
        }
    }
    let languages = sets.get("all").map_or(0, BTreeMap::len);
    if only.is_empty() && languages < LANGUAGES {
        failed.push(format!(
            "cases of {languages} languages, fewer than {LANGUAGES}"
        ));
    }
    if gate && !failed.is_empty() {
        bail!(
            "outline-quality: below the thresholds: {}",
            failed.join("; ")
        );
    }
    Ok(())
}

/// The case directories, sorted; a directory without its labels is an error, not a
/// case left out.
fn cases(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    for case in &out {
        ensure!(
            case.join("labels.json").is_file() && case.join("case.json").is_file(),
            "{} has no labels.json or case.json",
            case.display()
        );
    }
    Ok(out)
}

/// Languages the gate needs cases of (issue 27: at least 12).
const LANGUAGES: usize = 12;

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A case's provenance and the repository around its file.
#[derive(Deserialize)]
struct Case {
    path: String,
    language: String,
    tree: Vec<String>,
    manifests: BTreeMap<String, String>,
}

/// What a reader lists in the file.
#[derive(Deserialize)]
struct Labels {
    symbols: Vec<LabelledSymbol>,
    imports: Vec<LabelledImport>,
}

#[derive(Deserialize)]
struct LabelledSymbol {
    name: String,
    line: usize,
    visibility: Option<String>,
}

#[derive(Deserialize)]
struct LabelledImport {
    module: String,
    category: String,
}

/// Counts for one case or one language.
#[derive(Debug, Default, Clone)]
struct Score {
    labelled: usize,
    found: usize,
    matched: usize,
    visibility_right: usize,
    visibility_scored: usize,
    imports_right: usize,
    imports_labelled: usize,
    cases: usize,
}

impl Score {
    fn add(&mut self, other: &Score) {
        self.labelled += other.labelled;
        self.found += other.found;
        self.matched += other.matched;
        self.visibility_right += other.visibility_right;
        self.visibility_scored += other.visibility_scored;
        self.imports_right += other.imports_right;
        self.imports_labelled += other.imports_labelled;
        self.cases += other.cases;
    }

    fn recall(&self) -> f64 {
        ratio(self.matched, self.labelled)
    }

    fn precision(&self) -> f64 {
        ratio(self.matched, self.found)
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// The case's language and its score: the repository rebuilt, the file outlined, the
/// outline compared with the labels.
fn score_case(dir: &Path) -> Result<(String, Score)> {
    let case: Case = serde_json::from_str(&std::fs::read_to_string(dir.join("case.json"))?)?;
    let labels: Labels = serde_json::from_str(&std::fs::read_to_string(dir.join("labels.json"))?)
        .context("labels.json")?;
    let repo = tempfile::tempdir()?;
    let root = repo.path().canonicalize()?;
    rebuild(dir, &case, &root)?;
    let outlined = outline(&root, Path::new(&case.path), Dialect::Default)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok((case.language.clone(), compare(&outlined, &labels)))
}

/// Every path of the case's tree under `root`, empty but for the file and the manifests.
fn rebuild(dir: &Path, case: &Case, root: &Path) -> Result<()> {
    let ext = Path::new(&case.path)
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let source = std::fs::read(dir.join(format!("source{ext}")))?;
    for path in &case.tree {
        ensure!(
            !path.split('/').any(|p| p == ".." || p.is_empty()),
            "odd path {path}"
        );
        let at = root.join(path);
        std::fs::create_dir_all(at.parent().context("a path without a parent")?)?;
        let text: &[u8] = if *path == case.path {
            &source
        } else {
            case.manifests.get(path).map_or(&[], |m| m.as_bytes())
        };
        std::fs::write(&at, text)?;
    }
    Ok(())
}

/// The outline's symbols and imports against the labels.
fn compare(outlined: &FileOutline, labels: &Labels) -> Score {
    let mut used = vec![false; outlined.symbols.len()];
    let mut score = Score {
        labelled: labels.symbols.len(),
        found: outlined.symbols.len(),
        cases: 1,
        ..Score::default()
    };
    for label in &labels.symbols {
        let best = outlined
            .symbols
            .iter()
            .enumerate()
            .filter(|(i, s)| {
                !used[*i]
                    && s.name == label.name
                    && (s.start_line..=s.end_line).contains(&label.line)
            })
            .min_by_key(|(_, s)| s.end_line - s.start_line);
        let Some((i, symbol)) = best else { continue };
        used[i] = true;
        score.matched += 1;
        if let Some(wanted) = &label.visibility {
            score.visibility_scored += 1;
            let ours = symbol.visibility.map(|v| v.as_str());
            score.visibility_right += usize::from(ours == Some(wanted.as_str()));
        }
    }
    let ours = outlined.imports.clone().unwrap_or_default();
    let mut taken = vec![false; ours.len()];
    for label in &labels.imports {
        score.imports_labelled += 1;
        let found = ours
            .iter()
            .enumerate()
            .find(|(i, o)| !taken[*i] && o.module == label.module);
        if let Some((i, import)) = found {
            taken[i] = true;
            score.imports_right += usize::from(import.category.as_str() == label.category);
        }
    }
    score
}

/// Prints the table; returns the thresholds missed.
fn report(scores: &BTreeMap<String, Score>) -> Vec<String> {
    println!(
        "| language | cases | labelled | found | matched | recall | precision | visibility | imports |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut total = Score::default();
    let mut failed = Vec::new();
    for (language, s) in scores {
        total.add(s);
        println!(
            "| {language} | {} | {} | {} | {} | {:.3} | {:.3} | {} | {} |",
            s.cases,
            s.labelled,
            s.found,
            s.matched,
            s.recall(),
            s.precision(),
            accuracy(s.visibility_right, s.visibility_scored),
            accuracy(s.imports_right, s.imports_labelled),
        );
        if s.recall() < PER_LANGUAGE || s.precision() < PER_LANGUAGE {
            failed.push(format!("{language} symbols under {PER_LANGUAGE}"));
        }
    }
    let n = scores.len() as f64;
    let macro_recall = scores.values().map(Score::recall).sum::<f64>() / n;
    let macro_precision = scores.values().map(Score::precision).sum::<f64>() / n;
    // Nothing labelled scores nothing: an empty denominator fails, never counts as 1.
    let visibility = scored(total.visibility_right, total.visibility_scored);
    let imports = scored(total.imports_right, total.imports_labelled);
    println!(
        "\nmicro: recall {:.3}, precision {:.3} (≥ {MICRO}); macro over languages: recall \
         {macro_recall:.3}, precision {macro_precision:.3} (≥ {MACRO}); visibility accuracy \
         {visibility:.3}, import-category accuracy {imports:.3} (≥ {ACCURACY})",
        total.recall(),
        total.precision()
    );
    let checks = [
        ("micro recall", total.recall(), MICRO),
        ("micro precision", total.precision(), MICRO),
        ("macro recall", macro_recall, MACRO),
        ("macro precision", macro_precision, MACRO),
        ("visibility accuracy", visibility, ACCURACY),
        ("import-category accuracy", imports, ACCURACY),
    ];
    for (what, value, floor) in checks {
        if value < floor {
            failed.push(format!("{what} {value:.3} < {floor}"));
        }
    }
    println!(
        "{}",
        if failed.is_empty() {
            "outline-quality: every threshold met".to_owned()
        } else {
            format!("outline-quality: below: {}", failed.join("; "))
        }
    );
    failed
}

/// `right / of`, or 0 when nothing was scored.
fn scored(right: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        right as f64 / of as f64
    }
}

fn accuracy(right: usize, of: usize) -> String {
    if of == 0 {
        "n/a".to_owned()
    } else {
        format!("{:.3} ({right}/{of})", ratio(right, of))
    }
}
