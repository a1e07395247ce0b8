//! [`NameTable`] and [`NameIds`]: identifier names numbered once for many files, so that
//! a ranking of those files can tell equal names apart by number instead of hashing each
//! name of each file (the Linux tree has 18 million of them, 2.6 million distinct).
//!
//! The store's pack keeps such a table of every name its files hold, and gives each file
//! it serves the numbers of its names ([`CountedTags::names`](crate::CountedTags::names)).

use std::sync::Arc;

/// Distinct names, numbered from 0: one text, checked as UTF-8 once, and where each name
/// ends in it.
///
/// ```
/// use repo_mapper_tags::NameTable;
///
/// let table = NameTable::new(["open", "close", ""]).unwrap();
/// assert_eq!(table.len(), 3);
/// assert_eq!(table.get(1), Some("close"));
/// assert_eq!(table.get(2), Some(""));
/// assert_eq!(table.get(3), None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameTable {
    text: String,
    ends: Vec<u32>,
}

impl NameTable {
    /// The table of `names`, numbered in order; `None` if their text exceeds 4 GiB.
    pub fn new<'n>(names: impl IntoIterator<Item = &'n str>) -> Option<NameTable> {
        let mut table = NameTable::default();
        for name in names {
            table.text.push_str(name);
            table.ends.push(u32::try_from(table.text.len()).ok()?);
        }
        Some(table)
    }

    /// The table whose names are `text` cut at `ends` (each the end of one name, in
    /// order); `None` unless `text` is UTF-8, the ends ascend within it and each falls on
    /// a character boundary.
    pub fn from_parts(text: Vec<u8>, ends: Vec<u32>) -> Option<NameTable> {
        let text = String::from_utf8(text).ok()?;
        let mut start = 0;
        for &end in &ends {
            let end = end as usize;
            if end < start || !text.is_char_boundary(end) {
                return None;
            }
            start = end;
        }
        Some(NameTable { text, ends })
    }

    /// Number `id`'s name.
    #[inline]
    pub fn get(&self, id: u32) -> Option<&str> {
        let i = id as usize;
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        // Boundaries were checked when the table was made.
        self.text.get(start..end)
    }

    /// How many names it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Every name, in number order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let name = &self.text[start..end as usize];
            start = end as usize;
            name
        })
    }
}

/// One file's definitions' names as numbers in a [`NameTable`], in order (as
/// [`CountedTags::defs`](crate::CountedTags::defs) holds them; its references' are in its
/// [`RefCounts`](crate::RefCounts), [`RefCounts::numbers`](crate::RefCounts::numbers)).
#[derive(Debug, Clone)]
pub struct NameIds {
    /// The table the numbers are in.
    pub table: Arc<NameTable>,
    /// The numbers: one per definition. A number outside the table reads as a name no
    /// file defines.
    pub ids: Box<[u32]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_checked() {
        let table = NameTable::from_parts(b"abc\xc3\xa9".to_vec(), vec![1, 3, 5]).unwrap();
        assert_eq!(table.iter().collect::<Vec<_>>(), ["a", "bc", "é"]);
        assert!(NameTable::from_parts(b"ab".to_vec(), vec![2, 1]).is_none());
        assert!(NameTable::from_parts(b"ab".to_vec(), vec![3]).is_none());
        assert!(NameTable::from_parts(b"\xc3\xa9".to_vec(), vec![1, 2]).is_none());
        assert!(NameTable::from_parts(b"\xff".to_vec(), vec![1]).is_none());
    }
}
