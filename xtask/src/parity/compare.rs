//! The measures: what each tool produced, read back, and how far apart they are.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use anyhow::{Context, Result};
use repo_mapper_tags::{Tag, TagKind};
use serde_json::{Value, json};

/// One `repo-mapper --format json` run.
#[derive(Debug, Clone)]
pub(super) struct OursRun {
    /// The whole output but its `timings` (which measure the run, so differ between
    /// runs), for the determinism check.
    pub raw: String,
    pub map: Option<String>,
    pub tokens: Option<f64>,
    pub budget: f64,
    pub file_ranks: BTreeMap<String, f64>,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub file: String,
    pub ident: Option<String>,
    pub line: Option<i64>,
    pub rank: Option<f64>,
    pub stage: String,
    pub in_map: bool,
}

impl OursRun {
    pub(super) fn parse(raw: String) -> Result<OursRun> {
        let v: Value = serde_json::from_str(&raw).context("repo-mapper printed no JSON")?;
        let entries = v["entries"]
            .as_array()
            .context("no entries")?
            .iter()
            .map(|e| Entry {
                file: e["file"].as_str().unwrap_or_default().to_owned(),
                ident: e["ident"].as_str().map(str::to_owned),
                line: e["line"].as_i64(),
                rank: e["rank"].as_f64(),
                stage: e["stage"].as_str().unwrap_or_default().to_owned(),
                in_map: e["in_map"].as_bool().unwrap_or(false),
            })
            .collect();
        Ok(OursRun {
            map: v["map"].as_str().map(str::to_owned),
            tokens: v["tokens"].as_f64(),
            budget: v["budget"].as_f64().unwrap_or(0.0),
            file_ranks: float_map(&v["file_ranks"]),
            entries,
            raw: without_timings(&raw),
        })
    }
}

/// Pretty-printed JSON `raw` without its top-level `"timings": { … }` object (cut from the
/// text: a round trip through serde_json would change the floats' last digits).
fn without_timings(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut skipping = false;
    for line in raw.lines() {
        if line == "  \"timings\": {" {
            skipping = true;
        } else if skipping {
            skipping = !line.starts_with("  }");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// What the driver computed for one scenario.
#[derive(Debug, Clone)]
pub(super) struct AiderRun {
    pub map: Option<String>,
    /// The exception that escaped `get_repo_map`, if any.
    pub error: Option<String>,
    /// Aider's estimate (`RepoMap.token_count`) of its map.
    pub tokens: Option<f64>,
    /// `get_ranked_tags()`: `(file, Some((line, ident)))` for a tag, `(file, None)` for a file.
    pub ranked: Vec<(String, Option<(i64, String)>)>,
    pub file_ranks: BTreeMap<String, f64>,
    pub def_ranks: BTreeMap<(String, String), f64>,
}

/// One file's tags as the driver writes them: (1-based line, kind, name).
pub(super) type AiderTags = Vec<(i64, String, String)>;

/// One driver process: the comparator tuple, the tags, the scenarios.
#[derive(Debug, Clone)]
pub(super) struct AiderOutput {
    pub comparator: Value,
    pub tags: Option<BTreeMap<String, AiderTags>>,
    pub scenarios: BTreeMap<String, AiderRun>,
}

impl AiderOutput {
    pub(super) fn parse(text: &str) -> Result<AiderOutput> {
        let v: Value = serde_json::from_str(text).context("the driver wrote no JSON")?;
        let tags = v["tags"].as_object().map(|o| {
            o.iter()
                .map(|(file, rows)| {
                    let rows = rows
                        .as_array()
                        .map(|rows| {
                            rows.iter()
                                .map(|r| {
                                    (
                                        r[0].as_i64().unwrap_or(0),
                                        r[1].as_str().unwrap_or_default().to_owned(),
                                        r[2].as_str().unwrap_or_default().to_owned(),
                                    )
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    (file.clone(), rows)
                })
                .collect()
        });
        let mut scenarios = BTreeMap::new();
        for s in v["scenarios"].as_array().context("no scenarios")? {
            let ranked = s["ranked"]
                .as_array()
                .map(|rows| {
                    rows.iter()
                        .map(|r| {
                            let file = r[0].as_str().unwrap_or_default().to_owned();
                            let tag = r[1]
                                .as_i64()
                                .map(|line| (line, r[2].as_str().unwrap_or_default().to_owned()));
                            (file, tag)
                        })
                        .collect()
                })
                .unwrap_or_default();
            let def_ranks = s["definition_ranks"]
                .as_array()
                .map(|rows| {
                    rows.iter()
                        .map(|r| {
                            let key = (
                                r[0].as_str().unwrap_or_default().to_owned(),
                                r[1].as_str().unwrap_or_default().to_owned(),
                            );
                            (key, r[2].as_f64().unwrap_or(f64::NAN))
                        })
                        .collect()
                })
                .unwrap_or_default();
            scenarios.insert(
                s["id"].as_str().unwrap_or_default().to_owned(),
                AiderRun {
                    map: s["map"].as_str().map(str::to_owned),
                    error: s["error"].as_str().map(str::to_owned),
                    tokens: s["tokens"].as_f64(),
                    ranked,
                    file_ranks: float_map(&s["file_ranks"]),
                    def_ranks,
                },
            );
        }
        Ok(AiderOutput {
            comparator: v["comparator"].clone(),
            tags,
            scenarios,
        })
    }
}

fn float_map(v: &Value) -> BTreeMap<String, f64> {
    v.as_object()
        .map(|o| {
            o.iter()
                .filter_map(|(k, x)| x.as_f64().map(|x| (k.clone(), x)))
                .collect()
        })
        .unwrap_or_default()
}

/// The only normalisations allowed: line endings, and path separators in file headers.
/// (Stage 3's order needs none in the text: `to_tree` sorts its entries by file.)
pub(super) fn normalise_map(text: Option<&str>, files: &HashSet<&str>) -> String {
    let Some(text) = text else {
        return String::new();
    };
    let text = text.replace("\r\n", "\n");
    text.split('\n')
        .map(|line| {
            let header = line.strip_suffix(':').unwrap_or(line);
            let slashed = header.replace('\\', "/");
            if slashed != header && files.contains(slashed.as_str()) {
                line.replace('\\', "/")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first differing line of two maps (1-based), with both lines and the file section
/// it falls in.
pub(super) fn first_difference(ours: &str, theirs: &str, files: &HashSet<&str>) -> Option<Value> {
    let a: Vec<&str> = ours.split('\n').collect();
    let b: Vec<&str> = theirs.split('\n').collect();
    let i = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i))?;
    let section = |lines: &[&str]| {
        lines[..i.min(lines.len())]
            .iter()
            .rev()
            .chain(lines.get(i))
            .find(|l| files.contains(l.strip_suffix(':').unwrap_or(l)))
            .map(|l| l.strip_suffix(':').unwrap_or(l).to_owned())
    };
    Some(json!({
        "line": i + 1,
        "ours": a.get(i),
        "aider": b.get(i),
        "file": section(&a).or_else(|| section(&b)),
    }))
}

/// |a − b| / max(|a|, |b|); 0 when equal.
pub(super) fn rel_err(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / a.abs().max(b.abs())
    }
}

/// Largest relative error over the union of two keyed value sets; a key missing on one
/// side counts as error 1.
pub(super) fn max_rel_err<K: Ord + Clone + std::fmt::Debug>(
    ours: &BTreeMap<K, f64>,
    theirs: &BTreeMap<K, f64>,
) -> (f64, Option<Value>, usize) {
    let mut worst = (0.0, None);
    let mut missing = 0;
    let keys: BTreeSet<&K> = ours.keys().chain(theirs.keys()).collect();
    for k in keys {
        let err = match (ours.get(k), theirs.get(k)) {
            (Some(&a), Some(&b)) => rel_err(a, b),
            _ => {
                missing += 1;
                1.0
            }
        };
        if err > worst.0 || (err.is_nan() && !worst.0.is_nan()) {
            worst = (
                err,
                Some(json!({"key": format!("{k:?}"), "ours": ours.get(k), "aider": theirs.get(k)})),
            );
        }
    }
    (worst.0, worst.1, missing)
}

/// Our per-(file, identifier) ranks: the definition entries (chat files are not listed).
pub(super) fn our_def_ranks(run: &OursRun) -> BTreeMap<(String, String), f64> {
    run.entries
        .iter()
        .filter(|e| e.stage == "definition")
        .filter_map(|e| Some(((e.file.clone(), e.ident.clone()?), e.rank?)))
        .collect()
}

/// Aider's per-(file, identifier) ranks without the chat files (whose definitions it does
/// not list either).
pub(super) fn aider_def_ranks(run: &AiderRun, chat: &[String]) -> BTreeMap<(String, String), f64> {
    // Only (file, identifier) pairs with a definition tag in the ranked list are listed.
    let listed: HashSet<(&str, &str)> = run
        .ranked
        .iter()
        .filter_map(|(f, t)| t.as_ref().map(|(_, n)| (f.as_str(), n.as_str())))
        .collect();
    run.def_ranks
        .iter()
        .filter(|((f, i), _)| !chat.contains(f) && listed.contains(&(f.as_str(), i.as_str())))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// The ranked files, in order of first appearance in the definition and graph-file stages,
/// chat files excluded.
pub(super) fn our_top_files(run: &OursRun, chat: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    run.entries
        .iter()
        .filter(|e| e.stage == "definition" || e.stage == "graph_file")
        .filter(|e| !chat.contains(&e.file))
        .filter(|e| seen.insert(e.file.clone()))
        .map(|e| e.file.clone())
        .collect()
}

/// The same for Aider: its ranked list, restricted to graph nodes (stage 3, the files
/// outside the graph, has no order).
pub(super) fn aider_top_files(run: &AiderRun, chat: &[String]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    run.ranked
        .iter()
        .map(|(f, _)| f)
        .filter(|f| run.file_ranks.contains_key(*f) && !chat.contains(f))
        .filter(|f| seen.insert((*f).clone()))
        .cloned()
        .collect()
}

/// Seed gate A1: Jaccard of the top-K files (K = 30, or the number of eligible files when
/// fewer) and Spearman's rho over the shared ones (None when fewer than 3 are shared).
pub(super) fn a1(ours: &[String], theirs: &[String]) -> (usize, f64, Option<f64>) {
    let k = 30.min(ours.len().max(theirs.len()));
    if k == 0 {
        return (0, 1.0, None);
    }
    let a: Vec<&String> = ours.iter().take(k).collect();
    let b: Vec<&String> = theirs.iter().take(k).collect();
    let sa: BTreeSet<&String> = a.iter().copied().collect();
    let sb: BTreeSet<&String> = b.iter().copied().collect();
    let shared: BTreeSet<&String> = sa.intersection(&sb).copied().collect();
    let jaccard = shared.len() as f64 / sa.union(&sb).count() as f64;
    let n = shared.len();
    if n < 3 {
        return (k, jaccard, None);
    }
    let ranks = |list: &[&String]| -> BTreeMap<String, usize> {
        list.iter()
            .filter(|f| shared.contains(*f))
            .enumerate()
            .map(|(i, f)| ((*f).clone(), i))
            .collect()
    };
    let (ra, rb) = (ranks(&a), ranks(&b));
    let d2: f64 = ra
        .iter()
        .map(|(f, &i)| {
            let d = i as f64 - rb[f] as f64;
            d * d
        })
        .sum();
    let n = n as f64;
    (k, jaccard, Some(1.0 - 6.0 * d2 / (n * (n * n - 1.0))))
}

/// One file's tags compared: exact multiset, distinct tags, distinct tags without the
/// fallback references (line −1), and the first difference.
#[derive(Debug, Clone)]
pub(super) struct TagCompare {
    pub exact: bool,
    pub distinct: bool,
    pub distinct_no_fallback: bool,
    pub first_diff: Option<String>,
}

pub(super) fn compare_tags(ours: &[Tag], theirs: &[(i64, String, String)]) -> TagCompare {
    let a: Vec<(i64, String, String)> = ours
        .iter()
        .map(|t| {
            let kind = match t.kind {
                TagKind::Def => "def",
                TagKind::Ref => "ref",
            };
            (i64::from(t.line), kind.to_owned(), t.name.clone())
        })
        .collect();
    let count = |v: &[(i64, String, String)]| {
        let mut m: BTreeMap<(i64, String, String), usize> = BTreeMap::new();
        for t in v {
            *m.entry(t.clone()).or_default() += 1;
        }
        m
    };
    let (ca, cb) = (count(&a), count(theirs));
    let distinct = |c: &BTreeMap<(i64, String, String), usize>, fallback: bool| {
        c.keys()
            .filter(|k| fallback || k.0 != -1)
            .cloned()
            .collect::<BTreeSet<_>>()
    };
    let first_diff = ca
        .keys()
        .chain(cb.keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .find(|k| ca.get(*k) != cb.get(*k))
        .map(|k| {
            format!(
                "{} {} {}: ours ×{}, aider ×{}",
                k.0,
                k.1,
                k.2,
                ca.get(k).unwrap_or(&0),
                cb.get(k).unwrap_or(&0)
            )
        });
    TagCompare {
        exact: ca == cb,
        distinct: distinct(&ca, true) == distinct(&cb, true),
        distinct_no_fallback: distinct(&ca, false) == distinct(&cb, false),
        first_diff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn determinism_ignores_only_the_timings() {
        let run = |ms: f64| {
            let v = json!({"map": "m", "scan": {"files": 2}, "timings": {"scan_ms": ms}});
            serde_json::to_string_pretty(&v).unwrap()
        };
        assert_eq!(without_timings(&run(1.5)), without_timings(&run(2.5)));
        assert!(without_timings(&run(1.5)).contains("\"scan\": {"));
        assert!(!without_timings(&run(1.5)).contains("scan_ms"));
    }

    #[test]
    fn a1_follows_the_seed_definition() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let (k, j, rho) = a1(&v(&["a", "b", "c", "d"]), &v(&["a", "b", "c", "d"]));
        assert_eq!((k, j, rho), (4, 1.0, Some(1.0)));
        let (_, j, rho) = a1(&v(&["a", "b", "c", "d"]), &v(&["d", "c", "b", "a"]));
        assert_eq!((j, rho), (1.0, Some(-1.0)));
        let (_, j, rho) = a1(&v(&["a", "b"]), &v(&["a", "c"]));
        assert_eq!((j, rho), (1.0 / 3.0, None));
    }

    #[test]
    fn relative_errors() {
        assert_eq!(rel_err(1.0, 1.0), 0.0);
        assert!((rel_err(1.0, 1.0 + 1e-12) - 1e-12).abs() < 1e-15);
        let a = BTreeMap::from([("x", 1.0), ("y", 2.0)]);
        let b = BTreeMap::from([("x", 1.0)]);
        assert_eq!(max_rel_err(&a, &b).2, 1);
    }

    #[test]
    fn map_normalisation_touches_only_line_endings_and_headers() {
        let files: HashSet<&str> = ["src/a.py"].into();
        let text = "src\\a.py:\r\n│x = \"\\\\\"\r\n";
        assert_eq!(
            normalise_map(Some(text), &files),
            "src/a.py:\n│x = \"\\\\\"\n"
        );
    }
}
