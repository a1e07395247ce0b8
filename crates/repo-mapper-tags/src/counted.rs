//! A file's tags in the form ranking needs: every definition as a [`Tag`], the references
//! only counted per identifier.
//!
//! Ranking reads a reference for its identifier alone (behaviour.md §6.1 counts them), so a file's
//! thousands of reference tags shrink to one `(name, count)` per identifier, packed in two
//! allocations. On the Linux tree that is the difference between gigabytes and a few
//! hundred megabytes for a warm run.

use std::collections::HashMap;
use std::sync::Arc;

use crate::{NameIds, NameTable, Tag, TagKind, Terms};

/// A file's references counted per identifier, in order of first reference.
///
/// The names are held as text, or as numbers in a [`NameTable`] many files share
/// ([`RefCounts::numbered`]: what the store's pack gives, without copying a name).
/// Either way [`iter`](Self::iter) gives the names, and two are equal when it gives the
/// same.
///
/// ```
/// use std::sync::Arc;
/// use repo_mapper_tags::{NameTable, RefCounts};
///
/// let mut refs = RefCounts::new();
/// refs.push("open", 3);
/// refs.push("close", 1);
/// assert_eq!(refs.iter().collect::<Vec<_>>(), [("open", 3), ("close", 1)]);
/// let table = Arc::new(NameTable::new(["close", "open"]).unwrap());
/// assert_eq!(RefCounts::numbered(table, vec![(1, 3), (0, 1)]), refs);
/// ```
#[derive(Debug, Clone, Default)]
pub struct RefCounts {
    /// The names, back to back (none when they are numbered).
    text: String,
    /// Per name: its end in `text` (or its number in `table`) and its count.
    ends: Vec<(u32, u32)>,
    /// The table the names are numbered in, if they are.
    table: Option<Arc<NameTable>>,
}

/// A file's references as numbers ([`RefCounts::numbers`]).
#[derive(Debug, Clone, Copy)]
pub struct RefNumbers<'r> {
    /// The table the names are numbered in.
    pub table: &'r Arc<NameTable>,
    /// `(number, count)` per name, in order of first reference.
    pub pairs: &'r [(u32, u32)],
}

impl PartialEq for RefCounts {
    fn eq(&self, other: &RefCounts) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for RefCounts {}

impl RefCounts {
    /// No references.
    pub const fn new() -> RefCounts {
        RefCounts {
            text: String::new(),
            ends: Vec::new(),
            table: None,
        }
    }

    /// Room for `names` identifiers of `bytes` bytes in all.
    pub fn with_capacity(names: usize, bytes: usize) -> RefCounts {
        RefCounts {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(names),
            table: None,
        }
    }

    /// The references `(number, count)`, their names numbered in `table`. A number not
    /// in the table reads as the empty name.
    pub fn numbered(table: Arc<NameTable>, refs: Vec<(u32, u32)>) -> RefCounts {
        RefCounts {
            text: String::new(),
            ends: refs,
            table: Some(table),
        }
    }

    /// Appends `count` references to `name` (callers give each name once). Numbered
    /// names are turned to text first.
    ///
    /// # Panics
    /// If the names of one file exceed 4 GiB.
    pub fn push(&mut self, name: &str, count: u32) {
        if self.table.is_some() {
            let mut text = RefCounts::new();
            for (name, count) in self.iter() {
                text.push(name, count);
            }
            *self = text;
        }
        self.text.push_str(name);
        let end = u32::try_from(self.text.len()).expect("a file's names fit in 4 GiB");
        self.ends.push((end, count));
    }

    /// The references' numbers, if they are numbered ([`RefCounts::numbered`]).
    pub fn numbers(&self) -> Option<RefNumbers<'_>> {
        self.table.as_ref().map(|table| RefNumbers {
            table,
            pairs: &self.ends,
        })
    }

    /// `(name, count)` in order of first reference.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, u32)> + '_ {
        let mut start = 0;
        let table = self.table.as_deref();
        self.ends.iter().map(move |&(end, count)| {
            if let Some(table) = table {
                return (table.get(end).unwrap_or(""), count);
            }
            let name = &self.text[start..end as usize];
            start = end as usize;
            (name, count)
        })
    }

    /// Number of distinct identifiers referenced.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether the file references nothing.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The reference tags among `tags`, counted per name.
    pub fn from_tags(tags: &[Tag]) -> RefCounts {
        let mut slot: HashMap<&str, usize> = HashMap::new();
        let mut counts: Vec<(&str, u32)> = Vec::new();
        for t in tags.iter().filter(|t| t.kind == TagKind::Ref) {
            let i = *slot.entry(t.name.as_str()).or_insert_with(|| {
                counts.push((t.name.as_str(), 0));
                counts.len() - 1
            });
            counts[i].1 += 1;
        }
        let bytes = counts.iter().map(|(n, _)| n.len()).sum();
        let mut refs = RefCounts::with_capacity(counts.len(), bytes);
        for (name, count) in counts {
            refs.push(name, count);
        }
        refs
    }
}

/// One file's tags as a map uses them: definitions in file order, references counted.
///
/// Two are equal when their tags, references and words are: [`names`](Self::names) says
/// where the names are numbered, not what they are.
#[derive(Debug, Clone, Default)]
pub struct CountedTags {
    /// The definition tags, in extraction order.
    pub defs: Vec<Tag>,
    /// The references, counted per identifier.
    pub refs: RefCounts,
    /// Every code word of the file's text, counted (empty unless the scan that read the
    /// file was asked for them).
    pub terms: Terms,
    /// The numbers of the names of `defs` in a table shared by many files, where the
    /// store has them (from its pack; then `refs` are numbered in the same table);
    /// `None` otherwise.
    pub names: Option<NameIds>,
}

impl PartialEq for CountedTags {
    fn eq(&self, other: &CountedTags) -> bool {
        self.defs == other.defs && self.refs == other.refs && self.terms == other.terms
    }
}

impl Eq for CountedTags {}

impl CountedTags {
    /// Splits `tags`: definitions kept, references counted.
    pub fn from_tags(mut tags: Vec<Tag>) -> CountedTags {
        let refs = RefCounts::from_tags(&tags);
        tags.retain(|t| t.kind == TagKind::Def);
        tags.shrink_to_fit();
        CountedTags {
            defs: tags,
            refs,
            terms: Terms::default(),
            names: None,
        }
    }

    /// Whether the file has no tags at all.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty() && self.refs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;

    fn tag(line: i32, name: &str, kind: TagKind) -> Tag {
        Tag {
            rel_fname: Arc::from("a.c"),
            fname: Arc::from(Path::new("/r/a.c")),
            line,
            name: name.to_owned(),
            kind,
            sub_kind: "call",
        }
    }

    #[test]
    fn references_are_counted_in_first_seen_order() {
        let tags = vec![
            tag(1, "main", TagKind::Def),
            tag(2, "puts", TagKind::Ref),
            tag(3, "exit", TagKind::Ref),
            tag(4, "puts", TagKind::Ref),
            tag(5, "helper", TagKind::Def),
            tag(-1, "exit", TagKind::Ref),
        ];
        let counted = CountedTags::from_tags(tags.clone());
        assert_eq!(counted.defs, [tags[0].clone(), tags[4].clone()]);
        assert_eq!(
            counted.refs.iter().collect::<Vec<_>>(),
            [("puts", 2), ("exit", 2)]
        );
        assert_eq!(counted.refs.len(), 2);
    }

    #[test]
    fn empty_names_and_no_references() {
        let mut refs = RefCounts::new();
        assert!(refs.is_empty());
        refs.push("", 1);
        refs.push("x", 2);
        assert_eq!(refs.iter().collect::<Vec<_>>(), [("", 1), ("x", 2)]);
    }
}
