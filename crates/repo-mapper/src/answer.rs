//! [`Answer`]: a map asked for together with what the user said, and its JSON — the one
//! shape both the CLI (`--format json`) and the MCP server (`repo_map`) print.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::config::{Config, profile_name};
use crate::map::RepoMap;
use crate::mentions::Mentions;
use crate::paths::rel_fname;
use crate::request::{MapOutput, MapReport, MapRequest, NoMap};
use repo_mapper_render::escape_control;

/// What a map request made, with the mentions found in the user's message.
#[derive(Debug)]
#[non_exhaustive]
pub struct Answer {
    /// The map, or why there is none.
    pub result: Result<MapOutput, NoMap>,
    /// What the message mentioned (`None` without a message).
    pub mentions: Option<Mentions>,
    /// The request's chat files, relative to the root: ranked, never shown.
    chat: HashSet<String>,
}

impl RepoMap {
    /// The map for `request` and the user's `message`: the files and identifiers the
    /// message mentions are added to the request, its words feed the default profile's
    /// lexical score, and an empty map is asked for again as Aider does
    /// ([`RepoMap::map_with_fallback`]). Without a message, `request` alone, with the
    /// fallback if `fallback`.
    ///
    /// ```
    /// use repo_mapper::{CacheLocation, Config, MapRequest, RepoMap};
    ///
    /// let root = std::env::temp_dir().join(format!("repo-mapper-answer-{}", std::process::id()));
    /// std::fs::create_dir_all(&root)?;
    /// std::fs::write(root.join("shop.py"), "class Order:\n    pass\n")?;
    /// std::fs::write(root.join("app.py"), "print(1)\n")?;
    /// let mut config = Config::new(&root);
    /// config.cache = CacheLocation::Memory;
    /// let mut session = RepoMap::new(config);
    /// let request = MapRequest::new(repo_mapper::list_files(&root, None));
    /// let answer = session.answer(request, Some("Fix shop.py"), true);
    /// assert!(answer.mentions.as_ref().unwrap().files.contains("shop.py"));
    /// let json = answer.to_json(session.config());
    /// assert!(json["map"].as_str().unwrap().contains("class Order"));
    /// assert_eq!(json["attempt"], 1);
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn answer(&mut self, request: MapRequest, message: Option<&str>, fallback: bool) -> Answer {
        let root = &self.config.root;
        let chat = request
            .chat_files
            .iter()
            .map(|f| rel_fname(root, f))
            .collect();
        let Some(message) = message else {
            let result = if fallback {
                self.map_with_fallback(&request)
            } else {
                self.map(&request)
            };
            return Answer {
                result,
                mentions: None,
                chat,
            };
        };
        let mentions = self.mentions(&request, message);
        let mut request = request.with_message(message.to_owned());
        request
            .mentioned_files
            .extend(mentions.files.iter().cloned());
        request
            .mentioned_idents
            .extend(mentions.idents.iter().cloned());
        Answer {
            result: self.map_with_fallback(&request),
            mentions: Some(mentions),
            chat,
        }
    }
}

impl Answer {
    /// The report of the computation that made the answer (`None`: none ran).
    pub fn report(&self) -> Option<&MapReport> {
        match &self.result {
            Ok(out) => Some(&out.report),
            Err(why) => why.report(),
        }
    }

    /// The answer as JSON: `map` (`null` without one), `error` (why there is none, else
    /// `null`), `budget`, `tokens`, `files`, `included_files` (the files the map shows),
    /// `attempt`, `from_cache`, `mentions`, `profile`, `tokenizer`, `scan` and `timings`
    /// (milliseconds per step); with [`Config::full_report`], `entries` (the ranked list)
    /// and `file_ranks` too. File names are escaped ([`escape_control`]).
    pub fn to_json(&self, config: &Config) -> Map<String, Value> {
        let report = self.report();
        let out = self.result.as_ref().ok();
        let fields = json!({
            "map": out.map(|o| o.text.as_str()),
            "error": self.result.as_ref().err().map(ToString::to_string),
            "budget": report.map_or(config.map_tokens, |r| r.budget),
            "tokens": report.and_then(|r| r.tokens),
            "files": report.map(|r| r.files),
            "included_files": report.map(|r| self.included_files(r)),
            "attempt": out.map(|o| o.attempt.number()),
            "from_cache": out.is_some_and(|o| o.from_cache),
            "mentions": self.mentions.as_ref().map(mentions_json),
            "profile": profile_name(config.profile()),
            "tokenizer": config.tokenizer.name(),
            "scan": report.map(scan_json),
            "timings": report.map(timings_json),
        });
        let Value::Object(mut json) = fields else {
            return Map::new(); // `json!({…})` is an object
        };
        if config.full_report {
            json.insert(
                "entries".into(),
                report.map_or_else(|| json!([]), entries_json),
            );
            json.insert("file_ranks".into(), json!(report.map(file_ranks_json)));
        }
        json
    }

    /// The files the map shows, in map order, once each (chat files rank but are never
    /// shown).
    fn included_files(&self, report: &MapReport) -> Vec<String> {
        let mut seen = HashSet::new();
        let shown = (report.entries.iter()).filter(|e| e.in_map && !self.chat.contains(&e.file));
        shown
            .map(|e| e.file.as_str())
            .filter(|f| seen.insert(*f))
            .map(|f| escape_control(f).into_owned())
            .collect()
    }
}

fn mentions_json(m: &Mentions) -> Value {
    let files: Vec<_> = m.files.iter().map(|f| escape_control(f)).collect();
    json!({"files": files, "idents": m.idents})
}

fn entries_json(report: &MapReport) -> Value {
    let entries = report.entries.iter().map(|e| {
        json!({
            "file": escape_control(&e.file),
            "ident": e.ident,
            "line": e.line,
            "rank": e.rank,
            "stage": e.stage.as_str(),
            "in_map": e.in_map,
        })
    });
    Value::Array(entries.collect())
}

fn file_ranks_json(report: &MapReport) -> Map<String, Value> {
    let ranks = report.file_ranks.iter();
    ranks
        .map(|(f, rank)| (escape_control(f).into_owned(), json!(rank)))
        .collect()
}

/// What the tag scan did (these counts differ between a cold and a warm run).
fn scan_json(report: &MapReport) -> Value {
    let s = &report.scan;
    json!({
        "files": s.files,
        "checked": report.checked,
        "hits": s.hits,
        "hash_hits": s.hash_hits,
        "read": s.misses + s.hash_hits + s.errors,
        "parsed": s.misses,
        "skipped": s.skipped,
        "too_large": s.too_large,
        "errors": s.errors,
    })
}

/// Where the computation spent its time, in milliseconds per step.
fn timings_json(report: &MapReport) -> Value {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let (t, rank) = (&report.timings, &report.timings.rank);
    json!({
        "history_ms": ms(t.history),
        "admit_ms": ms(t.admit),
        "scan_ms": ms(t.scan),
        "index_ms": ms(rank.index),
        "graph_ms": ms(rank.graph),
        "pagerank_ms": ms(rank.pagerank),
        "list_ms": ms(rank.list),
        "fit_ms": ms(t.fit),
        "report_ms": ms(t.report),
        "total_ms": ms(report.elapsed),
    })
}
