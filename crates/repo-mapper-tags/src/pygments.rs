//! Aider's pygments identifier fallback, replayed for [`Dialect::Aider`](crate::Dialect).
//!
//! When a file's tag query finds definitions but no references, Aider 0.86.2 takes every
//! token of pygments' `Token.Name` family as a reference, the lexer chosen by
//! `guess_lexer_for_filename`. The `default` dialect uses our `-idents.scm` queries instead
//! (behaviour.md §3.2); the `aider` dialect runs pygments' own lexers here: an interpreter of
//! pygments' `RegexLexer` state machines over their tables, exported from pygments 2.19.2 by
//! `cargo xtask vendor-lexers` into `queries/pygments/lexers.json` (BSD-2-Clause, licence
//! beside it). Patterns run on fancy-regex, anchored at the current position with the whole
//! text visible to look-behind and `^`, as Python's `pattern.match(text, pos)`.
//!
//! [`names`] returns `None` when the lexer cannot be replayed (a lexer with callbacks the
//! table cannot express, a choice between lexers that depends on an `analyse_text` we do not
//! reproduce, a pattern fancy-regex rejects or gives up on); the caller then falls back to
//! the `-idents.scm` query. `docs/parity.md` (T8) lists what is covered.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use fancy_regex::{Match, Regex, RegexInput};
use serde_json::Value;

use crate::limits::{Deadline, Limits};
use crate::pycompat::normalize_newlines;

/// `queries/pygments/lexers.json`, part of [`crate::queries_fingerprint`].
pub(crate) static DATA: &str = include_str!("../../../queries/pygments/lexers.json");

/// Nesting limit for `using(this)` (a rule lexing its match again with the same lexer):
/// pygments' lexers nest two or three deep; deeper means a table we do not understand.
const MAX_DEPTH: usize = 16;

/// The `Token.Name`-family tokens pygments yields for `source`, lexed as Aider 0.86.2 does
/// for the file whose base name is `file_name`; `Some(vec![])` when pygments has no lexer
/// for the name (Aider then adds no references); `None` when this cannot be replayed.
pub fn names(file_name: &str, source: &str) -> Option<Vec<String>> {
    names_before(file_name, source, Limits::new(Duration::MAX).deadline())
}

/// [`names`], giving up (`None`) when `deadline` passes.
pub(crate) fn names_before(
    file_name: &str,
    source: &str,
    deadline: Deadline,
) -> Option<Vec<String>> {
    let data = data()?;
    let lexer = match choose_lexer(data, file_name, source) {
        Choice::NoLexer => return Some(Vec::new()),
        Choice::Undecided => return None,
        Choice::Lexer(name) => name,
    };
    let def = data.lexers.get(lexer)?;
    let text = preprocess(source);
    let mut out = Vec::new();
    let run = Run { data, deadline };
    run.lex(def, &text, &["root"], 0, &mut |token, value| {
        if is_name(token) && !(token == "Token.Name" && def.retype.contains(value)) {
            out.push(value.to_owned());
        }
    })
    .ok()?;
    Some(out)
}

fn is_name(token: &str) -> bool {
    token == "Token.Name" || token.starts_with("Token.Name.")
}

/// pygments' `Lexer._preprocess_lexer_input` with default options: drop a BOM, normalise
/// line endings, strip leading and trailing newlines, end with a newline.
fn preprocess(source: &str) -> String {
    let text = source.strip_prefix('\u{feff}').unwrap_or(source);
    let text = normalize_newlines(text.to_owned());
    let mut text = text.trim_matches('\n').to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

struct Data {
    lexers: HashMap<String, LexerDef>,
    files: Vec<FileDef>,
}

struct LexerDef {
    states: HashMap<String, Vec<Rule>>,
    retype: HashSet<String>,
}

struct Rule {
    pattern: String,
    regex: OnceLock<Option<Regex>>,
    action: Action,
    next: Next,
}

enum Action {
    None,
    Token(Arc<str>),
    Groups(Vec<Action>),
    Using {
        lexer: Option<String>,
        stack: Option<Vec<String>>,
    },
}

enum Next {
    None,
    Pop(usize),
    States(Vec<String>),
}

struct FileDef {
    lexer: String,
    globs: Vec<(Regex, bool)>,
    priority: f64,
    analyse: Option<String>,
}

fn data() -> Option<&'static Data> {
    static PARSED: OnceLock<Option<Data>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            let parsed = parse_data(DATA);
            if parsed.is_none() {
                tracing::warn!("queries/pygments/lexers.json is malformed; using -idents.scm");
            }
            parsed
        })
        .as_ref()
}

fn parse_data(text: &str) -> Option<Data> {
    let v: Value = serde_json::from_str(text).ok()?;
    let classes: Vec<&str> = v["classes"]
        .as_array()?
        .iter()
        .map(Value::as_str)
        .collect::<Option<_>>()?;
    let mut lexers = HashMap::new();
    for (name, def) in v["lexers"].as_object()? {
        let mut states = HashMap::new();
        for (state, rules) in def["states"].as_object()? {
            let rules = rules
                .as_array()?
                .iter()
                .map(|r| {
                    Some(Rule {
                        pattern: expand_classes(r.get(0)?.as_str()?, &classes)?,
                        regex: OnceLock::new(),
                        action: parse_action(r.get(1)?)?,
                        next: parse_next(r.get(2)?)?,
                    })
                })
                .collect::<Option<Vec<_>>>()?;
            states.insert(state.clone(), rules);
        }
        let retype = def["retype"]
            .as_array()?
            .iter()
            .map(|s| s.as_str().map(str::to_owned))
            .collect::<Option<_>>()?;
        lexers.insert(name.clone(), LexerDef { states, retype });
    }
    let mut files = Vec::new();
    for f in v["files"].as_array()? {
        let globs = f["globs"]
            .as_array()?
            .iter()
            .map(|g| Some((Regex::new(g.get(0)?.as_str()?).ok()?, g.get(1)?.as_bool()?)))
            .collect::<Option<_>>()?;
        files.push(FileDef {
            lexer: f["lexer"].as_str()?.to_owned(),
            globs,
            priority: f["priority"].as_f64()?,
            analyse: f["analyse"].as_str().map(str::to_owned),
        });
    }
    Some(Data { lexers, files })
}

/// Puts the shared character classes back into a pattern (`\u{f8ff}N\u{f8fe}` → class N).
fn expand_classes(pattern: &str, classes: &[&str]) -> Option<String> {
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(at) = rest.find('\u{f8ff}') {
        out.push_str(&rest[..at]);
        let after = &rest[at + '\u{f8ff}'.len_utf8()..];
        let end = after.find('\u{f8fe}')?;
        out.push_str(classes.get(after[..end].parse::<usize>().ok()?)?);
        rest = &after[end + '\u{f8fe}'.len_utf8()..];
    }
    out.push_str(rest);
    Some(out)
}

fn parse_action(v: &Value) -> Option<Action> {
    Some(match v {
        Value::Null => Action::None,
        Value::String(t) => Action::Token(Arc::from(t.as_str())),
        Value::Object(o) if o.contains_key("groups") => Action::Groups(
            o["groups"]
                .as_array()?
                .iter()
                .map(parse_action)
                .collect::<Option<_>>()?,
        ),
        Value::Object(o) => {
            let lexer = o.get("using")?.as_str()?;
            let stack = match o.get("stack") {
                Some(Value::Array(a)) => Some(
                    a.iter()
                        .map(|s| s.as_str().map(str::to_owned))
                        .collect::<Option<_>>()?,
                ),
                _ => None,
            };
            Action::Using {
                lexer: (lexer != "this").then(|| lexer.to_owned()),
                stack,
            }
        }
        _ => return None,
    })
}

fn parse_next(v: &Value) -> Option<Next> {
    Some(match v {
        Value::Null => Next::None,
        Value::Number(n) => Next::Pop(usize::try_from(n.as_i64()?.unsigned_abs()).ok()?),
        Value::String(s) if s == "#push" => Next::States(vec![s.clone()]),
        Value::Array(a) => Next::States(
            a.iter()
                .map(|s| s.as_str().map(str::to_owned))
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

enum Choice<'a> {
    NoLexer,
    Undecided,
    Lexer(&'a str),
}

/// `pygments.lexers.guess_lexer_for_filename`: the lexers whose file-name globs match, and
/// among several the best `analyse_text` score, then primary glob, priority, class name.
fn choose_lexer<'d>(data: &'d Data, file_name: &str, source: &str) -> Choice<'d> {
    let mut candidates: Vec<(&FileDef, bool)> = Vec::new();
    for f in &data.files {
        let mut matched = None;
        // pygments looks at `filenames` first, then `alias_filenames`; an alias match
        // overrides a primary one.
        for primary in [true, false] {
            if f.globs
                .iter()
                .any(|(re, p)| *p == primary && re.is_match(file_name).unwrap_or(false))
            {
                matched = Some(primary);
            }
        }
        if let Some(primary) = matched {
            candidates.push((f, primary));
        }
    }
    match candidates.len() {
        0 => return Choice::NoLexer,
        1 => return Choice::Lexer(&candidates[0].0.lexer),
        _ => {}
    }
    let mut scored = Vec::new();
    for (f, primary) in candidates {
        let Some(score) = analyse(f.analyse.as_deref(), source) else {
            return Choice::Undecided;
        };
        scored.push((score, primary, f.priority, f.lexer.as_str()));
    }
    // A score of 1.0 wins at once, in Python set order: only decidable if it is alone.
    let certain: Vec<_> = scored.iter().filter(|s| s.0 >= 1.0).collect();
    match certain.len() {
        0 => {}
        1 => return Choice::Lexer(certain[0].3),
        _ => return Choice::Undecided,
    }
    scored
        .into_iter()
        .max_by(|a, b| {
            a.0.total_cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.total_cmp(&b.2))
                .then(a.3.cmp(b.3))
        })
        .map_or(Choice::Undecided, |s| Choice::Lexer(s.3))
}

/// Whether the fixed `analyse_text` pattern `$pattern` occurs in `$text`; each call site
/// compiles its pattern once, and searches need no lock. (Every pattern is compiled by
/// `every_analyser_runs`; one that did not compile would count as absent.)
macro_rules! found {
    ($pattern:literal, $text:expr $(,)?) => {{
        static RE: OnceLock<Option<Regex>> = OnceLock::new();
        RE.get_or_init(|| Regex::new($pattern).ok())
            .as_ref()
            .is_some_and(|re| re.is_match($text).unwrap_or(false))
    }};
}

/// The `analyse_text` scores we reproduce, by the class that defines the method; `None` for
/// one we do not.
fn analyse(analyser: Option<&str>, text: &str) -> Option<f64> {
    Some(match analyser {
        None => 0.0,
        Some("CLexer") => score_if(
            found!(r#"(?m)^\s*#include [<"]"#, text) || found!(r"(?m)^\s*#ifn?def ", text),
            0.1,
        ),
        Some("CppLexer") => {
            if found!(r"#include <[a-z_]+>", text) {
                0.2
            } else {
                score_if(text.contains("using namespace "), 0.4)
            }
        }
        Some("GeneratedObjectiveCVariant") => {
            if found!(r"@(?:end|implementation|protocol)", text) {
                1.0
            } else if text.contains("@\"") {
                0.8
            } else if found!(r"@[0-9]+", text) {
                0.7
            } else {
                score_if(
                    found!(
                        r"\[\s*[a-zA-Z_]\w*\s+(?:[a-zA-Z_]\w*\s*\]|(?:[a-zA-Z_]\w*)?:)",
                        text,
                    ),
                    0.8,
                )
            }
        }
        // The template lexers pygments also offers for `*.js` (alias globs): each scores its
        // base lexer's `analyse_text` minus 0.05, clamped to [0, 1] as pygments does.
        Some("JavascriptGenshiLexer") => clamp(genshi(text) - 0.05),
        Some("JavascriptErbLexer") => clamp(erb(text) - 0.05),
        Some("JavascriptPhpLexer") => php(text),
        Some("JavascriptSmartyLexer") => clamp(smarty(text) - 0.05),
        Some("JavascriptDjangoLexer") => clamp(django(text) - 0.05),
        Some("LassoJavascriptLexer") => clamp(lasso(text) - 0.05),
        Some(_) => return None,
    })
}

/// pygments' `make_analysator`: scores are clamped to [0, 1].
fn clamp(score: f64) -> f64 {
    score.clamp(0.0, 1.0)
}

fn score_if(yes: bool, score: f64) -> f64 {
    if yes { score } else { 0.0 }
}

/// `GenshiLexer.analyse_text`.
fn genshi(text: &str) -> f64 {
    clamp(
        score_if(found!(r"\$\{.*?\}", text), 0.2)
            + score_if(found!(r#"py:(.*?)=["']"#, text), 0.2)
            + score_if(looks_like_xml(text), 0.45)
            - 0.01,
    )
}

/// `pygments.util.looks_like_xml`.
fn looks_like_xml(text: &str) -> bool {
    if found!(r"(?i)\A\s*<\?xml[^>]*\?>", text) {
        return true;
    }
    if found!(r"(?ms)<!DOCTYPE\s+([a-zA-Z_][a-zA-Z0-9]*)[^>]*>", text) {
        return true;
    }
    let head = text
        .char_indices()
        .nth(1000)
        .map_or(text, |(i, _)| &text[..i]);
    found!(r"(?ism)<(.+?)(\s.*?)?>.*?</.+?>", head)
}

/// `ErbLexer.analyse_text`.
fn erb(text: &str) -> f64 {
    score_if(text.contains("<%") && text.contains("%>"), 0.4)
}

/// `PhpLexer.analyse_text`.
fn php(text: &str) -> f64 {
    if shebang_matches(text, "php") {
        return 1.0;
    }
    score_if(found!(r"<\?(?!xml)", text), 0.3)
}

/// `SmartyLexer.analyse_text`.
fn smarty(text: &str) -> f64 {
    clamp(
        score_if(found!(r"\{if\s+.*?\}.*?\{/if\}", text), 0.15)
            + score_if(found!(r"\{include\s+file=.*?\}", text), 0.15)
            + score_if(found!(r"\{foreach\s+.*?\}.*?\{/foreach\}", text), 0.15)
            + score_if(found!(r"\{\$.*?\}", text), 0.01),
    )
}

/// `DjangoLexer.analyse_text`.
fn django(text: &str) -> f64 {
    clamp(
        score_if(found!(r"\{%\s*(block|extends)", text), 0.4)
            + score_if(found!(r"\{%\s*if\s*.*?%\}", text), 0.1)
            + score_if(found!(r"\{\{.*?\}\}", text), 0.1),
    )
}

/// `LassoLexer.analyse_text`.
fn lasso(text: &str) -> f64 {
    clamp(
        score_if(text.contains("bin/lasso9"), 0.8)
            + score_if(found!(r"(?i)<\?lasso", text), 0.4)
            + score_if(found!(r"(?i)local\(", text), 0.4),
    )
}

/// `pygments.util.shebang_matches`: the program of a `#!` first line is `name`.
fn shebang_matches(text: &str, name: &str) -> bool {
    let first = text.split('\n').next().unwrap_or("").to_lowercase();
    let Some(rest) = first.strip_prefix("#!") else {
        return false;
    };
    let Some(program) = rest
        .trim()
        .split(['/', '\\', ' '])
        .rfind(|x| !x.is_empty() && !x.starts_with('-'))
    else {
        return false;
    };
    let program = program.to_lowercase();
    program == name
        || [".exe", ".cmd", ".bat", ".bin"]
            .iter()
            .any(|ext| program.strip_suffix(ext) == Some(name))
}

/// Why a lexer run was abandoned.
#[derive(Debug)]
struct GiveUp;

/// One replay: the tables and the time it may take.
struct Run<'d> {
    data: &'d Data,
    deadline: Deadline,
}

/// Rule attempts between two looks at the clock.
const STEPS_PER_CLOCK_CHECK: u32 = 256;

impl Run<'_> {
    /// `RegexLexer.get_tokens_unprocessed` over `text` from `stack`, calling `emit` with
    /// each token type and text; gives up when the deadline passes.
    fn lex<'a>(
        &self,
        def: &'a LexerDef,
        text: &str,
        stack: &[&'a str],
        depth: usize,
        emit: &mut dyn FnMut(&str, &str),
    ) -> Result<(), GiveUp> {
        if depth > MAX_DEPTH {
            return Err(GiveUp);
        }
        let mut at = Position::new(def, stack)?;
        let mut steps = 0u32;
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(STEPS_PER_CLOCK_CHECK) && self.deadline.expired() {
                return Err(GiveUp);
            }
            if let Some(found) = first_match(at.rules, text, at.pos)? {
                self.act(def, &found, text, depth, emit)?;
                at.follow(def, found.rule, found.whole.end())?;
            } else if !at.skip_unmatched(def, text, emit)? {
                return Ok(());
            }
        }
    }

    /// Emits the tokens of the action of the rule `found` matched in `text`.
    fn act(
        &self,
        def: &LexerDef,
        found: &Found<'_, '_>,
        text: &str,
        depth: usize,
        emit: &mut dyn FnMut(&str, &str),
    ) -> Result<(), GiveUp> {
        let whole = found.whole;
        match &found.rule.action {
            Action::None => Ok(()),
            Action::Token(t) => {
                emit(t, whole.as_str());
                Ok(())
            }
            Action::Groups(groups) => {
                // Only `bygroups` needs the groups: found again, once the rule matched.
                let input = RegexInput::new(text).from_pos(whole.start()).anchored(true);
                let caps = found
                    .regex
                    .captures_input(input)
                    .map_err(|_| GiveUp)?
                    .filter(|c| c.get(0).is_some_and(|m| m.range() == whole.range()))
                    .ok_or(GiveUp)?;
                let group = |i: usize| caps.get(i + 1).map(|g| g.as_str());
                self.emit_groups(def, groups, group, depth, emit)
            }
            Action::Using { lexer, stack } => {
                self.using(def, lexer, stack, whole.as_str(), depth, emit)
            }
        }
    }

    /// pygments' `bygroups`: each group's action applied to the text of group `i + 1`
    /// (`group(i)`; groups that did not take part are skipped, empty ones emit nothing).
    fn emit_groups<'t>(
        &self,
        def: &LexerDef,
        groups: &[Action],
        group: impl Fn(usize) -> Option<&'t str>,
        depth: usize,
        emit: &mut dyn FnMut(&str, &str),
    ) -> Result<(), GiveUp> {
        for (i, action) in groups.iter().enumerate() {
            let Some(g) = group(i) else { continue };
            match action {
                Action::None => {}
                Action::Token(t) => {
                    if !g.is_empty() {
                        emit(t, g);
                    }
                }
                Action::Using { lexer, stack } => {
                    self.using(def, lexer, stack, g, depth, emit)?;
                }
                Action::Groups(_) => return Err(GiveUp),
            }
        }
        Ok(())
    }
}

/// A rule that matched, its compiled pattern and the match.
struct Found<'r, 't> {
    rule: &'r Rule,
    regex: &'r Regex,
    whole: Match<'t>,
}

/// The first of `rules` that matches `text` at `pos` (anchored there, with the text before
/// it visible, as Python's `pattern.match(text, pos)`).
fn first_match<'r, 't>(
    rules: &'r [Rule],
    text: &'t str,
    pos: usize,
) -> Result<Option<Found<'r, 't>>, GiveUp> {
    for rule in rules {
        let regex = rule.regex()?;
        let input = RegexInput::new(text).from_pos(pos).anchored(true);
        // Most rules tried at a position do not match, and a plain match is much cheaper to
        // look for than groups; only `bygroups` needs them, once it has matched.
        let Some(whole) = regex.find_input(input).map_err(|_| GiveUp)? else {
            continue;
        };
        if whole.start() == pos {
            return Ok(Some(Found { rule, regex, whole }));
        }
    }
    Ok(None)
}

impl Rule {
    /// The rule's pattern, compiled on first use; gives up on one fancy-regex rejects.
    fn regex(&self) -> Result<&Regex, GiveUp> {
        self.regex
            .get_or_init(|| match Regex::new(&self.pattern) {
                Ok(r) => Some(r),
                Err(e) => {
                    tracing::debug!("pygments pattern rejected: {e}: {}", self.pattern);
                    None
                }
            })
            .as_ref()
            .ok_or(GiveUp)
    }
}

/// Matches in a row that consume nothing before a lexer run gives up: a guard against a
/// table that matches the empty string without changing state.
const MAX_EMPTY_STEPS: usize = 10_000;

/// Where a lexer run is: pygments' state stack, the rules of its top state and the
/// position in the text.
struct Position<'a> {
    states: Vec<&'a str>,
    rules: &'a [Rule],
    pos: usize,
    /// Matches in a row that consumed nothing.
    empty_steps: usize,
}

impl<'a> Position<'a> {
    /// The start of a run of `def` from `stack`.
    fn new(def: &'a LexerDef, stack: &[&'a str]) -> Result<Self, GiveUp> {
        let states = stack.to_vec();
        let rules = state_rules(def, states.last().copied().unwrap_or("root"))?;
        Ok(Position {
            states,
            rules,
            pos: 0,
            empty_steps: 0,
        })
    }

    /// After `rule` matched up to `end`: moves there and takes the rule's state transition.
    fn follow(&mut self, def: &'a LexerDef, rule: &'a Rule, end: usize) -> Result<(), GiveUp> {
        let advanced = end > self.pos;
        self.pos = end;
        if !matches!(rule.next, Next::None) {
            self.transition(&rule.next);
            self.rules = state_rules(def, self.top())?;
        }
        if advanced {
            self.empty_steps = 0;
        } else {
            self.empty_steps += 1;
            if self.empty_steps > MAX_EMPTY_STEPS {
                return Err(GiveUp);
            }
        }
        Ok(())
    }

    /// The state stack after `next` (`#pop` never pops the last state).
    fn transition(&mut self, next: &'a Next) {
        let states = &mut self.states;
        match next {
            Next::None => {}
            Next::Pop(n) => {
                if *n >= states.len() {
                    states.truncate(1);
                } else {
                    states.truncate(states.len() - n);
                }
            }
            Next::States(list) => {
                for s in list {
                    match s.as_str() {
                        "#pop" => {
                            if states.len() > 1 {
                                states.pop();
                            }
                        }
                        "#push" => {
                            let top = states.last().copied().unwrap_or("root");
                            states.push(top);
                        }
                        other => states.push(other),
                    }
                }
            }
        }
    }

    fn top(&self) -> &'a str {
        self.states.last().copied().unwrap_or("root")
    }

    /// What pygments does where no rule matches: at a newline, back to `root`; anything
    /// else is one error character. False at the end of the text.
    fn skip_unmatched(
        &mut self,
        def: &'a LexerDef,
        text: &str,
        emit: &mut dyn FnMut(&str, &str),
    ) -> Result<bool, GiveUp> {
        let Some(c) = text[self.pos..].chars().next() else {
            return Ok(false);
        };
        if c == '\n' {
            self.states.clear();
            self.states.push("root");
            self.rules = state_rules(def, "root")?;
            emit("Token.Text.Whitespace", "\n");
        } else {
            emit("Token.Error", &text[self.pos..self.pos + c.len_utf8()]);
        }
        self.pos += c.len_utf8();
        self.empty_steps = 0;
        Ok(true)
    }
}

fn state_rules<'d>(def: &'d LexerDef, state: &str) -> Result<&'d [Rule], GiveUp> {
    def.states.get(state).map(Vec::as_slice).ok_or(GiveUp)
}

impl Run<'_> {
    /// pygments' `using(...)`: lexes `text` alone with this lexer or another, from `stack`
    /// (default `root`), offsets relative to it.
    fn using(
        &self,
        this: &LexerDef,
        lexer: &Option<String>,
        stack: &Option<Vec<String>>,
        text: &str,
        depth: usize,
        emit: &mut dyn FnMut(&str, &str),
    ) -> Result<(), GiveUp> {
        let def = match lexer {
            None => this,
            Some(name) => self.data.lexers.get(name).ok_or(GiveUp)?,
        };
        let stack: Vec<&str> = match stack {
            Some(s) => s.iter().map(String::as_str).collect(),
            None => vec!["root"],
        };
        // Another lexer's own retyping applies to its tokens.
        if lexer.is_some() && !def.retype.is_empty() {
            let mut inner = |t: &str, v: &str| {
                if t == "Token.Name" && def.retype.contains(v) {
                    emit("Token.Keyword.Type", v);
                } else {
                    emit(t, v);
                }
            };
            return self.lex(def, text, &stack, depth + 1, &mut inner);
        }
        self.lex(def, text, &stack, depth + 1, emit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_parses_and_every_pattern_compiles() {
        let data = data().expect("lexers.json parses");
        assert!(data.lexers.contains_key("CLexer"));
        let mut failures = Vec::new();
        for (name, def) in &data.lexers {
            for (state, rules) in &def.states {
                for rule in rules {
                    if let Err(e) = Regex::new(&rule.pattern) {
                        let p: String = rule.pattern.chars().take(300).collect();
                        failures.push(format!("{name} {state}: {e}: {p}"));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn c_names_as_pygments_yields_them() {
        let src = "#include <stdio.h>\n#define MAX 3\nstatic size_t count(const char *s) {\n  return strlen(s) + MAX;\n}\n";
        // `#define MAX` is a preprocessor comment; size_t is a keyword type for pygments.
        assert_eq!(
            names("a.c", src).unwrap(),
            ["count", "s", "strlen", "s", "MAX"]
        );
    }

    #[test]
    fn every_analyser_runs() {
        // Texts that reach every pattern of every analyser (each `found!` compiles on first
        // use), with the scores pygments 2.19.2 gives them.
        let plain = "var x = 1;\n";
        let cases = [
            ("CLexer", "#ifdef X\n", 0.1),
            ("CppLexer", "using namespace std;\n", 0.4),
            ("GeneratedObjectiveCVariant", "[self foo:bar];\n", 0.8),
            ("JavascriptGenshiLexer", plain, 0.0),
            ("JavascriptErbLexer", "<% x %>\n", 0.35),
            ("JavascriptPhpLexer", "<?php echo 1; ?>\n", 0.3),
            ("JavascriptSmartyLexer", plain, 0.0),
            ("JavascriptDjangoLexer", "{% block a %}\n", 0.35),
            ("LassoJavascriptLexer", plain, 0.0),
        ];
        for (analyser, text, want) in cases {
            let got = analyse(Some(analyser), text).unwrap();
            assert!((got - want).abs() < 1e-9, "{analyser}: {got} != {want}");
        }
        assert_eq!(analyse(Some("RubyLexer"), plain), None);
    }

    #[test]
    fn no_lexer_means_no_names() {
        assert_eq!(names("file.unknown-ext", "x y z"), Some(vec![]));
    }

    #[test]
    fn header_lexer_follows_analyse_text() {
        // A message send makes pygments pick Objective-C for a .h file.
        let objc = "@interface Foo\n- (void)bar;\n@end\n";
        assert!(matches!(
            choose_lexer(data().unwrap(), "foo.h", objc),
            Choice::Lexer("ObjectiveCLexer")
        ));
        assert!(matches!(
            choose_lexer(data().unwrap(), "foo.h", "#include <x.h>\nint f(void);\n"),
            Choice::Lexer("CLexer")
        ));
    }
}
