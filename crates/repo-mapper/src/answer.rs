//! [`Answer`]: a map asked for together with what the user said, and its JSON — the one
//! shape both the CLI (`--format json`) and the MCP server (`repo_map`) print.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Serialize, Serializer};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::{Map, Value};

use crate::config::{Config, profile_name};
use crate::map::{RepoMap, put_back, take_out};
use crate::mentions::Mentions;
use crate::paths::rel_fname;
use crate::request::{MapOutput, MapReport, MapRequest, NoMap, ReportEntry};
use repo_mapper_rank::Why;
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
    /// The request's other files, given back ([`Answer::take_other_files`]).
    other_files: Vec<PathBuf>,
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
    pub fn answer(
        &mut self,
        mut request: MapRequest,
        message: Option<&str>,
        fallback: bool,
    ) -> Answer {
        // A chat file is no other file: taken out here, in place, and put back for the
        // caller (`take_other_files`), instead of the map copying every other file.
        let taken = take_out(&mut request.other_files, &request.chat_files);
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
                other_files: put_back(request.other_files, taken),
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
            other_files: put_back(request.other_files, taken),
        }
    }
}

impl Answer {
    /// The other files of the request the answer was made for, moved out (empty after
    /// the first call): a caller that lent it every file of a repository takes them back
    /// instead of copying them for each request.
    pub fn take_other_files(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.other_files)
    }

    /// The report of the computation that made the answer (`None`: none ran).
    pub fn report(&self) -> Option<&MapReport> {
        match &self.result {
            Ok(out) => Some(&out.report),
            Err(why) => why.report(),
        }
    }

    /// The answer as JSON: `map` (`null` without one), `error` (why there is none, else
    /// `null`), `budget`, `tokens`, `files`, `included_files` (the files the map shows),
    /// `attempt`, `from_cache`, `mentions` (`files` and `idents`, the first of each within
    /// a bound, and how many there are: `files_count`, `idents_count`), `profile`,
    /// `tokenizer`, `scan` and `timings`
    /// (milliseconds per step); with [`Config::full_report`], `entries` (the ranked list)
    /// and `file_ranks` too. File names are escaped ([`escape_control`]).
    pub fn to_json(&self, config: &Config) -> Map<String, Value> {
        match serde_json::to_value(self.json(config, true)) {
            Ok(Value::Object(json)) => json,
            _ => Map::new(), // a struct of strings, numbers and lists serialises to an object
        }
    }

    /// Writes [`Answer::to_json`] without `error` (the caller reports it otherwise),
    /// pretty-printed (keys in order, two spaces a level) with every control character
    /// escaped in strings, DEL and C1 too (JSON allows those raw), then a line break: as
    /// it is serialised, with no JSON value built first (a full report lists every ranked
    /// definition, 50,000 on Django).
    pub fn write_json(&self, config: &Config, out: &mut impl Write) -> std::io::Result<()> {
        let mut out = BufWriter::with_capacity(1 << 16, out);
        let formatter = EscapingFormatter(PrettyFormatter::new());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        self.json(config, false)
            .serialize(&mut serializer)
            .map_err(std::io::Error::other)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// The JSON's fields, borrowed; `error` only `with_error`.
    fn json<'a>(&'a self, config: &'a Config, with_error: bool) -> AnswerJson<'a> {
        let report = self.report();
        let out = self.result.as_ref().ok();
        let full = config.full_report;
        AnswerJson {
            attempt: out.map(|o| o.attempt.number()),
            budget: report.map_or(config.map_tokens, |r| r.budget),
            entries: full.then(|| EntriesJson::of(report)),
            error: with_error.then(|| self.result.as_ref().err().map(ToString::to_string)),
            file_ranks: full.then(|| report.map(file_ranks)),
            files: report.map(|r| r.files),
            from_cache: out.is_some_and(|o| o.from_cache),
            included_files: report.map(|r| self.included_files(r)),
            map: out.map(|o| o.text.as_str()),
            mentions: self.mentions.as_ref().map(MentionsJson::of),
            profile: profile_name(config.profile()),
            scan: report.map(ScanJson::of),
            timings: report.map(TimingsJson::of),
            tokenizer: config.tokenizer.name(),
            tokens: report.and_then(|r| r.tokens),
        }
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

/// An answer's JSON, fields in key order (as `serde_json::Map` orders them).
#[derive(Serialize)]
struct AnswerJson<'a> {
    attempt: Option<u8>,
    budget: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<EntriesJson<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Option<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_ranks: Option<Option<BTreeMap<Cow<'a, str>, f64>>>,
    files: Option<usize>,
    from_cache: bool,
    included_files: Option<Vec<String>>,
    map: Option<&'a str>,
    mentions: Option<MentionsJson<'a>>,
    profile: &'static str,
    scan: Option<ScanJson>,
    timings: Option<TimingsJson>,
    tokenizer: &'static str,
    tokens: Option<f64>,
}

/// What a message mentioned, as the report echoes it: the first of each kind, within
/// [`ECHOED_NAMES`] names and [`ECHOED_BYTES`] bytes (a message may name every
/// identifier there is, or be one word of megabytes), and how many there are.
#[derive(Serialize)]
struct MentionsJson<'a> {
    files: Vec<Cow<'a, str>>,
    files_count: usize,
    idents: Vec<&'a str>,
    idents_count: usize,
}

/// The most names of one kind (files, identifiers) a report's `mentions` lists.
const ECHOED_NAMES: usize = 100;

/// The most bytes the names of one kind that a report's `mentions` lists take together.
const ECHOED_BYTES: usize = 4_000;

impl<'a> MentionsJson<'a> {
    fn of(mentions: &'a Mentions) -> MentionsJson<'a> {
        let files = mentions.files.iter().map(|f| escape_control(f));
        MentionsJson {
            files: echoed(files),
            files_count: mentions.files.len(),
            idents: echoed(mentions.idents.iter().map(String::as_str)),
            idents_count: mentions.idents.len(),
        }
    }
}

/// The first names, in order, that fit together within [`ECHOED_BYTES`], at most
/// [`ECHOED_NAMES`] of them; a name longer than what is left is passed over.
fn echoed<S: AsRef<str>>(names: impl Iterator<Item = S>) -> Vec<S> {
    let mut left = ECHOED_BYTES;
    names
        .filter(|name| match name.as_ref().len() {
            len if len <= left => {
                left -= len;
                true
            }
            _ => false,
        })
        .take(ECHOED_NAMES)
        .collect()
}

/// A ranked entry's JSON, fields in key order.
#[derive(Serialize)]
struct EntryJson<'a> {
    file: Cow<'a, str>,
    ident: Option<&'a str>,
    in_map: bool,
    line: Option<i32>,
    rank: Option<f64>,
    stage: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    why: Option<WhyJson>,
}

/// A report entry's `why`, fields in key order; a signal that did not point at the file
/// (0) is left out.
#[derive(Serialize)]
struct WhyJson {
    #[serde(skip_serializing_if = "is_zero")]
    caller: f64,
    #[serde(skip_serializing_if = "is_zero")]
    clue: f64,
    #[serde(skip_serializing_if = "is_zero")]
    co_change: f64,
    graph: f64,
    #[serde(skip_serializing_if = "is_zero")]
    lexical: f64,
    #[serde(skip_serializing_if = "is_zero")]
    personalization: f64,
}

impl WhyJson {
    fn of(why: &Why) -> WhyJson {
        WhyJson {
            caller: why.caller,
            clue: why.clue,
            co_change: why.co_change,
            graph: why.graph,
            lexical: why.lexical,
            personalization: why.personalization,
        }
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The ranked list, each entry serialised as it is written, with the signals that
/// placed its file ([`MapReport::whys`]).
struct EntriesJson<'a> {
    entries: &'a [ReportEntry],
    whys: &'a [(String, Why)],
}

impl<'a> EntriesJson<'a> {
    fn of(report: Option<&'a MapReport>) -> EntriesJson<'a> {
        EntriesJson {
            entries: report.map_or(&[][..], |r| &r.entries[..]),
            whys: report.map_or(&[][..], |r| &r.whys[..]),
        }
    }

    fn why(&self, file: &str) -> Option<&Why> {
        let at = self.whys.binary_search_by(|(f, _)| f.as_str().cmp(file));
        at.ok().map(|i| &self.whys[i].1)
    }
}

impl Serialize for EntriesJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let entries = self.entries.iter().map(|e| EntryJson {
            file: escape_control(&e.file),
            ident: e.ident.as_deref(),
            in_map: e.in_map,
            line: e.line,
            rank: e.rank,
            stage: e.stage.as_str(),
            why: self.why(&e.file).map(WhyJson::of),
        });
        s.collect_seq(entries)
    }
}

/// Each file's rank by escaped name (a later rank of the same name replaces an earlier
/// one, as in a JSON object).
fn file_ranks(report: &MapReport) -> BTreeMap<Cow<'_, str>, f64> {
    (report.file_ranks.iter())
        .map(|(f, rank)| (escape_control(f), *rank))
        .collect()
}

/// What the tag scan did (these counts differ between a cold and a warm run).
#[derive(Serialize)]
struct ScanJson {
    checked: usize,
    errors: usize,
    files: usize,
    hash_hits: usize,
    hits: usize,
    parsed: usize,
    read: usize,
    skipped: usize,
    too_large: usize,
}

impl ScanJson {
    fn of(report: &MapReport) -> ScanJson {
        let s = &report.scan;
        ScanJson {
            checked: report.checked,
            errors: s.errors,
            files: s.files,
            hash_hits: s.hash_hits,
            hits: s.hits,
            parsed: s.misses,
            read: s.misses + s.hash_hits + s.errors,
            skipped: s.skipped,
            too_large: s.too_large,
        }
    }
}

/// Where the computation spent its time, in milliseconds per step.
#[derive(Serialize)]
struct TimingsJson {
    admit_ms: f64,
    fit_ms: f64,
    graph_ms: f64,
    history_ms: f64,
    index_ms: f64,
    list_ms: f64,
    pagerank_ms: f64,
    report_ms: f64,
    scan_ms: f64,
    total_ms: f64,
}

impl TimingsJson {
    fn of(report: &MapReport) -> TimingsJson {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let (t, rank) = (&report.timings, &report.timings.rank);
        TimingsJson {
            admit_ms: ms(t.admit),
            fit_ms: ms(t.fit),
            graph_ms: ms(rank.graph),
            history_ms: ms(t.history),
            index_ms: ms(rank.index),
            list_ms: ms(rank.list),
            pagerank_ms: ms(rank.pagerank),
            report_ms: ms(t.report),
            scan_ms: ms(t.scan),
            total_ms: ms(report.elapsed),
        }
    }
}

/// serde_json's pretty printer, escaping in strings the control characters it leaves
/// raw (DEL, U+007F, and the C1 controls, U+0080–U+009F) as `\u007f`: every control
/// character of the output is then escaped but its line breaks.
struct EscapingFormatter(PrettyFormatter<'static>);

impl Formatter for EscapingFormatter {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut rest = fragment;
        while let Some(at) = rest.find(|c: char| c.is_control()) {
            out.write_all(&rest.as_bytes()[..at])?;
            let c = rest[at..].chars().next().unwrap_or_default();
            write!(out, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        out.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.begin_array(out)
    }

    fn end_array<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.end_array(out)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(out, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(out)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.begin_object(out)
    }

    fn end_object<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.end_object(out)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(out, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(out)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, out: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CacheLocation, MapRequest, list_files};

    /// The JSON as the CLI printed it before it was streamed: the value built, printed
    /// pretty, then every control character but line breaks escaped.
    fn built_then_printed(answer: &Answer, config: &Config) -> String {
        let mut json = answer.to_json(config);
        json.remove("error");
        let pretty = serde_json::to_string_pretty(&json).unwrap();
        let mut out = String::new();
        for c in pretty.chars() {
            match c.is_control() && c != '\n' {
                true => out.push_str(&format!("\\u{:04x}", u32::from(c))),
                false => out.push(c),
            }
        }
        out + "\n"
    }

    /// However much a message mentions, the report echoes a bounded part of it, and says
    /// how much there was.
    #[test]
    fn the_mentions_echoed_are_bounded_and_counted() {
        let root = std::env::temp_dir().join(format!("repo-mapper-echo-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("shop.py"), "class Order:\n    pass\n").unwrap();
        let mut config = Config::new(&root);
        config.cache = CacheLocation::Memory;
        let mut session = RepoMap::new(config);
        let request = MapRequest::new(list_files(&root, None));
        let many: String = (0..20_000).map(|i| format!("ident{i} ")).collect();
        let long = format!("{} shop.py", "w".repeat(100_000));
        for (message, count) in [(many, 20_001), (long, 4)] {
            let answer = session.answer(request.clone(), Some(&message), true);
            let json = answer.to_json(session.config());
            let mentions = &json["mentions"];
            let idents = mentions["idents"].as_array().unwrap();
            assert_eq!(mentions["idents_count"], count);
            assert!(idents.len() <= ECHOED_NAMES, "{}", idents.len());
            let bytes: usize = idents.iter().map(|i| i.as_str().unwrap().len()).sum();
            assert!(bytes <= ECHOED_BYTES, "{bytes}");
            assert!(idents.contains(&"ident0".into()) || idents.contains(&"shop".into()));
            assert!(serde_json::to_string(&json).unwrap().len() < 3 * ECHOED_BYTES);
        }
        let answer = session.answer(request, Some("fix shop.py now"), true);
        let json = answer.to_json(session.config());
        assert_eq!(json["mentions"]["files"], serde_json::json!(["shop.py"]));
        assert_eq!(json["mentions"]["files_count"], 1);
        assert_eq!(json["mentions"]["idents_count"], 5, "{}", json["mentions"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_streamed_json_is_the_built_json_printed() {
        let root = std::env::temp_dir().join(format!("repo-mapper-json-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        // DEL and a C1 control in a line the map shows.
        let shop = "class Order:  # \u{7f}\u{85}\n    def total(self): pass\n";
        std::fs::write(root.join("shop.py"), shop).unwrap();
        std::fs::write(
            root.join("app.py"),
            "from shop import Order\nOrder().total()\n",
        )
        .unwrap();
        // DEL, a C1 control and ESC in a file name, and in the message's words.
        std::fs::write(
            root.join("odd\u{7f}\u{85}\u{1b}.py"),
            "def odd(): Order()\n",
        )
        .unwrap();
        for full_report in [false, true] {
            let mut config = Config::new(&root);
            config.cache = CacheLocation::Memory;
            config.full_report = full_report;
            let mut session = RepoMap::new(config);
            let request = MapRequest::new(list_files(&root, None));
            for message in [None, Some("Fix Order in odd\u{7f}\u{85}.py \"total\"")] {
                let answer = session.answer(request.clone(), message, true);
                let mut streamed = Vec::new();
                answer.write_json(session.config(), &mut streamed).unwrap();
                let streamed = String::from_utf8(streamed).unwrap();
                assert_eq!(streamed, built_then_printed(&answer, session.config()));
                assert!(!streamed.chars().any(|c| c.is_control() && c != '\n'));
                assert_eq!(streamed.contains("\"entries\""), full_report);
            }
        }
        std::fs::remove_dir_all(&root).unwrap();
    }
}
