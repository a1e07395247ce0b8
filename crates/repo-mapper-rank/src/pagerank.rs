//! PageRank as networkx 3.4 computes it (`nx.pagerank`, i.e. `_pagerank_scipy`), down to the
//! order of floating-point additions.
//!
//! networkx turns the multigraph into a scipy CSR matrix (parallel edges summed), divides
//! each row by its sum, and iterates `x = α·(x·A + Σx[dangling]·d) + (1−α)·p` from the
//! uniform vector until the L1 change is below `N·tol`. [`WeightedDigraph`] builds the same
//! matrix the same way (rows sorted by scipy's `std::sort`, duplicates added in the order
//! scipy adds them, row sums with numpy's `add.reduceat`), and [`pagerank`] runs the same
//! iteration with numpy's summation orders (pairwise sums in blocks of 8192 for `ndarray.sum`,
//! left to right for `x @ A` and Python's `sum`). On the same graph with the same node order
//! the ranks are bit-identical to networkx's.

use rayon::prelude::*;

use crate::csr::NONE;
use crate::cxxsort::cxx_sort;

/// PageRank parameters (behaviour.md §7.2, §14). `Default` gives networkx's defaults.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PageRankParams {
    /// Damping factor α (`pagerank_damping`, default 0.85).
    pub damping: f64,
    /// Convergence tolerance: stop when the L1 change is below `N · tol` (`pagerank_tol`,
    /// default 1e-6).
    pub tol: f64,
    /// Iteration limit (`pagerank_max_iter`, default 100).
    pub max_iter: usize,
}

impl PageRankParams {
    /// The given damping, tolerance and iteration limit.
    pub fn new(damping: f64, tol: f64, max_iter: usize) -> Self {
        PageRankParams {
            damping,
            tol,
            max_iter,
        }
    }
}

impl Default for PageRankParams {
    fn default() -> Self {
        PageRankParams {
            damping: 0.85,
            tol: 1e-6,
            max_iter: 100,
        }
    }
}

/// Why [`pagerank`] produced no ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageRankError {
    /// The personalization vector sums to zero over the graph's nodes (networkx raises
    /// `ZeroDivisionError`; behaviour.md §7.3).
    ZeroPersonalization,
    /// The dangling vector sums to zero over the graph's nodes (numpy would divide by zero
    /// and yield NaN ranks).
    ZeroDangling,
}

impl std::fmt::Display for PageRankError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PageRankError::ZeroPersonalization => {
                f.write_str("personalization vector sums to zero over the graph's nodes")
            }
            PageRankError::ZeroDangling => {
                f.write_str("dangling vector sums to zero over the graph's nodes")
            }
        }
    }
}

impl std::error::Error for PageRankError {}

/// The result of [`pagerank`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PageRankResult {
    /// Rank of each node, by node index. Sums to 1 (up to rounding).
    pub ranks: Vec<f64>,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the L1 change fell below `N · tol`. When it did not, `ranks` is the last
    /// iterate (networkx raises `PowerIterationFailedConvergence` instead).
    pub converged: bool,
}

/// A weighted directed multigraph in the sparse form networkx hands to PageRank: one CSR
/// row per node, parallel edges summed, each row divided by its sum.
///
/// Nodes are `0..node_count` in networkx's node order (the order they were first added).
/// Build it with [`WeightedDigraph::from_edges`] (edges in insertion order); the crate
/// itself builds it row by row from the file graph, without materialising the edge list.
#[derive(Debug, Clone)]
pub struct WeightedDigraph {
    indptr: Vec<usize>,
    cols: Vec<u32>,
    /// `(1 / row sum) · A[u, v]`; rows whose sum is zero are empty.
    vals: Vec<f64>,
    /// Rows whose weights sum to zero (or that have no out-edges).
    dangling: Vec<bool>,
    edge_count: usize,
    /// Whether every row came in column order (else each row was sorted, as scipy does).
    sorted_rows: bool,
}

impl WeightedDigraph {
    /// Builds the graph from its edges `(u, v, weight)` in insertion order, as
    /// `MultiDiGraph.add_edge` would receive them. Node indices must be below `node_count`
    /// and numbered in node order (first appearance); edges with an out-of-range endpoint
    /// are ignored.
    ///
    /// networkx iterates a node's out-edges grouped by neighbour (in the order each
    /// neighbour was first linked), parallel edges in insertion order; so do we.
    pub fn from_edges(node_count: usize, edges: &[(u32, u32, f64)]) -> WeightedDigraph {
        let edges: Vec<(u32, u32, f64)> = edges
            .iter()
            .copied()
            .filter(|&(u, v, _)| (u as usize) < node_count && (v as usize) < node_count)
            .collect();
        // Counting sort by source (stable: insertion order within a source).
        let mut start = vec![0usize; node_count + 1];
        for &(u, _, _) in &edges {
            start[u as usize + 1] += 1;
        }
        for i in 0..node_count {
            start[i + 1] += start[i];
        }
        let mut by_src = vec![(0u32, 0.0f64); edges.len()];
        let mut fill = start.clone();
        for &(u, v, w) in &edges {
            by_src[fill[u as usize]] = (v, w);
            fill[u as usize] += 1;
        }
        let mut builder = RowsBuilder::new(node_count);
        let mut grouper = NeighbourGrouper::new(node_count);
        let mut row = Vec::new();
        for u in 0..node_count {
            row.clear();
            grouper.group(&by_src[start[u]..start[u + 1]], &mut row);
            builder.push_row(&row);
        }
        builder.finish()
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.dangling.len()
    }

    /// Number of edges, parallel edges counted separately.
    pub fn edge_count(&self) -> usize {
        self.edge_count
    }

    /// Whether a node's out-edge weights sum to zero (networkx's "dangling" nodes: their rank
    /// is redistributed by the dangling vector).
    pub fn is_dangling(&self, node: usize) -> bool {
        self.dangling[node]
    }

    /// The same graph with the out-edges of some nodes replaced: `rows` holds, in any
    /// order, each node's edges grouped by neighbour as [`RowsBuilder::push_row`] takes
    /// them, summed and normalised as [`RowsBuilder::finish`] does. For the same graph
    /// re-weighted: a row must have its columns in the order of the row it replaces.
    pub(crate) fn replace_rows(&mut self, rows: &[(u32, Vec<(u32, f64)>)]) {
        let n = self.node_count();
        let mut entries: Vec<(u32, f64)> = Vec::new();
        let mut finished: Vec<FinishedRow> = rows
            .iter()
            .filter(|(u, _)| (*u as usize) < n)
            .map(|(u, row)| {
                entries.clear();
                entries.extend(row.iter().copied().filter(|&(v, _)| (v as usize) < n));
                let mut done = FinishedRow {
                    node: *u as usize,
                    ..FinishedRow::default()
                };
                let kept = push_finished_row(
                    &mut entries,
                    self.sorted_rows,
                    &mut done.cols,
                    &mut done.vals,
                );
                done.dangling = !kept;
                done
            })
            .collect();
        // Nodes ascending, as the rebuild walks them (a re-weighed file's node is not in
        // file order: networkx numbers nodes as edges first name them).
        finished.sort_by_key(|r| r.node);
        // Re-weighted rows keep their columns, so they usually fit where they were: then
        // only they are written, not the whole matrix copied.
        if finished
            .iter()
            .all(|r| self.cols[self.range(r.node)] == r.cols[..])
        {
            for r in &finished {
                let range = self.range(r.node);
                self.vals[range].copy_from_slice(&r.vals);
                self.dangling[r.node] = r.dangling;
            }
            return;
        }
        self.rebuild_with(&finished);
    }

    /// Where row `u` lies in `cols` and `vals`.
    fn range(&self, u: usize) -> std::ops::Range<usize> {
        self.indptr[u]..self.indptr[u + 1]
    }

    /// The matrix again, with `finished` rows (nodes ascending) in place of theirs.
    fn rebuild_with(&mut self, finished: &[FinishedRow]) {
        let n = self.node_count();
        let mut indptr = Vec::with_capacity(n + 1);
        indptr.push(0);
        let mut cols = Vec::with_capacity(self.cols.len());
        let mut vals = Vec::with_capacity(self.vals.len());
        let mut next = finished.iter().peekable();
        for u in 0..n {
            if let Some(r) = next.next_if(|r| r.node == u) {
                cols.extend_from_slice(&r.cols);
                vals.extend_from_slice(&r.vals);
                self.dangling[u] = r.dangling;
            } else {
                cols.extend_from_slice(&self.cols[self.range(u)]);
                vals.extend_from_slice(&self.vals[self.range(u)]);
            }
            indptr.push(cols.len());
        }
        (self.indptr, self.cols, self.vals) = (indptr, cols, vals);
    }

    fn row(&self, u: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let range = self.indptr[u]..self.indptr[u + 1];
        self.cols[range.clone()]
            .iter()
            .zip(&self.vals[range])
            .map(|(&v, &a)| (v as usize, a))
    }
}

/// Groups a node's out-edges by neighbour in first-appearance order, as a networkx
/// adjacency dict iterates them.
pub(crate) struct NeighbourGrouper {
    slot: Vec<u32>,
    groups: Vec<(u32, usize)>,
}

impl NeighbourGrouper {
    pub(crate) fn new(node_count: usize) -> Self {
        NeighbourGrouper {
            slot: vec![NONE; node_count],
            groups: Vec::new(),
        }
    }

    /// Appends `edges` (in insertion order) to `out`, regrouped by neighbour.
    pub(crate) fn group(&mut self, edges: &[(u32, f64)], out: &mut Vec<(u32, f64)>) {
        self.groups.clear();
        for &(v, _) in edges {
            let s = &mut self.slot[v as usize];
            if *s == NONE {
                *s = self.groups.len() as u32;
                self.groups.push((v, 0));
            }
            self.groups[*s as usize].1 += 1;
        }
        // Offsets of each group in the output.
        let base = out.len();
        let mut offset = base;
        for g in &mut self.groups {
            let n = g.1;
            g.1 = offset;
            offset += n;
        }
        out.resize(offset, (0, 0.0));
        for &(v, w) in edges {
            let g = &mut self.groups[self.slot[v as usize] as usize];
            out[g.1] = (v, w);
            g.1 += 1;
        }
        for &(v, _) in &self.groups {
            self.slot[v as usize] = NONE;
        }
    }
}

/// Builds a [`WeightedDigraph`] row by row, each row given in networkx's out-edge order
/// (grouped by neighbour, see [`WeightedDigraph::from_edges`]).
#[derive(Debug)]
pub(crate) struct RowsBuilder {
    node_count: usize,
    indptr: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<f64>,
    /// Whether every row so far has non-decreasing column indices (scipy then skips its
    /// sort altogether).
    sorted: bool,
}

impl RowsBuilder {
    /// A builder for a graph of `node_count` nodes.
    pub(crate) fn new(node_count: usize) -> Self {
        RowsBuilder {
            node_count,
            indptr: vec![0],
            cols: Vec::new(),
            vals: Vec::new(),
            sorted: true,
        }
    }

    /// Appends the next row: the out-edges `(v, weight)` of node `rows so far`. Edges to
    /// nodes out of range are ignored. Rows past `node_count` are ignored.
    pub(crate) fn push_row(&mut self, row: &[(u32, f64)]) {
        if self.indptr.len() > self.node_count {
            return;
        }
        let mut prev = 0u32;
        for (i, &(v, w)) in row.iter().enumerate() {
            if (v as usize) >= self.node_count {
                continue;
            }
            if i > 0 && v < prev {
                self.sorted = false;
            }
            prev = v;
            self.cols.push(v);
            self.vals.push(w);
        }
        self.indptr.push(self.cols.len());
    }

    /// Appends the rows `block` holds (a builder of the same node count, filled with the
    /// rows that follow these), in order.
    pub(crate) fn append(&mut self, block: RowsBuilder) {
        let room = (self.node_count + 1).saturating_sub(self.indptr.len());
        let ends = &block.indptr[1..block.indptr.len().min(room + 1)];
        let edges = ends.last().copied().unwrap_or(0);
        let base = self.cols.len();
        self.indptr.extend(ends.iter().map(|&end| base + end));
        self.cols.extend_from_slice(&block.cols[..edges]);
        self.vals.extend_from_slice(&block.vals[..edges]);
        self.sorted &= block.sorted;
    }

    /// Finishes the graph: missing rows are empty. Rows are finished in parallel, in
    /// blocks of nodes, each exactly as alone.
    pub(crate) fn finish(mut self) -> WeightedDigraph {
        while self.indptr.len() <= self.node_count {
            self.indptr.push(self.cols.len());
        }
        let n = self.node_count;
        let edge_count = self.cols.len();
        // scipy: `coo.tocsr()` → `sum_duplicates()` → `sort_indices()` (only when some row
        // is out of order, and then every row) → `csr_sum_duplicates`.
        let blocks: Vec<FinishedRows> = node_blocks(n)
            .into_par_iter()
            .map(|nodes| self.finish_rows(nodes))
            .collect();
        let mut indptr = Vec::with_capacity(n + 1);
        indptr.push(0);
        let mut cols = Vec::with_capacity(edge_count);
        let mut vals = Vec::with_capacity(edge_count);
        let mut dangling = Vec::with_capacity(n);
        for block in blocks {
            let base = cols.len();
            indptr.extend(block.ends.iter().map(|&end| base + end));
            cols.extend_from_slice(&block.cols);
            vals.extend_from_slice(&block.vals);
            dangling.extend_from_slice(&block.dangling);
        }
        // Free the builder's buffers before returning.
        self.cols = Vec::new();
        self.vals = Vec::new();
        WeightedDigraph {
            indptr,
            cols,
            vals,
            dangling,
            edge_count,
            sorted_rows: self.sorted,
        }
    }

    /// The rows of `nodes` finished ([`push_finished_row`]).
    fn finish_rows(&self, nodes: std::ops::Range<usize>) -> FinishedRows {
        let mut out = FinishedRows::default();
        let mut entries: Vec<(u32, f64)> = Vec::new();
        for u in nodes {
            let range = self.indptr[u]..self.indptr[u + 1];
            entries.clear();
            entries.extend(
                self.cols[range.clone()]
                    .iter()
                    .copied()
                    .zip(self.vals[range].iter().copied()),
            );
            let kept = push_finished_row(&mut entries, self.sorted, &mut out.cols, &mut out.vals);
            out.dangling.push(!kept);
            out.ends.push(out.cols.len());
        }
        out
    }
}

/// One row finished ([`push_finished_row`]) for [`WeightedDigraph::replace_rows`].
#[derive(Debug, Default)]
struct FinishedRow {
    node: usize,
    cols: Vec<u32>,
    vals: Vec<f64>,
    dangling: bool,
}

/// Finished rows of a block of nodes: where each ends, their columns and values, and
/// which nodes are dangling.
#[derive(Debug, Default)]
struct FinishedRows {
    ends: Vec<usize>,
    cols: Vec<u32>,
    vals: Vec<f64>,
    dangling: Vec<bool>,
}

/// `0..n` in blocks for the threads to share (a few per thread, so that blocks of
/// unequal rows even out).
pub(crate) fn node_blocks(n: usize) -> Vec<std::ops::Range<usize>> {
    let count = (rayon::current_num_threads() * 8).max(1);
    let size = n.div_ceil(count).max(256);
    (0..n).step_by(size).map(|s| s..(s + size).min(n)).collect()
}

/// Appends one row as `finish` leaves it: sorted by column unless every row came in
/// order (`sorted`), then summed and normalised ([`push_normalised_row`]).
fn push_finished_row(
    entries: &mut [(u32, f64)],
    sorted: bool,
    cols: &mut Vec<u32>,
    vals: &mut Vec<f64>,
) -> bool {
    if !sorted {
        cxx_sort(entries, |a, b| a.0 < b.0);
    }
    push_normalised_row(entries, cols, vals)
}

/// Appends one sorted row to `cols` and `vals` as scipy leaves it: parallel edges summed
/// (`csr_sum_duplicates`: runs of equal columns added left to right), then divided by the
/// row sum (`np.add.reduceat`). Returns false, appending nothing, when the sum is zero.
fn push_normalised_row(entries: &[(u32, f64)], cols: &mut Vec<u32>, vals: &mut Vec<f64>) -> bool {
    let row_start = cols.len();
    let mut i = 0;
    while i < entries.len() {
        let (v, mut x) = entries[i];
        i += 1;
        while i < entries.len() && entries[i].0 == v {
            x += entries[i].1;
            i += 1;
        }
        cols.push(v);
        vals.push(x);
    }
    let sum = reduceat_sum(&vals[row_start..]);
    if sum == 0.0 {
        cols.truncate(row_start);
        vals.truncate(row_start);
        return false;
    }
    // Q @ A with Q = diag(1 / S).
    let inv = 1.0 / sum;
    for a in &mut vals[row_start..] {
        *a *= inv;
    }
    true
}

/// Runs PageRank with networkx 3.4's semantics.
///
/// `personalization` and `dangling` are per node (by index; missing trailing entries count
/// as 0); `None` means uniform, and a `None` dangling vector means "same as the
/// personalization" — networkx's defaults. Both are normalised to sum 1 over the graph's
/// nodes. An empty graph yields empty ranks.
///
/// When the iteration does not converge within `max_iter` steps, the last iterate is
/// returned with `converged == false` and a `tracing` warning (networkx raises instead).
pub fn pagerank(
    graph: &WeightedDigraph,
    personalization: Option<&[f64]>,
    dangling: Option<&[f64]>,
    params: &PageRankParams,
) -> Result<PageRankResult, PageRankError> {
    power_iteration(graph, personalization, dangling, params)
}

/// The transition step of PageRank: `next[v] = Σ_u x[u] · A[u, v] / rowsum(u)`.
pub(crate) trait Transitions {
    fn node_count(&self) -> usize;
    fn is_dangling(&self, node: usize) -> bool;
    /// Adds `x @ A` (row-normalised) to `next`, which the caller has zeroed.
    fn propagate(&self, x: &[f64], next: &mut [f64]);
}

impl Transitions for WeightedDigraph {
    fn node_count(&self) -> usize {
        WeightedDigraph::node_count(self)
    }

    fn is_dangling(&self, node: usize) -> bool {
        WeightedDigraph::is_dangling(self, node)
    }

    /// Column sums in row order (scipy's `csc_matvec` on the transpose).
    fn propagate(&self, x: &[f64], next: &mut [f64]) {
        for (u, &xu) in x.iter().enumerate() {
            for (v, a) in self.row(u) {
                next[v] += a * xu;
            }
        }
    }
}

/// [`pagerank`] over any [`Transitions`].
pub(crate) fn power_iteration<G: Transitions>(
    graph: &G,
    personalization: Option<&[f64]>,
    dangling: Option<&[f64]>,
    params: &PageRankParams,
) -> Result<PageRankResult, PageRankError> {
    let n = graph.node_count();
    if n == 0 {
        return Ok(PageRankResult {
            ranks: Vec::new(),
            iterations: 0,
            converged: true,
        });
    }
    let jumps = Jumps::new(graph, personalization, dangling, params.damping)?;
    let threshold = n as f64 * params.tol;
    let mut x = vec![1.0 / n as f64; n];
    let mut next = vec![0.0; n];
    let mut diff = vec![0.0; n];
    for iteration in 1..=params.max_iter {
        let err = step(graph, &jumps, &x, &mut next, &mut diff);
        std::mem::swap(&mut x, &mut next);
        if err < threshold {
            return Ok(PageRankResult {
                ranks: x,
                iterations: iteration,
                converged: true,
            });
        }
    }
    tracing::warn!(
        max_iter = params.max_iter,
        nodes = n,
        "PageRank did not converge; using the last iterate"
    );
    Ok(PageRankResult {
        ranks: x,
        iterations: params.max_iter,
        converged: false,
    })
}

/// Where the random surfer goes besides the edges: the teleport vector `p` (with
/// probability 1 − α) and, from dangling nodes, the dangling vector.
struct Jumps {
    alpha: f64,
    /// The personalization, normalised (uniform when there is none).
    p: Vec<f64>,
    /// The dangling vector, normalised (`p` when there is none).
    dangling_weights: Vec<f64>,
    dangling_nodes: Vec<usize>,
}

impl Jumps {
    fn new<G: Transitions>(
        graph: &G,
        personalization: Option<&[f64]>,
        dangling: Option<&[f64]>,
        alpha: f64,
    ) -> Result<Jumps, PageRankError> {
        let n = graph.node_count();
        let p = match personalization {
            None => vec![1.0 / n as f64; n],
            Some(values) => normalised(values, n).ok_or(PageRankError::ZeroPersonalization)?,
        };
        let dangling_weights = match dangling {
            None => p.clone(),
            Some(values) => normalised(values, n).ok_or(PageRankError::ZeroDangling)?,
        };
        Ok(Jumps {
            alpha,
            p,
            dangling_weights,
            dangling_nodes: (0..n).filter(|&u| graph.is_dangling(u)).collect(),
        })
    }
}

/// The first `n` values (missing ones 0) divided by their numpy sum; `None` if it is 0.
fn normalised(values: &[f64], n: usize) -> Option<Vec<f64>> {
    let raw: Vec<f64> = (0..n)
        .map(|i| values.get(i).copied().unwrap_or(0.0))
        .collect();
    let total = numpy_sum(&raw);
    if total == 0.0 {
        return None;
    }
    Some(raw.iter().map(|v| v / total).collect())
}

/// One iteration: `next = α·(x·A + Σx[dangling]·d) + (1−α)·p`, and the L1 change.
fn step<G: Transitions>(
    graph: &G,
    jumps: &Jumps,
    x: &[f64],
    next: &mut [f64],
    diff: &mut [f64],
) -> f64 {
    let alpha = jumps.alpha;
    let teleport = 1.0 - alpha;
    let (p, dangling_weights) = (&jumps.p, &jumps.dangling_weights);
    next.fill(0.0);
    graph.propagate(x, next);
    // Python's built-in sum over x[is_dangling], left to right.
    let mut dangling_sum = 0.0;
    for &d in &jumps.dangling_nodes {
        dangling_sum += x[d];
    }
    for v in 0..x.len() {
        next[v] = alpha * (next[v] + dangling_sum * dangling_weights[v]) + teleport * p[v];
        diff[v] = (next[v] - x[v]).abs();
    }
    numpy_sum(diff)
}

/// numpy's pairwise summation (`pairwise_sum_DOUBLE`), without recursion: blocks of at most
/// 128 summed with eight accumulators, larger ranges split in two (the split a multiple of
/// 8) and the halves added.
pub(crate) fn pairwise_sum(a: &[f64]) -> f64 {
    enum Frame {
        Visit(usize, usize),
        Combine,
    }
    if a.len() <= 128 {
        return pairwise_block(a);
    }
    let mut frames = vec![Frame::Visit(0, a.len())];
    let mut values: Vec<f64> = Vec::new();
    while let Some(frame) = frames.pop() {
        match frame {
            Frame::Visit(lo, n) => {
                if n <= 128 {
                    values.push(pairwise_block(&a[lo..lo + n]));
                } else {
                    let mut n2 = n / 2;
                    n2 -= n2 % 8;
                    // Left first, then right, then their sum.
                    frames.push(Frame::Combine);
                    frames.push(Frame::Visit(lo + n2, n - n2));
                    frames.push(Frame::Visit(lo, n2));
                }
            }
            Frame::Combine => {
                let right = values.pop().unwrap_or(0.0);
                let left = values.pop().unwrap_or(0.0);
                values.push(left + right);
            }
        }
    }
    values.pop().unwrap_or(0.0)
}

fn pairwise_block(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in a {
            res += v;
        }
        return res;
    }
    let mut r = [0.0f64; 8];
    r.copy_from_slice(&a[..8]);
    let mut i = 8;
    while i < n - n % 8 {
        for j in 0..8 {
            r[j] += a[i + j];
        }
        i += 8;
    }
    let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    while i < n {
        res += a[i];
        i += 1;
    }
    res
}

/// `ndarray.sum()` of a contiguous float64 array: numpy's reduction visits it in buffers of
/// 8192 elements, sums each pairwise and adds the results left to right.
pub(crate) fn numpy_sum(a: &[f64]) -> f64 {
    let mut total = 0.0;
    for chunk in a.chunks(8192) {
        total += pairwise_sum(chunk);
    }
    total
}

/// One segment of `np.add.reduceat`: the first element plus the pairwise sum of the rest.
pub(crate) fn reduceat_sum(a: &[f64]) -> f64 {
    match a.split_first() {
        None => 0.0,
        Some((first, rest)) => first + pairwise_sum(rest),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Rows given in blocks and finished in parallel make the matrix rows given one
        /// by one make, to the bit (rows unsorted, duplicated columns, zero weights).
        #[test]
        fn rows_in_blocks_finish_as_rows_one_by_one(
            rows in proptest::collection::vec(
                proptest::collection::vec((0u32..40, 0.0f64..3.0), 0..12), 0..600),
            cuts in proptest::collection::vec(0usize..600, 0..6),
        ) {
            let n = rows.len();
            let mut one = RowsBuilder::new(n);
            for row in &rows {
                one.push_row(row);
            }
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|&c| c <= n).collect();
            cuts.extend([0, n]);
            cuts.sort_unstable();
            let mut blocks = RowsBuilder::new(n);
            for w in cuts.windows(2) {
                let mut block = RowsBuilder::new(n);
                for row in &rows[w[0]..w[1]] {
                    block.push_row(row);
                }
                blocks.append(block);
            }
            let (a, b) = (one.finish(), blocks.finish());
            proptest::prop_assert_eq!(&a.indptr, &b.indptr);
            proptest::prop_assert_eq!(&a.cols, &b.cols);
            let bits = |g: &WeightedDigraph| g.vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(bits(&a), bits(&b));
            proptest::prop_assert_eq!(&a.dangling, &b.dangling);
            proptest::prop_assert_eq!((a.edge_count, a.sorted_rows), (b.edge_count, b.sorted_rows));
        }
    }

    /// The matrix of `rows`, as built in one go.
    fn built(rows: &[Vec<(u32, f64)>]) -> WeightedDigraph {
        let mut b = RowsBuilder::new(rows.len());
        for row in rows {
            b.push_row(row);
        }
        b.finish()
    }

    fn same(a: &WeightedDigraph, b: &WeightedDigraph) -> bool {
        let bits = |g: &WeightedDigraph| g.vals.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        a.indptr == b.indptr && a.cols == b.cols && bits(a) == bits(b) && a.dangling == b.dangling
    }

    #[test]
    fn replaced_rows_give_the_matrix_built_with_them() {
        let rows = vec![
            vec![(2, 1.0), (1, 2.0), (2, 0.5)],
            vec![(0, 1.0)],
            vec![(0, 3.0), (1, 1.0)],
            vec![],
        ];
        // Re-weighted in place (same columns), then with a row whose weights vanish
        // (it becomes dangling and empty: the matrix is rebuilt); rows out of node order.
        for new_row in [vec![(0, 5.0), (1, 0.25)], vec![(0, 0.0), (1, 0.0)]] {
            let mut g = built(&rows);
            let mut expected = rows.clone();
            expected[2] = new_row.clone();
            expected[0] = vec![(2, 4.0), (1, 2.0), (2, 0.5)];
            g.replace_rows(&[(2, new_row), (0, expected[0].clone())]);
            assert!(same(&g, &built(&expected)));
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    #[test]
    fn pairwise_sum_matches_plain_sum_closely() {
        let a: Vec<f64> = (0..1000)
            .map(|i| (i as f64).sin().abs() * 10f64.powi(i % 7 - 3))
            .collect();
        let plain: f64 = a.iter().sum();
        assert!(close(pairwise_sum(&a), plain));
        assert!(close(numpy_sum(&a), plain));
        assert!(close(reduceat_sum(&a), plain));
        assert_eq!(pairwise_sum(&[]), 0.0);
        assert_eq!(reduceat_sum(&[2.5]), 2.5);
    }

    #[test]
    fn empty_graph_has_no_ranks() {
        let g = WeightedDigraph::from_edges(0, &[]);
        let r = pagerank(&g, None, None, &PageRankParams::default()).unwrap();
        assert!(r.ranks.is_empty() && r.converged);
    }

    #[test]
    fn symmetric_cycle_is_uniform() {
        let g = WeightedDigraph::from_edges(3, &[(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)]);
        let r = pagerank(&g, None, None, &PageRankParams::default()).unwrap();
        for x in &r.ranks {
            assert!(close(*x, 1.0 / 3.0));
        }
    }

    #[test]
    fn zero_personalization_is_an_error() {
        let g = WeightedDigraph::from_edges(2, &[(0, 1, 1.0)]);
        let err = pagerank(&g, Some(&[0.0, 0.0]), None, &PageRankParams::default());
        assert_eq!(err, Err(PageRankError::ZeroPersonalization));
        // Entries for nodes beyond the graph are ignored, as networkx ignores unknown keys.
        let err = pagerank(&g, Some(&[0.0, 0.0, 5.0]), None, &PageRankParams::default());
        assert_eq!(err, Err(PageRankError::ZeroPersonalization));
        let err = pagerank(&g, None, Some(&[0.0, 0.0]), &PageRankParams::default());
        assert_eq!(err, Err(PageRankError::ZeroDangling));
    }

    #[test]
    fn non_convergence_returns_last_iterate() {
        let g = WeightedDigraph::from_edges(3, &[(0, 1, 1.0), (1, 2, 1.0)]);
        let params = PageRankParams {
            max_iter: 2,
            tol: 0.0,
            ..PageRankParams::default()
        };
        let r = pagerank(&g, None, None, &params).unwrap();
        assert!(!r.converged);
        assert_eq!(r.iterations, 2);
        assert!(close(r.ranks.iter().sum::<f64>(), 1.0));
        // Zero iterations: the uniform start vector.
        let params = PageRankParams {
            max_iter: 0,
            ..PageRankParams::default()
        };
        let r = pagerank(&g, None, None, &params).unwrap();
        assert!(!r.converged);
        assert_eq!(r.ranks, vec![1.0 / 3.0; 3]);
    }

    #[test]
    fn zero_weight_rows_are_dangling() {
        let g = WeightedDigraph::from_edges(2, &[(0, 0, 0.0), (1, 0, 1.0)]);
        assert!(g.is_dangling(0));
        assert!(!g.is_dangling(1));
        assert_eq!(g.edge_count(), 2);
    }

    #[test]
    fn neighbour_grouping_follows_first_appearance() {
        let mut grouper = NeighbourGrouper::new(4);
        let mut out = Vec::new();
        grouper.group(
            &[(2, 1.0), (0, 2.0), (2, 3.0), (3, 4.0), (0, 5.0)],
            &mut out,
        );
        assert_eq!(out, vec![(2, 1.0), (2, 3.0), (0, 2.0), (0, 5.0), (3, 4.0)]);
        // The grouper resets itself between rows.
        out.clear();
        grouper.group(&[(0, 1.0), (2, 2.0)], &mut out);
        assert_eq!(out, vec![(0, 1.0), (2, 2.0)]);
    }
}
