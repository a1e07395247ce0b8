//! What the soak knows of a root between calls: the files a map would list (the walk the
//! server and the command share), and identifiers read from them.

use std::collections::BTreeSet;
use std::path::Path;

use super::rng::Rng;

/// The largest file the soak reads for identifiers or rewrites (cases record rewrites
/// whole, so they stay small).
pub(crate) const MAX_EDITED: u64 = 16 * 1024;

/// A root's mapped files, relative to it, sorted.
pub(crate) fn mapped(root: &Path) -> Vec<String> {
    repo_mapper::list_files(root, None)
        .iter()
        .filter_map(|f| f.strip_prefix(root).ok()?.to_str().map(str::to_owned))
        .collect()
}

/// The text of `rel` under `root` when it is UTF-8 and at most [`MAX_EDITED`] bytes.
pub(crate) fn small_text(root: &Path, rel: &str) -> Option<String> {
    let path = root.join(rel);
    let meta = std::fs::metadata(&path).ok()?;
    if !meta.is_file() || meta.len() > MAX_EDITED {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// A small text file of `files`, at most `tries` picks.
pub(crate) fn pick_small(
    rng: &mut Rng,
    root: &Path,
    files: &[String],
    tries: usize,
) -> Option<(String, String)> {
    for _ in 0..tries {
        let rel = rng.pick(files)?;
        if let Some(text) = small_text(root, rel) {
            return Some((rel.clone(), text));
        }
    }
    None
}

/// The identifiers of `text` (ASCII, at least four characters, not starting with a
/// digit), with where each occurrence starts, in order.
pub(crate) fn identifiers(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !word(bytes[at]) {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && word(bytes[at]) {
            at += 1;
        }
        if at - start >= 4 && !bytes[start].is_ascii_digit() {
            out.push((start, &text[start..at]));
        }
    }
    out
}

/// Identifiers read from a few of `files`, for mentions, searches and new code's calls.
pub(crate) fn ident_pool(rng: &mut Rng, root: &Path, files: &[String]) -> Vec<String> {
    let mut pool = BTreeSet::new();
    for _ in 0..3 {
        if let Some((_, text)) = pick_small(rng, root, files, 4) {
            pool.extend(identifiers(&text).into_iter().map(|(_, w)| w.to_owned()));
        }
    }
    pool.into_iter().collect()
}

/// The directories holding `files` (every ancestor but the root), each with the number
/// of files under it.
pub(crate) fn directories(files: &[String]) -> Vec<(String, usize)> {
    let mut dirs: std::collections::BTreeMap<String, usize> = Default::default();
    for f in files {
        let mut dir = Path::new(f).parent();
        while let Some(d) = dir.filter(|d| !d.as_os_str().is_empty()) {
            if let Some(s) = d.to_str() {
                *dirs.entry(s.to_owned()).or_default() += 1;
            }
            dir = d.parent();
        }
    }
    dirs.into_iter().collect()
}
