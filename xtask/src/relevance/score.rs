//! Scoring: how well one map answers one task, and the tables pooled over tasks.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::defs::{self, Definition};
use super::history::{is_source, is_test_or_doc};
use super::systems::Answer;

/// The systems, in table order.
pub(super) const SYSTEMS: [&str; 4] = ["aider-stock", "ours-aider", "ours-default", "bm25"];
/// The system the goal of issue 16 is measured against, and the one that must beat it.
const BASELINE: &str = "aider-stock";
const CONTENDER: &str = "ours-default";
/// The system the goal of issue 24 is measured against.
const SEARCH: &str = "bm25";
/// How many ranked source files `recall@k` reads at most.
const TOP: usize = 10;

/// One scored call: a system's answer for one task, scenario and budget. A system without
/// a map (`bm25`) is recorded at every budget with the same answer, so tables line up.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Row {
    pub repo: String,
    pub commit: String,
    /// `S1` (message only) or `S2` (one modified file in the chat, and the message).
    pub scenario: String,
    pub system: String,
    pub budget: usize,
    /// The modified files the map should show (the chat file excluded).
    pub targets: Vec<String>,
    pub map_files: Vec<String>,
    /// Whether the system makes a map; when not, the map's metrics are "n/a".
    #[serde(default = "yes")]
    pub has_map: bool,
    /// 1-based place of the first target in the ranked file order, over all files and
    /// over source files only; `None` when no target is ranked.
    pub rank_all: Option<usize>,
    pub rank_src: Option<usize>,
    /// The first ten source files of the ranked order (what `recall@k` reads).
    #[serde(default)]
    pub top_src: Vec<String>,
    /// 1-based place of the first target, and the first ten, among the source files
    /// that are not tests, docs or examples (`is_test_or_doc`): what SWE-bench's
    /// Acc@k reads, its gold files being never tests.
    #[serde(default)]
    pub rank_code: Option<usize>,
    #[serde(default)]
    pub top_code: Vec<String>,
    /// Share of the targets the map shows.
    pub recall: f64,
    /// Share of the changed definitions in the targets that the map shows; `None` when
    /// the targets have none or the system makes no map.
    #[serde(default)]
    pub def_recall: Option<f64>,
    pub seconds: f64,
}

fn yes() -> bool {
    true
}

impl Row {
    /// Scores `answer` against `targets` and the changed definitions `defs` (of every
    /// modified file: those of the targets are counted).
    pub(super) fn score(
        key: [&str; 4],
        budget: usize,
        targets: &[String],
        defs: &[Definition],
        answer: Answer,
    ) -> Row {
        let wanted: HashSet<&str> = targets.iter().map(String::as_str).collect();
        let shown = answer
            .map_files
            .iter()
            .filter(|f| wanted.contains(f.as_str()))
            .count();
        let first = |files: &[&String]| {
            files
                .iter()
                .position(|f| wanted.contains(f.as_str()))
                .map(|i| i + 1)
        };
        let all: Vec<&String> = answer.order.iter().collect();
        let src: Vec<&String> = answer.order.iter().filter(|f| is_source(f)).collect();
        let code: Vec<&String> = src.iter().copied().filter(|f| !is_test_or_doc(f)).collect();
        let target_defs: Vec<&Definition> = defs
            .iter()
            .filter(|d| wanted.contains(d.file.as_str()))
            .collect();
        let def_recall = match &answer.map_text {
            Some(text) if !target_defs.is_empty() => {
                Some(defs::shown(text, &target_defs) as f64 / target_defs.len() as f64)
            }
            _ => None,
        };
        let [repo, commit, scenario, system] = key.map(str::to_owned);
        Row {
            rank_all: first(&all),
            rank_src: first(&src),
            top_src: src.iter().take(TOP).map(|f| (*f).clone()).collect(),
            rank_code: first(&code),
            top_code: code.iter().take(TOP).map(|f| (*f).clone()).collect(),
            recall: shown as f64 / targets.len() as f64,
            def_recall,
            has_map: answer.map_text.is_some(),
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

    /// Whether every target is among the first `k` source files that are not tests.
    pub(super) fn all_in_code(&self, k: usize) -> bool {
        let top = &self.top_code[..k.min(self.top_code.len())];
        self.targets.iter().all(|t| top.contains(t))
    }

    /// Share of the targets among the first `k` ranked source files.
    pub(super) fn recall_at(&self, k: usize) -> f64 {
        let top = &self.top_src[..k.min(self.top_src.len())];
        let found = self.targets.iter().filter(|t| top.contains(t)).count();
        found as f64 / self.targets.len().max(1) as f64
    }
}

/// Means over a group of rows.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(super) struct Means {
    pub calls: usize,
    /// Whether any row has a map: when none has, the map's metrics are "n/a".
    pub has_map: bool,
    pub recall: f64,
    pub hit: f64,
    /// Mean over the rows that have one; `None` when none has.
    pub def_recall: Option<f64>,
    pub recall5: f64,
    pub recall10: f64,
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
        let defs: Vec<f64> = rows.iter().filter_map(|r| r.def_recall).collect();
        Means {
            calls: rows.len(),
            has_map: rows.iter().any(|r| r.has_map),
            recall: mean(&|r| r.recall),
            hit: mean(&|r| f64::from(u8::from(r.recall > 0.0))),
            def_recall: (!defs.is_empty()).then(|| defs.iter().sum::<f64>() / defs.len() as f64),
            recall5: mean(&|r| r.recall_at(5)),
            recall10: mean(&|r| r.recall_at(10)),
            mrr_all: mean(&|r| Row::rr(r.rank_all)),
            mrr_src: mean(&|r| Row::rr(r.rank_src)),
            median_seconds: secs.get(secs.len() / 2).copied().unwrap_or(0.0),
        }
    }

    /// The map's metrics as table cells: recall, hit rate, definition recall ("n/a"
    /// for a system without a map, or with no changed definition to find).
    fn map_cells(&self) -> [String; 3] {
        let na = || "n/a".to_owned();
        if !self.has_map {
            return [na(), na(), na()];
        }
        [
            format!("{:.3}", self.recall),
            format!("{:.3}", self.hit),
            self.def_recall.map_or_else(na, |d| format!("{d:.3}")),
        ]
    }

    /// The rank metrics as table cells: recall@5, recall@10, MRR (all), MRR (source),
    /// median seconds.
    fn rank_cells(&self) -> String {
        format!(
            "{:.3} | {:.3} | {:.3} | {:.3} | {:.3}",
            self.recall5, self.recall10, self.mrr_all, self.mrr_src, self.median_seconds
        )
    }
}

/// The pooled table: per system and budget, both scenarios and each alone.
pub(super) fn pooled_table(rows: &[Row], budgets: &[usize]) -> String {
    let mut out = String::from(
        "| system | scenario | budget | recall | hit rate | def recall | recall@5 | recall@10 | MRR (all) | MRR (source) | median s/call |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for system in SYSTEMS {
        for scenario in ["S1+S2", "S1", "S2"] {
            for &budget in budgets {
                let m = Means::of(rows.iter().filter(|r| {
                    r.system == system
                        && r.budget == budget
                        && (scenario == "S1+S2" || r.scenario == scenario)
                }));
                if m.calls == 0 {
                    continue;
                }
                let [recall, hit, def] = m.map_cells();
                let _ = writeln!(
                    out,
                    "| {system} | {scenario} | {budget} | {recall} | {hit} | {def} | {} |",
                    m.rank_cells()
                );
            }
        }
    }
    out
}

/// The per-repository table at `budget`, both scenarios pooled.
pub(super) fn repo_table(rows: &[Row], repos: &[String], budget: usize) -> String {
    let mut out = format!(
        "| repository | system | recall@{budget} | hit@{budget} | def recall@{budget} | recall@5 | recall@10 | MRR (all) | MRR (source) | median s/call |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    for repo in repos {
        for system in SYSTEMS {
            let m = Means::of(
                rows.iter()
                    .filter(|r| &r.repo == repo && r.system == system && r.budget == budget),
            );
            if m.calls == 0 {
                continue;
            }
            let [recall, hit, def] = m.map_cells();
            let _ = writeln!(
                out,
                "| {repo} | {system} | {recall} | {hit} | {def} | {} |",
                m.rank_cells()
            );
        }
    }
    out
}

/// A paired difference (contender − baseline) over the same calls: mean and standard error.
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct Paired {
    pub mean: f64,
    pub se: f64,
}

impl Paired {
    /// Worse than the baseline by more than noise: the mean is below −2 standard errors.
    pub(super) fn worse(&self) -> bool {
        self.mean + 2.0 * self.se < 0.0
    }
}

/// `contender`'s difference from `baseline` on `metric`, over the rows `keep` selects.
fn paired(
    rows: &[Row],
    keep: &dyn Fn(&Row) -> bool,
    [baseline, contender]: [&str; 2],
    metric: fn(&Row) -> f64,
) -> Paired {
    let mut by_call: BTreeMap<(&str, &str, &str, usize), [Option<f64>; 2]> = BTreeMap::new();
    for r in rows.iter().filter(|r| keep(r)) {
        let slot = if r.system == baseline {
            0
        } else if r.system == contender {
            1
        } else {
            continue;
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

/// Both goals, checked: lines of text, and whether both hold.
pub(super) fn goal(rows: &[Row], repos: &[String]) -> (String, bool) {
    let (aider, aider_ok) = aider_goal(rows, repos);
    let (search, search_ok) = search_goal(rows, repos);
    (format!("{aider}\n{search}"), aider_ok && search_ok)
}

/// The goal of issue 16, against stock Aider: lines of text, and whether it holds.
fn aider_goal(rows: &[Row], repos: &[String]) -> (String, bool) {
    if !rows.iter().any(|r| r.system == BASELINE) {
        return (
            "goal against Aider: not measured (Aider was not run)".into(),
            false,
        );
    }
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
        let pair = [BASELINE, CONTENDER];
        let mrr = paired(rows, &keep, pair, |r| Row::rr(r.rank_src));
        let recall = paired(rows, &keep, pair, |r| r.recall);
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

/// `PASS` or `FAIL`.
fn verdict(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

/// The goal of issue 24, against full-text search (`bm25`), pooled over both scenarios at
/// 1,024 tokens: MRR (source) ≥ 1.2 × bm25's, recall@5 ≥ bm25's + 0.05, and no
/// repository worse than bm25 by more than noise (paired, 2 SE) on either.
fn search_goal(rows: &[Row], repos: &[String]) -> (String, bool) {
    let at_1024 = |system: &'static str| move |r: &&Row| r.system == system && r.budget == 1024;
    let base = Means::of(rows.iter().filter(at_1024(SEARCH)));
    let ours = Means::of(rows.iter().filter(at_1024(CONTENDER)));
    let ratio = ours.mrr_src / base.mrr_src.max(f64::MIN_POSITIVE);
    let gain = ours.recall5 - base.recall5;
    let (mrr_ok, recall_ok) = (ratio >= 1.2, gain >= 0.05);
    let mut ok = mrr_ok && recall_ok;
    let mut out = format!(
        "goal vs bm25 (issue 24), pooled (S1+S2) at 1024: \
         MRR (source) {:.3} vs bm25's {:.3}: ×{ratio:.2} (≥ ×1.2: {}); \
         recall@5 {:.3} vs {:.3}: {gain:+.3} (≥ +0.05: {})\n",
        ours.mrr_src,
        base.mrr_src,
        verdict(mrr_ok),
        ours.recall5,
        base.recall5,
        verdict(recall_ok),
    );
    for repo in repos {
        let keep = |r: &Row| &r.repo == repo && r.budget == 1024;
        let pair = [SEARCH, CONTENDER];
        let mrr = paired(rows, &keep, pair, |r| Row::rr(r.rank_src));
        let recall = paired(rows, &keep, pair, |r| r.recall_at(5));
        let worse = mrr.worse() || recall.worse();
        ok &= !worse;
        let _ = writeln!(
            out,
            "  {repo}: MRR (source) {:+.3} ± {:.3}, recall@5 {:+.3} ± {:.3} (2 SE): {}",
            mrr.mean,
            2.0 * mrr.se,
            recall.mean,
            2.0 * recall.se,
            if worse {
                "FAIL, worse than bm25"
            } else {
                "PASS"
            }
        );
    }
    let _ = writeln!(out, "goal vs bm25 {}", verdict(ok));
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
            map_text: Some(map.iter().map(|f| format!("{f}:\n│x\n")).collect()),
        }
    }

    #[test]
    fn a_row_scores_recall_and_both_ranks() {
        let targets = ["src/b.py".to_owned(), "src/c.py".to_owned()];
        let a = answer(
            &["README.md", "src/b.py"],
            &["README.md", "src/a.py", "src/b.py", "src/c.py"],
        );
        let row = Row::score(["r", "c", "S1", "ours-default"], 1024, &targets, &[], a);
        assert_eq!(row.recall, 0.5);
        assert_eq!((row.rank_all, row.rank_src), (Some(3), Some(2)));
        assert_eq!(row.top_src, ["src/a.py", "src/b.py", "src/c.py"]);
        assert!(
            row.has_map && row.def_recall.is_none(),
            "no changed definitions"
        );
        let none = Row::score(["r", "c", "S1", "x"], 1024, &targets, &[], answer(&[], &[]));
        assert_eq!((none.recall, none.rank_all), (0.0, None));
    }

    #[test]
    fn recall_at_k_counts_the_targets_among_the_first_k_source_files() {
        let targets = ["s/t1.py".to_owned(), "s/t2.py".to_owned()];
        let mut order: Vec<String> = (0..12).map(|i| format!("s/f{i}.py")).collect();
        order.insert(0, "README.md".into());
        order.insert(4, "s/t1.py".into());
        order.insert(9, "s/t2.py".into());
        let a = Answer {
            map_text: None,
            ..answer(&[], &[])
        };
        let a = Answer { order, ..a };
        let row = Row::score(["r", "c", "S1", "bm25"], 1024, &targets, &[], a);
        assert_eq!(row.top_src.len(), TOP);
        assert_eq!(row.top_src[3], "s/t1.py", "README.md is not a source file");
        assert_eq!((row.recall_at(3), row.recall_at(5)), (0.0, 0.5));
        assert_eq!((row.recall_at(10), row.recall_at(50)), (1.0, 1.0));
        assert!(!row.has_map);
        let m = Means::of([&row].into_iter());
        assert_eq!(m.map_cells(), ["n/a", "n/a", "n/a"]);
    }

    #[test]
    fn definition_recall_counts_the_targets_definitions_the_map_shows() {
        let def = |file: &str, name: &str| Definition {
            file: file.into(),
            name: name.into(),
            line: 3,
            kind: "function".into(),
        };
        let defs = [def("a.py", "x"), def("a.py", "y"), def("chat.py", "x")];
        let targets = ["a.py".to_owned()];
        let a = answer(&["a.py"], &["a.py"]);
        let row = Row::score(["r", "c", "S2", "ours-default"], 1024, &targets, &defs, a);
        assert_eq!(
            row.def_recall,
            Some(0.5),
            "x shown, y not; chat.py not a target"
        );
    }

    fn row(system: &str, commit: &str, recall: f64, rank: usize) -> Row {
        Row {
            repo: "r".into(),
            commit: commit.into(),
            scenario: "S1".into(),
            system: system.into(),
            budget: 1024,
            targets: vec!["t.py".into()],
            map_files: vec![],
            has_map: true,
            rank_all: Some(rank),
            rank_src: Some(rank),
            top_src: (1..rank)
                .map(|i| format!("{i}.py"))
                .chain(["t.py".into()])
                .collect(),
            rank_code: None,
            top_code: vec![],
            recall,
            def_recall: None,
            seconds: 0.0,
        }
    }

    #[test]
    fn the_goal_needs_both_gains_and_no_repository_worse() {
        let mut rows = vec![];
        for c in ["a", "b", "c", "d"] {
            rows.push(row(BASELINE, c, 0.2, 4));
            rows.push(row(CONTENDER, c, 0.5, 1));
        }
        assert!(aider_goal(&rows, &["r".into()]).1);
        for r in rows.iter_mut().filter(|r| r.system == CONTENDER) {
            r.rank_src = Some(3);
        }
        assert!(!aider_goal(&rows, &["r".into()]).1, "×1.33 is not enough");
    }

    /// A run without Aider (`--no-aider`) says so instead of dividing by nothing.
    #[test]
    fn the_aider_goal_without_aider_rows_is_not_measured() {
        let rows = vec![row(CONTENDER, "a", 0.5, 1)];
        let (text, ok) = aider_goal(&rows, &["r".into()]);
        assert!(!ok && text.contains("not measured"), "{text}");
    }

    #[test]
    fn the_search_goal_needs_mrr_and_recall_at_5_over_bm25() {
        let mut rows = vec![];
        for c in ["a", "b", "c", "d"] {
            rows.push(row(SEARCH, c, 0.0, 6));
            rows.push(row(CONTENDER, c, 0.5, 1));
        }
        let (text, ok) = search_goal(&rows, &["r".into()]);
        assert!(ok, "{text}");
        for r in rows.iter_mut().filter(|r| r.system == SEARCH) {
            *r = row(SEARCH, &r.commit, 0.0, 5);
        }
        let (text, ok) = search_goal(&rows, &["r".into()]);
        assert!(!ok, "recall@5 1.0 vs 1.0 is not +0.05: {text}");
        assert!(text.contains("(≥ ×1.2: PASS)") && text.contains("(≥ +0.05: FAIL)"));
    }
}
