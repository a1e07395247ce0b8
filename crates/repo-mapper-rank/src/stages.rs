//! The ranked list (behaviour.md §7.5), the important files of stage 0 (§8.2) and the anchors at
//! the front (§7.1b), built in that order.

use std::collections::{HashMap, HashSet};

use rayon::slice::ParallelSliceMut;
use repo_mapper_tags::Dialect;

use crate::graph::FileGraph;
use crate::important::is_important;
use crate::index::{TagIndex, tag_at};
use crate::{EXCLUDE_UNRANKED_THRESHOLD, FileTags, RankedEntry, RankedItem, Stage};

/// The rank of one (definer, identifier) pair, by index (behaviour.md §7.4).
#[derive(Debug, Clone, Copy)]
pub(crate) struct DefRank {
    pub file: u32,
    pub ident: u32,
    /// The (identifier, definer) pair's position among all definers ([`TagIndex::kept_pair_tags`]).
    pub pair: u32,
    pub rank: f64,
}

/// The list under construction.
pub(crate) struct RankedList<'a> {
    pub entries: Vec<RankedEntry<'a>>,
    /// Per file: whether stage 1 lists its definitions (Aider's `fnames_already_included`).
    included: Vec<bool>,
    /// Per file: whether it is listed bare in stage 1 ([`Stage::Matched`]).
    matched: Vec<bool>,
    /// The files listed bare in stage 1, by name (stage 3 lists names).
    matched_names: HashSet<&'a str>,
}

fn bare<'a>(stage: Stage, rel_fname: &'a str, rank: Option<f64>) -> RankedEntry<'a> {
    RankedEntry {
        stage,
        item: RankedItem::File { rel_fname, rank },
    }
}

impl<'a> RankedList<'a> {
    pub(crate) fn new(files: usize) -> Self {
        RankedList {
            entries: Vec::new(),
            included: vec![false; files],
            matched: vec![false; files],
            matched_names: HashSet::new(),
        }
    }

    /// Stage 1 (§7.5 steps 2–3): the definition tags of each (file, identifier) in
    /// `def_ranks` order, chat files left out.
    pub(crate) fn list_definitions(
        &mut self,
        files: &[FileTags<'a>],
        index: &TagIndex<'a>,
        chat: &[bool],
        def_ranks: &[DefRank],
    ) {
        self.entries.reserve(def_ranks.len());
        let kept = index.kept_pair_tags();
        for d in def_ranks {
            if chat[d.file as usize] {
                continue;
            }
            let mut push = |t: u32| {
                self.entries.push(RankedEntry {
                    stage: Stage::Definition,
                    item: RankedItem::Def {
                        tag: tag_at(files, d.file, t),
                        rank: d.rank,
                    },
                });
                self.included[d.file as usize] = true;
            };
            match kept {
                Some(pairs) => pairs.get(d.pair as usize).iter().for_each(|&t| push(t)),
                None => index.definitions(d.file, d.ident).for_each(push),
            }
        }
    }

    /// [`Stage::Matched`] (§7.5.10): each file with a `fused` score (files without
    /// definitions have one; chat files left out), bare, before the first definition ranked below its
    /// score (ties: by name). When the list is only the head of the whole (`complete`
    /// false), a file that would come after its last entry is left out: the whole list
    /// has it there.
    pub(crate) fn place_matched_files(
        &mut self,
        files: &[FileTags<'a>],
        fused: &[f64],
        chat: &[bool],
        complete: bool,
    ) {
        let last = self
            .entries
            .last()
            .map_or(f64::INFINITY, |e| e.rank().unwrap_or(0.0));
        let mut matched: Vec<usize> = (0..files.len())
            .filter(|&f| fused[f] > 0.0 && !chat[f])
            .filter(|&f| complete || fused[f] > last)
            .collect();
        if matched.is_empty() {
            return;
        }
        matched.sort_by(|&a, &b| {
            fused[b]
                .total_cmp(&fused[a])
                .then_with(|| files[a].rel_fname.cmp(files[b].rel_fname))
        });
        let mut merged = Vec::with_capacity(self.entries.len() + matched.len());
        let mut pending = matched.into_iter().peekable();
        for entry in std::mem::take(&mut self.entries) {
            while let Some(f) = pending.next_if(|&f| fused[f] > entry.rank().unwrap_or(0.0)) {
                merged.push(self.matched_entry(files, fused, f));
            }
            merged.push(entry);
        }
        for f in pending {
            merged.push(self.matched_entry(files, fused, f));
        }
        self.entries = merged;
    }

    fn matched_entry(
        &mut self,
        files: &[FileTags<'a>],
        fused: &[f64],
        f: usize,
    ) -> RankedEntry<'a> {
        self.matched[f] = true;
        self.matched_names.insert(files[f].rel_fname);
        bare(Stage::Matched, files[f].rel_fname, Some(fused[f]))
    }

    /// Stage 2 (§7.5 step 4): graph nodes by PageRank (ties: name descending), unless
    /// stage 1 lists them. `file_ord` is each file's position in name order.
    pub(crate) fn list_graph_files(
        &mut self,
        graph: &FileGraph,
        nodes: &[&'a str],
        ranks: &[f64],
        file_ord: &[u32],
    ) {
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_unstable_by(|&a, &b| {
            ranks[b].total_cmp(&ranks[a]).then_with(|| {
                let (fa, fb) = (graph.nodes[a] as usize, graph.nodes[b] as usize);
                file_ord[fb].cmp(&file_ord[fa])
            })
        });
        for u in order {
            let f = graph.nodes[u] as usize;
            if !self.included[f] && !self.matched[f] {
                self.entries
                    .push(bare(Stage::GraphFile, nodes[u], Some(ranks[u])));
            }
        }
    }

    /// Stage 3 (§7.5 step 5): other files never in the graph, sorted (Aider: set order);
    /// none that stage 1 listed bare.
    pub(crate) fn list_other_files(
        &mut self,
        others: &[&'a str],
        file_ranks: &HashMap<&'a str, f64>,
    ) {
        let mut rest: Vec<&'a str> = others
            .iter()
            .copied()
            .filter(|f| !file_ranks.contains_key(f) && !self.matched_names.contains(f))
            .collect();
        rest.par_sort_unstable();
        rest.dedup();
        self.entries
            .extend(rest.into_iter().map(|f| bare(Stage::OtherFile, f, None)));
    }

    /// §7.5 step 6: bare files ranked at most [`EXCLUDE_UNRANKED_THRESHOLD`] leave.
    pub(crate) fn exclude_unranked(&mut self) {
        self.entries.retain(|e| match e.item {
            RankedItem::Def { .. } => true,
            RankedItem::File { rank, .. } => rank.unwrap_or(0.0) > EXCLUDE_UNRANKED_THRESHOLD,
        });
    }

    /// Stage 0 (§8.2): the important other files without definition entries, in path
    /// order, at the front (see [`Stage::Important`] for the dialects).
    pub(crate) fn prepend_important_files(
        &mut self,
        files: &[FileTags<'a>],
        others: &[&'a str],
        dialect: Dialect,
        file_ranks: &HashMap<&'a str, f64>,
    ) {
        let mut important: Vec<&'a str> =
            others.iter().copied().filter(|f| is_important(f)).collect();
        important.sort_unstable();
        important.dedup();
        if important.is_empty() {
            return;
        }
        let prelude = self.important_prelude(files, important, dialect);
        let mut front: Vec<RankedEntry<'a>> = prelude
            .into_iter()
            .map(|f| bare(Stage::Important, f, file_ranks.get(f).copied()))
            .collect();
        front.append(&mut self.entries);
        self.entries = front;
    }

    /// The important files stage 0 lists, taken out of stages 2 and 3 in the default
    /// dialect.
    fn important_prelude(
        &mut self,
        files: &[FileTags<'a>],
        important: Vec<&'a str>,
        dialect: Dialect,
    ) -> Vec<&'a str> {
        // Files with definition entries: exactly the `included` ones (exclude_unranked
        // keeps definitions).
        let with_defs: HashSet<&str> = files
            .iter()
            .zip(&self.included)
            .filter(|(_, inc)| **inc)
            .map(|(f, _)| f.rel_fname)
            .collect();
        match dialect {
            Dialect::Aider => {
                let bare: HashSet<&str> = self
                    .entries
                    .iter()
                    .filter(|e| e.is_file())
                    .map(|e| e.rel_fname())
                    .collect();
                important
                    .into_iter()
                    .filter(|f| !with_defs.contains(f) && !bare.contains(f))
                    .collect()
            }
            Dialect::Default => {
                let moved: Vec<&'a str> = important
                    .into_iter()
                    .filter(|f| !with_defs.contains(f))
                    .collect();
                let moved_set: HashSet<&str> = moved.iter().copied().collect();
                self.entries
                    .retain(|e| !(e.is_file() && moved_set.contains(e.rel_fname())));
                moved
            }
        }
    }

    /// §7.1b: every entry of an anchor file moves to the front, in list order; an anchor
    /// file without entries gets a bare one, in anchor order, before them.
    pub(crate) fn move_anchors_to_front(
        &mut self,
        forced: &[&'a str],
        file_ranks: &HashMap<&'a str, f64>,
    ) {
        if forced.is_empty() {
            return;
        }
        let forced_set: HashSet<&str> = forced.iter().copied().collect();
        let (mut moved, rest): (Vec<RankedEntry<'a>>, Vec<RankedEntry<'a>>) =
            std::mem::take(&mut self.entries)
                .into_iter()
                .partition(|e| forced_set.contains(e.rel_fname()));
        let present: HashSet<&str> = moved.iter().map(|e| e.rel_fname()).collect();
        let mut front: Vec<RankedEntry<'a>> = forced
            .iter()
            .filter(|f| !present.contains(*f))
            .map(|&f| bare(Stage::Anchor, f, file_ranks.get(f).copied()))
            .collect();
        for e in &mut moved {
            e.stage = Stage::Anchor;
        }
        front.append(&mut moved);
        front.extend(rest);
        self.entries = front;
    }
}
