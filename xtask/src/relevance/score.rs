//! Scoring: how well one map answers one task, and the tables pooled over tasks.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::history::is_source;
use super::systems::Answer;

/// The systems, in table order.
pub const SYSTEMS: [&str; 3] = ["aider-stock", "ours-aider", "ours-default"];
/// The system the goal is measured against, and the one that must beat it.
const BASELINE: &str = "aider-stock";
const CONTENDER: &str = "ours-default";

/// One scored call: a system's map for one task, scenario and budget.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Row {
    pub repo: String,
    pub commit: String,
    /// `S1` (message only) or `S2` (one modified file in the chat, and the message).
    pub scenario: String,
    pub system: String,
    pub budget: usize,
    /// The modified files the map should show (the chat file excluded).
    pub targets: Vec<String>,
    pub map_files: Vec<String>,
    /// 1-based place of the first target in the ranked file order, over all files and
    /// over source files only; `None` when no target is ranked.
    pub rank_all: Option<usize>,
    pub rank_src: Option<usize>,
    /// Share of the targets the map shows.
    pub recall: f64,
    pub seconds: f64,
}

impl Row {
    /// Scores `answer` against `targets`.
    pub fn score(key: [&str; 4], budget: usize, targets: &[String], answer: Answer) -> Row {
        let wanted: HashSet<&str> = targets.iter().map(String::as_str).collect();
        let shown = answer
            .map_files
            .iter()
            .filter(|f| wanted.contains(f.as_str()))
            .count();
        let first = |files: Vec<&String>| {
            files
                .iter()
                .position(|f| wanted.contains(f.as_str()))
                .map(|i| i + 1)
        };
        let [repo, commit, scenario, system] = key.map(str::to_owned);
        Row {
            rank_all: first(answer.order.iter().collect()),
            rank_src: first(answer.order.iter().filter(|f| is_source(f)).collect()),
            recall: shown as f64 / targets.len() as f64,
            repo,
            commit,
            scenario,
            system,
            budget,
            targets: targets.to_vec(),
            map_files: answer.map_files,
            seconds: answer.seconds,
        }
    }

    fn rr(rank: Option<usize>) -> f64 {
        rank.map_or(0.0, |r| 1.0 / r as f64)
    }
}

/// Means over a group of rows.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Means {
    pub calls: usize,
    pub recall: f64,
    pub hit: f64,
    pub mrr_all: f64,
    pub mrr_src: f64,
    pub median_seconds: f64,
}

impl Means {
    fn of<'a>(rows: impl Iterator<Item = &'a Row>) -> Means {
        let rows: Vec<&Row> = rows.collect();
        let n = rows.len().max(1) as f64;
        let mean = |f: &dyn Fn(&Row) -> f64| rows.iter().map(|r| f(r)).sum::<f64>() / n;
        let mut secs: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
        secs.sort_by(f64::total_cmp);
        Means {
            calls: rows.len(),
            recall: mean(&|r| r.recall),
            hit: mean(&|r| f64::from(u8::from(r.recall > 0.0))),
            mrr_all: mean(&|r| Row::rr(r.rank_all)),
            mrr_src: mean(&|r| Row::rr(r.rank_src)),
            median_seconds: secs.get(secs.len() / 2).copied().unwrap_or(0.0),
        }
    }
}

/// The pooled table: per system and budget, both scenarios and each alone.
pub fn pooled_table(rows: &[Row], budgets: &[usize]) -> String {
    let mut out = String::from(
        "| system | scenario | budget | recall | hit rate | MRR (all) | MRR (source) | median s/call |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for system in SYSTEMS {
        for scenario in ["S1+S2", "S1", "S2"] {
            for &budget in budgets {
                let m = Means::of(rows.iter().filter(|r| {
                    r.system == system
                        && r.budget == budget
                        && (scenario == "S1+S2" || r.scenario == scenario)
                }));
                let _ = writeln!(
                    out,
                    "| {system} | {scenario} | {budget} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
                    m.recall, m.hit, m.mrr_all, m.mrr_src, m.median_seconds
                );
            }
        }
    }
    out
}

/// The per-repository table at `budget`, both scenarios pooled.
pub fn repo_table(rows: &[Row], repos: &[String], budget: usize) -> String {
    let mut out = format!(
        "| repository | system | recall@{budget} | hit@{budget} | MRR (all) | MRR (source) | median s/call |\n\
         |---|---|---:|---:|---:|---:|---:|\n"
    );
    for repo in repos {
        for system in SYSTEMS {
            let m = Means::of(
                rows.iter()
                    .filter(|r| &r.repo == repo && r.system == system && r.budget == budget),
            );
            let _ = writeln!(
                out,
                "| {repo} | {system} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
                m.recall, m.hit, m.mrr_all, m.mrr_src, m.median_seconds
            );
        }
    }
    out
}

/// A paired difference (contender − baseline) over the same calls: mean and standard error.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Paired {
    pub mean: f64,
    pub se: f64,
}

impl Paired {
    /// Worse than the baseline by more than noise: the mean is below −2 standard errors.
    pub fn worse(&self) -> bool {
        self.mean + 2.0 * self.se < 0.0
    }
}

/// The contender's difference from the baseline on `metric`, over the rows `keep` selects.
fn paired(rows: &[Row], keep: &dyn Fn(&Row) -> bool, metric: fn(&Row) -> f64) -> Paired {
    let mut by_call: BTreeMap<(&str, &str, &str, usize), [Option<f64>; 2]> = BTreeMap::new();
    for r in rows.iter().filter(|r| keep(r)) {
        let slot = match r.system.as_str() {
            BASELINE => 0,
            CONTENDER => 1,
            _ => continue,
        };
        let key = (
            r.repo.as_str(),
            r.commit.as_str(),
            r.scenario.as_str(),
            r.budget,
        );
        by_call.entry(key).or_default()[slot] = Some(metric(r));
    }
    let diffs: Vec<f64> = by_call
        .values()
        .filter_map(|[b, c]| Some(c.as_ref()? - b.as_ref()?))
        .collect();
    let n = diffs.len().max(1) as f64;
    let mean = diffs.iter().sum::<f64>() / n;
    let var = diffs.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    Paired {
        mean,
        se: (var / n).sqrt(),
    }
}

/// The issue's goal, checked: lines of text, and whether it holds.
pub fn goal(rows: &[Row], repos: &[String]) -> (String, bool) {
    let at = |b: usize| move |r: &Row| r.budget == b;
    let base = Means::of(
        rows.iter()
            .filter(|r| r.system == BASELINE && r.budget == 1024),
    );
    let ours = Means::of(
        rows.iter()
            .filter(|r| r.system == CONTENDER && r.budget == 1024),
    );
    let ratio = ours.mrr_src / base.mrr_src.max(f64::MIN_POSITIVE);
    let gain = ours.recall - base.recall;
    let mut ok = ratio >= 1.5 && gain >= 0.10;
    let mut out = format!(
        "goal, pooled (S1+S2): MRR (source) {:.3} vs Aider's {:.3}: ×{ratio:.2} (≥ ×1.5: {}); \
         recall@1024 {:.3} vs {:.3}: {gain:+.3} (≥ +0.10: {})\n",
        ours.mrr_src,
        base.mrr_src,
        ratio >= 1.5,
        ours.recall,
        base.recall,
        gain >= 0.10
    );
    for repo in repos {
        let keep = |r: &Row| &r.repo == repo && at(1024)(r);
        let mrr = paired(rows, &keep, |r| Row::rr(r.rank_src));
        let recall = paired(rows, &keep, |r| r.recall);
        let worse = mrr.worse() || recall.worse();
        ok &= !worse;
        let _ = writeln!(
            out,
            "  {repo}: MRR (source) {:+.3} ± {:.3}, recall@1024 {:+.3} ± {:.3} (2 SE){}",
            mrr.mean,
            2.0 * mrr.se,
            recall.mean,
            2.0 * recall.se,
            if worse { ": WORSE than Aider" } else { "" }
        );
    }
    let _ = writeln!(out, "goal {}", if ok { "met" } else { "NOT met" });
    (out, ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(map: &[&str], order: &[&str]) -> Answer {
        Answer {
            map_files: map.iter().map(|s| s.to_string()).collect(),
            order: order.iter().map(|s| s.to_string()).collect(),
            seconds: 0.5,
        }
    }

    #[test]
    fn a_row_scores_recall_and_both_ranks() {
        let targets = ["src/b.py".to_owned(), "src/c.py".to_owned()];
        let a = answer(
            &["README.md", "src/b.py"],
            &["README.md", "src/a.py", "src/b.py", "src/c.py"],
        );
        let row = Row::score(["r", "c", "S1", "ours-default"], 1024, &targets, a);
        assert_eq!(row.recall, 0.5);
        assert_eq!((row.rank_all, row.rank_src), (Some(3), Some(2)));
        let none = Row::score(["r", "c", "S1", "x"], 1024, &targets, answer(&[], &[]));
        assert_eq!((none.recall, none.rank_all), (0.0, None));
    }

    #[test]
    fn the_goal_needs_both_gains_and_no_repository_worse() {
        let row = |system: &str, commit: &str, recall: f64, rank: usize| Row {
            repo: "r".into(),
            commit: commit.into(),
            scenario: "S1".into(),
            system: system.into(),
            budget: 1024,
            targets: vec![],
            map_files: vec![],
            rank_all: Some(rank),
            rank_src: Some(rank),
            recall,
            seconds: 0.0,
        };
        let mut rows = vec![];
        for c in ["a", "b", "c", "d"] {
            rows.push(row(BASELINE, c, 0.2, 4));
            rows.push(row(CONTENDER, c, 0.5, 1));
        }
        assert!(goal(&rows, &["r".into()]).1);
        for r in rows.iter_mut().filter(|r| r.system == CONTENDER) {
            r.rank_src = Some(3);
        }
        assert!(!goal(&rows, &["r".into()]).1, "×1.33 is not enough");
    }
}
