//! [`RankIndex`]: the tag index kept between rankings of the same files.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rayon::iter::{IntoParallelRefIterator, ParallelIterator};
use repo_mapper_tags::fxhash::FxBuildHasher;

use crate::bodies::BodyIndex;
use crate::graph::FileGraph;
use crate::index::{IndexCore, TagIndex};
use crate::rank::duplicate_flags;
use crate::relevance::is_auxiliary;
use crate::{CountedTags, FileTags, Terms};

/// The identifier index (behaviour.md §6.1) of a list of files, kept to rank the same files again
/// with other chat files, mentions or anchors ([`rank_with`](crate::rank_with)), and the
/// file graph of the last such ranking.
///
/// Indexing hashes every tag name: the largest step before PageRank on a large repository,
/// and building the graph the next. A long-lived session (an MCP server) builds the index
/// once and passes it to every ranking of the same files; each re-weights the kept graph
/// where its chat files and mentioned identifiers differ from the last one's.
///
/// Whether an index fits a request is decided by identity, not content: the same paths in
/// the same order, each with the very tags the index was built from (the same
/// [`CountedTags`], by address). The index holds those tags (`Arc`), so while it lives
/// their memory cannot go to other tags and nobody can change them: an index that fits is
/// exactly the one the files would get, and one that does not is ignored.
///
/// ```
/// use std::path::Path;
/// use std::sync::Arc;
/// use repo_mapper_rank::{CountedTags, FileTags, RankConfig, RankIndex, RankRequest, rank, rank_with};
/// use repo_mapper_tags::{Tag, TagKind};
///
/// fn tags(file: &str, name: &str, kind: TagKind) -> Arc<CountedTags> {
///     let tag = Tag { rel_fname: Arc::from(file), fname: Arc::from(Path::new(file)), line: 1,
///                     name: name.to_owned(), kind, sub_kind: "function" };
///     Arc::new(CountedTags::from_tags(vec![tag]))
/// }
/// let (a, b) = (tags("a.py", "parse", TagKind::Def), tags("b.py", "parse", TagKind::Ref));
/// let mut index = RankIndex::build(&[("a.py", Arc::clone(&a)), ("b.py", Arc::clone(&b))]);
/// let config = RankConfig::default();
/// for chat in ["a.py", "b.py"] {
///     // Other chat files, the same files and tags: the index fits.
///     let files = vec![
///         FileTags::counted("a.py", &a).with_chat(chat == "a.py"),
///         FileTags::counted("b.py", &b).with_chat(chat == "b.py"),
///     ];
///     assert!(index.fits(&files));
///     let request = RankRequest::new(files, 2);
///     assert_eq!(rank_with(&request, &config, &mut index).entries, rank(&request, &config).entries);
/// }
/// // Equal tags that are not the same ones: it does not fit, and `rank_with` indexes afresh.
/// let copy = CountedTags::clone(&b);
/// assert!(!index.fits(&[FileTags::counted("a.py", &a), FileTags::counted("b.py", &copy)]));
/// ```
pub struct RankIndex {
    core: Arc<IndexCore>,
    files: Vec<Identity>,
    /// The graph of the last ranking with this index.
    pub(crate) graph: Option<FileGraph>,
    /// Each file's path words, counted ([`Terms::of_text`] of the path), made at the
    /// first ranking that scores a message: a warm session splits each path once, not at
    /// every call.
    path_words: OnceLock<Vec<Terms>>,
    /// Per file: whether its path is a test's, a doc's or an example's
    /// ([`is_auxiliary`]), made at the first ranking that asks.
    auxiliary: OnceLock<Vec<bool>>,
    /// Each file's words by definition region, made at the first ranking that reads its
    /// text ([`Relevance::body_boost`](crate::Relevance::body_boost)): the text of a
    /// file with these very tags is split once per session.
    bodies: Mutex<HashMap<u32, Arc<BodyIndex>, FxBuildHasher>>,
}

impl std::fmt::Debug for RankIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RankIndex")
            .field("files", &self.files.len())
            .field("graph", &self.graph.is_some())
            .finish_non_exhaustive()
    }
}

/// What makes a file the same file for an index: its name and its very tags, held so that
/// no other tags can take their place.
#[derive(Debug, Clone)]
struct Identity {
    rel_fname: Box<str>,
    tags: Arc<CountedTags>,
}

impl Identity {
    fn is(&self, file: &FileTags<'_>) -> bool {
        *self.rel_fname == *file.rel_fname
            && std::ptr::eq(self.tags.defs.as_slice(), file.tags)
            && std::ptr::eq(&self.tags.refs, file.refs)
            && std::ptr::eq(&self.tags.terms, file.terms)
    }
}

impl RankIndex {
    /// Indexes `files` (name and tags of each of a request's
    /// [`files`](crate::RankRequest::files), in its order), keeping their tags.
    pub fn build(files: &[(&str, Arc<CountedTags>)]) -> RankIndex {
        let borrowed: Vec<FileTags<'_>> = files
            .iter()
            .map(|(name, tags)| FileTags::counted(name, tags))
            .collect();
        let skip = duplicate_flags(&borrowed);
        RankIndex {
            core: TagIndex::build(&borrowed, &skip).core(),
            files: files
                .iter()
                .map(|(name, tags)| Identity {
                    rel_fname: (*name).into(),
                    tags: Arc::clone(tags),
                })
                .collect(),
            graph: None,
            path_words: OnceLock::new(),
            auxiliary: OnceLock::new(),
            bodies: Mutex::default(),
        }
    }

    /// File `file`'s [`BodyIndex`]: the one kept, else `make`'s, kept when made.
    pub(crate) fn body(
        &self,
        file: usize,
        make: impl FnOnce() -> Option<BodyIndex>,
    ) -> Option<Arc<BodyIndex>> {
        // Not held while `make` reads and splits the file: the other threads read theirs.
        let bodies = || self.bodies.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(body) = bodies().get(&(file as u32)) {
            return Some(Arc::clone(body));
        }
        let body = Arc::new(make()?);
        Some(Arc::clone(bodies().entry(file as u32).or_insert(body)))
    }

    /// Each file's path words, counted, in file order.
    pub(crate) fn path_words(&self) -> &[Terms] {
        self.path_words.get_or_init(|| {
            self.files
                .par_iter()
                .map(|f| Terms::of_text(&f.rel_fname))
                .collect()
        })
    }

    /// Per file, in file order: whether it is auxiliary ([`is_auxiliary`]).
    pub(crate) fn auxiliary(&self) -> &[bool] {
        self.auxiliary.get_or_init(|| {
            (self.files.par_iter())
                .map(|f| is_auxiliary(&f.rel_fname))
                .collect()
        })
    }

    /// Whether this is the index of `files`: the files it was built from, in the same order,
    /// each borrowing the very tags the index holds.
    pub fn fits(&self, files: &[FileTags<'_>]) -> bool {
        self.files.len() == files.len() && self.files.iter().zip(files).all(|(i, f)| i.is(f))
    }

    /// The index over `files`, which it must [fit](RankIndex::fits) (`rank_with` checks
    /// once, before it takes the graph).
    pub(crate) fn over<'a>(&self, files: &[FileTags<'a>]) -> TagIndex<'a> {
        TagIndex::over(Arc::clone(&self.core), files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{def, refr};
    use crate::{RankConfig, RankRequest, Ranking, Relevance, Stage, rank, rank_with};

    /// 40 files, each defining a few of 60 names and referring to others (a fixed LCG),
    /// names shared by many files, some defined twice, one file listed twice.
    fn corpus() -> (Vec<String>, Vec<Arc<CountedTags>>) {
        let mut state: u64 = 7;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let dirs = ["redirect", "session", "cookie_jar"];
        let names: Vec<String> = (0..40)
            .map(|i| format!("{}/m{:02}.py", dirs[i % 3], i % 39))
            .collect();
        let tags = names
            .iter()
            .map(|f| {
                let mut t = Vec::new();
                for line in 1..=12 {
                    let ident = format!("name_{}", next(60));
                    t.push(if next(3) == 0 {
                        def(f, line, &ident)
                    } else {
                        refr(f, line, &ident)
                    });
                }
                // Names nobody references: self-edges, equal ranks within the file, the
                // tie broken by name (listed out of name order).
                for (line, own) in [(13, "own_b"), (14, "own_c"), (15, "own_a")] {
                    t.push(def(f, line, own));
                }
                Arc::new(CountedTags::from_tags(t))
            })
            .collect::<Vec<_>>();
        // Files that define nothing: the measured ranking lists those its message
        // matches bare among the definitions (`Stage::Matched`).
        let mut names = names;
        let mut tags = tags;
        for i in 0..4 {
            let f = format!("{}/only_refs{i}.py", dirs[i % 3]);
            let t = (1..=6).map(|line| refr(&f, line, &format!("name_{}", next(60))));
            tags.push(Arc::new(CountedTags::from_tags(t.collect())));
            names.push(f);
        }
        (names, tags)
    }

    /// A text for every file, its lines holding the words of the tests' messages here
    /// and there (by the file's index).
    struct Texts;

    impl crate::Sources for Texts {
        fn text(&self, file: usize) -> Option<String> {
            let words = ["redirect", "cookie", "jar", "expire", "name", "other"];
            let lines = (1..=16).map(|line| words[(file * 7 + line * 3) % words.len()]);
            Some(lines.collect::<Vec<_>>().join("\n"))
        }
    }

    fn files_of<'a>(names: &'a [String], tags: &'a [Arc<CountedTags>]) -> Vec<FileTags<'a>> {
        names
            .iter()
            .zip(tags)
            .map(|(n, t)| FileTags::counted(n, t))
            .collect()
    }

    fn index_of(names: &[String], tags: &[Arc<CountedTags>]) -> RankIndex {
        let files: Vec<(&str, Arc<CountedTags>)> = names
            .iter()
            .zip(tags)
            .map(|(n, t)| (n.as_str(), Arc::clone(t)))
            .collect();
        RankIndex::build(&files)
    }

    fn same(a: &Ranking<'_>, b: &Ranking<'_>) {
        assert_eq!(a.entries, b.entries);
        assert!(a.definition_ranks().eq(b.definition_ranks()));
        assert_eq!(a.file_ranks, b.file_ranks);
        assert_eq!(a.personalization, b.personalization);
    }

    /// A file whose node comes before the files in front of it (it defines a name nobody
    /// references: networkx numbers it first) joins the chat with another: the re-weighed
    /// rows reach the graph out of node order, and the ranking is still a fresh one's.
    #[test]
    fn a_kept_graph_reweighs_rows_out_of_node_order() {
        let names: Vec<String> = ["a.py", "b.py", "c.py"].map(String::from).to_vec();
        let tags = [
            vec![refr("a.py", 1, "shared_name")],
            vec![def("b.py", 1, "shared_name")],
            vec![
                def("c.py", 1, "lonely_name"),
                refr("c.py", 2, "shared_name"),
            ],
        ]
        .map(|t| Arc::new(CountedTags::from_tags(t)))
        .to_vec();
        let files = files_of(&names, &tags);
        let mut index = index_of(&names, &tags);
        let config = RankConfig::default();
        for chat in [[false; 3], [true, false, true], [false, true, false]] {
            let files: Vec<FileTags> = files
                .iter()
                .zip(chat)
                .map(|(f, c)| f.with_chat(c))
                .collect();
            let request = RankRequest::new(files, names.len());
            same(
                &rank_with(&request, &config, &mut index),
                &rank(&request, &config),
            );
        }
    }

    #[test]
    fn a_kept_index_ranks_as_a_fresh_one_for_every_chat_file_and_mention() {
        let (names, tags) = corpus();
        let files = files_of(&names, &tags);
        let mentions: [&[&str]; 4] = [
            &["name_3", "name_17", "absent"],
            &[],
            &["name_3", "name_40", "own_a"],
            &["name_17"],
        ];
        // The exact adjacency, and the factored one (every graph above the limit: a kept
        // one steps over its transposed bundles); the SPEC's ranking, and the measured one
        // with a message (BM25 over the paths' words, which the kept index splits once) —
        // the MCP server's ranking of a large repository.
        for (exact_edge_limit, relevance) in [
            (usize::MAX, Relevance::SPEC),
            (0, Relevance::SPEC),
            (usize::MAX, Relevance::MEASURED),
            (0, Relevance::MEASURED),
        ] {
            let mut index = index_of(&names, &tags);
            let mut config = RankConfig::default();
            config.params.exact_edge_limit = exact_edge_limit;
            config.relevance = relevance;
            // Each ranking re-weights the last one's graph: chat files two at a time, so
            // that a file leaves the chat while another joins, and mentions in turn.
            for (step, chat) in (0..names.len()).chain([3, 3, 3]).enumerate() {
                let in_chat = |i: usize| i == chat || i == (chat * 7) % names.len();
                let files: Vec<FileTags> = files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| f.with_chat(in_chat(i)))
                    .collect();
                let mut request = RankRequest::new(files, names.len());
                request.mentioned_idents =
                    mentions[step % mentions.len()].iter().copied().collect();
                request.anchor_idents = vec!["name_40"];
                // Another message each time: the kept bodies serve every message.
                request.query =
                    [vec!["redirect", "cookie", "name"], vec!["jar", "expire"]][step % 2].clone();
                request.sources = Some(&Texts);
                same(
                    &rank_with(&request, &config, &mut index),
                    &rank(&request, &config),
                );
            }
        }
    }

    /// Issue 26: a list cut at `list_limit` is the head of the whole list, ranked afresh
    /// or with a kept index (whose identifier order sorts by packed keys), chat files and
    /// all; with an anchor, or a limit past the definitions, the whole list is made.
    #[test]
    fn a_limited_list_is_the_head_of_the_whole_one() {
        let (names, tags) = corpus();
        let files = files_of(&names, &tags);
        let files: Vec<FileTags> = (files.iter().enumerate())
            .map(|(i, f)| f.with_chat(i % 9 == 4))
            .collect();
        for relevance in [Relevance::SPEC, Relevance::MEASURED] {
            assert_eq!(relevance.important_first, relevance == Relevance::SPEC);
            let config = RankConfig {
                relevance,
                ..RankConfig::default()
            };
            let mut request = RankRequest::new(files.clone(), names.len());
            request.query = vec!["redirect", "name"];
            let whole = rank(&request, &config);
            assert!(whole.complete);
            // The measured ranking lists the files that define nothing but match the
            // message among the definitions; the SPEC's, after them.
            let stage_at = |stage| whole.entries.iter().position(|e| e.stage == stage);
            let last_def = whole
                .entries
                .iter()
                .rposition(|e| e.stage == Stage::Definition);
            let matched = stage_at(Stage::Matched);
            assert_eq!(
                matched.is_some_and(|m| Some(m) < last_def),
                relevance == Relevance::MEASURED,
                "{matched:?} {last_def:?}"
            );
            // Stage 1 lists the definitions outside the chat files: the head counts those.
            let chat: Vec<&str> = files
                .iter()
                .filter(|f| f.chat)
                .map(|f| f.rel_fname)
                .collect();
            let listed: Vec<_> = whole
                .definition_ranks()
                .filter(|d| !chat.contains(&d.rel_fname))
                .collect();
            let defs = listed.len();
            assert!(
                defs < whole.definition_ranks().len(),
                "chat files define names"
            );
            for limit in [1, 7, 50, defs - 1, defs, defs + 3] {
                request.list_limit = Some(limit);
                let mut index = index_of(&names, &tags);
                for head in [
                    rank(&request, &config),
                    rank_with(&request, &config, &mut index),
                ] {
                    // The SPEC lists important files first: then the whole list is made.
                    let whole_made = limit >= defs || relevance.important_first;
                    assert_eq!(head.complete, whole_made, "limit {limit}");
                    if head.complete {
                        same(&head, &whole);
                        continue;
                    }
                    assert!(
                        head.definition_ranks()
                            .eq(listed.iter().copied().take(limit))
                    );
                    // Every definition of the head is listed: each (file, identifier)
                    // gives one entry per definition tag, at least one.
                    let entries = head.entries.len();
                    assert!(entries >= limit, "{entries} entries for {limit}");
                    assert_eq!(head.entries[..], whole.entries[..entries]);
                }
            }
            request.list_limit = Some(5);
            request.anchor_fnames = vec!["cookie_jar/m02.py"];
            let anchored = rank(&request, &config);
            assert!(anchored.complete);
            request.list_limit = None;
            same(&anchored, &rank(&request, &config));
            request.anchor_fnames.clear();
        }
    }

    #[test]
    fn an_index_of_other_files_or_tags_is_not_used() {
        let (names, tags) = corpus();
        let files = files_of(&names, &tags);
        let mut index = index_of(&names, &tags);
        let config = RankConfig::default();
        // Equal content, other tags.
        let copies: Vec<CountedTags> = tags.iter().map(|t| CountedTags::clone(t)).collect();
        let others: Vec<Vec<FileTags>> = vec![
            files[1..].to_vec(),
            names
                .iter()
                .zip(&copies)
                .map(|(n, t)| FileTags::counted(n, t).with_chat(true))
                .collect(),
            files.iter().rev().copied().collect(),
            files
                .iter()
                .map(|f| FileTags::new("x.py", f.tags))
                .collect(),
        ];
        for other in others {
            assert!(!index.fits(&other));
            let request = RankRequest::new(other, names.len());
            same(
                &rank_with(&request, &config, &mut index),
                &rank(&request, &config),
            );
        }
    }
}
