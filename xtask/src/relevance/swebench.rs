//! `cargo xtask relevance --swebench FILE` (issue 45): from an issue's words to the file
//! and the function its fix changed. Each SWE-bench instance (one JSON object per line:
//! `instance_id`, `repo`, `base_commit`, `problem_statement`, `patch`, `gold_files`) is
//! answered at its exact base commit, with the issue text alone (no chat files), by
//! full-text search (`bm25`), stock Aider 0.86.2 and our default profile, on the same
//! file list. Scored per call: the gold files' places in the ranked source files (Acc@k:
//! every gold file within the first k, SweRank's file-level measure), whether the map
//! shows a gold file, and whether it shows a definition the patch edits (from the patch's
//! hunks and our tags at the base commit, `defs::patch_old_lines`).
//!
//! A third of the instances, chosen by a hash of the instance id ([`held_out`]), are the
//! held-out set: nothing is tuned on them. `--split dev|held-out|all` picks which run.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::defs::{self, Definition};
use super::history::{self, Repo};
use super::score::Row;
use super::systems::{Aider, Hints, Ours, Question};
use super::{BUDGETS, bm25};

/// One instance of the data file.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub(super) struct Instance {
    pub instance_id: String,
    pub repo: String,
    pub base_commit: String,
    pub problem_statement: String,
    pub patch: String,
    pub gold_files: Vec<String>,
}

/// Which instances a run measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Split {
    /// The two thirds tuning may look at.
    Dev,
    /// The third nothing is tuned on.
    HeldOut,
    All,
}

impl Split {
    pub(super) fn parse(s: &str) -> Result<Split> {
        Ok(match s {
            "dev" => Split::Dev,
            "held-out" => Split::HeldOut,
            "all" => Split::All,
            _ => anyhow::bail!("--split takes dev, held-out or all"),
        })
    }

    fn admits(self, id: &str) -> bool {
        match self {
            Split::Dev => !held_out(id),
            Split::HeldOut => held_out(id),
            Split::All => true,
        }
    }
}

/// Whether an instance is in the held-out third: FNV-1a (64-bit) of its id, mod 3, is 0.
/// Fixed by the id alone, so no change to the data file or the code moves an instance.
pub(super) fn held_out(id: &str) -> bool {
    let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % 3 == 0
}

/// Everything one SWE-bench run measured.
#[derive(Serialize, Deserialize, Default)]
pub(super) struct Report {
    pub repo_mapper_commit: String,
    pub split: String,
    pub relevance: String,
    /// Instances measured, with the definitions their patches edit.
    pub instances: Vec<Measured>,
    /// Instances left out, with the reason (no copy of the repository, a commit missing).
    pub skipped: Vec<(String, String)>,
    pub rows: Vec<Row>,
}

#[derive(Serialize, Deserialize)]
pub(super) struct Measured {
    pub instance_id: String,
    pub repo: String,
    pub held_out: bool,
    pub files: usize,
    pub definitions: Vec<Definition>,
}

/// The options of a SWE-bench run.
pub(super) struct Options<'a> {
    pub data: &'a Path,
    pub mirror: &'a Path,
    /// Where the work trees are checked out (one per repository; two runs at once need
    /// two).
    pub clones: &'a Path,
    pub split: Split,
    pub repos: &'a [String],
    /// Leave stock Aider out (it takes most of the run's time).
    pub no_aider: bool,
    /// Rows of Aider reused from an earlier report of the same instances.
    pub reuse: Option<&'a Report>,
    pub relevance: repo_mapper::Relevance,
}

/// Reads the instances of `path` that `split` admits, grouped by repository.
pub(super) fn load(path: &Path, split: Split) -> Result<BTreeMap<String, Vec<Instance>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut by_repo: BTreeMap<String, Vec<Instance>> = BTreeMap::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let inst: Instance = serde_json::from_str(line)
            .with_context(|| format!("{}:{}: not an instance", path.display(), i + 1))?;
        if split.admits(&inst.instance_id) {
            by_repo.entry(inst.repo.clone()).or_default().push(inst);
        }
    }
    Ok(by_repo)
}

/// Runs every admitted instance whose repository has a local copy.
pub(super) fn run(opts: &Options, report: &mut Report) -> Result<()> {
    let clones = opts.clones;
    let mut ours = Ours::new(repo_mapper::Profile::Default).with_relevance(opts.relevance);
    let mut aider: Option<Aider> = None;
    for (github, instances) in load(opts.data, opts.split)? {
        let name = github.rsplit('/').next().unwrap_or(&github).to_owned();
        if !opts.repos.is_empty() && !opts.repos.contains(&name) {
            continue;
        }
        let repo = Repo {
            name: Box::leak(name.into_boxed_str()),
            github: Box::leak(github.clone().into_boxed_str()),
            language: "Python",
            pin: Box::leak(instances[0].base_commit.clone().into_boxed_str()),
        };
        let dir = match history::clone(&repo, opts.mirror, clones) {
            Ok(dir) => dir,
            Err(e) => {
                let why = format!("{e:#}");
                eprintln!("relevance: {github}: skipped ({why})");
                (report.skipped).extend(
                    instances
                        .iter()
                        .map(|i| (i.instance_id.clone(), why.clone())),
                );
                continue;
            }
        };
        for (i, inst) in instances.iter().enumerate() {
            let done = instance(&repo, &dir, inst, opts, &mut ours, &mut aider, report);
            if let Err(e) = done {
                let why = format!("{e:#}");
                eprintln!("relevance: {}: skipped ({why})", inst.instance_id);
                report.skipped.push((inst.instance_id.clone(), why));
            }
            eprintln!("relevance: {} {}/{}", repo.name, i + 1, instances.len());
        }
    }
    Ok(())
}

/// One instance: checked out, every system asked at every budget, scored.
fn instance(
    repo: &Repo,
    dir: &Path,
    inst: &Instance,
    opts: &Options,
    ours: &mut Ours,
    aider: &mut Option<Aider>,
    report: &mut Report,
) -> Result<()> {
    let files = history::checkout(dir, &inst.base_commit)?;
    let defs = defs::diff_definitions(dir, &inst.patch, true, &inst.gold_files)?;
    let q = Question {
        root: dir,
        files: &files,
        chat: &[],
        message: &inst.problem_statement,
    };
    let targets = &inst.gold_files;
    let key = |system| [repo.name, inst.instance_id.as_str(), "S1", system];
    let search = bm25::Index::build(dir, &files).answer(q.message, q.chat);
    for budget in BUDGETS {
        let s = search.clone();
        report
            .rows
            .push(Row::score(key("bm25"), budget, targets, &defs, s));
        let d = ours.ask(&q, Hints::Message, budget);
        report
            .rows
            .push(Row::score(key("ours-default"), budget, targets, &defs, d));
    }
    aider_rows(repo, inst, &q, &defs, opts, aider, report)?;
    report.instances.push(Measured {
        instance_id: inst.instance_id.clone(),
        repo: repo.name.to_owned(),
        held_out: held_out(&inst.instance_id),
        files: files.len(),
        definitions: defs,
    });
    Ok(())
}

/// Stock Aider's rows for one instance: reused from an earlier report, or asked.
fn aider_rows(
    repo: &Repo,
    inst: &Instance,
    q: &Question,
    defs: &[Definition],
    opts: &Options,
    aider: &mut Option<Aider>,
    report: &mut Report,
) -> Result<()> {
    if opts.no_aider {
        return Ok(());
    }
    if let Some(prev) = opts.reuse {
        let mine = |r: &&Row| r.system == "aider-stock" && r.commit == inst.instance_id;
        let rows: Vec<Row> = prev.rows.iter().filter(mine).cloned().collect();
        if !rows.is_empty() {
            report.rows.extend(rows);
            return Ok(());
        }
    }
    if aider.is_none() {
        *aider = Some(Aider::start(&crate::parity::tools::venv_python()?)?);
    }
    let answers = aider.as_mut().expect("started").ask(q, &BUDGETS)?;
    for (&budget, a) in BUDGETS.iter().zip(answers.answers) {
        let key = [repo.name, inst.instance_id.as_str(), "S1", "aider-stock"];
        report
            .rows
            .push(Row::score(key, budget, &inst.gold_files, defs, a));
    }
    Ok(())
}

/// Means of one system over a group of instances at one budget.
#[derive(Default, Clone, Copy)]
struct Cell {
    n: usize,
    acc1: f64,
    acc5: f64,
    acc10: f64,
    mrr: f64,
    /// The map shows a gold file.
    file_shown: f64,
    /// The map shows a definition the patch edits (instances whose patch edits one).
    def_shown: f64,
    def_n: usize,
    has_map: bool,
}

impl Cell {
    fn of<'a>(rows: impl Iterator<Item = &'a Row>) -> Cell {
        let mut c = Cell::default();
        for r in rows {
            c.n += 1;
            let all_in = |k: usize| f64::from(u8::from(r.all_in_code(k)));
            c.acc1 += all_in(1);
            c.acc5 += all_in(5);
            c.acc10 += all_in(10);
            c.mrr += r.rank_code.map_or(0.0, |k| 1.0 / k as f64);
            c.file_shown += f64::from(u8::from(r.recall > 0.0));
            c.has_map = r.has_map;
            if let Some(d) = r.def_recall {
                c.def_n += 1;
                c.def_shown += f64::from(u8::from(d > 0.0));
            }
        }
        let n = c.n.max(1) as f64;
        for v in [
            &mut c.acc1,
            &mut c.acc5,
            &mut c.acc10,
            &mut c.mrr,
            &mut c.file_shown,
        ] {
            *v /= n;
        }
        c.def_shown /= c.def_n.max(1) as f64;
        c
    }

    fn line(&self, label: &str, system: &str) -> String {
        let map = |v: f64| match self.has_map {
            true => format!("{v:.3}"),
            false => "n/a".into(),
        };
        format!(
            "| {label} | {system} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} |\n",
            self.n,
            self.acc1,
            self.acc5,
            self.acc10,
            self.mrr,
            map(self.file_shown),
            map(self.def_shown),
        )
    }
}

const SYSTEMS: [&str; 3] = ["bm25", "aider-stock", "ours-default"];

/// The tables: pooled over the development and held-out parts, then per repository, at
/// `budget`.
pub(super) fn tables(report: &Report, budget: usize) -> String {
    let held: std::collections::HashSet<&str> = (report.instances.iter())
        .filter(|m| m.held_out)
        .map(|m| m.instance_id.as_str())
        .collect();
    let mut out = format!(
        "SWE-bench, issue text only, budget {budget} (Acc@k: every gold file in the first k \
         source files that are not tests, docs or examples; MRR: of the first gold file there)\n\n| instances | system | n | Acc@1 | Acc@5 | Acc@10 | MRR | file shown | def shown |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let at = |r: &&Row| r.budget == budget;
    // Each part by whether its instances are held out; `None`: all.
    let groups = [
        ("dev", Some(false)),
        ("held out", Some(true)),
        ("all", None),
    ];
    for (label, part) in groups {
        let admit = |r: &Row| part.is_none_or(|h| held.contains(r.commit.as_str()) == h);
        for system in SYSTEMS {
            let rows = report
                .rows
                .iter()
                .filter(at)
                .filter(|r| r.system == system && admit(r));
            let cell = Cell::of(rows);
            if cell.n > 0 {
                out.push_str(&cell.line(label, system));
            }
        }
    }
    let mut repos: Vec<&str> = report.instances.iter().map(|m| m.repo.as_str()).collect();
    repos.sort_unstable();
    repos.dedup();
    let _ = writeln!(out, "\nPer repository (all instances of the run):\n");
    out.push_str("| repository | system | n | Acc@1 | Acc@5 | Acc@10 | MRR | file shown | def shown |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for repo in repos {
        for system in SYSTEMS {
            let rows =
                (report.rows.iter().filter(at)).filter(|r| r.system == system && r.repo == repo);
            let cell = Cell::of(rows);
            if cell.n > 0 {
                out.push_str(&cell.line(repo, system));
            }
        }
    }
    out
}

/// Where a run's report is written by default.
pub(super) fn default_out() -> PathBuf {
    crate::workspace_root().join("target/relevance/swebench.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_third_is_held_out_by_id() {
        let ids: Vec<String> = (0..3000).map(|i| format!("org__repo-{i}")).collect();
        let held = ids.iter().filter(|id| held_out(id)).count();
        assert!((900..1100).contains(&held), "{held} of 3000");
        assert_eq!(
            held_out("sympy__sympy-20590"),
            held_out("sympy__sympy-20590")
        );
    }

    #[test]
    fn patch_lines_are_the_removed_ones_and_the_line_an_insertion_follows() {
        let patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n\
            @@ -10,7 +10,8 @@ def f():\n ctx\n ctx\n ctx\n-old\n+new\n ctx\n ctx\n ctx\n\
            @@ -30,6 +31,7 @@\n ctx\n ctx\n ctx\n+added\n ctx\n ctx\n ctx\n";
        let lines = defs::patch_old_lines(patch);
        assert_eq!(lines["a.py"], [13, 32]);
    }
}
