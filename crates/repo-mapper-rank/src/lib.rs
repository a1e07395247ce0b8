#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod bodies;
mod clues;
mod csr;
mod cxxsort;
mod graph;
mod important;
mod index;
mod intern;
mod numbered;
pub mod pagerank;
mod personalize;
mod prose;
mod rank;
mod relevance;
mod reuse;
mod stages;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

pub use bodies::Sources;
pub use clues::{Clues, MAX_CLUES};
pub use important::is_important;
pub use pagerank::{PageRankError, PageRankParams, PageRankResult, WeightedDigraph};
pub use prose::without_templates;
pub use rank::{graph_edges, rank, rank_with};
pub use relevance::{Relevance, is_auxiliary, query_term_counts, query_terms};
pub use repo_mapper_tags::{CountedTags, Dialect, NameIds, RefCounts, Tag, TagKind, Terms};
pub use reuse::RankIndex;

/// Bare file entries with a PageRank at or below this are dropped when
/// [`RankParams::exclude_unranked`] is set (behaviour.md §7.5 step 6).
pub const EXCLUDE_UNRANKED_THRESHOLD: f64 = 0.0001;

/// One file's input to ranking: its path relative to the root and its tags (whose
/// `rel_fname` should be the same path: definition entries report the tag's).
///
/// Built with [`FileTags::new`] or [`FileTags::chat`]; `with_chat` sets the flag from a
/// condition.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct FileTags<'a> {
    /// Path relative to the repository root: the graph node's name.
    pub rel_fname: &'a str,
    /// The file's tags (definitions and references), in extraction order.
    pub tags: &'a [Tag],
    /// More references, counted per identifier: each counts as that many reference tags
    /// after those in `tags` (see [`FileTags::counted`]).
    pub refs: &'a RefCounts,
    /// Whether the file is in the chat (behaviour.md §2.2: chat wins when a file is in both sets).
    pub chat: bool,
    /// Every code word of the file's text, counted (empty when not read): what the
    /// default profile's full-text score reads ([`Relevance::full_text`]).
    pub terms: &'a Terms,
    /// The numbers of the names of `tags` then `refs` in a table many files share
    /// ([`CountedTags::names`]): files that have them are indexed without hashing a
    /// name. `None`: the names are hashed.
    pub names: Option<&'a NameIds>,
}

/// No counted references.
static NO_REFS: RefCounts = RefCounts::new();

/// No code words.
static NO_TERMS: std::sync::LazyLock<Terms> = std::sync::LazyLock::new(Terms::default);

impl<'a> FileTags<'a> {
    /// A non-chat file.
    pub fn new(rel_fname: &'a str, tags: &'a [Tag]) -> Self {
        FileTags {
            rel_fname,
            tags,
            refs: &NO_REFS,
            chat: false,
            terms: &NO_TERMS,
            names: None,
        }
    }

    /// A non-chat file whose references are counted: ranks as the file with all its tags
    /// (ranking reads references only for their counts), in a fraction of the memory.
    pub fn counted(rel_fname: &'a str, tags: &'a CountedTags) -> Self {
        FileTags {
            rel_fname,
            tags: &tags.defs,
            refs: &tags.refs,
            chat: false,
            terms: &tags.terms,
            names: tags.names.as_ref(),
        }
    }

    /// A chat file.
    pub fn chat(rel_fname: &'a str, tags: &'a [Tag]) -> Self {
        FileTags::new(rel_fname, tags).with_chat(true)
    }

    /// The same file, in the chat or not.
    #[must_use]
    pub fn with_chat(self, chat: bool) -> Self {
        FileTags { chat, ..self }
    }
}

/// What to rank. Everything is borrowed: tags are never cloned.
///
/// Built with [`RankRequest::new`] (or `Default`), then the other fields assigned.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct RankRequest<'a> {
    /// The files whose tags feed the graph, in processing order — Aider processes
    /// `sorted(set(chat_fnames) | set(other_fnames))` by absolute path, skipping files
    /// missing from disk. Files without tags belong here too (they can be personalised).
    /// A `rel_fname` given twice is used once (its first occurrence).
    pub files: Vec<FileTags<'a>>,
    /// N of behaviour.md §7.1: the number of distinct chat and other files, including those
    /// missing from disk (Aider counts them). Values below `files.len()` mean
    /// `files.len()`.
    pub num_files: usize,
    /// The other (non-chat) files, relative: stage 3 lists those that never made it into
    /// the graph, and stage 0 picks the important ones. Order and duplicates do not matter.
    pub other_rel_fnames: Vec<&'a str>,
    /// Files mentioned in the conversation, relative to the root (behaviour.md §7.1 step 3).
    pub mentioned_fnames: HashSet<&'a str>,
    /// Identifiers mentioned in the conversation (behaviour.md §6.4, §7.1 step 4).
    pub mentioned_idents: HashSet<&'a str>,
    /// Anchor files, relative to the root: restart seeds, always listed (behaviour.md §7.1a–b).
    pub anchor_fnames: Vec<&'a str>,
    /// Anchor identifiers: their defining files share one anchor weight (behaviour.md §7.1a).
    pub anchor_idents: Vec<&'a str>,
    /// Scoped anchors `(file, identifier)`: the file is a seed and always listed, the
    /// identifier counts as mentioned (behaviour.md §7.1a).
    pub anchor_scoped: Vec<(&'a str, &'a str)>,
    /// The terms of the user's message ([`query_terms`]), read by
    /// [`RankConfig::relevance`]'s lexical score; the SPEC's ranking ignores them.
    pub query: Vec<&'a str>,
    /// Per term of [`query`](RankRequest::query): how often the message has it
    /// ([`query_term_counts`]), read by [`Relevance::term_counts`]; empty (or shorter):
    /// once.
    pub query_counts: Vec<u32>,
    /// Per file of [`files`](RankRequest::files), in its order: how strongly the
    /// repository's history ties it to the chat files (the commits that changed both);
    /// empty: no history (nor is a list of another length read). Read in fusion only
    /// ([`Relevance::co_change_weight`]).
    pub co_change: Vec<f64>,
    /// What the user's text points at ([`Clues`]): read in fusion only
    /// ([`Relevance::clue_weight`]).
    pub clues: Option<&'a Clues>,
    /// Where the text of the files is read for [`Relevance::body_boost`] and
    /// [`Relevance::passage_weight`]; `None`: the definitions' text is not read. With a
    /// kept [`RankIndex`], each file's text is read once while its tags stay the same.
    pub sources: Option<&'a dyn Sources>,
    /// List only the best this many definitions, in order, and stop there: a caller that
    /// reads only the head of the list (a map's budget search) need not sort and list a
    /// million definitions. Ignored (the whole list is made) when something is moved
    /// ahead of the definitions (anchors, [`Relevance::important_first`]) or when there
    /// are no more definitions than this; [`Ranking::complete`] says which.
    pub list_limit: Option<usize>,
}

impl<'a> RankRequest<'a> {
    /// A request over `files`, N of behaviour.md §7.1 being `num_files` (see
    /// [`RankRequest::num_files`]); nothing mentioned, no anchors, no other files.
    pub fn new(files: Vec<FileTags<'a>>, num_files: usize) -> Self {
        RankRequest {
            files,
            num_files,
            ..RankRequest::default()
        }
    }
}

/// What a ranking follows: whose behaviour ([`Dialect`]), the departures from the SPEC's
/// ranking ([`Relevance`]), and the numbers ([`RankParams`]).
///
/// Built with `Default` or [`RankConfig::with_dialect`], then fields assigned.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub struct RankConfig {
    /// SPEC (`Default`) or Aider 0.86.2 (`Aider`) behaviour; see the crate docs.
    pub dialect: Dialect,
    /// Departures from the SPEC's ranking: none by default ([`Relevance::SPEC`]);
    /// [`Relevance::MEASURED`] those measured to find what a task needs. Read in
    /// [`Dialect::Default`] only: the Aider dialect ranks as Aider does.
    pub relevance: Relevance,
    /// The ranking's numbers.
    pub params: RankParams,
}

impl RankConfig {
    /// The defaults, in the given dialect.
    pub fn with_dialect(dialect: Dialect) -> Self {
        RankConfig {
            dialect,
            ..RankConfig::default()
        }
    }
}

/// The ranking's numbers (the ranking part of behaviour.md §14), the same in every dialect.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct RankParams {
    /// Weight of the self-edge of a definition nobody references (`self_edge_weight`,
    /// default 0.1; behaviour.md §6.5).
    pub self_edge_weight: f64,
    /// PageRank damping, tolerance and iteration limit (behaviour.md §7.2).
    pub pagerank: PageRankParams,
    /// Anchor weight relative to a chat file's (`anchor_weight_multiplier`, default 10).
    pub anchor_weight_multiplier: f64,
    /// Drop bare file entries whose PageRank is at most [`EXCLUDE_UNRANKED_THRESHOLD`]
    /// (`exclude_unranked`, default false; behaviour.md §7.5 step 6).
    pub exclude_unranked: bool,
    /// Largest graph, in edges, for which PageRank builds networkx's matrix and matches
    /// networkx bit for bit (default 5,000,000, about 120 MB at the peak). Larger graphs —
    /// a common name defined in thousands of files and referenced in thousands more makes
    /// millions of edges — run on the factored graph (memory and time linear in the tags),
    /// whose ranks agree with networkx's to about 1e-15 but not to the bit.
    pub exact_edge_limit: usize,
}

impl Default for RankParams {
    fn default() -> Self {
        RankParams {
            self_edge_weight: 0.1,
            pagerank: PageRankParams::default(),
            anchor_weight_multiplier: 10.0,
            exclude_unranked: false,
            exact_edge_limit: 5_000_000,
        }
    }
}

/// Where an entry of the ranked list comes from. Variants are in list order, but for
/// [`Stage::Matched`], which is interleaved with stage 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// An anchor file's entries, moved to the front (behaviour.md §7.1b): the file of every
    /// [`RankRequest::anchor_fnames`] and [`RankRequest::anchor_scoped`] entry. Its
    /// definition entries keep their tags; an anchor file without entries gets a bare one.
    Anchor,
    /// Stage 0: an important file (behaviour.md §8), bare, in path order.
    ///
    /// In [`Dialect::Aider`] an important file is prepended only if the list does not
    /// already name it — as Aider 0.86.2 does, which in practice never happens, since
    /// stages 2 and 3 name every other file. In [`Dialect::Default`] important files
    /// without definition entries are *moved* here from stages 2 and 3, so they head the
    /// map as behaviour.md §8.2's stated result (`[important_files...] + [ranked_definition_tags...]
    /// + [unranked_files...]`) requires.
    Important,
    /// Stage 1: a definition tag, by the rank of its (file, identifier) (behaviour.md §7.5 step 2).
    Definition,
    /// Stage 1, the default profile's fusion only ([`Relevance::fusion_k`]): a file without
    /// definition entries that the fused orders place (its text matches the message, or
    /// it changes with the chat files), bare, among the definitions where its fused score
    /// falls (behaviour.md §7.5.10): the tags say nothing of it, its words do.
    Matched,
    /// Stage 2: a graph file without definition entries, by PageRank (behaviour.md §7.5 step 4).
    /// Chat files are listed here too, as in Aider; the renderer skips them.
    GraphFile,
    /// Stage 3: an other file that never entered the graph (behaviour.md §7.5 step 5).
    ///
    /// Sorted by path in both dialects. Aider appends them in Python set order, which
    /// changes from process to process: comparisons with Aider must treat stage 3 as a set.
    OtherFile,
}

impl Stage {
    /// The stage number of seed phase 3A: 0 for the prelude (anchors and important
    /// files), 1 definitions, 2 graph files, 3 other files.
    pub fn number(self) -> u8 {
        match self {
            Stage::Anchor | Stage::Important => 0,
            Stage::Definition | Stage::Matched => 1,
            Stage::GraphFile => 2,
            Stage::OtherFile => 3,
        }
    }

    /// A short name: `anchor`, `important`, `definition`, `matched_file`, `graph_file`,
    /// `other_file`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Anchor => "anchor",
            Stage::Important => "important",
            Stage::Definition => "definition",
            Stage::Matched => "matched_file",
            Stage::GraphFile => "graph_file",
            Stage::OtherFile => "other_file",
        }
    }
}

/// One entry of the ranked list: a definition tag or a bare file.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RankedItem<'a> {
    /// A definition tag, with the rank of its (file, identifier).
    Def {
        /// The tag, borrowed from the request.
        tag: &'a Tag,
        /// The rank of (`tag.rel_fname`, `tag.name`) (behaviour.md §7.4).
        rank: f64,
    },
    /// A file listed by name only.
    File {
        /// Path relative to the root.
        rel_fname: &'a str,
        /// The file's PageRank, or `None` if it is not in the graph.
        rank: Option<f64>,
    },
}

/// An entry of the ranked list, with the stage it comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedEntry<'a> {
    /// Which stage produced the entry.
    pub stage: Stage,
    /// The tag or file.
    pub item: RankedItem<'a>,
}

impl<'a> RankedEntry<'a> {
    /// The file the entry belongs to.
    pub fn rel_fname(&self) -> &'a str {
        match self.item {
            RankedItem::Def { tag, .. } => &tag.rel_fname,
            RankedItem::File { rel_fname, .. } => rel_fname,
        }
    }

    /// The definition tag, for definition entries.
    pub fn tag(&self) -> Option<&'a Tag> {
        match self.item {
            RankedItem::Def { tag, .. } => Some(tag),
            RankedItem::File { .. } => None,
        }
    }

    /// The entry's rank: the (file, identifier) rank of a definition, the PageRank of a
    /// bare file in the graph, `None` for a file outside it.
    pub fn rank(&self) -> Option<f64> {
        match self.item {
            RankedItem::Def { rank, .. } => Some(rank),
            RankedItem::File { rank, .. } => rank,
        }
    }

    /// Whether this is a bare file entry.
    pub fn is_file(&self) -> bool {
        matches!(self.item, RankedItem::File { .. })
    }
}

/// The rank of one (file, identifier) pair: the PageRank its definitions receive over
/// in-edges (behaviour.md §7.4).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DefinitionRank<'a> {
    /// The defining file.
    pub rel_fname: &'a str,
    /// The identifier.
    pub ident: &'a str,
    /// Its rank.
    pub rank: f64,
}

/// How PageRank went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRankOutcome {
    /// The graph has no nodes: nothing to rank.
    EmptyGraph,
    /// Converged after this many iterations.
    Converged {
        /// Iterations run.
        iterations: usize,
    },
    /// Hit the iteration limit; the ranks are the last iterate (a `tracing` warning was
    /// emitted; Aider would crash).
    NotConverged {
        /// Iterations run.
        iterations: usize,
    },
    /// Division by zero with and without personalization (behaviour.md §7.3): no ranks, and the
    /// list holds only the prelude (anchors and important files).
    Failed,
}

/// How PageRank was run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct PageRankRun {
    /// Whether there was a personalization vector to use (some file had a positive score).
    pub personalization_requested: bool,
    /// Whether the ranks use it: false when it summed to zero over the graph's nodes and
    /// PageRank was re-run without it (behaviour.md §7.3).
    pub personalized: bool,
    /// Convergence.
    pub outcome: PageRankOutcome,
}

/// The result of [`rank`](fn@rank).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Ranking<'a> {
    /// The ranked list: anchors, stage 0, 1, 2, 3 (see [`Stage`]); only its head when not
    /// [`complete`](Ranking::complete).
    pub entries: Vec<RankedEntry<'a>>,
    /// Whether `entries` is the whole list. False when [`RankRequest::list_limit`] cut it:
    /// then it holds the best definitions (stage 1's head) only, as the whole list would
    /// begin, and [`Ranking::definition_ranks`] those definitions only (chat files' left
    /// out).
    pub complete: bool,
    /// Graph nodes (files) in node order.
    pub nodes: Vec<&'a str>,
    /// PageRank of every graph node.
    pub file_ranks: HashMap<&'a str, f64>,
    /// The (file, identifier) ranks, named on demand ([`Ranking::definition_ranks`]).
    definitions: DefinitionRanks<'a>,
    /// The personalization scores (behaviour.md §7.1), before normalisation: every file with a
    /// positive score, and every anchored file.
    pub personalization: HashMap<&'a str, f64>,
    /// Number of graph edges, parallel edges counted separately.
    pub edge_count: usize,
    /// What [`Ranking::whys`] reads (`None` in the SPEC's and Aider's rankings).
    signals: Option<rank::Signals>,
    /// How PageRank was run.
    pub pagerank: PageRankRun,
    /// Where the time went.
    pub timings: RankTimings,
}

/// The signals that placed a file in the default profile's ranking ([`Ranking::whys`],
/// behaviour.md §7.5.14), each 0 when it was not read or did not point at the file. The
/// relative scores are the file's over the best file's (0–1).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub struct Why {
    /// Its full-text (or lexical) match of the message's words, relative to the best
    /// ([`Relevance::full_text`]).
    pub lexical: f64,
    /// What the message's [`Clues`] point at in it (paths, traceback frames, modules,
    /// named symbols it defines), relative to the best.
    pub clue: f64,
    /// Its commits shared with the chat files, as given
    /// ([`RankRequest::co_change`]), relative to the best.
    pub co_change: f64,
    /// Its use of the names the chat files define, relative to the best
    /// ([`Relevance::caller_boost`]).
    pub caller: f64,
    /// Its personalization (behaviour.md §7.1: a chat file, a mentioned path, a path part
    /// that is a mentioned identifier, an anchor), before normalisation.
    pub personalization: f64,
    /// Its PageRank (0: not a graph node).
    pub graph: f64,
}

/// Where [`rank`](fn@rank) spent its time, step by step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RankTimings {
    /// The tag index (behaviour.md §6.1).
    pub index: Duration,
    /// The file graph (behaviour.md §6.2–§6.5), with the personalization.
    pub graph: Duration,
    /// PageRank (behaviour.md §7.2–§7.3).
    pub pagerank: Duration,
    /// Spreading the ranks over definitions and building the ranked list (behaviour.md §7.4–§8).
    pub list: Duration,
}

/// The (file, identifier) ranks by index, and the names to give them.
#[derive(Debug, Clone, Default)]
pub(crate) struct DefinitionRanks<'a> {
    pub ranks: Vec<stages::DefRank>,
    /// Per file: its name.
    pub files: Vec<&'a str>,
    /// Per identifier: its name.
    pub idents: Vec<&'a str>,
}

impl<'a> Ranking<'a> {
    /// Why the default profile placed each file a signal points at (a message's words
    /// or clues, co-change, callers of the chat files, a personalization), in the
    /// request's file order; nothing in the SPEC's and Aider's rankings. Worked out as
    /// it is read: one pass over the files.
    pub fn whys(&self) -> impl Iterator<Item = (&'a str, Why)> + '_ {
        let files = &self.definitions.files;
        self.signals.iter().flat_map(move |signals| {
            files.iter().enumerate().filter_map(move |(fi, &file)| {
                let graph = self.file_ranks.get(file).copied().unwrap_or(0.0);
                Some((file, signals.why(fi, graph)?))
            })
        })
    }

    /// Every (file, identifier) rank, sorted as Aider sorts them: rank descending, then
    /// file descending, then identifier descending. Chat files included (stage 1 skips
    /// them). Named on demand: a million of them on the Linux tree, which a map never reads.
    /// Only the best [`RankRequest::list_limit`] when the ranking is not
    /// [`complete`](Ranking::complete).
    pub fn definition_ranks(&self) -> impl ExactSizeIterator<Item = DefinitionRank<'a>> + '_ {
        let d = &self.definitions;
        d.ranks.iter().map(|r| DefinitionRank {
            rel_fname: d.files[r.file as usize],
            ident: d.idents[r.ident as usize],
            rank: r.rank,
        })
    }
}

impl Ranking<'_> {
    /// The PageRank of a file, if it is in the graph.
    pub fn file_rank(&self, rel_fname: &str) -> Option<f64> {
        self.file_ranks.get(rel_fname).copied()
    }

    /// The entries of one stage, in list order.
    pub fn stage(&self, stage: Stage) -> impl Iterator<Item = &RankedEntry<'_>> {
        self.entries.iter().filter(move |e| e.stage == stage)
    }
}

/// One edge of the file graph, as [`graph_edges`] lists them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphEdge<'a> {
    /// The referencing file.
    pub src: &'a str,
    /// The defining file.
    pub dst: &'a str,
    /// The identifier.
    pub ident: &'a str,
    /// The edge weight (behaviour.md §6.4, §6.5).
    pub weight: f64,
}

#[cfg(test)]
pub(crate) mod test_support {
    use std::path::Path;
    use std::sync::Arc;

    use super::*;

    pub(crate) fn tag(file: &str, line: i32, name: &str, kind: TagKind) -> Tag {
        Tag {
            rel_fname: Arc::from(file),
            fname: Arc::from(Path::new("/repo").join(file).as_path()),
            line,
            name: name.to_owned(),
            kind,
            sub_kind: if kind == TagKind::Def {
                "function"
            } else {
                "call"
            },
        }
    }

    pub(crate) fn def(file: &str, line: i32, name: &str) -> Tag {
        tag(file, line, name, TagKind::Def)
    }

    pub(crate) fn refr(file: &str, line: i32, name: &str) -> Tag {
        tag(file, line, name, TagKind::Ref)
    }

    pub(crate) fn file<'a>(rel: &'a str, tags: &'a [Tag], chat: bool) -> FileTags<'a> {
        FileTags::new(rel, tags).with_chat(chat)
    }
}
