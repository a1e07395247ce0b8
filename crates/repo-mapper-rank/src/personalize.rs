//! Personalization (behaviour.md §7.1) and anchors (§7.1a): where PageRank's random surfer
//! restarts.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path};

use repo_mapper_tags::fxhash::FxBuildHasher;
use repo_mapper_tags::pycompat::splitext;

use crate::index::TagIndex;
use crate::{FileTags, RankRequest};

type FxHashSet<T> = HashSet<T, FxBuildHasher>;

/// Anchors resolved against the tag index (behaviour.md §7.1a).
pub(crate) struct Anchors<'a> {
    /// `anchor_contributions`: the weight of each anchored file, including names that
    /// are not files of the request.
    pub weights: HashMap<&'a str, f64>,
    /// Files to move to the front of the list (§7.1b), in anchor order, deduplicated.
    pub forced: Vec<&'a str>,
    /// The request's mentioned identifiers and the scoped anchors' identifiers.
    pub mentioned_idents: HashSet<&'a str>,
}

impl<'a> Anchors<'a> {
    /// Resolves the request's anchors in SPEC order (files, identifiers, scoped); `weight`
    /// is `personalize × anchor_weight_multiplier`.
    pub(crate) fn resolve(
        request: &RankRequest<'a>,
        files: &[FileTags<'a>],
        index: &TagIndex<'_>,
        weight: f64,
    ) -> Anchors<'a> {
        let mut anchors = Anchors {
            weights: HashMap::new(),
            forced: Vec::new(),
            mentioned_idents: request.mentioned_idents.clone(),
        };
        let mut forced_seen: HashSet<&'a str> = HashSet::new();
        for &f in &request.anchor_fnames {
            anchors.add_file(f, weight, &mut forced_seen);
        }
        for &ident in &request.anchor_idents {
            anchors.add_ident(ident, files, index, weight);
        }
        for &(f, ident) in &request.anchor_scoped {
            anchors.add_file(f, weight, &mut forced_seen);
            anchors.mentioned_idents.insert(ident);
        }
        anchors
    }

    /// §7.1a steps 1 and 3: the file gets the whole weight and is always listed.
    fn add_file(&mut self, f: &'a str, weight: f64, forced_seen: &mut HashSet<&'a str>) {
        *self.weights.entry(f).or_insert(0.0) += weight;
        if forced_seen.insert(f) {
            self.forced.push(f);
        }
    }

    /// §7.1a step 2: the identifier's definers share the weight.
    fn add_ident(
        &mut self,
        ident: &str,
        files: &[FileTags<'a>],
        index: &TagIndex<'_>,
        weight: f64,
    ) {
        let definers = index.id_of(ident).map_or(&[][..], |i| index.definers(i));
        if definers.is_empty() {
            tracing::debug!(ident, "anchor identifier is not defined anywhere; ignored");
            return;
        }
        if definers.len() > 1 {
            let names: Vec<&str> = definers
                .iter()
                .map(|&d| files[d as usize].rel_fname)
                .collect();
            tracing::warn!(
                ident,
                files = ?names,
                "anchor identifier is defined in {} files; its weight is shared. Use FILE:IDENT to pick one",
                definers.len()
            );
        }
        let share = weight / definers.len() as f64;
        for &d in definers {
            *self
                .weights
                .entry(files[d as usize].rel_fname)
                .or_insert(0.0) += share;
        }
    }
}

/// behaviour.md §7.1: the personalization dict (every file with a positive score, and every
/// anchored name) and each file's score (0 for none). `personalize` is 100 / N; files
/// with `skip` set (duplicates) get nothing.
pub(crate) fn personalization<'a>(
    request: &RankRequest<'a>,
    skip: &[bool],
    anchors: &Anchors<'a>,
    personalize: f64,
) -> (HashMap<&'a str, f64>, Vec<f64>) {
    let files = &request.files;
    let mut personalization: HashMap<&'a str, f64> = HashMap::new();
    let mut file_pers = vec![0.0; files.len()];
    // Every file's path is checked against these: a lookup in a set this small costs
    // less with FxHash than with SipHash (a warm call spent 1–2 ms here on Django).
    let idents: FxHashSet<&str> = anchors.mentioned_idents.iter().copied().collect();
    for (fi, file) in files.iter().enumerate() {
        if skip[fi] {
            continue;
        }
        let anchored = anchors.weights.get(file.rel_fname).copied();
        let score = file_score(file, request, &idents, personalize, anchored);
        if score > 0.0 || anchored.is_some() {
            personalization.insert(file.rel_fname, score);
            file_pers[fi] = score;
        }
    }
    for (&f, &a) in &anchors.weights {
        personalization.entry(f).or_insert(a);
    }
    (personalization, file_pers)
}

/// behaviour.md §7.1 steps 1–5 for one file.
fn file_score(
    file: &FileTags<'_>,
    request: &RankRequest<'_>,
    mentioned_idents: &FxHashSet<&str>,
    personalize: f64,
    anchored: Option<f64>,
) -> f64 {
    let mut current = 0.0;
    if file.chat {
        current += personalize;
    }
    if request.mentioned_fnames.contains(file.rel_fname) {
        current = f64::max(current, personalize);
    }
    if !mentioned_idents.is_empty()
        && any_path_component(file.rel_fname, |c| mentioned_idents.contains(c))
    {
        current += personalize;
    }
    if let Some(a) = anchored {
        current += a;
    }
    current
}

/// Whether `found` holds for one of the components Aider checks against the mentioned
/// identifiers: `Path(rel).parts`, the file name, and the file name without its extension
/// (`os.path.splitext`), in that order; nothing is allocated.
fn any_path_component<'p>(rel_fname: &'p str, mut found: impl FnMut(&'p str) -> bool) -> bool {
    let mut last = None;
    for comp in Path::new(rel_fname).components() {
        let part = match comp {
            Component::Normal(s) => match s.to_str() {
                Some(s) => s,
                None => continue,
            },
            Component::ParentDir => "..",
            Component::RootDir => "/",
            Component::CurDir | Component::Prefix(_) => continue,
        };
        if found(part) {
            return true;
        }
        last = Some(part);
    }
    let name = match last {
        Some("/") | None => "",
        Some(last) => last,
    };
    found(name) || found(splitext(name).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every component [`any_path_component`] offers, in order.
    fn path_components(rel_fname: &str) -> Vec<&str> {
        let mut parts = Vec::new();
        any_path_component(rel_fname, |c| {
            parts.push(c);
            false
        });
        parts
    }

    #[test]
    fn path_components_match_python() {
        assert_eq!(
            path_components("src/auth/login.py"),
            ["src", "auth", "login.py", "login.py", "login"]
        );
        assert_eq!(
            path_components(".gitignore"),
            [".gitignore", ".gitignore", ".gitignore"]
        );
        assert_eq!(
            path_components("a.tar.gz"),
            ["a.tar.gz", "a.tar.gz", "a.tar"]
        );
        assert_eq!(path_components("./x/..y"), ["x", "..y", "..y", "..y"]);
        assert_eq!(path_components("../x.py"), ["..", "x.py", "x.py", "x"]);
        assert_eq!(splitext("..a.b").0, "..a");
        assert_eq!(splitext("...").0, "...");
        assert_eq!(splitext("a.").0, "a");
    }
}
