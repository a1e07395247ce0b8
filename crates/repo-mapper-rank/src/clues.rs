//! What a user's text points at, beyond its words ([`Clues`]): the paths it names
//! (traceback frames, `path/to/file.py:12`, paths with a site-packages prefix), the
//! modules it names by dotted path (`from astropy.modeling.separable import …`,
//! `crate::a::b`), and the symbols it names (identifiers in code spans and blocks,
//! `snake_case`, `camelCase`, `call(`, a frame's function). Issue text carries these
//! where a commit message rarely does; [`Relevance::clue_weight`](crate::Relevance)
//! orders files by them in the default profile's fusion (D17).
//!
//! Read in one pass over the text, each kind capped ([`MAX_CLUES`]), so a pasted log of
//! megabytes costs linear time and a bounded list.

use std::collections::HashMap;

use crate::FileTags;
use crate::index::TagIndex;

/// At most this many clues of each kind are kept (the first found).
pub const MAX_CLUES: usize = 256;

/// What a text points at, each clue with its weight (see the module's doc).
///
/// ```
/// use repo_mapper_rank::Clues;
///
/// let issue = "Crash in `separability_matrix`:\n\
///     File \"/usr/lib/python3/site-packages/astropy/modeling/separable.py\", line 90, in _cstack\n\
///     from astropy.modeling.core import Model";
/// let clues = Clues::of(issue);
/// assert!(clues.paths.iter().any(|(p, _)| p.ends_with("astropy/modeling/separable.py")));
/// assert!(clues.modules.iter().any(|(m, _)| m == "astropy/modeling/core"));
/// assert!(clues.symbols.iter().any(|(s, _)| s == "separability_matrix"));
/// assert!(clues.symbols.iter().any(|(s, _)| s == "_cstack"));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Clues {
    /// Paths named, `/`-separated, as written (maybe absolute, maybe with a prefix the
    /// repository does not have).
    pub paths: Vec<(String, f64)>,
    /// Modules named by dotted path, as `/`-separated paths without an extension
    /// (`a.b.c` → `a/b/c`), and each shorter prefix of two parts or more at a lower
    /// weight (the last parts may be members, not modules).
    pub modules: Vec<(String, f64)>,
    /// Symbols named, each once at its highest weight.
    pub symbols: Vec<(String, f64)>,
}

/// A path's weight: a traceback frame's grows towards the innermost (last) frame.
const PATH_WEIGHT: f64 = 1.0;
/// Each part dropped from a dotted path multiplies its weight by this.
const PREFIX_DECAY: f64 = 0.5;
/// A capitalised word of prose (`Quantity`) is a weaker symbol than one in code.
const PROSE_CLASS_WEIGHT: f64 = 0.5;

impl Clues {
    /// The clues of `text`.
    pub fn of(text: &str) -> Clues {
        let mut found = Found::default();
        let mut fenced = false;
        for line in text.lines() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fenced = !fenced;
                continue;
            }
            let code = fenced
                || trimmed.starts_with(">>>")
                || trimmed.starts_with("...")
                || line.starts_with("    ")
                || line.starts_with('\t');
            found.line(line, code);
        }
        found.finish()
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.modules.is_empty() && self.symbols.is_empty()
    }
}

/// Clues as they are found, each kept once at its highest weight.
#[derive(Default)]
struct Found {
    paths: Kept,
    modules: Kept,
    symbols: Kept,
    /// Traceback frames seen so far (a later frame weighs more).
    frames: usize,
}

#[derive(Default)]
struct Kept {
    order: Vec<String>,
    weight: HashMap<String, f64>,
}

impl Kept {
    fn add(&mut self, clue: &str, weight: f64) {
        match self.weight.get_mut(clue) {
            Some(w) => *w = w.max(weight),
            None if self.order.len() < MAX_CLUES => {
                self.order.push(clue.to_owned());
                self.weight.insert(clue.to_owned(), weight);
            }
            None => {}
        }
    }

    fn into_list(self) -> Vec<(String, f64)> {
        let Kept { order, weight } = self;
        order
            .into_iter()
            .map(|c| {
                let w = weight[&c];
                (c, w)
            })
            .collect()
    }
}

impl Found {
    fn line(&mut self, line: &str, code: bool) {
        let frame = frame_function(line);
        if frame.is_some() {
            self.frames += 1;
        }
        let path_weight = PATH_WEIGHT + 0.1 * self.frames as f64;
        let mut in_backticks = false;
        for (token, ticked) in tokens(line, &mut in_backticks) {
            let code = code || ticked;
            let bare = token.trim_end_matches('(');
            if let Some(path) = as_path(bare) {
                self.paths.add(&path, path_weight);
                continue;
            }
            self.dotted(bare, code);
            self.words(token, code);
        }
        if let Some(function) = frame {
            self.symbols.add(function, 1.0);
        }
        self.import(line);
    }

    /// `import a.b` and `from a.b import c, d`: the module (of one part too), each name
    /// imported from it as a symbol and as a submodule (`a/b/c`).
    fn import(&mut self, line: &str) {
        let line = line.trim_start().trim_start_matches(">>>").trim_start();
        let (module, names) = if let Some(rest) = line.strip_prefix("from ") {
            match rest.split_once(" import ") {
                Some((module, names)) => (module.trim(), names),
                None => return,
            }
        } else if let Some(rest) = line.strip_prefix("import ") {
            (rest.split([',', ' ']).next().unwrap_or_default(), "")
        } else {
            return;
        };
        let parts: Vec<&str> = module.split('.').collect();
        if !parts.iter().all(|p| is_identifier(p)) {
            return;
        }
        let path = parts.join("/");
        self.modules.add(&path, 1.0);
        let names = names.trim().trim_matches(['(', ')']);
        for name in names
            .split(',')
            .map(|n| n.split_whitespace().next().unwrap_or_default())
        {
            if is_identifier(name) {
                self.symbols.add(name, 1.0);
                self.modules.add(&format!("{path}/{name}"), PREFIX_DECAY);
            }
        }
    }

    /// A dotted or `::` path of two parts or more: a module clue for it and each prefix.
    fn dotted(&mut self, token: &str, code: bool) {
        let sep = if token.contains("::") { "::" } else { "." };
        let parts: Vec<&str> = token.split(sep).collect();
        if parts.len() < 2 || !parts.iter().all(|p| is_identifier(p)) {
            return;
        }
        let parts: &[&str] = match parts[0] {
            "crate" | "self" | "super" => &parts[1..],
            _ => &parts,
        };
        let base = if code { 1.0 } else { 0.5 };
        let mut weight = base;
        for end in (2..=parts.len()).rev() {
            self.modules.add(&parts[..end].join("/"), weight);
            weight *= PREFIX_DECAY;
        }
    }

    /// The identifiers of `token` that look like symbols.
    fn words(&mut self, token: &str, code: bool) {
        let called = token.ends_with('(') || token.contains("()");
        for word in token.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if word.len() < 3 || !is_identifier(word) {
                continue;
            }
            let weight = symbol_weight(word, code, called);
            if weight > 0.0 {
                self.symbols.add(word, weight);
            }
        }
    }

    fn finish(self) -> Clues {
        Clues {
            paths: self.paths.into_list(),
            modules: self.modules.into_list(),
            symbols: self.symbols.into_list(),
        }
    }
}

/// How much `word` looks like a symbol: a `snake_case`, `camelCase`, `_private`,
/// `__dunder__` or called name fully; a capitalised word (a class's name, or a
/// sentence's first word) fully in code, half in prose; a plain lowercase word not.
fn symbol_weight(word: &str, code: bool, called: bool) -> f64 {
    let inner_underscore = word.trim_matches('_').contains('_');
    let bytes = word.as_bytes();
    let camel = bytes
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let dunder = word.starts_with("__") && word.ends_with("__");
    let capitalised = bytes[0].is_ascii_uppercase() && word.len() >= 4;
    if inner_underscore || camel || called || dunder || word.starts_with('_') {
        1.0
    } else if capitalised {
        if code { 1.0 } else { PROSE_CLASS_WEIGHT }
    } else {
        // A plain lowercase word names a local, a keyword or a value as often as a
        // definition, in code as in prose: measured, counting them halves the clue's
        // first-place rate.
        0.0
    }
}

/// The function of a traceback frame line (Python's `File "…", line N, in f`).
fn frame_function(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix("File \"")?;
    let (_, after) = rest.split_once("\", line ")?;
    let (_, function) = after.split_once(", in ")?;
    let function = function.trim();
    is_identifier(function).then_some(function)
}

/// The tokens of a line: runs between whitespace, quotes and brackets that hold no
/// path or name, each with whether it is inside backticks.
fn tokens<'t>(line: &'t str, ticked: &mut bool) -> Vec<(&'t str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut push = |from: usize, to: usize, ticked: bool| {
        let token = line[from..to].trim_end_matches([',', ';', ':', '.', '!', '?']);
        if !token.is_empty() {
            out.push((token, ticked));
        }
    };
    for (at, c) in line.char_indices() {
        let boundary = c.is_whitespace()
            || matches!(
                c,
                '"' | '\'' | '`' | ',' | '[' | ']' | '{' | '}' | '<' | '>' | '=' | ')'
            );
        if boundary {
            push(start, at, *ticked);
            if c == '`' {
                *ticked = !*ticked;
            }
            start = at + c.len_utf8();
        } else if c == '(' {
            // `name(` keeps its bracket: a call.
            push(start, at + 1, *ticked);
            start = at + 1;
        }
    }
    push(start, line.len(), *ticked);
    out
}

/// A token naming a file: it has a `/` or `\` or ends in an extension of letters, and
/// its last part has an extension; `:line` suffixes dropped. `\` becomes `/`.
fn as_path(token: &str) -> Option<String> {
    let token = token.trim_start_matches("a/").trim_start_matches("b/");
    let mut path = token;
    while let Some((head, tail)) = path.rsplit_once(':') {
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            path = head;
        } else {
            break;
        }
    }
    let name = path.rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    let ext_ok = (1..=5).contains(&ext.len()) && ext.bytes().all(|b| b.is_ascii_alphanumeric());
    let separated = path.contains(['/', '\\']);
    // `a.b` with no separator is a dotted name unless its extension is a known one.
    let known = matches!(
        ext,
        "py" | "pyx"
            | "pyi"
            | "rs"
            | "go"
            | "js"
            | "ts"
            | "tsx"
            | "jsx"
            | "java"
            | "kt"
            | "rb"
            | "php"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "hpp"
            | "cs"
            | "swift"
            | "scala"
            | "toml"
            | "cfg"
            | "ini"
            | "yaml"
            | "yml"
            | "json"
            | "rst"
            | "md"
            | "txt"
    );
    if stem.is_empty() || !ext_ok || !(known || separated) || path.contains("://") {
        return None;
    }
    Some(path.replace('\\', "/"))
}

/// Whether `s` is an identifier (a letter or `_`, then letters, digits, `_`).
fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// Per file of `files`: how strongly `clues` point at it. A path clue counts for the
/// files it ends with (whole parts); a module clue for the files whose path, less its
/// extension and a trailing `__init__`, `mod` or `index`, ends with it; a symbol clue
/// for the files defining it, shared among them (weight / definers).
pub(crate) fn clue_scores(files: &[FileTags<'_>], index: &TagIndex<'_>, clues: &Clues) -> Vec<f64> {
    let mut scores = vec![0.0; files.len()];
    if clues.is_empty() {
        return scores;
    }
    let paths = by_last(&clues.paths);
    let modules = by_last(&clues.modules);
    // Most texts name no path nor module: then no file's path is looked at.
    if !(paths.is_empty() && modules.is_empty()) {
        for (f, file) in files.iter().enumerate() {
            let rel = file.rel_fname;
            let name = rel.rsplit('/').next().unwrap_or(rel);
            for &(clue, w) in paths.get(name).into_iter().flatten() {
                if ends_with_parts(clue, rel) || ends_with_parts(rel, clue) {
                    scores[f] += w;
                }
            }
            let key = module_key(rel);
            let last = key.rsplit('/').next().unwrap_or(key);
            for &(clue, w) in modules.get(last).into_iter().flatten() {
                if ends_with_parts(key, clue) {
                    scores[f] += w;
                }
            }
        }
    }
    for (symbol, w) in &clues.symbols {
        let Some(id) = index.id_of(symbol) else {
            continue;
        };
        let definers = index.definers(id);
        for &d in definers {
            scores[d as usize] += w / definers.len() as f64;
        }
    }
    scores
}

/// Clues by their last part, for a file's name to find them.
fn by_last(list: &[(String, f64)]) -> HashMap<&str, Vec<(&str, f64)>> {
    let mut map: HashMap<&str, Vec<(&str, f64)>> = HashMap::new();
    for (clue, w) in list {
        let last = clue.rsplit('/').next().unwrap_or(clue);
        map.entry(last).or_default().push((clue.as_str(), *w));
    }
    map
}

/// Whether `long` is `short` or ends with `/` then `short`.
fn ends_with_parts(long: &str, short: &str) -> bool {
    long == short
        || long
            .strip_suffix(short)
            .is_some_and(|head| head.ends_with('/'))
}

/// A file's module path: its path less the extension, and less a last part that names
/// its directory's module (`__init__`, `mod`, `index`).
fn module_key(rel: &str) -> &str {
    let stem = match rel.rsplit_once('.') {
        Some((stem, ext)) if !ext.contains('/') => stem,
        _ => rel,
    };
    ["/__init__", "/mod", "/index"]
        .iter()
        .find_map(|tail| stem.strip_suffix(tail))
        .unwrap_or(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[(String, f64)]) -> Vec<&str> {
        list.iter().map(|(c, _)| c.as_str()).collect()
    }

    #[test]
    fn frames_give_paths_and_functions_innermost_heaviest() {
        let text = "Traceback (most recent call last):\n  \
            File \"/venv/lib/site-packages/pkg/core.py\", line 10, in run\n  \
            File \"/venv/lib/site-packages/pkg/io/read.py\", line 20, in _parse\n";
        let c = Clues::of(text);
        assert_eq!(
            names(&c.paths),
            [
                "/venv/lib/site-packages/pkg/core.py",
                "/venv/lib/site-packages/pkg/io/read.py"
            ]
        );
        assert!(c.paths[1].1 > c.paths[0].1, "the inner frame weighs more");
        assert!(names(&c.symbols).contains(&"_parse"));
        assert!(names(&c.symbols).contains(&"run"));
    }

    #[test]
    fn dotted_names_are_modules_and_their_prefixes() {
        let c = Clues::of("`from sympy.core.basic import Basic` and crate::walk::entry");
        let m = names(&c.modules);
        assert!(m.contains(&"sympy/core/basic"));
        assert!(m.contains(&"sympy/core"));
        assert!(m.contains(&"walk/entry"));
        let full = c
            .modules
            .iter()
            .find(|(m, _)| m == "sympy/core/basic")
            .unwrap()
            .1;
        let prefix = c.modules.iter().find(|(m, _)| m == "sympy/core").unwrap().1;
        assert!(full > prefix);
    }

    #[test]
    fn imports_name_modules_of_one_part_and_their_names() {
        let c = Clues::of("import unittest\n>>> from sympy.physics import units as u, vector\n");
        let m = names(&c.modules);
        assert!(m.contains(&"unittest"));
        assert!(m.contains(&"sympy/physics"));
        assert!(m.contains(&"sympy/physics/units"));
        assert!(m.contains(&"sympy/physics/vector"));
        assert!(names(&c.symbols).contains(&"units"));
    }

    #[test]
    fn prose_words_are_symbols_only_when_they_look_like_code() {
        let c = Clues::of("The printer fails in latex_print when a Matrix is given to simplify()");
        let s = names(&c.symbols);
        assert!(s.contains(&"latex_print"));
        assert!(s.contains(&"simplify"));
        assert!(s.contains(&"Matrix"));
        assert!(!s.contains(&"printer"));
        assert!(!s.contains(&"when"));
    }

    #[test]
    fn code_blocks_weigh_capitalised_names_fully() {
        let c = Clues::of("Run this:\n```python\nx = make_table(Rows, cols)\n```\nthen Rows break");
        let s = names(&c.symbols);
        assert!(s.contains(&"make_table"));
        assert!(
            !s.contains(&"cols"),
            "a plain word is no symbol, in code either"
        );
        let rows: Vec<f64> = c
            .symbols
            .iter()
            .filter(|(n, _)| n == "Rows")
            .map(|(_, w)| *w)
            .collect();
        assert_eq!(rows, [1.0], "once, at its weight in code");
    }

    #[test]
    fn paths_with_line_numbers_and_urls() {
        let c = Clues::of("see src/a/b.rs:12:4 and https://example.com/x/y.html and notes.txt");
        assert_eq!(names(&c.paths), ["src/a/b.rs", "notes.txt"]);
    }

    #[test]
    fn clues_are_capped() {
        let text: String = (0..2000).map(|i| format!("name_{i} ")).collect();
        assert_eq!(Clues::of(&text).symbols.len(), MAX_CLUES);
    }

    #[test]
    fn module_keys_and_part_suffixes() {
        assert_eq!(module_key("pkg/sub/__init__.py"), "pkg/sub");
        assert_eq!(module_key("src/walk/mod.rs"), "src/walk");
        assert_eq!(module_key("pkg/a.py"), "pkg/a");
        assert!(ends_with_parts("x/pkg/a", "pkg/a"));
        assert!(!ends_with_parts("x/mypkg/a", "pkg/a"));
    }
}
