//! The file graph (behaviour.md §6.2–§6.5): a weighted directed multigraph with one edge per
//! (referencer, definer, identifier).
//!
//! Every edge of an identifier leaving a given referencer has the same weight, whatever
//! the definer, so the graph is kept factored: per referencing file (by its node), its *bundles*
//! `(identifier, weight)`; the edges are the bundle × the identifier's definers. PageRank
//! runs on networkx's adjacency matrix, built row by row from the bundles (O(edges) time,
//! one row of scratch) — or, above `exact_edge_limit` edges, directly on the bundles
//! ([`FactoredAdjacency`]). The rank distribution of behaviour.md §7.4 needs only the bundles,
//! because every definer of an identifier receives the same share from a given referencer.
//!
//! # Node order
//!
//! networkx numbers nodes in the order `add_edge` first sees them, and that order decides
//! the order of floating-point additions. Aider adds edges while iterating Python sets
//! (`defines[ident]`, and `idents`, a set intersection), whose order depends on the process's
//! string-hash seed: its node order is not reproducible even by Aider. Ours is a fixed one
//! Aider could have produced: identifiers in order of first definition (files in request
//! order, tags in file order), self-edges first as Aider adds them, referencers and definers
//! of an identifier in file order.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use repo_mapper_tags::fxhash::FxBuildHasher;

use crate::csr::{Csr, NONE, split_at_bounds};
use crate::index::TagIndex;
use crate::pagerank::{NeighbourGrouper, RowsBuilder, Transitions, WeightedDigraph, node_blocks};

/// behaviour.md §6.4 step 1: the multiplier of an identifier's edges.
pub(crate) fn ident_multiplier(ident: &str, mentioned: bool, num_definers: usize) -> f64 {
    let mut mul = 1.0;
    if mentioned {
        mul *= 10.0;
    }
    if is_long_compound(ident) {
        mul *= 10.0;
    }
    if ident.starts_with('_') {
        mul *= 0.1;
    }
    if num_definers > 5 {
        mul *= 0.1;
    }
    mul
}

/// Whether `ident` is snake, kebab or camel case and at least 8 characters long
/// (behaviour.md §6.4 step 1), in one pass over its bytes when it is ASCII (most are).
fn is_long_compound(ident: &str) -> bool {
    if !ident.is_ascii() {
        return is_long_compound_chars(ident);
    }
    let (mut alpha, mut joined, mut upper, mut lower) = (false, false, false, false);
    for b in ident.bytes() {
        alpha |= b.is_ascii_alphabetic();
        joined |= b == b'_' || b == b'-';
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
    }
    ((joined && alpha) || (upper && lower)) && ident.len() >= 8
}

/// [`is_long_compound`] for any text, by Unicode's classes.
fn is_long_compound_chars(ident: &str) -> bool {
    let has_alpha = ident.chars().any(char::is_alphabetic);
    let is_snake = ident.contains('_') && has_alpha;
    let is_kebab = ident.contains('-') && has_alpha;
    let is_camel = ident.chars().any(char::is_uppercase) && ident.chars().any(char::is_lowercase);
    (is_snake || is_kebab || is_camel) && ident.chars().count() >= 8
}

/// behaviour.md §6.4 step 2: the weight of an edge from a referencer with `num_refs` references.
/// One `sqrt` per (referencer, definer) — Aider 0.86.2 re-assigns `num_refs` inside its
/// definer loop and so takes repeated roots (docs/parity.md R1); both dialects follow
/// behaviour.md §6.4.
pub(crate) fn edge_weight(mul: f64, referencer_is_chat: bool, num_refs: u32) -> f64 {
    let mut use_mul = mul;
    if referencer_is_chat {
        use_mul *= 50.0;
    }
    use_mul * f64::from(num_refs).sqrt()
}

/// Inputs of graph construction besides the index.
pub(crate) struct GraphInput<'s> {
    /// Per file: whether it is a chat file.
    pub chat: &'s [bool],
    /// The mentioned identifiers' ids, ascending, without repeats.
    pub mentioned: &'s [u32],
    pub self_edge_weight: f64,
    /// Above this many edges, PageRank runs on the factored graph.
    pub exact_edge_limit: usize,
}

/// The graph, factored (see the module docs).
pub(crate) struct FileGraph {
    /// File index of each node, in node order.
    pub nodes: Vec<u32>,
    /// Node index of each file, or [`NONE`].
    pub node_of: Vec<u32>,
    /// Per identifier: whether it has references (after the no-reference fallback, §6.2).
    pub referenced: Vec<bool>,
    /// Whether the no-reference fallback applied.
    pub fallback: bool,
    /// Per identifier: its multiplier (§6.4 step 1); 0 for identifiers without edges.
    ident_mul: Vec<f64>,
    /// Per file: whether it is a chat file.
    chat: Vec<bool>,
    /// The mentioned identifiers' ids, ascending.
    mentioned: Vec<u32>,
    /// Per node: its file's `(ident, weight)` in identifier-loop order (each referencing
    /// file is a node; in node order, PageRank reads them front to back).
    bundles: Csr<(u32, f64)>,
    /// The reference count behind each bundle (as `bundles` lays out its values).
    bundle_counts: Csr<u32>,
    /// Per node: identifiers its file defines that nobody references (self-edges, §6.5).
    self_idents: Csr<u32>,
    pub self_edge_weight: f64,
    /// Per node: the sum of its out-edge weights, added as Aider adds them (Python's `sum`
    /// over `G.out_edges`), for the rank distribution.
    pub out_weight: Vec<f64>,
    /// Number of edges, parallel edges counted separately.
    pub edge_count: usize,
    /// The limit the adjacency's form was chosen by.
    exact_edge_limit: usize,
    /// The transition matrix PageRank iterates with.
    pub adjacency: Adjacency,
}

/// PageRank's view of the graph.
pub(crate) enum Adjacency {
    /// networkx's sparse matrix, built as networkx builds it: bit-identical ranks.
    Exact(WeightedDigraph),
    /// Bundles × definers, never expanded: O(references + definitions) per iteration
    /// instead of O(edges), the same ranks up to rounding.
    Factored(FactoredAdjacency),
}

/// PageRank iterates over the graph: its adjacency, and for the factored one the graph's
/// bundles.
impl Transitions for FileGraph {
    fn node_count(&self) -> usize {
        match &self.adjacency {
            Adjacency::Exact(g) => Transitions::node_count(g),
            Adjacency::Factored(g) => g.inv_sum.len(),
        }
    }

    fn is_dangling(&self, node: usize) -> bool {
        match &self.adjacency {
            Adjacency::Exact(g) => Transitions::is_dangling(g, node),
            Adjacency::Factored(g) => g.inv_sum[node] == 0.0,
        }
    }

    fn propagate(&self, x: &[f64], next: &mut [f64]) {
        match &self.adjacency {
            Adjacency::Exact(g) => g.propagate(x, next),
            Adjacency::Factored(g) => g.propagate(self, x, next),
        }
    }
}

/// The graph as bundles, for PageRank's step: per node its self-edge weight and the
/// referenced identifiers it defines; the bundles themselves are the graph's, by node,
/// and for a kept graph also transposed (per identifier, its referencers' weights), so
/// that each identifier's share is summed on its own, all of them in parallel.
///
/// A step adds exactly what a plain loop over the bundles and the definers adds, in the
/// same order: an identifier's share sums its referencers' contributions in node order
/// (the transposition is a stable grouping of the bundles, which are in node order), and
/// a node adds its self-edges' weight, then the shares of the identifiers it defines in
/// order of first definition ([`TagIndex::def_order`]). So the ranks do not depend on the
/// number of threads, nor on whether the bundles were transposed.
pub(crate) struct FactoredAdjacency {
    /// Per node: 1 / (sum of out-edge weights), 0 for dangling nodes.
    inv_sum: Vec<f64>,
    /// Per node: total weight of its self-edges for unreferenced definitions.
    self_weight: Vec<f64>,
    /// The number of identifiers (the index's).
    idents: usize,
    /// The bundles transposed by identifier. Made for a kept graph, whose PageRank runs
    /// again ([`FileGraph::keep`]); without it a step reads the graph's bundles by node.
    referrers: Option<Referrers>,
    /// Per node: the referenced identifiers it defines, in order of first definition.
    defined: Csr<u32>,
}

impl FactoredAdjacency {
    /// Nodes or identifiers a task sums at least: enough to outweigh the task.
    const MIN_TASK: usize = 4096;

    /// One step over `graph`, whose adjacency this is: `next += x @ A` (`next` zeroed by
    /// the caller).
    fn propagate(&self, graph: &FileGraph, x: &[f64], next: &mut [f64]) {
        let out: Vec<f64> = x
            .par_iter()
            .zip(&self.inv_sum)
            .with_min_len(Self::MIN_TASK)
            .map(|(&xu, &inv)| xu * inv)
            .collect();
        let shares = match &self.referrers {
            Some(referrers) => referrers.shares(&out),
            None => self.scattered_shares(graph, &out),
        };
        next.par_iter_mut()
            .enumerate()
            .with_min_len(Self::MIN_TASK)
            .for_each(|(v, nv)| {
                let mut sum = *nv + out[v] * self.self_weight[v];
                for &i in self.defined.get(v) {
                    sum += shares[i as usize];
                }
                *nv = sum;
            });
    }

    /// Each identifier's share, from the graph's bundles in node order: one pass, on one
    /// thread.
    fn scattered_shares(&self, graph: &FileGraph, out: &[f64]) -> Vec<f64> {
        let mut shares = vec![0.0; self.idents];
        for (u, &c) in out.iter().enumerate() {
            if self.inv_sum[u] == 0.0 {
                continue;
            }
            for &(i, w) in graph.bundles(u as u32) {
                shares[i as usize] += c * w;
            }
        }
        shares
    }

    /// The transposition of `bundles` (the graph's, by node), for [`FileGraph::keep`].
    fn transpose(&mut self, bundles: &Csr<(u32, f64)>) {
        self.referrers = Some(Referrers::new(self.idents, bundles));
    }

    /// Node `u`'s bundles' weights, copied into the transposition after a re-weigh.
    fn copy_weights(&mut self, u: u32, bundles: &[(u32, f64)]) {
        if let Some(referrers) = &mut self.referrers {
            for &(i, w) in bundles {
                referrers.set(i, u, w);
            }
        }
    }
}

/// A kept graph's bundles transposed: per identifier, its referencing nodes in node
/// order, each with its weight's id. A graph's weights take few values (a multiplier, a
/// chat factor, a count's square root), so each is kept once and a step reads 8 bytes a
/// bundle instead of 16: PageRank's step is bound by memory.
struct Referrers {
    /// Per identifier: `(node, weight id)`, in node order.
    bundles: Csr<(u32, u32)>,
    weights: Weights,
}

/// Each distinct weight once, by id.
#[derive(Default)]
struct Weights {
    /// The weights by id.
    values: Vec<f64>,
    /// The id of each weight, by its bits.
    ids: HashMap<u64, u32, FxBuildHasher>,
}

impl Weights {
    /// The id of weight `w`, given it if it has none yet.
    fn id_of(&mut self, w: f64) -> u32 {
        let next = self.values.len() as u32;
        let id = *self.ids.entry(w.to_bits()).or_insert(next);
        if id == next {
            self.values.push(w);
        }
        id
    }
}

impl Referrers {
    /// `bundles` (by node) transposed over `idents` identifiers.
    fn new(idents: usize, bundles: &Csr<(u32, f64)>) -> Referrers {
        let mut weights = Weights::default();
        let ids: Vec<u32> = (bundles.values().iter())
            .map(|&(_, w)| weights.id_of(w))
            .collect();
        let bundles = Csr::group_in_parallel(idents, || {
            (0..bundles.keys()).flat_map(|u| {
                let range = bundles.range(u);
                let (values, ids) = (&bundles.values()[range.clone()], &ids[range]);
                (values.iter().zip(ids)).map(move |(&(i, _), &id)| (i, (u as u32, id)))
            })
        });
        Referrers { bundles, weights }
    }

    /// Sets the weight of node `u`'s bundle of identifier `i` (which it has).
    fn set(&mut self, i: u32, u: u32, w: f64) {
        let id = self.weights.id_of(w);
        let bundles = self.bundles.get_mut(i as usize);
        let at = bundles.partition_point(|&(v, _)| v < u);
        debug_assert_eq!(bundles.get(at).map(|r| r.0), Some(u));
        if let Some(b) = bundles.get_mut(at) {
            b.1 = id;
        }
    }

    /// Each identifier's share of `out` (each node's rank over its out-weight), summed
    /// from its referrers in node order; identifiers in parallel.
    fn shares(&self, out: &[f64]) -> Vec<f64> {
        let weights = &self.weights.values[..];
        (0..self.bundles.keys())
            .into_par_iter()
            .with_min_len(FactoredAdjacency::MIN_TASK)
            .map(|i| {
                let bundles = self.bundles.get(i);
                (bundles.iter()).fold(0.0, |z, &(u, id)| {
                    z + out[u as usize] * weights[id as usize]
                })
            })
            .collect()
    }
}

impl FileGraph {
    /// The graph of behaviour.md §6.2–§6.5 over `files` files, and its adjacency for PageRank.
    pub(crate) fn build(index: &TagIndex<'_>, files: usize, input: &GraphInput<'_>) -> FileGraph {
        let fallback = !index.any_reference();
        let referenced = referenced_idents(index, fallback);
        let (nodes, node_of) = node_order(index, fallback, &referenced, files);
        let lists = EdgeLists::build(index, fallback, &referenced, input, (&nodes, &node_of));
        let mut graph = FileGraph {
            nodes,
            node_of,
            referenced,
            fallback,
            ident_mul: lists.ident_mul,
            chat: input.chat.to_vec(),
            mentioned: input.mentioned.to_vec(),
            bundles: lists.bundles,
            bundle_counts: lists.bundle_counts,
            self_idents: lists.self_idents,
            self_edge_weight: input.self_edge_weight,
            out_weight: Vec::new(),
            edge_count: 0,
            exact_edge_limit: input.exact_edge_limit,
            adjacency: Adjacency::Exact(WeightedDigraph::from_edges(0, &[])),
        };
        graph.edge_count = graph.count_edges(index);
        if graph.edge_count > input.exact_edge_limit {
            tracing::debug!(
                edges = graph.edge_count,
                limit = input.exact_edge_limit,
                "large graph: PageRank on the factored adjacency"
            );
            graph.build_factored(index);
        } else {
            graph.build_exact(index);
        }
        graph
    }

    /// Number of edges, parallel edges counted separately, without listing them.
    fn count_edges(&self, index: &TagIndex<'_>) -> usize {
        (0..self.nodes.len() as u32)
            .into_par_iter()
            .map(|u| {
                self.self_idents(u).len()
                    + self
                        .bundles(u)
                        .iter()
                        .map(|&(i, _)| index.definers(i).len())
                        .sum::<usize>()
            })
            .sum()
    }

    /// networkx's matrix, row by row (O(edges) time, one row of scratch per block of
    /// nodes; blocks in parallel, joined in node order).
    fn build_exact(&mut self, index: &TagIndex<'_>) {
        let n = self.nodes.len();
        // Each worker's scratch (a grouper holds a slot per node) serves all its blocks.
        let scratch = || (NeighbourGrouper::new(n), Vec::new(), Vec::new());
        let blocks: Vec<(RowsBuilder, Vec<f64>)> = node_blocks(n)
            .into_par_iter()
            .map_init(scratch, |(grouper, edges, row), nodes| {
                let mut builder = RowsBuilder::new(n);
                let mut out_weight = Vec::with_capacity(nodes.len());
                for u in nodes {
                    self.grouped_row(index, u as u32, grouper, edges, row);
                    out_weight.push(row_total(row));
                    builder.push_row(row);
                }
                (builder, out_weight)
            })
            .collect();
        let mut builder = RowsBuilder::new(n);
        let mut out_weight = Vec::with_capacity(n);
        for (block, weights) in blocks {
            builder.append(block);
            out_weight.extend(weights);
        }
        self.out_weight = out_weight;
        self.adjacency = Adjacency::Exact(builder.finish());
    }

    /// Node `u`'s out-edges grouped by neighbour, as networkx iterates them, into `row`
    /// (`edges` is scratch).
    fn grouped_row(
        &self,
        index: &TagIndex<'_>,
        u: u32,
        grouper: &mut NeighbourGrouper,
        edges: &mut Vec<(u32, f64)>,
        row: &mut Vec<(u32, f64)>,
    ) {
        edges.clear();
        self.for_each_out_edge(index, u, |v, w, _| edges.push((v, w)));
        row.clear();
        grouper.group(edges, row);
    }

    /// Node `u`'s self-edge weight and out-weight in the factored form: bundles summed as
    /// `weight × definers`, in bundle order.
    fn factored_sums(&self, index: &TagIndex<'_>, u: u32) -> (f64, f64) {
        let own = self.self_idents(u).len() as f64 * self.self_edge_weight;
        let mut total = own;
        for &(i, w) in self.bundles(u) {
            total += w * index.definers(i).len() as f64;
        }
        (own, total)
    }

    /// The factored form: no edge is materialised. Out-weights are summed per bundle
    /// (`weight × definers`), so they may differ from Aider's edge-by-edge sums in the last
    /// bit.
    fn build_factored(&mut self, index: &TagIndex<'_>) {
        let sums: Vec<(f64, f64)> = (0..self.nodes.len() as u32)
            .into_par_iter()
            .map(|u| self.factored_sums(index, u))
            .collect();
        let self_weight = sums.iter().map(|&(own, _)| own).collect();
        let out_weight: Vec<f64> = sums.iter().map(|&(_, total)| total).collect();
        let inv_sum = out_weight.iter().map(|&total| inverse(total)).collect();
        let order = index
            .def_order()
            .iter()
            .copied()
            .filter(|&i| self.referenced[i as usize]);
        let node_of = &self.node_of;
        let defined = Csr::group_in_parallel(self.nodes.len(), || {
            order.clone().flat_map(|i| {
                let definers = index.definers(i);
                definers.iter().map(move |&d| (node_of[d as usize], i))
            })
        });
        self.out_weight = out_weight;
        self.adjacency = Adjacency::Factored(FactoredAdjacency {
            inv_sum,
            self_weight,
            idents: index.names.len(),
            referrers: None,
            defined,
        });
    }

    /// Re-weights the graph, built over `index` with other chat files or mentions, for
    /// `input`: only the bundles and adjacency rows of files whose edge weights change are
    /// computed again, each as [`FileGraph::build`] computes it, so the ranks are the
    /// same to the bit. False, changing nothing, when `input`'s settings differ from the
    /// build's (then build anew).
    pub(crate) fn reweigh(&mut self, index: &TagIndex<'_>, input: &GraphInput<'_>) -> bool {
        if input.self_edge_weight.to_bits() != self.self_edge_weight.to_bits()
            || input.exact_edge_limit != self.exact_edge_limit
            || input.chat.len() != self.chat.len()
        {
            return false;
        }
        let mut touched: Vec<u32> = (0..self.chat.len() as u32)
            .filter(|&f| self.chat[f as usize] != input.chat[f as usize])
            .collect();
        for i in self.remultiply(index, input.mentioned) {
            for_each_referencer(index, self.fallback, i, |r, _| touched.push(r));
        }
        touched.sort_unstable();
        touched.dedup();
        self.chat.copy_from_slice(input.chat);
        let nodes: Vec<u32> = touched
            .iter()
            .map(|&f| self.node_of[f as usize])
            .filter(|&u| u != NONE)
            .collect();
        for &u in &nodes {
            self.reweigh_bundles(u);
        }
        match self.adjacency {
            Adjacency::Exact(_) => self.rebuild_rows(index, &nodes),
            Adjacency::Factored(_) => self.refactor_rows(index, &nodes),
        }
        true
    }

    /// Takes `mentioned` as the mentioned identifiers and sets the multipliers of those
    /// whose mention changed; returns them (those with edges only).
    fn remultiply(&mut self, index: &TagIndex<'_>, mentioned: &[u32]) -> Vec<u32> {
        let was: HashSet<u32> = self.mentioned.iter().copied().collect();
        let now: HashSet<u32> = mentioned.iter().copied().collect();
        let mut changed: Vec<u32> = was
            .symmetric_difference(&now)
            .copied()
            .filter(|&i| self.referenced[i as usize])
            .collect();
        changed.sort_unstable();
        for &i in &changed {
            let name = index.names[i as usize];
            let definers = index.definers(i).len();
            self.ident_mul[i as usize] = ident_multiplier(name, now.contains(&i), definers);
        }
        self.mentioned = mentioned.to_vec();
        changed
    }

    /// The weights of node `u`'s bundles, from its file's chat flag and the multipliers.
    fn reweigh_bundles(&mut self, u: u32) {
        let chat = self.chat[self.nodes[u as usize] as usize];
        let counts = self.bundle_counts.get(u as usize);
        for ((i, w), &count) in self.bundles.get_mut(u as usize).iter_mut().zip(counts) {
            *w = edge_weight(self.ident_mul[*i as usize], chat, count);
        }
    }

    /// The exact adjacency's rows (and out-weights) of `nodes`, built again.
    fn rebuild_rows(&mut self, index: &TagIndex<'_>, nodes: &[u32]) {
        let mut grouper = NeighbourGrouper::new(self.nodes.len());
        let mut edges: Vec<(u32, f64)> = Vec::new();
        let mut rows = Vec::with_capacity(nodes.len());
        for &u in nodes {
            let mut row = Vec::new();
            self.grouped_row(index, u, &mut grouper, &mut edges, &mut row);
            self.out_weight[u as usize] = row_total(&row);
            rows.push((u, row));
        }
        if let Adjacency::Exact(g) = &mut self.adjacency {
            g.replace_rows(&rows);
        }
    }

    /// The factored adjacency's out-weights and inverse sums of `nodes`, again (their
    /// bundles are the graph's, re-weighed in place).
    fn refactor_rows(&mut self, index: &TagIndex<'_>, nodes: &[u32]) {
        for &u in nodes {
            let (_, total) = self.factored_sums(index, u);
            self.out_weight[u as usize] = total;
            if let Adjacency::Factored(g) = &mut self.adjacency {
                g.inv_sum[u as usize] = inverse(total);
                g.copy_weights(u, self.bundles.get(u as usize));
            }
        }
    }

    /// Readies a graph kept for more rankings ([`FileGraph::reweigh`]): the factored
    /// adjacency gets its bundles transposed, which a step then sums on every thread.
    /// Made once per kept graph, as a single ranking would not gain back its cost.
    pub(crate) fn keep(&mut self) {
        if let Adjacency::Factored(g) = &mut self.adjacency
            && g.referrers.is_none()
        {
            g.transpose(&self.bundles);
        }
    }

    /// The `(ident, weight)` bundles of node `u`'s file.
    pub(crate) fn bundles(&self, u: u32) -> &[(u32, f64)] {
        self.bundles.get(u as usize)
    }

    /// The identifiers node `u`'s file defines that nobody references.
    pub(crate) fn self_idents(&self, u: u32) -> &[u32] {
        self.self_idents.get(u as usize)
    }

    /// A node's out-edges `(dst node, weight, ident)` in insertion order.
    pub(crate) fn for_each_out_edge(
        &self,
        index: &TagIndex<'_>,
        u: u32,
        mut f: impl FnMut(u32, f64, u32),
    ) {
        for &i in self.self_idents(u) {
            f(u, self.self_edge_weight, i);
        }
        for &(i, w) in self.bundles(u) {
            for &d in index.definers(i) {
                f(self.node_of[d as usize], w, i);
            }
        }
    }

    /// Every edge `(src node, dst node, weight, ident)` in the order Aider's loops would
    /// add them (self-edges, then identifiers), for debugging and parity harnesses.
    pub(crate) fn edges_in_insertion_order(
        &self,
        index: &TagIndex<'_>,
    ) -> Vec<(u32, u32, f64, u32)> {
        let mut out = Vec::new();
        for &i in index.def_order() {
            if !self.referenced[i as usize] {
                for &d in index.definers(i) {
                    let u = self.node_of[d as usize];
                    out.push((u, u, self.self_edge_weight, i));
                }
            }
        }
        for &i in index.def_order() {
            if self.referenced[i as usize] {
                for_each_referencer(index, self.fallback, i, |r, count| {
                    let w = edge_weight(self.ident_mul[i as usize], self.chat[r as usize], count);
                    for &d in index.definers(i) {
                        out.push((self.node_of[r as usize], self.node_of[d as usize], w, i));
                    }
                });
            }
        }
        out
    }
}

/// `1 / total`, or 0 for a node whose out-edges weigh nothing (dangling).
fn inverse(total: f64) -> f64 {
    if total != 0.0 { 1.0 / total } else { 0.0 }
}

/// The sum of a row's weights, added left to right (Python's `sum` over the out-edges).
fn row_total(row: &[(u32, f64)]) -> f64 {
    let mut total = 0.0;
    for &(_, w) in row {
        total += w;
    }
    total
}

/// Per identifier: whether its definers get edges from referencers (§6.4) rather than
/// self-edges (§6.5). Under the no-reference fallback (§6.2) every defined identifier is
/// referenced.
fn referenced_idents(index: &TagIndex<'_>, fallback: bool) -> Vec<bool> {
    let mut referenced = vec![false; index.names.len()];
    for &i in index.def_order() {
        referenced[i as usize] = fallback || !index.referencers(i).is_empty();
    }
    referenced
}

/// The node order (see the module docs): the definers of self-edges first, then per
/// identifier its referencers, the definers coming right after the first referencer.
/// Returns the file of each node and the node of each file ([`NONE`] outside the graph).
fn node_order(
    index: &TagIndex<'_>,
    fallback: bool,
    referenced: &[bool],
    files: usize,
) -> (Vec<u32>, Vec<u32>) {
    let mut nodes: Vec<u32> = Vec::new();
    let mut node_of = vec![NONE; files];
    let mut touch = |f: u32| {
        if node_of[f as usize] == NONE {
            node_of[f as usize] = nodes.len() as u32;
            nodes.push(f);
        }
    };
    for &i in index.def_order() {
        if !referenced[i as usize] {
            for &d in index.definers(i) {
                touch(d);
            }
        }
    }
    for &i in index.def_order() {
        if referenced[i as usize] {
            let mut first = true;
            for_each_referencer(index, fallback, i, |r, _| {
                touch(r);
                if first {
                    first = false;
                    for &d in index.definers(i) {
                        touch(d);
                    }
                }
            });
        }
    }
    (nodes, node_of)
}

/// The edges, factored and grouped by source node (stable: identifier-loop order).
struct EdgeLists {
    /// Per node: `(ident, weight)`, one per identifier its file references (§6.4).
    bundles: Csr<(u32, f64)>,
    /// The reference counts of the bundles, laid out as `bundles`.
    bundle_counts: Csr<u32>,
    /// Per node: identifiers its file defines that nobody references (§6.5).
    self_idents: Csr<u32>,
    /// Per identifier: its multiplier (§6.4 step 1); 0 for identifiers without edges.
    ident_mul: Vec<f64>,
}

impl EdgeLists {
    /// The identifiers in loop order, grouped by node ([`Csr::group_in_parallel`]: each
    /// thread places the pairs of its nodes, without a list of every pair in between:
    /// tens of millions on the Linux tree); then each bundle's weight, nodes in parallel.
    /// The multipliers, one name each, are found in parallel first. Every file with a
    /// bundle or a self-edge is a node ([`node_order`]).
    fn build(
        index: &TagIndex<'_>,
        fallback: bool,
        referenced: &[bool],
        input: &GraphInput<'_>,
        (nodes, node_of): (&[u32], &[u32]),
    ) -> EdgeLists {
        let ident_mul = multipliers(index, referenced, input.mentioned);
        let order = index.def_order();
        let node = |f: u32| node_of[f as usize];
        let (counted, self_idents) = rayon::join(
            || {
                Csr::group_in_parallel(nodes.len(), || {
                    let edged = order.iter().filter(|&&i| referenced[i as usize]);
                    edged.flat_map(move |&i| {
                        let refs = referencers_of(index, fallback, i);
                        refs.map(move |(r, count)| (node(r), (i, count)))
                    })
                })
            },
            || {
                Csr::group_in_parallel(nodes.len(), || {
                    let unreferenced = order.iter().filter(|&&i| !referenced[i as usize]);
                    unreferenced
                        .flat_map(move |&i| index.definers(i).iter().map(move |&d| (node(d), i)))
                })
            },
        );
        let chat: Vec<bool> = nodes.iter().map(|&f| input.chat[f as usize]).collect();
        let bundles = weighed(&counted, &ident_mul, &chat);
        let counts = counted
            .values()
            .par_iter()
            .map(|&(_, count)| count)
            .collect();
        EdgeLists {
            bundles,
            bundle_counts: Csr::from_parts(counted.starts().to_vec(), counts),
            self_idents,
            ident_mul,
        }
    }
}

/// Each node's `(ident, weight)` bundles, from its `(ident, reference count)` ones and
/// whether its file is a chat file, nodes in parallel.
fn weighed(counted: &Csr<(u32, u32)>, ident_mul: &[f64], chat: &[bool]) -> Csr<(u32, f64)> {
    let mut bundles = vec![(0, 0.0); counted.values().len()];
    let bounds: Vec<usize> = counted.starts().iter().map(|&s| s as usize).collect();
    let pieces = split_at_bounds(&mut bundles, &bounds);
    pieces
        .into_par_iter()
        .enumerate()
        .for_each(|(u, (_, piece))| {
            for (out, &(i, count)) in piece.iter_mut().zip(counted.get(u)) {
                *out = (i, edge_weight(ident_mul[i as usize], chat[u], count));
            }
        });
    Csr::from_parts(counted.starts().to_vec(), bundles)
}

/// Per identifier: its multiplier (§6.4 step 1) if it is referenced, else 0.
fn multipliers(index: &TagIndex<'_>, referenced: &[bool], mentioned: &[u32]) -> Vec<f64> {
    let mut is_mentioned = vec![false; index.names.len()];
    for &i in mentioned {
        is_mentioned[i as usize] = true;
    }
    (0..index.names.len())
        .into_par_iter()
        .map(|i| {
            if referenced[i] {
                let definers = index.definers(i as u32).len();
                ident_multiplier(index.names[i], is_mentioned[i], definers)
            } else {
                0.0
            }
        })
        .collect()
}

/// Calls `f(file, count)` for each referencer of `ident` in file order: `Counter(references[
/// ident])`, or, under the no-reference fallback (§6.2), each definer once.
fn for_each_referencer(
    index: &TagIndex<'_>,
    fallback: bool,
    ident: u32,
    mut f: impl FnMut(u32, u32),
) {
    referencers_of(index, fallback, ident).for_each(|(r, count)| f(r, count));
}

/// The referencers of `ident` with their counts, as [`for_each_referencer`] visits them.
fn referencers_of<'i>(
    index: &'i TagIndex<'_>,
    fallback: bool,
    ident: u32,
) -> impl Iterator<Item = (u32, u32)> + 'i {
    let (definers, referencers) = match fallback {
        true => (index.definers(ident), &[][..]),
        false => (&[][..], index.referencers(ident)),
    };
    let definers = definers.iter().map(|&d| (d, 1));
    definers.chain(referencers.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The ASCII pass agrees with Unicode's classes on ASCII names.
        #[test]
        fn the_ascii_pass_agrees_with_the_char_classes(ident in "[a-zA-Z0-9_\\-.$]{0,12}") {
            proptest::prop_assert_eq!(is_long_compound(&ident), is_long_compound_chars(&ident));
        }
    }

    #[test]
    fn multiplier_rules() {
        assert_eq!(ident_multiplier("foo", false, 1), 1.0);
        assert_eq!(ident_multiplier("foo", true, 1), 10.0);
        // Well named: >= 8 characters and snake, kebab or camel case.
        assert_eq!(ident_multiplier("foo_barx", false, 1), 10.0);
        assert_eq!(ident_multiplier("foo-barx", false, 1), 10.0);
        assert_eq!(ident_multiplier("fooBarBz", false, 1), 10.0);
        assert_eq!(ident_multiplier("foo_bar", false, 1), 1.0); // 7 characters
        assert_eq!(ident_multiplier("foobarbaz", false, 1), 1.0); // no case or separator
        assert_eq!(ident_multiplier("FOOBARBAZ", false, 1), 1.0); // upper case only
        assert_eq!(ident_multiplier("__123456", false, 1), 0.1); // `_` but no letter
        assert_eq!(ident_multiplier("ééééé_éé", false, 1), 10.0); // 8 characters, not bytes
        // Leading underscore and many definers scale down.
        assert_eq!(ident_multiplier("_private", false, 1), 10.0 * 0.1);
        assert_eq!(ident_multiplier("_x", false, 1), 0.1);
        assert_eq!(ident_multiplier("x", false, 5), 1.0);
        assert_eq!(ident_multiplier("x", false, 6), 0.1);
        // All together, applied in the SPEC's order.
        assert_eq!(
            ident_multiplier("_private_name", true, 6),
            1.0 * 10.0 * 10.0 * 0.1 * 0.1
        );
    }

    #[test]
    fn edge_weight_rules() {
        assert_eq!(edge_weight(1.0, false, 1), 1.0);
        assert_eq!(edge_weight(1.0, false, 4), 2.0);
        assert_eq!(edge_weight(10.0, true, 9), 10.0 * 50.0 * 3.0);
        assert_eq!(edge_weight(0.1, false, 2), 0.1 * 2f64.sqrt());
    }
}
