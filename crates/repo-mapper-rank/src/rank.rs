//! [`rank`](fn@rank): the steps of behaviour.md §6–§8 in order — index, anchors and
//! personalization, graph, PageRank, rank distribution, the ranked list.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use rayon::iter::{
    IndexedParallelIterator, IntoParallelIterator, IntoParallelRefIterator,
    IntoParallelRefMutIterator, ParallelIterator,
};
use rayon::slice::ParallelSliceMut;
use repo_mapper_tags::fxhash::FxBuildHasher;

use crate::bodies::{BodyIndex, as_shares, best_of, region_scores, share_at};
use crate::clues::clue_scores;
use crate::csr::{NONE, split_at_bounds};
use crate::graph::{FileGraph, GraphInput};
use crate::index::{TagIndex, name_order, tag_at};
use crate::pagerank::{PageRankError, PageRankParams, PageRankResult, power_iteration};
use crate::personalize::{Anchors, personalization};
use crate::relevance::{
    Relevance, caller_scores, full_text_scores, is_auxiliary, lexical_scores, names_holding,
};
use crate::stages::{DefRank, RankedList};
use crate::{
    DefinitionRanks, Dialect, FileTags, GraphEdge, PageRankOutcome, PageRankRun, RankConfig,
    RankIndex, RankRequest, RankTimings, Ranking, Terms, Why,
};

/// Ranks the request's files and definitions (behaviour.md §6–§8). See the crate docs.
///
/// Never panics on any input. Runs in time linear in the tags plus, for graphs within
/// [`RankParams::exact_edge_limit`](crate::RankParams::exact_edge_limit), the graph's edges.
pub fn rank<'a>(request: &RankRequest<'a>, config: &RankConfig) -> Ranking<'a> {
    rank_prepared(request, config, prepare(request, config, None, None)).0
}

/// [`rank`](fn@rank) with the tag index and the graph kept from an earlier ranking of the
/// same files: the same ranking, without indexing again, the graph re-weighted only where
/// other chat files or mentions change its weights. An `index` that does not
/// [fit](RankIndex::fits) the request's files is not used (the files are indexed afresh).
pub fn rank_with<'a>(
    request: &RankRequest<'a>,
    config: &RankConfig,
    index: &mut RankIndex,
) -> Ranking<'a> {
    let fits = index.fits(&request.files);
    let graph = if fits { index.graph.take() } else { None };
    let kept = fits.then_some(&*index);
    let (ranking, mut graph) =
        rank_prepared(request, config, prepare(request, config, kept, graph));
    if fits {
        graph.keep();
        index.graph = Some(graph);
    }
    ranking
}

/// Steps §7.2–§8 on a prepared request; returns the graph too, to keep.
fn rank_prepared<'a>(
    request: &RankRequest<'a>,
    config: &RankConfig,
    mut prep: Prepared<'_, 'a>,
) -> (Ranking<'a>, FileGraph) {
    let files = prep.files;
    let nodes = prep.node_names();
    let started = Instant::now();
    let (ranks, pagerank) = run_pagerank(&prep, &config.params.pagerank);
    let ranked = Instant::now();
    let mut file_ranks: HashMap<&'a str, f64> = HashMap::with_capacity(nodes.len());
    let mut def_ranks = Vec::new();
    let mut list = RankedList::new(files.len());
    let mut complete = true;
    if pagerank.outcome != PageRankOutcome::Failed {
        file_ranks.extend(nodes.iter().copied().zip(ranks.iter().copied()));
        let kept = prep.index.kept_orders(files);
        let file_ord = kept.map_or_else(
            || Cow::Owned(name_order(files)),
            |o| Cow::Borrowed(&o.files[..]),
        );
        def_ranks = spread_ranks(&prep.graph, &prep.index, &ranks);
        let fused = reweigh_definitions(&mut def_ranks, request, &prep, relevance(config));
        // Nothing may come ahead of the definitions for the head to be the list's; the
        // head counts only definitions stage 1 lists (chat files' are left out).
        let listed = |d: &DefRank| !prep.chat[d.file as usize];
        let head = request.list_limit.filter(|&k| {
            prep.forced.is_empty()
                && !relevance(config).important_first
                && k < def_ranks.iter().filter(|d| listed(d)).count()
        });
        if head.is_some() {
            def_ranks.retain(listed);
        }
        let idents = kept.map(|o| &o.idents[..]);
        sort_like_aider(&mut def_ranks, &file_ord, idents, &prep.index, head);
        // §7.5 steps 2–6.
        list.list_definitions(files, &prep.index, &prep.chat, &def_ranks);
        complete = head.is_none();
        if let Some(fused) = fused {
            list.place_matched_files(files, &fused, &prep.chat, complete);
        }
        if complete {
            list.list_graph_files(&prep.graph, &nodes, &ranks, &file_ord);
            list.list_other_files(&request.other_rel_fnames, &file_ranks);
            if config.params.exclude_unranked {
                list.exclude_unranked();
            }
        }
    }
    let others = &request.other_rel_fnames;
    if relevance(config).important_first {
        list.prepend_important_files(files, others, config.dialect, &file_ranks);
    }
    list.move_anchors_to_front(&prep.forced, &file_ranks);
    let timings = RankTimings {
        pagerank: ranked - started,
        list: ranked.elapsed(),
        ..prep.timings
    };
    let signals = Signals::keep(request, &mut prep, relevance(config));
    let ranking = Ranking {
        entries: list.entries,
        complete,
        nodes,
        file_ranks,
        definitions: DefinitionRanks {
            ranks: def_ranks,
            files: files.iter().map(|f| f.rel_fname).collect(),
            idents: prep.index.names,
        },
        signals,
        personalization: prep.personalization,
        edge_count: prep.graph.edge_count,
        pagerank,
        timings,
    };
    (ranking, prep.graph)
}

/// Every edge of the file graph, in the order Aider's loops add them to networkx (see the
/// crate README for the node order). Materialises all edges: meant for debugging and for
/// parity harnesses that rebuild the graph in networkx.
pub fn graph_edges<'a>(request: &RankRequest<'a>, config: &RankConfig) -> Vec<GraphEdge<'a>> {
    let prep = prepare(request, config, None, None);
    let name = |node: u32| prep.files[prep.graph.nodes[node as usize] as usize].rel_fname;
    prep.graph
        .edges_in_insertion_order(&prep.index)
        .into_iter()
        .filter(|e| e.0 != NONE && e.1 != NONE)
        .map(|(u, v, weight, i)| GraphEdge {
            src: name(u),
            dst: name(v),
            ident: prep.index.names[i as usize],
            weight,
        })
        .collect()
}

/// Everything computed before PageRank.
struct Prepared<'r, 'a> {
    files: &'r [FileTags<'a>],
    /// Per file: a later copy of a file given twice (ranked as its first).
    copies: Vec<bool>,
    index: TagIndex<'a>,
    graph: FileGraph,
    /// Per file: chat file.
    chat: Vec<bool>,
    /// behaviour.md §7.1 scores, per file (0 = not in the dict), plus anchored names that are not
    /// files of the request.
    personalization: HashMap<&'a str, f64>,
    /// Per file: personalization score (0 if none).
    file_pers: Vec<f64>,
    /// Files to force to the front (§7.1b), in anchor order, deduplicated.
    forced: Vec<&'a str>,
    /// Per file: lexical score against the message's terms, 0–1 (empty when not read).
    lexical: Vec<f64>,
    /// Per file: how strongly the request's clues point at it (empty when not read).
    clues: Vec<f64>,
    /// Per file: use of the chat files' definitions, 0–1 (empty when not read).
    callers: Vec<f64>,
    /// Per file: whether it is auxiliary ([`is_auxiliary`]), as a kept index keeps it
    /// (`None`: found per ranking).
    auxiliary: Option<Vec<bool>>,
    /// The kept index the ranking reads from, if any (its files' [`BodyIndex`]es).
    kept: Option<&'r RankIndex>,
    /// Time spent building the index and the graph.
    timings: RankTimings,
}

impl<'a> Prepared<'_, 'a> {
    /// The file of each graph node, in node order.
    fn node_names(&self) -> Vec<&'a str> {
        let files = self.files;
        self.graph
            .nodes
            .iter()
            .map(|&f| files[f as usize].rel_fname)
            .collect()
    }
}

/// behaviour.md §6.1 (index), §7.1a (anchors), §7.1 (personalization), §6.2–§6.5 (graph).
fn prepare<'r, 'a>(
    request: &'r RankRequest<'a>,
    config: &RankConfig,
    kept: Option<&'r RankIndex>,
    kept_graph: Option<FileGraph>,
) -> Prepared<'r, 'a> {
    let files: &'r [FileTags<'a>] = &request.files;
    let copies = duplicate_flags(files);
    let skip = &copies[..];
    warn_duplicates(files, skip);
    let chat: Vec<bool> = files.iter().zip(skip).map(|(f, &s)| f.chat && !s).collect();
    let started = Instant::now();
    // `kept` fits the files: `rank_with` checked.
    let index = kept.map_or_else(|| TagIndex::build(files, skip), |k| k.over(files));
    let indexed = Instant::now();
    let personalize = personalize_unit(request.num_files.max(files.len()));
    let anchor_weight = personalize * config.params.anchor_weight_multiplier;
    let anchors = Anchors::resolve(request, files, &index, anchor_weight);
    let (personalization, file_pers) = personalization(request, skip, &anchors, personalize);
    let relevance = relevance(config);
    let lexical = if !relevance.lexical() || request.query.is_empty() {
        Vec::new()
    } else if relevance.full_text {
        let fresh: Vec<Terms>;
        let path_words = match kept {
            Some(kept) => kept.path_words(),
            None => {
                fresh = files
                    .par_iter()
                    .map(|f| Terms::of_text(f.rel_fname))
                    .collect();
                &fresh
            }
        };
        full_text_scores(
            files,
            path_words,
            &request.query,
            &request.query_counts,
            relevance.term_counts,
            relevance.path_weight,
        )
    } else {
        lexical_scores(files, &index, &request.query, relevance.path_weight)
    };
    let clues = match request.clues {
        Some(clues) if relevance.reads_clues() => clue_scores(files, &index, clues),
        _ => Vec::new(),
    };
    let callers = if relevance.callers() && chat.iter().any(|&c| c) {
        caller_scores(&index, &chat)
    } else {
        Vec::new()
    };
    let auxiliary = kept
        .filter(|_| relevance.test_factor != 1.0)
        .map(|k| k.auxiliary().to_vec());
    let graph = build_graph(&index, &chat, &anchors.mentioned_idents, config, kept_graph);
    let timings = RankTimings {
        index: indexed - started,
        graph: indexed.elapsed(),
        ..RankTimings::default()
    };
    Prepared {
        files,
        copies,
        index,
        graph,
        chat,
        personalization,
        file_pers,
        forced: anchors.forced,
        lexical,
        clues,
        callers,
        auxiliary,
        kept,
        timings,
    }
}

/// What [`Ranking::whys`](crate::Ranking::whys) reads: the default profile's per-file
/// signals as the ranking read them, kept (moved, not copied, but for the co-change
/// order the request lends) so that nothing is worked out for a caller that never asks.
#[derive(Debug, Clone)]
pub(crate) struct Signals {
    /// Per file: the lexical, clue, co-change and caller scores (each empty when not read).
    orders: [Vec<f64>; 4],
    /// Each order's best score.
    best: [f64; 4],
    /// Per file: its personalization.
    personalization: Vec<f64>,
}

impl Signals {
    /// The signals of the ranking, unless it departs nowhere from the SPEC's.
    fn keep(
        request: &RankRequest<'_>,
        prep: &mut Prepared<'_, '_>,
        relevance: Relevance,
    ) -> Option<Signals> {
        if relevance == Relevance::SPEC {
            return None;
        }
        let co_change = if request.co_change.len() == prep.files.len() {
            request.co_change.clone()
        } else {
            Vec::new()
        };
        let take = std::mem::take;
        let orders = [
            take(&mut prep.lexical),
            take(&mut prep.clues),
            co_change,
            take(&mut prep.callers),
        ];
        let best = orders
            .each_ref()
            .map(|o| o.iter().copied().fold(0.0f64, f64::max));
        let personalization = take(&mut prep.file_pers);
        Some(Signals {
            orders,
            best,
            personalization,
        })
    }

    /// File `fi`'s signals, each order's relative to its best; `None` when none points
    /// at it.
    pub(crate) fn why(&self, fi: usize, graph: f64) -> Option<Why> {
        let share = |o: usize| match self.orders[o].get(fi) {
            Some(&v) if self.best[o] > 0.0 => v / self.best[o],
            _ => 0.0,
        };
        let why = Why {
            lexical: share(0),
            clue: share(1),
            co_change: share(2),
            caller: share(3),
            personalization: self.personalization.get(fi).copied().unwrap_or(0.0),
            graph,
        };
        let read = [
            why.lexical,
            why.clue,
            why.co_change,
            why.caller,
            why.personalization,
        ];
        read.iter().any(|&v| v > 0.0).then_some(why)
    }
}

/// The departures from the SPEC in force: none in the Aider dialect.
fn relevance(config: &RankConfig) -> Relevance {
    match config.dialect {
        Dialect::Default => config.relevance,
        Dialect::Aider => Relevance::SPEC,
    }
}

/// [`Relevance::breadth`]: each file's definitions after its best, in rank order, get
/// `breadth`, `breadth²`, … of their rank. Ties go in the file's order (the line of each
/// identifier's first definition, then the name): never by the identifiers' numbers,
/// which depend on where the names came from (a store's pack numbers them otherwise than
/// a fresh parse), so a warm run would spread otherwise than a cold one. Definitions are
/// bucketed by file (a counting sort: linear), then each file's few are sorted, files in
/// parallel; the lines are looked up only for ties.
fn spread_within_files(def_ranks: &mut [DefRank], prep: &Prepared<'_, '_>, breadth: f64) {
    if breadth == 1.0 {
        return;
    }
    let files = prep.files.len();
    let mut start = vec![0usize; files + 1];
    for d in def_ranks.iter() {
        start[d.file as usize + 1] += 1;
    }
    for f in 0..files {
        start[f + 1] += start[f];
    }
    let mut next = start.clone();
    let mut order = vec![0u32; def_ranks.len()];
    for (i, d) in def_ranks.iter().enumerate() {
        let slot = &mut next[d.file as usize];
        order[*slot] = i as u32;
        *slot += 1;
    }
    let ranks: &[DefRank] = def_ranks;
    let place = |d: &DefRank| {
        (
            first_definition_line(prep, d),
            prep.index.names[d.ident as usize],
        )
    };
    // Files by the thousand: most have a few definitions each.
    split_at_bounds(&mut order, &start)
        .into_par_iter()
        .with_min_len(1024)
        .for_each(|(_, bucket)| {
            bucket.sort_unstable_by(|&a, &b| {
                let (a, b) = (&ranks[a as usize], &ranks[b as usize]);
                b.rank
                    .total_cmp(&a.rank)
                    .then_with(|| place(a).cmp(&place(b)))
            });
        });
    for f in 0..files {
        let mut factor = 1.0;
        for &i in &order[start[f]..start[f + 1]] {
            def_ranks[i as usize].rank *= factor;
            factor *= breadth;
        }
    }
}

/// The line of the first definition of `d`'s identifier in its file.
fn first_definition_line(prep: &Prepared<'_, '_>, d: &DefRank) -> i32 {
    let mut first = i32::MAX;
    for_each_definition_line(prep, d, |line| first = first.min(line));
    first
}

/// Calls `f` with the line of each definition of `d`'s identifier in its file.
fn for_each_definition_line(prep: &Prepared<'_, '_>, d: &DefRank, mut f: impl FnMut(i32)) {
    let line = |t: u32| tag_at(prep.files, d.file, t).line;
    match prep.index.kept_pair_tags() {
        Some(pairs) => pairs.get(d.pair as usize).iter().for_each(|&t| f(line(t))),
        None => prep
            .index
            .definitions(d.file, d.ident)
            .for_each(|t| f(line(t))),
    }
}

/// [`Relevance`]'s definition factors: the lexical boost, and auxiliary files (tests,
/// docs, examples) not mentioned down-weighted. When files are ordered by fusion, returns
/// the fused score of each file without definitions ([`fuse_by_place`]).
fn reweigh_definitions(
    def_ranks: &mut [DefRank],
    request: &RankRequest<'_>,
    prep: &Prepared<'_, '_>,
    relevance: Relevance,
) -> Option<Vec<f64>> {
    // One score per file, or none read.
    let co_change = relevance.co_change_weight > 0.0 && request.co_change.len() == prep.files.len();
    let fused = relevance.fusion_k > 0.0
        && (!prep.lexical.is_empty() || co_change || prep.clues.iter().any(|&c| c > 0.0));
    let unsteered = request.query.is_empty() && prep.personalization.is_empty();
    if relevance.specific_unsteered && unsteered {
        divide_by_definers(def_ranks, &prep.index);
    }
    // Fused, the order already spreads the map over files (D9): no breadth.
    let breadth = if fused { 1.0 } else { relevance.breadth };
    spread_within_files(def_ranks, prep, breadth);
    if prep.lexical.is_empty() && !fused && prep.callers.is_empty() && relevance.test_factor == 1.0
    {
        return None;
    }
    let aux: Vec<f64> = prep
        .files
        .par_iter()
        .enumerate()
        .map(|(fi, file)| {
            let auxiliary = match &prep.auxiliary {
                Some(kept) => kept[fi],
                None => is_auxiliary(file.rel_fname),
            };
            let aux = auxiliary && !request.mentioned_fnames.contains(file.rel_fname);
            if aux { relevance.test_factor } else { 1.0 }
        })
        .collect();
    let factors: Vec<f64> = (0..prep.files.len())
        .map(|fi| {
            let lexical = prep.lexical.get(fi).copied().unwrap_or(0.0);
            let caller = prep.callers.get(fi).copied().unwrap_or(0.0);
            // Fused, the lexical score orders files by place instead (below).
            let lexical_factor = if fused {
                1.0
            } else {
                1.0 + relevance.lexical_boost * lexical
            };
            lexical_factor * (1.0 + relevance.caller_boost * caller) * aux[fi]
        })
        .collect();
    for d in def_ranks.iter_mut() {
        d.rank *= factors[d.file as usize];
    }
    if relevance.def_boost > 0.0 && !request.query.is_empty() {
        boost_matching_definitions(def_ranks, &prep.index, &request.query, relevance.def_boost);
    }
    if fused {
        // Tests, docs and examples are down-weighted in the other orders too.
        let down =
            |scores: &[f64]| -> Vec<f64> { scores.iter().zip(&aux).map(|(s, a)| s * a).collect() };
        let mut orders = vec![(down(&prep.lexical), relevance.fusion_weight)];
        if co_change {
            orders.push((down(&request.co_change), relevance.co_change_weight));
        }
        if !prep.clues.is_empty() && relevance.clue_weight > 0.0 {
            orders.push((down(&prep.clues), relevance.clue_weight));
        }
        let lift = |defs: &[DefRank], fused: &mut [f64], top: &[f64]| {
            body_lifts(defs, (fused, top), request, prep, relevance)
        };
        return Some(fuse_by_place(
            def_ranks,
            &prep.copies,
            &orders,
            relevance,
            lift,
        ));
    }
    None
}

/// [`Relevance::specific_unsteered`]: each definition's rank divided by the number of
/// files that define its name.
fn divide_by_definers(def_ranks: &mut [DefRank], index: &TagIndex<'_>) {
    for d in def_ranks.iter_mut() {
        d.rank /= index.definers(d.ident).len().max(1) as f64;
    }
}

/// [`Relevance::def_boost`]: each definition × `1 + boost × the query terms its name
/// holds`.
fn boost_matching_definitions(
    def_ranks: &mut [DefRank],
    index: &TagIndex<'_>,
    query: &[&str],
    boost: f64,
) {
    let hits = names_holding(index, query);
    if hits.is_empty() {
        return;
    }
    def_ranks
        .par_iter_mut()
        .with_min_len(1 << 14)
        .for_each(|d| {
            if let Some(h) = hits.get(&d.ident) {
                d.rank *= 1.0 + boost * h;
            }
        });
}

/// [`Relevance::fusion_k`]: the request's `files` ordered by reciprocal-rank fusion of
/// their place by their best definition's rank and their place in each of `orders` (a
/// score per file, each order with its weight; an empty one is left out); each file's definitions keep their
/// order within it, their ratios to its best raised to [`Relevance::fused_within`].
/// Returns the fused score of each file without definitions (from `orders` alone; 0 for
/// the files with definitions and for `copies`, the later copies of a file given twice,
/// which is ranked as its first).
fn fuse_by_place(
    def_ranks: &mut [DefRank],
    copies: &[bool],
    orders: &[(Vec<f64>, f64)],
    relevance: Relevance,
    lift: impl FnOnce(&[DefRank], &mut [f64], &[f64]) -> Option<Vec<f64>>,
) -> Vec<f64> {
    let files = copies.len();
    let mut top = vec![0.0f64; files];
    let mut defines = copies.to_vec();
    for d in def_ranks.iter() {
        let t = &mut top[d.file as usize];
        *t = t.max(d.rank);
        defines[d.file as usize] = true;
    }
    let k = relevance.fusion_k;
    let mut fused = vec![0.0f64; files];
    for (scores, weight) in std::iter::once((&top, 1.0)).chain(orders.iter().map(|(o, w)| (o, *w)))
    {
        if scores.is_empty() {
            continue;
        }
        for (f, place) in places(scores).into_iter().enumerate() {
            fused[f] += place.map_or(0.0, |p| weight / (k + p as f64));
        }
    }
    let within = relevance.fused_within;
    // Per definition, the floor its text earns (0: none).
    let floors = lift(def_ranks, &mut fused, &top);
    let floor = |i: usize| floors.as_ref().map_or(0.0, |x| x[i]);
    // A `powf` per definition: a million on the Linux tree, in parallel.
    def_ranks
        .par_iter_mut()
        .enumerate()
        .with_min_len(1 << 14)
        .for_each(|(i, d)| {
            let f = d.file as usize;
            if top[f] > 0.0 {
                d.rank = fused[f] * (d.rank / top[f]).powf(within).max(floor(i));
            }
        });
    for (score, _) in fused.iter_mut().zip(defines).filter(|(_, d)| *d) {
        *score = 0.0;
    }
    fused
}

/// [`Relevance::body_boost`]: per definition of `def_ranks`, the floor its text earns
/// (`body_boost` × its region's share of its file's best, [`region_scores`]) when its
/// file is among the first [`Relevance::body_files`] by `fused` score (of the files with
/// definitions, `top` above 0; chat files left out), else 0; `None` when nothing is read.
/// With [`Relevance::passage_weight`], the first `passage_files` files are read and
/// their best regions' order first joins `fused`.
fn body_lifts(
    def_ranks: &[DefRank],
    (fused, top): (&mut [f64], &[f64]),
    request: &RankRequest<'_>,
    prep: &Prepared<'_, '_>,
    relevance: Relevance,
) -> Option<Vec<f64>> {
    let sources = request.sources?;
    let lifts = relevance.body_boost > 0.0 && relevance.body_files > 0;
    let passages = relevance.passage_weight > 0.0
        && relevance.passage_files > 0
        && request.query.len() >= relevance.passage_min_terms;
    if !(lifts || passages) || request.query.is_empty() {
        return None;
    }
    let reads = (if lifts { relevance.body_files } else { 0 }).max(if passages {
        relevance.passage_files
    } else {
        0
    });
    let weights: Vec<f64> = (0..request.query.len())
        .map(|t| {
            let n = request.query_counts.get(t).copied().unwrap_or(1);
            f64::from(n).powf(relevance.term_counts)
        })
        .collect();
    let chosen = first_files(fused, top, prep, reads);
    let body = |fi: usize| {
        let make = || Some(BodyIndex::of(&prep.files[fi], &sources.text(fi)?));
        match prep.kept {
            Some(kept) => kept.body(fi, make),
            None => make().map(Arc::new),
        }
    };
    let scores = region_scores(&chosen, &body, &request.query, &weights);
    if passages {
        add_passage_order(fused, &scores, relevance);
    }
    if !lifts || scores.is_empty() {
        return None;
    }
    let regions: HashMap<u32, Vec<(i32, f64)>> =
        first_files(fused, top, prep, relevance.body_files)
            .into_iter()
            .filter_map(|f| scores.get(&(f as u32)).map(|r| (f as u32, as_shares(r))))
            .collect();
    let factor = |d: &DefRank| {
        let Some(r) = regions.get(&d.file) else {
            return 0.0;
        };
        let mut best = 0.0f64;
        for_each_definition_line(prep, d, |line| best = best.max(share_at(r, line)));
        relevance.body_boost * best
    };
    Some(def_ranks.iter().map(factor).collect())
}

/// The first `n` files by `fused` score (ties by file) of those with definitions (`top`
/// above 0), chat files left out. Only those `n` are sorted: on a large repository
/// nearly every file has a fused score.
fn first_files(fused: &[f64], top: &[f64], prep: &Prepared<'_, '_>, n: usize) -> Vec<usize> {
    let mut chosen: Vec<usize> = (0..fused.len())
        .filter(|&f| fused[f] > 0.0 && top[f] > 0.0 && !prep.chat[f])
        .collect();
    let order = |a: &usize, b: &usize| fused[*b].total_cmp(&fused[*a]).then(a.cmp(b));
    if chosen.len() > n {
        chosen.select_nth_unstable_by(n, order);
        chosen.truncate(n);
    }
    chosen.sort_unstable_by(order);
    chosen
}

/// [`Relevance::passage_weight`]: the files read, by their best region's score, as one
/// more order of the fusion.
fn add_passage_order(
    fused: &mut [f64],
    scores: &HashMap<u32, Vec<(i32, f64)>, FxBuildHasher>,
    relevance: Relevance,
) {
    let mut best = vec![0.0f64; fused.len()];
    for (&f, r) in scores {
        best[f as usize] = best_of(r);
    }
    for (f, place) in places(&best).into_iter().enumerate() {
        if let Some(p) = place {
            fused[f] += relevance.passage_weight / (relevance.fusion_k + p as f64);
        }
    }
}

/// Each file's 1-based place in the order of `score`, highest first (ties by file); `None`
/// for a score of 0.
fn places(score: &[f64]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..score.len()).filter(|&f| score[f] > 0.0).collect();
    order.sort_by(|&a, &b| score[b].total_cmp(&score[a]).then(a.cmp(&b)));
    let mut at = vec![None; score.len()];
    for (i, f) in order.into_iter().enumerate() {
        at[f] = Some(i + 1);
    }
    at
}

/// Per file: whether an earlier entry has the same `rel_fname` (then this one is left
/// out).
pub(crate) fn duplicate_flags(files: &[FileTags<'_>]) -> Vec<bool> {
    let mut seen: HashSet<&str, FxBuildHasher> =
        HashSet::with_capacity_and_hasher(files.len(), FxBuildHasher::default());
    files.iter().map(|f| !seen.insert(f.rel_fname)).collect()
}

fn warn_duplicates(files: &[FileTags<'_>], skip: &[bool]) {
    for (f, _) in files.iter().zip(skip).filter(|(_, dup)| **dup) {
        tracing::warn!(
            file = f.rel_fname,
            "file given twice to ranking; using its first entry"
        );
    }
}

/// behaviour.md §7.1's `personalize`: 100 / N for N files (0 without files).
fn personalize_unit(num_files: usize) -> f64 {
    if num_files == 0 {
        0.0
    } else {
        100.0 / num_files as f64
    }
}

/// The ids of the mentioned identifiers some file defines, ascending.
fn mentioned_ids(index: &TagIndex<'_>, mentioned_idents: &HashSet<&str>) -> Vec<u32> {
    let mut ids: Vec<u32> = mentioned_idents
        .iter()
        .filter_map(|m| index.id_of(m))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// behaviour.md §6.2–§6.5: the graph, with the mentioned identifiers' edges boosted.
/// A `kept` graph (of an earlier ranking over the same index) is re-weighted instead.
fn build_graph(
    index: &TagIndex<'_>,
    chat: &[bool],
    mentioned_idents: &HashSet<&str>,
    config: &RankConfig,
    kept: Option<FileGraph>,
) -> FileGraph {
    let mentioned = mentioned_ids(index, mentioned_idents);
    let input = GraphInput {
        chat,
        mentioned: &mentioned,
        self_edge_weight: config.params.self_edge_weight,
        exact_edge_limit: config.params.exact_edge_limit,
    };
    if let Some(mut graph) = kept
        && graph.reweigh(index, &input)
    {
        return graph;
    }
    FileGraph::build(index, chat.len(), &input)
}

/// behaviour.md §7.2–§7.3: PageRank, personalised when some file has a score, retried without
/// personalization when it sums to zero over the graph. No ranks when that fails too.
fn run_pagerank(prep: &Prepared<'_, '_>, params: &PageRankParams) -> (Vec<f64>, PageRankRun) {
    let adjacency = &prep.graph;
    let requested = !prep.personalization.is_empty();
    let pers_vec: Vec<f64> = prep
        .graph
        .nodes
        .iter()
        .map(|&f| prep.file_pers[f as usize])
        .collect();
    let mut personalized = requested;
    let mut result = power_iteration(adjacency, requested.then_some(&pers_vec[..]), None, params);
    if result == Err(PageRankError::ZeroPersonalization) {
        tracing::debug!("personalization sums to zero over the graph; PageRank without it");
        personalized = false;
        result = power_iteration(adjacency, None, None, params);
    }
    let (ranks, outcome) = outcome(result, prep.graph.nodes.len());
    let run = PageRankRun {
        personalization_requested: requested,
        personalized,
        outcome,
    };
    (ranks, run)
}

fn outcome(
    result: Result<PageRankResult, PageRankError>,
    nodes: usize,
) -> (Vec<f64>, PageRankOutcome) {
    match result {
        Ok(r) if nodes == 0 => (r.ranks, PageRankOutcome::EmptyGraph),
        Ok(r) if r.converged => (
            r.ranks,
            PageRankOutcome::Converged {
                iterations: r.iterations,
            },
        ),
        Ok(r) => (
            r.ranks,
            PageRankOutcome::NotConverged {
                iterations: r.iterations,
            },
        ),
        Err(_) => (Vec::new(), PageRankOutcome::Failed),
    }
}

/// behaviour.md §7.4: each node's rank spread over its out-edges by weight, summed per (definer,
/// identifier), in identifier-loop order. Every definer of an identifier gets the same
/// share from a referencer, so one sum per identifier.
fn spread_ranks(graph: &FileGraph, index: &TagIndex<'_>, ranks: &[f64]) -> Vec<DefRank> {
    let share = |u: usize, w: f64| {
        let total = graph.out_weight[u];
        if total == 0.0 {
            0.0
        } else {
            ranks[u] * w / total
        }
    };
    let mut ident_rank = vec![0.0; index.names.len()];
    for u in 0..graph.nodes.len() {
        for &(i, w) in graph.bundles(u as u32) {
            ident_rank[i as usize] += share(u, w);
        }
    }
    let mut def_ranks: Vec<DefRank> = Vec::with_capacity(index.definer_pair_count());
    for &ident in index.def_order() {
        let first_pair = index.definer_pairs(ident).start as u32;
        for (&file, pair) in index.definers(ident).iter().zip(first_pair..) {
            let rank = if graph.referenced[ident as usize] {
                ident_rank[ident as usize]
            } else {
                share(
                    graph.node_of[file as usize] as usize,
                    graph.self_edge_weight,
                )
            };
            def_ranks.push(DefRank {
                file,
                ident,
                pair,
                rank,
            });
        }
    }
    def_ranks
}

/// behaviour.md §7.5 step 1, as Aider sorts: `sorted(..., reverse=True, key=lambda x: (x[1],
/// x[0]))`: rank, then file, then identifier, all descending. Files compare by their
/// position in name order, identifiers by theirs when `ident_ord` has them (names are
/// distinct, so the order is the same; the whole order then packs into two integers) or
/// else by name. No two entries compare equal (one per (file, identifier)): any sort, in
/// parallel too, gives the one order, and so does selecting the best `head` (fewer than
/// all) and sorting only those, which leaves `def_ranks` holding just them.
fn sort_like_aider(
    def_ranks: &mut Vec<DefRank>,
    file_ord: &[u32],
    ident_ord: Option<&[u32]>,
    index: &TagIndex<'_>,
    head: Option<usize>,
) {
    let Some(ident_ord) = ident_ord else {
        let order = |a: &DefRank, b: &DefRank| {
            b.rank
                .total_cmp(&a.rank)
                .then_with(|| file_ord[b.file as usize].cmp(&file_ord[a.file as usize]))
                .then_with(|| index.names[b.ident as usize].cmp(index.names[a.ident as usize]))
        };
        sort_head(def_ranks, head, order);
        return;
    };
    let mut keyed: Vec<(u64, u64, u32)> = def_ranks
        .par_iter()
        .enumerate()
        .with_min_len(1 << 14)
        .map(|(at, d)| {
            let names =
                u64::from(file_ord[d.file as usize]) << 32 | u64::from(ident_ord[d.ident as usize]);
            (total_order_key(d.rank), names, at as u32)
        })
        .collect();
    sort_head(&mut keyed, head, |a, b| b.cmp(a));
    *def_ranks = keyed.iter().map(|k| def_ranks[k.2 as usize]).collect();
}

/// Sorts `items` by `order` (a total order), or when `head` is below their number keeps
/// only the first `head` of that order, sorted. The head is selected in a piece of
/// `items` per thread first: a total order's first `head` are among the pieces' first
/// `head`s.
fn sort_head<T: Send + Sync + Copy>(
    items: &mut Vec<T>,
    head: Option<usize>,
    order: impl Fn(&T, &T) -> std::cmp::Ordering + Sync,
) {
    let Some(k) = head.filter(|&k| k < items.len()) else {
        items.par_sort_unstable_by(order);
        return;
    };
    let threads = rayon::current_num_threads();
    if threads > 1 && items.len() >= (1 << 16).max(4 * k * threads) {
        let piece = items.len().div_ceil(threads);
        *items = (items.par_chunks_mut(piece))
            .flat_map_iter(|piece| {
                if k < piece.len() {
                    piece.select_nth_unstable_by(k, &order);
                }
                piece[..k.min(piece.len())].to_vec()
            })
            .collect();
    }
    if k < items.len() {
        items.select_nth_unstable_by(k, &order);
        items.truncate(k);
    }
    items.sort_unstable_by(&order);
}

/// An integer that orders as `f64::total_cmp` orders `x`.
fn total_order_key(x: f64) -> u64 {
    let bits = x.to_bits() as i64;
    let ordered = bits ^ ((((bits >> 63) as u64) >> 1) as i64);
    (ordered as u64) ^ (1 << 63)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The head selected piece by piece on several threads is the head of the whole
    /// sort (inputs above the size where the pieces are used).
    #[test]
    fn a_head_selected_in_pieces_is_the_sorted_head() {
        let items: Vec<u64> = (0..200_000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 20)
            .collect();
        let mut sorted = items.clone();
        sorted.sort_unstable_by(|a, b| b.cmp(a));
        for threads in [1, 2, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            for k in [1, 10, 1000, 16_000, 199_999] {
                let mut head = items.clone();
                pool.install(|| sort_head(&mut head, Some(k), |a, b| b.cmp(a)));
                assert_eq!(head, sorted[..k], "{threads} threads, head {k}");
            }
        }
    }

    #[test]
    fn total_order_keys_order_as_total_cmp() {
        let xs = [
            f64::NEG_INFINITY,
            -1.5,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1e-300,
            0.3,
            1.0,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in xs {
            for b in xs {
                assert_eq!(
                    total_order_key(a).cmp(&total_order_key(b)),
                    a.total_cmp(&b),
                    "{a} {b}"
                );
            }
        }
    }
}
