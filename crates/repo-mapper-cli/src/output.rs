//! What goes to stdout: the map, or with `--format json` the map and its report.

use std::borrow::Cow;
use std::io::Write;

use repo_mapper::{Attempt, Config, MapReport, Mentions, escape_control, profile_name};

use crate::args::Format;

/// What a run made: the map (`None`: no map), its report, and with `--message` the
/// mentions derived from it and the fallback attempt that made the map.
pub(crate) struct Made<'a> {
    pub text: Option<&'a str>,
    pub report: Option<&'a MapReport>,
    pub attempt: Option<Attempt>,
    pub mentions: Option<&'a Mentions>,
}

/// Writes what the run made in `format`.
pub(crate) fn write(
    out: &mut impl Write,
    format: Format,
    made: &Made<'_>,
    config: &Config,
) -> std::io::Result<()> {
    let (text, report) = (made.text, made.report);
    match format {
        Format::Json => {
            let mut json = report_json(report, text, config);
            json["attempt"] = serde_json::json!(made.attempt.map(Attempt::number));
            json["mentions"] = serde_json::json!(made.mentions.map(|m| serde_json::json!({
                "files": m.files.iter().map(|f| escape_control(f)).collect::<Vec<_>>(),
                "idents": m.idents,
            })));
            let json = serde_json::to_string_pretty(&json).expect("JSON values serialise");
            writeln!(out, "{}", escape_json_controls(&json))?;
        }
        Format::Text => out.write_all(text.unwrap_or_default().as_bytes())?,
    }
    out.flush()
}

fn report_json(
    report: Option<&MapReport>,
    text: Option<&str>,
    config: &Config,
) -> serde_json::Value {
    let entries: Vec<serde_json::Value> = report
        .map(|r| {
            r.entries
                .iter()
                .map(|e| {
                    serde_json::json!({
                        "file": escape_control(&e.file),
                        "ident": e.ident,
                        "line": e.line,
                        "rank": e.rank,
                        "stage": e.stage.as_str(),
                        "in_map": e.in_map,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let file_ranks = report.map(|r| {
        r.file_ranks
            .iter()
            .map(|(f, rank)| (escape_control(f).into_owned(), serde_json::json!(rank)))
            .collect::<serde_json::Map<_, _>>()
    });
    serde_json::json!({
        "map": text,
        "tokens": report.and_then(|r| r.tokens),
        "budget": report.map_or(config.map_tokens, |r| r.budget),
        "profile": profile_name(config.profile()),
        "tokenizer": config.tokenizer.name(),
        "files": report.map(|r| r.files),
        "file_ranks": file_ranks,
        "entries": entries,
        "scan": report.map(scan_json),
        "timings": report.map(timings_json),
    })
}

/// What the tag scan did (these counts differ between a cold and a warm run).
fn scan_json(report: &MapReport) -> serde_json::Value {
    let s = &report.scan;
    serde_json::json!({
        "files": s.files,
        "hits": s.hits,
        "hash_hits": s.hash_hits,
        "parsed": s.misses,
        "skipped": s.skipped,
        "too_large": s.too_large,
        "errors": s.errors,
    })
}

/// Where the computation spent its time, in milliseconds per step.
fn timings_json(report: &MapReport) -> serde_json::Value {
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1000.0;
    let t = &report.timings;
    serde_json::json!({
        "admit_ms": ms(t.admit),
        "scan_ms": ms(t.scan),
        "index_ms": ms(t.rank.index),
        "graph_ms": ms(t.rank.graph),
        "pagerank_ms": ms(t.rank.pagerank),
        "list_ms": ms(t.rank.list),
        "fit_ms": ms(t.fit),
        "total_ms": ms(report.elapsed),
    })
}

/// serde_json escapes U+0000–U+001F in strings but leaves DEL and C1 controls raw (JSON
/// allows them): escape those too, as `\u007f`. Outside strings pretty JSON has only `\n`
/// and spaces, so every other control character is inside a string.
fn escape_json_controls(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_no_raw_control_character_but_its_line_breaks() {
        let json =
            serde_json::to_string_pretty(&serde_json::json!({"f": "a\x7f\u{85}\n\x1b"})).unwrap();
        let escaped = escape_json_controls(&json);
        assert!(!escaped.chars().any(|c| c.is_control() && c != '\n'));
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["f"], "a\x7f\u{85}\n\x1b");
    }
}
