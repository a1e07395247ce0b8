//! Identifier search over the tag store: where names matching a query are defined and
//! used, with lines of context (the `search_identifiers` tool of the MCP server).
//!
//! Definitions come from the tags as stored. References are stored counted per name
//! (their lines are not kept), so a file that references a matching name is read and the
//! lines holding it as a whole word are the references: the same lines for the tag
//! queries' references, and lines at all for the identifier fallback's (which has none).

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use repo_mapper_tags::CountedTags;
use repo_mapper_tags::pycompat::splitlines;

use crate::compute::sorted_union;
use crate::map::RepoMap;

/// What [`RepoMap::search_identifiers`] looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentifierQuery {
    /// Matched case-insensitively anywhere in a name.
    pub text: String,
    /// At most this many hits.
    pub max_results: usize,
    /// Lines of context before and after each hit.
    pub context_lines: usize,
    /// Whether definitions are hits.
    pub definitions: bool,
    /// Whether references are hits.
    pub references: bool,
}

impl IdentifierQuery {
    /// Definitions and references of names containing `text`, 50 hits, 2 lines of context.
    pub fn new(text: impl Into<String>) -> IdentifierQuery {
        IdentifierQuery {
            text: text.into(),
            max_results: 50,
            context_lines: 2,
            definitions: true,
            references: true,
        }
    }
}

/// Whether a hit defines or uses its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HitKind {
    /// A definition tag.
    Definition,
    /// A line that uses a name the file references.
    Reference,
}

/// One place a matching name is defined or used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct IdentifierHit {
    /// The file, relative to the root.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The identifier.
    pub name: String,
    /// Definition or reference.
    pub kind: HitKind,
    /// The lines around the hit, the hit's line among them, joined with `\n`.
    pub context: String,
}

/// How well a name matches: exact (ignoring case), prefix, anywhere.
fn quality(name: &str, query: &str) -> Option<u8> {
    let name = name.to_lowercase();
    if name == query {
        Some(0)
    } else if name.starts_with(query) {
        Some(1)
    } else {
        name.contains(query).then_some(2)
    }
}

/// A (file, name, kind) that matches, before its lines are found.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    quality: u8,
    kind: HitKind,
    file: usize,
    name: String,
    /// The definition's line (1-based); 0 for references.
    line: usize,
}

impl RepoMap {
    /// The definitions and references of names containing `query.text` among `files`
    /// (absolute paths), from the tag store (parsing what changed): exact matches first,
    /// then prefixes, then the rest; definitions before references; then by file and line.
    ///
    /// ```
    /// use repo_mapper::{CacheLocation, Config, HitKind, IdentifierQuery, RepoMap, list_files};
    ///
    /// let root = std::env::temp_dir().join(format!("repo-mapper-search-{}", std::process::id()));
    /// std::fs::create_dir_all(&root)?;
    /// std::fs::write(root.join("shop.py"), "class Order:\n    pass\n")?;
    /// std::fs::write(root.join("app.py"), "from shop import Order\nOrder()\n")?;
    /// let mut config = Config::new(&root);
    /// config.cache = CacheLocation::Memory;
    /// let mut session = RepoMap::new(config);
    /// let hits = session.search_identifiers(&list_files(&root, None), &IdentifierQuery::new("order"));
    /// assert_eq!((hits[0].file.as_str(), hits[0].line, hits[0].kind), ("shop.py", 1, HitKind::Definition));
    /// let found: Vec<_> = hits.iter().map(|h| (h.file.as_str(), h.line)).collect();
    /// assert_eq!(found, [("shop.py", 1), ("app.py", 1), ("app.py", 2)]);
    /// # std::fs::remove_dir_all(&root)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn search_identifiers(
        &mut self,
        files: &[PathBuf],
        query: &IdentifierQuery,
    ) -> Vec<IdentifierHit> {
        let needle = query.text.to_lowercase();
        if needle.is_empty() || query.max_results == 0 {
            return Vec::new();
        }
        // Not the map's admission: a warm session keeps that one for the next map.
        let generation = self.next_generation();
        let admitted = self.admit_all(&sorted_union(&[], files), generation);
        // Nothing is rendered: the scan takes no scopes.
        let (scanned, _) = self.scan(&admitted, false, false);
        let mut candidates = candidates(&scanned.tags, &needle, query);
        candidates.sort();
        let mut hits = Vec::new();
        let mut text_of = TextCache::default();
        let mut seen: HashSet<(usize, usize, String)> = HashSet::new();
        for c in candidates {
            if hits.len() >= query.max_results {
                break;
            }
            let (abs, rel) = &admitted.present[c.file];
            let Some(lines) = text_of.lines(c.file, abs) else {
                continue;
            };
            let at: Vec<usize> = match c.kind {
                HitKind::Definition => vec![c.line],
                HitKind::Reference => word_lines(lines, &c.name),
            };
            // A definition's own line is no reference (the identifier fallback counts
            // defined names among a file's references).
            let fresh = |line: &usize| seen.insert((c.file, *line, c.name.clone()));
            let at: Vec<usize> = at.into_iter().filter(fresh).collect();
            for line in at.into_iter().take(query.max_results - hits.len()) {
                hits.push(IdentifierHit {
                    file: rel.clone(),
                    line,
                    name: c.name.clone(),
                    kind: c.kind,
                    context: context(lines, line, query.context_lines),
                });
            }
        }
        hits
    }
}

/// Every matching (file, name, kind), a definition once per tag, a reference once per
/// file and name.
fn candidates(tags: &[Arc<CountedTags>], needle: &str, query: &IdentifierQuery) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (file, t) in tags.iter().enumerate() {
        if query.definitions {
            for def in &t.defs {
                if let Some(quality) = quality(&def.name, needle) {
                    let line = usize::try_from(def.line.max(1)).unwrap_or(1);
                    let name = def.name.clone();
                    out.push(Candidate {
                        quality,
                        kind: HitKind::Definition,
                        file,
                        name,
                        line,
                    });
                }
            }
        }
        if query.references {
            let matching = t.refs.iter().filter_map(|(name, _)| {
                let quality = quality(name, needle)?;
                Some((quality, name.to_owned()))
            });
            let unique: BTreeSet<(u8, String)> = matching.collect();
            for (quality, name) in unique {
                out.push(Candidate {
                    quality,
                    kind: HitKind::Reference,
                    file,
                    name,
                    line: 0,
                });
            }
        }
    }
    out
}

/// The lines of the file read last (hits come grouped by file, and a search must not
/// hold a repository in memory).
#[derive(Default)]
struct TextCache {
    file: Option<usize>,
    lines: Option<Vec<String>>,
}

impl TextCache {
    fn lines(&mut self, file: usize, path: &std::path::Path) -> Option<&[String]> {
        if self.file != Some(file) {
            self.file = Some(file);
            self.lines = std::fs::read(path).ok().map(|b| {
                let text = String::from_utf8_lossy(&b);
                splitlines(&text).into_iter().map(str::to_owned).collect()
            });
        }
        self.lines.as_deref()
    }
}

/// The 1-based lines of `lines` holding `name` as a whole word.
fn word_lines(lines: &[impl AsRef<str>], name: &str) -> Vec<usize> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let whole = |line: &str| {
        line.match_indices(name).any(|(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + name.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
    };
    let found = lines.iter().enumerate().filter(|(_, l)| whole(l.as_ref()));
    found.map(|(i, _)| i + 1).collect()
}

/// Lines `line - around ..= line + around` (1-based `line`), joined with `\n`.
fn context(lines: &[impl AsRef<str>], line: usize, around: usize) -> String {
    let first = line.saturating_sub(around + 1);
    let last = (line + around).min(lines.len());
    let shown = lines.get(first..last).unwrap_or_default();
    shown
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<&str>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quality_orders_exact_prefix_and_substring() {
        assert_eq!(quality("Order", "order"), Some(0));
        assert_eq!(quality("OrderLine", "order"), Some(1));
        assert_eq!(quality("place_order", "order"), Some(2));
        assert_eq!(quality("Cart", "order"), None);
    }

    #[test]
    fn references_are_whole_words() {
        let lines = ["x = Order()", "OrderLine()", "my_Order", "Order"];
        assert_eq!(word_lines(&lines, "Order"), [1, 4]);
    }

    #[test]
    fn context_is_clamped_to_the_file() {
        let lines = ["a", "b", "c", "d"];
        assert_eq!(context(&lines, 1, 2), "a\nb\nc");
        assert_eq!(context(&lines, 4, 1), "c\nd");
        assert_eq!(context(&lines, 9, 1), "");
    }
}
