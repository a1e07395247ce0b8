//! What a file's parse contributes to its [`TreeContext`](crate::TreeContext), kept apart
//! from the parse so that it can be stored and a later run can render the file without
//! parsing it again.

use repo_mapper_tags::{Dialect, Language, grammar, leb128};

use crate::context::Headers;

/// The format of [`Scopes::encode`]; part of every [`ScopeKey`], so scopes stored by
/// another format are never looked up.
const FORMAT: u8 = 1;

/// Which rules the walk that finds scopes follows (`Scopes::of_tree`); part of every
/// [`ScopeKey`] and raised whenever the walk changes what a scope is, so that scopes
/// stored by a binary with other rules are never looked up. 2: comments are no scope
/// under [`Headers::Signatures`].
const RULES: u8 = 2;

/// A file's syntactic scopes, row by row: for each row where a syntax node starts, the
/// furthest row such a node ends on and how many lines a header starting there shows.
/// That is all of the parse a [`TreeContext`](crate::TreeContext) keeps.
///
/// Built from a parse by the renderer, or decoded from bytes a [`ScopeCache`] kept;
/// [`Scopes::decode`] refuses any bytes that do not describe scopes of some file, so a
/// damaged entry means a parse, never a wrong map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes {
    /// Per row: the furthest end row of a node starting on it, −1 where none starts.
    pub(crate) scope_end: Vec<i64>,
    /// Per row: the lines a header starting on it shows (1 where no node starts).
    pub(crate) header_len: Vec<u32>,
}

impl Scopes {
    /// The number of rows (the file's lines plus one, grep-ast's `num_lines`).
    pub fn rows(&self) -> usize {
        self.scope_end.len()
    }

    /// The scopes as bytes: the row count, then for each row where a node starts the
    /// distance from the previous such row, how far its scope reaches and its header's
    /// length, as LEB128 numbers.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![FORMAT];
        leb128::push(&mut out, self.rows() as u64);
        let starts = || (0..self.rows()).filter(|&row| self.scope_end[row] >= 0);
        leb128::push(&mut out, starts().count() as u64);
        let mut prev = 0;
        for row in starts() {
            leb128::push(&mut out, (row - prev) as u64);
            leb128::push(&mut out, self.scope_end[row].abs_diff(row as i64));
            leb128::push(&mut out, u64::from(self.header_len[row]));
            prev = row;
        }
        out
    }

    /// The scopes `bytes` encode for a text of `rows` rows, or `None` when they are not
    /// [`Scopes::encode`]'s output of this format for that many rows: another row count
    /// (refused before anything is allocated), rows out of order or out of range, a scope
    /// ending before it starts or past the last row, a header longer than
    /// [`HEADER_MAX`](crate::HEADER_MAX), or bytes left over.
    pub fn decode(bytes: &[u8], rows: usize) -> Option<Scopes> {
        let (&format, mut rest) = bytes.split_first()?;
        if format != FORMAT {
            return None;
        }
        let encoded_rows = usize::try_from(leb128::take(&mut rest)?).ok()?;
        let count = usize::try_from(leb128::take(&mut rest)?).ok()?;
        // Every start takes at least three bytes: a count beyond that is damage.
        if encoded_rows != rows || rows == 0 || count > rows || count > rest.len() / 3 {
            return None;
        }
        let mut scopes = Scopes::empty(rows);
        let mut row = 0usize;
        for i in 0..count {
            let step = usize::try_from(leb128::take(&mut rest)?).ok()?;
            if i > 0 && step == 0 {
                return None;
            }
            row = row.checked_add(step).filter(|&r| r < rows)?;
            let end = row.checked_add(usize::try_from(leb128::take(&mut rest)?).ok()?)?;
            let header = u32::try_from(leb128::take(&mut rest)?).ok()?;
            if end >= rows || header == 0 || header as usize > crate::HEADER_MAX {
                return None;
            }
            scopes.scope_end[row] = i64::try_from(end).ok()?;
            scopes.header_len[row] = header;
        }
        rest.is_empty().then_some(scopes)
    }

    /// `rows` rows without scopes.
    pub(crate) fn empty(rows: usize) -> Scopes {
        Scopes {
            scope_end: vec![-1; rows],
            header_len: vec![1; rows],
        }
    }
}

/// Where a [`Renderer`](crate::Renderer) keeps files' [`Scopes`] between runs, by
/// [`ScopeKey`]: the content, not the path, so a file renamed, copied into another
/// checkout or changed and changed back is found again.
///
/// Reads that fail look like misses; writes that fail are dropped. Implementations are
/// shared across threads.
pub trait ScopeCache: Send + Sync + std::fmt::Debug {
    /// The bytes kept under `key`, if any.
    fn get(&self, key: &ScopeKey) -> Option<Vec<u8>>;
    /// Keeps `bytes` under `key`.
    fn put(&self, key: &ScopeKey, bytes: &[u8]);
}

/// The key of a file's [`Scopes`]: a BLAKE3 hash of everything they depend on (the text
/// as rendered, its language and that grammar's shape, the dialect, the [`Headers`], the
/// rules of the walk and the encoding's format).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScopeKey(pub [u8; 32]);

impl ScopeKey {
    /// The key of `code`'s scopes when parsed as `language` and shown as `headers` say.
    pub fn new(code: &str, language: Language, dialect: Dialect, headers: Headers) -> ScopeKey {
        let ts = grammar(language);
        let mut hasher = blake3::Hasher::new();
        hasher.update(&[FORMAT, RULES, dialect as u8, headers as u8]);
        hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
        hasher.update(language.name().as_bytes());
        for n in [
            ts.abi_version(),
            ts.node_kind_count(),
            ts.parse_state_count(),
            ts.field_count(),
        ] {
            hasher.update(&(n as u64).to_le_bytes());
        }
        hasher.update(code.as_bytes());
        ScopeKey(*hasher.finalize().as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Scopes {
        let mut s = Scopes::empty(6);
        s.scope_end[0] = 5;
        s.scope_end[1] = 3;
        s.header_len[1] = 2;
        s.scope_end[4] = 4;
        s
    }

    #[test]
    fn scopes_come_back_as_they_were_encoded() {
        let s = sample();
        assert_eq!(Scopes::decode(&s.encode(), 6), Some(s));
    }

    #[test]
    fn damaged_bytes_are_refused() {
        let bytes = sample().encode();
        // Every strict prefix, and anything appended, is refused.
        for cut in 0..bytes.len() {
            assert_eq!(
                Scopes::decode(&bytes[..cut], 6),
                None,
                "prefix of {cut} bytes"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(Scopes::decode(&longer, 6), None);
        // Another row count, another format, a scope past the last row, a header past
        // HEADER_MAX, two starts on one row.
        assert_eq!(Scopes::decode(&bytes, 7), None);
        let mut other = bytes.clone();
        other[0] = FORMAT + 1;
        assert_eq!(Scopes::decode(&other, 6), None);
        assert_eq!(Scopes::decode(&[FORMAT, 2, 1, 0, 5, 1], 2), None);
        assert_eq!(Scopes::decode(&[FORMAT, 2, 1, 0, 0, 11], 2), None);
        assert_eq!(Scopes::decode(&[FORMAT, 3, 2, 0, 0, 1, 0, 0, 1], 3), None);
        // A row count far past what the bytes could describe allocates nothing.
        let huge = [FORMAT, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0];
        assert_eq!(Scopes::decode(&huge, 6), None);
    }

    #[test]
    fn any_bytes_decode_without_panicking() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        for len in 0..200 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state as u8
                })
                .collect();
            let rows = bytes.get(1).map_or(1, |&b| usize::from(b & 0x7f));
            if let Some(s) = Scopes::decode(&bytes, rows) {
                assert_eq!(Scopes::decode(&s.encode(), rows), Some(s));
            }
        }
    }

    #[test]
    fn the_key_changes_with_everything_the_scopes_depend_on() {
        let py = Language::from_name("python").unwrap();
        let base = ScopeKey::new("x = 1\n", py, Dialect::Default, Headers::Signatures);
        assert_eq!(
            base,
            ScopeKey::new("x = 1\n", py, Dialect::Default, Headers::Signatures)
        );
        let js = Language::from_name("javascript").unwrap();
        for other in [
            ScopeKey::new("x = 2\n", py, Dialect::Default, Headers::Signatures),
            ScopeKey::new("x = 1\n", js, Dialect::Default, Headers::Signatures),
            ScopeKey::new("x = 1\n", py, Dialect::Aider, Headers::Signatures),
            ScopeKey::new("x = 1\n", py, Dialect::Default, Headers::GrepAst),
        ] {
            assert_ne!(base, other);
        }
    }
}
