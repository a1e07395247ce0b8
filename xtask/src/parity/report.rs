//! The measures per repository and scenario, the table, the JSON artifact and the gate.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::Result;
use repo_mapper_tags::filename_to_lang;
use serde_json::{Value, json};

use super::compare::{self, AiderOutput, OursRun};
use super::repos::{BUDGETS, CONTEXT_WINDOW, Repo, Scenario};
use super::{Options, PROFILES, tools};

/// Gate thresholds (issue 6; A1 of the seed for Spearman).
const MIN_JACCARD: f64 = 0.99;
const MIN_SPEARMAN: f64 = 0.80;
const MAX_RANK_ERR: f64 = 1e-9;

/// Everything the tools produced for one repository.
pub(super) struct Measured<'a> {
    pub repo: &'a Repo,
    /// One per fixed-Aider process (hash seed); the first is the reference.
    pub fixed: Vec<AiderOutput>,
    /// Fixed Aider with the capture order pinned (diagnostic).
    pub pinned: Vec<AiderOutput>,
    pub stock: Vec<AiderOutput>,
    /// (profile, scenario id) → the repeated runs.
    pub ours: BTreeMap<(String, String), Vec<OursRun>>,
}

/// a out of b.
#[derive(Debug, Clone, Copy, Default)]
struct Ratio(usize, usize);

impl Ratio {
    fn add(&mut self, hit: bool) {
        self.0 += usize::from(hit);
        self.1 += 1;
    }
    fn merge(&mut self, other: Ratio) {
        self.0 += other.0;
        self.1 += other.1;
    }
    fn rate(self) -> f64 {
        if self.1 == 0 {
            1.0
        } else {
            self.0 as f64 / self.1 as f64
        }
    }
    fn json(self) -> Value {
        json!({"identical": self.0, "of": self.1, "rate": self.rate()})
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.0, self.1)
    }
}

/// Ours (aider profile) against the runs of one comparator, over a repository.
#[derive(Debug)]
struct RefSummary {
    /// (scenario, run) pairs where our map is identical to the run's.
    ours_vs: Ratio,
    /// Pairs of runs (same scenario) with identical maps.
    self_agree: Ratio,
    min_jaccard: f64,
    min_spearman: Option<f64>,
    file_rank_err: f64,
    def_rank_err: f64,
    /// The comparator's own largest file-rank error between its runs.
    self_rank_err: f64,
}

impl Default for RefSummary {
    fn default() -> Self {
        RefSummary {
            ours_vs: Ratio::default(),
            self_agree: Ratio::default(),
            min_jaccard: 1.0,
            min_spearman: None,
            file_rank_err: 0.0,
            def_rank_err: 0.0,
            self_rank_err: 0.0,
        }
    }
}

impl RefSummary {
    fn rank_err(&self) -> f64 {
        self.file_rank_err.max(self.def_rank_err)
    }
    fn json(&self) -> Value {
        json!({
            "ours_vs": self.ours_vs.json(),
            "self_agreement": self.self_agree.json(),
            "min_jaccard": self.min_jaccard,
            "min_spearman": self.min_spearman,
            "file_rank_max_rel_err": self.file_rank_err,
            "def_rank_max_rel_err": self.def_rank_err,
            "self_file_rank_max_rel_err": self.self_rank_err,
        })
    }
}

/// Per-repository totals.
#[derive(Debug, Default)]
struct Summary {
    tags_exact: Ratio,
    tags_distinct: Ratio,
    tags_no_fallback: Ratio,
    aider_tags_self: Ratio,
    fixed: RefSummary,
    pinned: RefSummary,
    stock: RefSummary,
    /// Fixed Aider's maps against stock Aider's ((fixed, stock) process pairs): the bar for
    /// our agreement with stock Aider.
    fixed_vs_stock: Ratio,
    default_vs_fixed: Ratio,
    default_over: Ratio,
    aider_over: usize,
    ours_aider_over: usize,
    deterministic: Ratio,
    token_mismatches: Vec<String>,
}

fn pairs(maps: &[String]) -> Ratio {
    let mut r = Ratio::default();
    for i in 0..maps.len() {
        for j in i + 1..maps.len() {
            r.add(maps[i] == maps[j]);
        }
    }
    r
}

/// Map identity between every run of `a` and every run of `b`.
fn cross(a: &[&compare::AiderRun], b: &[&compare::AiderRun], files: &HashSet<&str>) -> Ratio {
    let norm = |t: Option<&str>| compare::normalise_map(t, files);
    let bs: Vec<String> = b.iter().map(|r| norm(r.map.as_deref())).collect();
    let mut r = Ratio::default();
    for x in a {
        let x = norm(x.map.as_deref());
        bs.iter().for_each(|y| r.add(*y == x));
    }
    r
}

/// One scenario, ours (aider profile) against one comparator's runs; the first run is the
/// reference for ranks and the first difference. Adds to `sum`, returns the details.
fn against(
    ours: &OursRun,
    runs: &[&compare::AiderRun],
    s: &Scenario,
    files: &HashSet<&str>,
    sum: &mut RefSummary,
) -> Value {
    let norm = |t: Option<&str>| compare::normalise_map(t, files);
    let maps: Vec<String> = runs.iter().map(|r| norm(r.map.as_deref())).collect();
    let ours_map = norm(ours.map.as_deref());
    let mut vs = Ratio::default();
    maps.iter().for_each(|m| vs.add(*m == ours_map));
    let self_agree = pairs(&maps);
    sum.ours_vs.merge(vs);
    sum.self_agree.merge(self_agree);

    let reference = runs[0];
    // The first differing line, and what each list holds for its file.
    let diff = compare::first_difference(&ours_map, &maps[0], files).map(|mut d| {
        if let Some(file) = d["file"].as_str().map(str::to_owned) {
            d["ours_entries_in_map"] = ours
                .entries
                .iter()
                .filter(|e| e.file == file && e.in_map)
                .map(|e| json!([e.stage, e.ident, e.line]))
                .collect();
            d["aider_ranked_rows"] = reference
                .ranked
                .iter()
                .filter(|(f, _)| *f == file)
                .take(12)
                .map(|(_, t)| json!(t))
                .collect();
        }
        d
    });

    let (file_err, file_worst, file_missing) =
        compare::max_rel_err(&ours.file_ranks, &reference.file_ranks);
    let (def_err, def_worst, def_missing) = compare::max_rel_err(
        &compare::our_def_ranks(ours),
        &compare::aider_def_ranks(reference, &s.chat_files),
    );
    let self_err = runs
        .iter()
        .skip(1)
        .map(|r| compare::max_rel_err(&r.file_ranks, &reference.file_ranks).0)
        .fold(0.0, f64::max);
    sum.file_rank_err = sum.file_rank_err.max(file_err);
    sum.def_rank_err = sum.def_rank_err.max(def_err);
    sum.self_rank_err = sum.self_rank_err.max(self_err);

    let (k, jaccard, rho) = compare::a1(
        &compare::our_top_files(ours, &s.chat_files),
        &compare::aider_top_files(reference, &s.chat_files),
    );
    sum.min_jaccard = sum.min_jaccard.min(jaccard);
    if let Some(r) = rho {
        sum.min_spearman = Some(sum.min_spearman.map_or(r, |m: f64| m.min(r)));
    }
    json!({
        "maps": {"ours_vs": vs.json(), "self_agreement": self_agree.json(),
                 "first_difference": diff,
                 "errors": runs.iter().map(|r| r.error.clone()).collect::<Vec<_>>()},
        "ranks": {
            "file_max_rel_err": file_err, "file_worst": file_worst, "file_missing": file_missing,
            "def_max_rel_err": def_err, "def_worst": def_worst, "def_missing": def_missing,
            "self_file_max_rel_err": self_err,
        },
        "top_files": {"k": k, "jaccard": jaccard, "spearman": rho},
        "tokens": runs.iter().map(|r| r.tokens).collect::<Vec<_>>(),
    })
}

/// One repository, every scenario: its totals, its JSON, its lines of the report.
fn measure_repo(
    m: &Measured<'_>,
    counts: &BTreeMap<String, (f64, f64)>,
) -> (Summary, Value, Vec<String>) {
    let repo = m.repo;
    let files: HashSet<&str> = repo.files.iter().map(String::as_str).collect();
    let mut sum = Summary::default();
    let tags_json = measure_tags(m, &mut sum);

    let mut scenarios = Vec::new();
    let mut lines = Vec::new();
    for s in &repo.scenarios {
        let runs = Runs::new(m, s);
        let vs = compare_runs(&runs, &files, &mut sum);
        let tokens = count_tokens(&runs, counts, &mut sum);
        let det = check_determinism(&runs, &mut sum);
        lines.extend(scenario_lines(&runs, &vs, &tokens));
        scenarios.push(scenario_json(&runs, vs, &tokens, &det));
    }

    let json = json!({
        "name": repo.spec.name,
        "root": repo.spec.root,
        "why": repo.spec.why,
        "gated": repo.spec.gated,
        "files": repo.files.len(),
        "excluded_files": repo.excluded,
        "sha256": repo.sha256,
        "chat": repo.chat,
        "tags": {
            "files": sum.tags_exact.1,
            "exact_multiset": sum.tags_exact.0,
            "distinct": sum.tags_distinct.0,
            "distinct_no_fallback": sum.tags_no_fallback.0,
            "aider_self_exact": sum.aider_tags_self.json(),
            "by_language": tags_json,
        },
        "scenarios": scenarios,
    });
    (sum, json, lines)
}

/// Tags, per file and per language, against the reference fixed run; adds to `sum`,
/// returns the per-language details.
fn measure_tags(m: &Measured<'_>, sum: &mut Summary) -> Value {
    let empty = BTreeMap::new();
    let aider_tags = m.fixed[0].tags.as_ref().unwrap_or(&empty);
    let mut by_lang: BTreeMap<&str, (Ratio, Ratio, Ratio, Option<String>)> = BTreeMap::new();
    for (file, ours) in &m.repo.tags {
        let Some(lang) = filename_to_lang(Path::new(file)) else {
            continue;
        };
        let theirs = aider_tags.get(file).map(Vec::as_slice).unwrap_or(&[]);
        let c = compare::compare_tags(ours, theirs);
        let e = by_lang.entry(lang).or_default();
        e.0.add(c.exact);
        e.1.add(c.distinct);
        e.2.add(c.distinct_no_fallback);
        if e.3.is_none() && !c.exact {
            e.3 = c.first_diff.map(|d| format!("{file}: {d}"));
        }
        sum.tags_exact.add(c.exact);
        sum.tags_distinct.add(c.distinct);
        sum.tags_no_fallback.add(c.distinct_no_fallback);
        for other in m.fixed.iter().chain(&m.stock).skip(1) {
            let t = other.tags.as_ref().unwrap_or(&empty);
            sum.aider_tags_self
                .add(t.get(file).map(Vec::as_slice).unwrap_or(&[]) == theirs);
        }
    }
    by_lang
        .iter()
        .map(|(lang, (e, d, n, first))| {
            (
                (*lang).to_owned(),
                json!({"files": e.1, "exact": e.0, "distinct": d.0, "distinct_no_fallback": n.0,
                       "first_difference": first}),
            )
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Every tool's runs of one scenario.
struct Runs<'a> {
    s: &'a Scenario,
    /// Ours, aider profile, repeated.
    ours_a: &'a [OursRun],
    /// Ours, default profile, repeated.
    ours_d: &'a [OursRun],
    fixed: Vec<&'a compare::AiderRun>,
    pinned: Vec<&'a compare::AiderRun>,
    stock: Vec<&'a compare::AiderRun>,
}

impl<'a> Runs<'a> {
    fn new(m: &'a Measured<'_>, s: &'a Scenario) -> Self {
        Runs {
            s,
            ours_a: &m.ours[&("aider".to_owned(), s.id.clone())],
            ours_d: &m.ours[&("default".to_owned(), s.id.clone())],
            fixed: scenario_runs(&m.fixed, &s.id),
            pinned: scenario_runs(&m.pinned, &s.id),
            stock: scenario_runs(&m.stock, &s.id),
        }
    }
}

/// One scenario's maps and ranks against each comparator (see [`against`]).
struct Compared {
    vs_fixed: Value,
    vs_pinned: Value,
    vs_stock: Value,
    fixed_vs_stock: Ratio,
    default_vs: Value,
}

/// Ours against every comparator, and fixed Aider against stock Aider; adds to `sum`.
fn compare_runs(r: &Runs<'_>, files: &HashSet<&str>, sum: &mut Summary) -> Compared {
    let (s, ours_a) = (r.s, &r.ours_a[0]);
    let vs_fixed = against(ours_a, &r.fixed, s, files, &mut sum.fixed);
    let vs_pinned = against(ours_a, &r.pinned, s, files, &mut sum.pinned);
    let vs_stock = against(ours_a, &r.stock, s, files, &mut sum.stock);
    let fixed_vs_stock = cross(&r.fixed, &r.stock, files);
    sum.fixed_vs_stock.merge(fixed_vs_stock);
    // The default profile against fixed Aider: reported, not gated.
    let mut default_sum = RefSummary::default();
    let default_vs = against(&r.ours_d[0], &r.fixed, s, files, &mut default_sum);
    sum.default_vs_fixed
        .add(default_sum.ours_vs.0 == default_sum.ours_vs.1);
    Compared {
        vs_fixed,
        vs_pinned,
        vs_stock,
        fixed_vs_stock,
        default_vs,
    }
}

/// One scenario's budget and token counts.
struct Tokens {
    budget: f64,
    /// Python's tiktoken count of our default-profile map.
    d_exact: Option<f64>,
    /// Whether our default-profile map is over the budget.
    d_over: bool,
    /// Fixed Aider's estimate of its map.
    aider_tokens: Option<f64>,
}

/// Budget: our counts checked against Python's tiktoken and Aider's estimate; adds to `sum`.
fn count_tokens(r: &Runs<'_>, counts: &BTreeMap<String, (f64, f64)>, sum: &mut Summary) -> Tokens {
    let (ours_a, ours_d, id) = (&r.ours_a[0], &r.ours_d[0], &r.s.id);
    let budget = ours_a.budget;
    let count = |run: &OursRun| run.map.as_ref().and_then(|t| counts.get(t)).copied();
    let d_exact = count(ours_d).map(|c| c.0);
    let d_tokens = ours_d.tokens.into_iter().chain(d_exact).fold(0.0, f64::max);
    let d_over = d_tokens > ours_d.budget;
    sum.default_over.add(d_over);
    if let (Some(t), Some(c)) = (ours_d.tokens, d_exact)
        && t != c
    {
        sum.token_mismatches
            .push(format!("{id}: default profile counts {t}, tiktoken {c}"));
    }
    if let (Some(t), Some(c)) = (ours_a.tokens, count(ours_a).map(|c| c.1))
        && t != c
    {
        sum.token_mismatches.push(format!(
            "{id}: aider profile estimates {t}, Aider's token_count {c}"
        ));
    }
    let aider_tokens = r.fixed[0].tokens;
    sum.aider_over += usize::from(aider_tokens.is_some_and(|t| t > budget));
    sum.ours_aider_over += usize::from(ours_a.tokens.is_some_and(|t| t > budget));
    Tokens {
        budget,
        d_exact,
        d_over,
        aider_tokens,
    }
}

/// Determinism: every repeated run byte-identical, per profile; adds to `sum`.
fn check_determinism(r: &Runs<'_>, sum: &mut Summary) -> BTreeMap<&'static str, bool> {
    let mut det = BTreeMap::new();
    for (profile, runs) in [("aider", r.ours_a), ("default", r.ours_d)] {
        let same = runs.iter().all(|run| run.raw == runs[0].raw);
        sum.deterministic.add(same);
        det.insert(profile, same);
    }
    det
}

/// The scenario's line of the report, then what the comparators raised and the first
/// differences.
fn scenario_lines(r: &Runs<'_>, c: &Compared, t: &Tokens) -> Vec<String> {
    let (vs_fixed, vs_pinned, vs_stock) = (&c.vs_fixed, &c.vs_pinned, &c.vs_stock);
    let ratio =
        |v: &Value, key: &str| format!("{}/{}", v["maps"][key]["identical"], v["maps"][key]["of"]);
    let number = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    let jaccard = |v: &Value| number(&v["top_files"]["jaccard"]);
    // The larger of the file and the (file, ident) rank errors.
    let rank_err = |v: &Value| {
        number(&v["ranks"]["file_max_rel_err"]).max(number(&v["ranks"]["def_max_rel_err"]))
    };
    let mut lines = vec![format!(
        "  {:<12} fixed: map {:<4} self {:<4} J {:.3} rank err {:.1e} | pinned: map {:<4} J {:.3} rank err {:.1e} | stock: map {:<4} self {:<4} | tokens ours {} aider {} default {}{}",
        r.s.id,
        ratio(vs_fixed, "ours_vs"),
        ratio(vs_fixed, "self_agreement"),
        jaccard(vs_fixed),
        rank_err(vs_fixed),
        ratio(vs_pinned, "ours_vs"),
        jaccard(vs_pinned),
        rank_err(vs_pinned),
        ratio(vs_stock, "ours_vs"),
        ratio(vs_stock, "self_agreement"),
        fmt_tokens(r.ours_a[0].tokens),
        fmt_tokens(t.aider_tokens),
        fmt_tokens(r.ours_d[0].tokens),
        if t.d_over { " OVER" } else { "" },
    )];
    if let Some(e) = &r.fixed[0].error {
        lines.push(format!("      fixed Aider raised {e}"));
    }
    for (label, v) in [("fixed", vs_fixed), ("pinned", vs_pinned)] {
        let d = &v["maps"]["first_difference"];
        if d.is_object() {
            lines.push(format!(
                "      vs {label}: first difference, line {} in {}: ours {:?} / aider {:?}",
                d["line"],
                d["file"].as_str().unwrap_or("?"),
                d["ours"].as_str().unwrap_or("<end>"),
                d["aider"].as_str().unwrap_or("<end>"),
            ));
        }
    }
    lines
}

/// The scenario's entry in the artifact.
fn scenario_json(
    r: &Runs<'_>,
    c: Compared,
    t: &Tokens,
    det: &BTreeMap<&'static str, bool>,
) -> Value {
    let s = r.s;
    json!({
        "id": s.id,
        "max_tokens": s.max_tokens,
        "max_context_window": s.max_context_window,
        "chat_files": s.chat_files,
        "mentioned_idents": s.mentioned_idents,
        "budget": t.budget,
        "vs_fixed": c.vs_fixed,
        "vs_pinned": c.vs_pinned,
        "vs_stock": c.vs_stock,
        "fixed_vs_stock": c.fixed_vs_stock.json(),
        "default_profile_vs_fixed": c.default_vs,
        "tokens": {
            "ours_aider_profile": r.ours_a[0].tokens,
            "ours_default_profile": r.ours_d[0].tokens,
            "ours_default_profile_tiktoken": t.d_exact,
            "fixed_aider": t.aider_tokens,
            "default_over_budget": t.d_over,
        },
        "deterministic": det,
        "maps_text": {"ours_aider": r.ours_a[0].map, "ours_default": r.ours_d[0].map,
                      "fixed": r.fixed[0].map, "pinned": r.pinned[0].map},
    })
}

fn scenario_runs<'a>(outputs: &'a [AiderOutput], id: &str) -> Vec<&'a compare::AiderRun> {
    outputs.iter().map(|o| &o.scenarios[id]).collect()
}

fn fmt_tokens(t: Option<f64>) -> String {
    t.map_or("-".into(), |t| format!("{t:.0}"))
}

/// Gate failures of one repository (issue 6; empty when it passes). Against fixed Aider,
/// as the issue defines the gate; `pinned` is reported beside it, not gated.
fn gate(sum: &Summary) -> Vec<String> {
    let mut f = Vec::new();
    let fixed = &sum.fixed;
    if fixed.ours_vs.rate() < fixed.self_agree.rate() {
        f.push(format!(
            "identical maps vs fixed Aider {} ({:.3}) < fixed Aider's self-agreement {} ({:.3})",
            fixed.ours_vs,
            fixed.ours_vs.rate(),
            fixed.self_agree,
            fixed.self_agree.rate()
        ));
    }
    if fixed.min_jaccard < MIN_JACCARD {
        f.push(format!(
            "top-30 Jaccard vs fixed Aider {:.3} < {MIN_JACCARD}",
            fixed.min_jaccard
        ));
    }
    if let Some(r) = fixed.min_spearman.filter(|r| *r < MIN_SPEARMAN) {
        f.push(format!(
            "top-30 Spearman vs fixed Aider {r:.3} < {MIN_SPEARMAN} (A1)"
        ));
    }
    let err = fixed.rank_err();
    if err > MAX_RANK_ERR || err.is_nan() {
        f.push(format!(
            "rank relative error vs fixed Aider {err:.2e} > {MAX_RANK_ERR:e} (file {:.2e}, \
             (file, ident) {:.2e}; fixed Aider against itself {:.2e})",
            fixed.file_rank_err, fixed.def_rank_err, fixed.self_rank_err
        ));
    }
    if sum.default_over.0 > 0 {
        f.push(format!(
            "default profile over budget in {} map(s)",
            sum.default_over
        ));
    }
    let stock = &sum.stock;
    if stock.ours_vs.rate() < sum.fixed_vs_stock.rate() {
        f.push(format!(
            "agreement with stock Aider {} ({:.3}) < fixed Aider's agreement with stock Aider {} ({:.3})",
            stock.ours_vs,
            stock.ours_vs.rate(),
            sum.fixed_vs_stock,
            sum.fixed_vs_stock.rate()
        ));
    }
    if sum.deterministic.0 < sum.deterministic.1 {
        f.push(format!(
            "repo-mapper not deterministic (A5): {} scenario×profile identical over repeats",
            sum.deterministic
        ));
    }
    f
}

/// Prints the table, writes the artifact; returns whether the gate passes.
pub(super) fn report(
    measured: &[Measured<'_>],
    counts: &BTreeMap<String, (f64, f64)>,
    opts: &Options,
    mode: &str,
    exe: &Path,
    started: Instant,
) -> Result<bool> {
    let reported = report_repos(measured, counts)?;
    let pass = reported.all_failures.is_empty();

    let artifact = artifact(measured, opts, mode, exe, started, &reported);
    let dir = tools::parity_dir();
    fs::create_dir_all(&dir)?;
    let path = dir.join(format!("parity-{mode}.json"));
    fs::write(&path, serde_json::to_string_pretty(&artifact)?)?;

    print!("{}", reported.out);
    println!();
    print_comparators(&measured[0].fixed[0].comparator, opts);
    for row in &reported.table {
        println!("{row}");
    }
    println!(
        "\nartifact: {}  ({:.0} s)",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    if pass {
        println!("parity gate: pass");
    } else {
        println!("parity gate: FAIL");
        for f in &reported.all_failures {
            println!("  {f}");
        }
    }
    Ok(pass)
}

/// Every repository measured and gated, ready for the artifact and the printout.
struct Reported {
    /// Each repository's section of the report.
    out: String,
    /// The table: its header, then a row per repository.
    table: Vec<String>,
    repos_json: Vec<Value>,
    /// The gated repositories' failures, each prefixed with its repository's name.
    all_failures: Vec<String>,
}

/// Measures and gates each repository: its section, its row, its JSON, its failures.
fn report_repos(
    measured: &[Measured<'_>],
    counts: &BTreeMap<String, (f64, f64)>,
) -> Result<Reported> {
    let mut r = Reported {
        out: String::new(),
        table: vec![table_header()],
        repos_json: Vec::new(),
        all_failures: Vec::new(),
    };
    for m in measured {
        let (sum, mut json, lines) = measure_repo(m, counts);
        let failures = gate(&sum);
        let verdict = match (m.repo.spec.gated, failures.is_empty()) {
            (true, true) => "pass",
            (true, false) => "FAIL",
            (false, true) => "(pass, not gated)",
            (false, false) => "(fails, not gated)",
        };
        r.table.push(table_row(m, &sum, verdict));
        write_heading(&mut r.out, m, &lines)?;
        write_tags_by_language(&mut r.out, &json["tags"]["by_language"])?;
        write_totals(&mut r.out, &sum, &failures)?;
        json["summary"] = summary_json(&sum);
        json["gate"] = json!({"gated": m.repo.spec.gated, "failures": failures});
        if m.repo.spec.gated {
            r.all_failures.extend(
                failures
                    .iter()
                    .map(|f| format!("{}: {f}", m.repo.spec.name)),
            );
        }
        r.repos_json.push(json);
    }
    Ok(r)
}

/// The table's header row.
fn table_header() -> String {
    format!(
        "{:<18} {:>5} {:>9} {:>9} | {:>7} {:>7} {:>6} {:>6} {:>8} {:>8} | {:>7} {:>6} {:>8} | {:>7} {:>7} {:>7} | {:>6} {:>6}  gate",
        "repo",
        "files",
        "tags =",
        "distinct",
        "map=fix",
        "fix-fix",
        "min J",
        "rho",
        "rank err",
        "fix err",
        "map=pin",
        "min J",
        "rank err",
        "map=stk",
        "fix-stk",
        "stk-stk",
        "dflt>b",
        "determ"
    )
}

/// One repository's row of the table.
fn table_row(m: &Measured<'_>, sum: &Summary, verdict: &str) -> String {
    let (fx, pn, st) = (&sum.fixed, &sum.pinned, &sum.stock);
    format!(
        "{:<18} {:>5} {:>9} {:>9} | {:>7} {:>7} {:>6.3} {:>6} {:>8.1e} {:>8.1e} | {:>7} {:>6.3} {:>8.1e} | {:>7} {:>7} {:>7} | {:>6} {:>6}  {verdict}",
        m.repo.spec.name,
        m.repo.files.len(),
        sum.tags_exact.to_string(),
        sum.tags_distinct.to_string(),
        fx.ours_vs.to_string(),
        fx.self_agree.to_string(),
        fx.min_jaccard,
        fx.min_spearman.map_or("n/a".into(), |r| format!("{r:.3}")),
        fx.rank_err(),
        fx.self_rank_err,
        pn.ours_vs.to_string(),
        pn.min_jaccard,
        pn.rank_err(),
        st.ours_vs.to_string(),
        sum.fixed_vs_stock.to_string(),
        st.self_agree.to_string(),
        sum.default_over.to_string(),
        sum.deterministic.to_string(),
    )
}

/// The section's heading, then a line per scenario (see [`measure_repo`]).
fn write_heading(out: &mut String, m: &Measured<'_>, lines: &[String]) -> std::fmt::Result {
    writeln!(
        out,
        "\n== {} ({} files{}, chat {:?}) — {}",
        m.repo.spec.name,
        m.repo.files.len(),
        if m.repo.excluded.is_empty() {
            String::new()
        } else {
            format!(
                "; left out, Aider raises on them: {}",
                m.repo.excluded.join(" ")
            )
        },
        m.repo.chat,
        m.repo.spec.why
    )?;
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(())
}

/// The tag counts per language on one line, then each language's first difference.
fn write_tags_by_language(out: &mut String, by_language: &Value) -> std::fmt::Result {
    let Some(langs) = by_language.as_object() else {
        return Ok(());
    };
    let mut row = String::from("  tags by language (exact/distinct/no-fallback of files):");
    let mut diffs = Vec::new();
    for (lang, v) in langs {
        write!(
            row,
            " {lang} {}/{}/{} of {};",
            v["exact"], v["distinct"], v["distinct_no_fallback"], v["files"]
        )?;
        if let Some(d) = v["first_difference"].as_str() {
            diffs.push(format!("    {lang}: {d}"));
        }
    }
    writeln!(out, "{row}")?;
    for d in diffs {
        writeln!(out, "{d}")?;
    }
    Ok(())
}

/// The section's totals: tag agreement, budgets, token count mismatches, gate failures.
fn write_totals(out: &mut String, sum: &Summary, failures: &[String]) -> std::fmt::Result {
    writeln!(
        out,
        "  tags: Aider's own runs agree on {} file×run; ours vs Aider's default profile map identical in {}; Aider over budget {}×, ours (aider profile) {}×",
        sum.aider_tags_self, sum.default_vs_fixed, sum.aider_over, sum.ours_aider_over
    )?;
    for t in &sum.token_mismatches {
        writeln!(out, "  token count mismatch: {t}")?;
    }
    for f in failures {
        writeln!(out, "  gate: {f}")?;
    }
    Ok(())
}

/// A repository's totals in the artifact.
fn summary_json(sum: &Summary) -> Value {
    json!({
        "tags_exact": sum.tags_exact.json(),
        "tags_distinct": sum.tags_distinct.json(),
        "tags_distinct_no_fallback": sum.tags_no_fallback.json(),
        "aider_tags_self": sum.aider_tags_self.json(),
        "vs_fixed": sum.fixed.json(),
        "vs_pinned": sum.pinned.json(),
        "vs_stock": sum.stock.json(),
        "fixed_vs_stock": sum.fixed_vs_stock.json(),
        "default_profile_vs_fixed": sum.default_vs_fixed.json(),
        "default_over_budget": sum.default_over.json(),
        "fixed_aider_over_budget": sum.aider_over,
        "ours_aider_profile_over_budget": sum.ours_aider_over,
        "deterministic": sum.deterministic.json(),
        "token_count_mismatches": sum.token_mismatches,
    })
}

/// The artifact: the comparator tuple, the settings, every repository, the gate.
fn artifact(
    measured: &[Measured<'_>],
    opts: &Options,
    mode: &str,
    exe: &Path,
    started: Instant,
    reported: &Reported,
) -> Value {
    json!({
        "tool": "cargo xtask parity",
        "mode": mode,
        "created_unix": SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "elapsed_seconds": started.elapsed().as_secs_f64(),
        "comparator_tuple": {
            "fixed": &measured[0].fixed[0].comparator,
            "pinned": &measured[0].pinned[0].comparator,
            "stock": &measured[0].stock[0].comparator,
            "ours": {
                "commit": tools::our_commit(),
                "binary": exe,
                "profiles": PROFILES,
                "gated_profile": "aider",
                "tokenizer": {"id": "cl100k_base", "library": "tiktoken-rs",
                              "count": "encode_ordinary(text).len()"},
            },
            "fixtures_sha256": measured.iter().map(|m| (m.repo.spec.name.clone(), json!(m.repo.sha256)))
                .collect::<serde_json::Map<_, _>>(),
        },
        "settings": {
            "pin_captures": opts.pin_captures,
            "fixed_seeds": opts.fixed_seeds, "pinned_seeds": opts.pinned_seeds,
            "stock_seeds": opts.stock_seeds,
            "repeat": opts.repeat, "budgets": BUDGETS, "context_window": CONTEXT_WINDOW,
            "thresholds": {"min_jaccard": MIN_JACCARD, "min_spearman": MIN_SPEARMAN,
                           "max_rank_rel_err": MAX_RANK_ERR},
        },
        "repos": reported.repos_json,
        "gate": {"pass": reported.all_failures.is_empty(), "failures": reported.all_failures},
    })
}

/// The comparators' versions and the number of processes and runs.
fn print_comparators(fixed_tuple: &Value, opts: &Options) {
    let versions = &fixed_tuple["versions"];
    println!(
        "comparators{}: aider-chat {} (fixed: patched aider/repomap.py sha256 {} → {}; stock: unpatched), grep-ast {}, tree-sitter-language-pack {}, tree-sitter {}, networkx {}, tiktoken {} ({}, encode_ordinary); processes (PYTHONHASHSEED 1..=N) fixed {} pinned {} stock {}; ours {} ×{} runs",
        if opts.pin_captures {
            " (--pin-captures: capture order pinned in every comparator)"
        } else {
            ""
        },
        versions["aider-chat"].as_str().unwrap_or("?"),
        short(&fixed_tuple["patch"]["sha256"]),
        short(&fixed_tuple["patch"]["patched_sha256"]),
        versions["grep-ast"].as_str().unwrap_or("?"),
        versions["tree-sitter-language-pack"]
            .as_str()
            .unwrap_or("?"),
        versions["tree-sitter"].as_str().unwrap_or("?"),
        versions["networkx"].as_str().unwrap_or("?"),
        versions["tiktoken"].as_str().unwrap_or("?"),
        fixed_tuple["tokenizer"]["id"].as_str().unwrap_or("?"),
        opts.fixed_seeds,
        opts.pinned_seeds,
        opts.stock_seeds,
        tools::our_commit(),
        opts.repeat,
    );
}

fn short(v: &Value) -> String {
    v.as_str()
        .map_or("?".into(), |s| s.chars().take(12).collect())
}
