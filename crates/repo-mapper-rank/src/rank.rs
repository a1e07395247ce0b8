//! [`rank`](fn@rank): index, graph, personalization, PageRank, rank distribution and stage assembly.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path};

use repo_mapper_tags::Dialect;

use crate::csr::NONE;
use crate::graph::{FileGraph, GraphInput};
use crate::important::is_important;
use crate::index::{TagIndex, tag_at};
use crate::pagerank::{PageRankError, power_iteration};
use crate::{
    DefinitionRank, EXCLUDE_UNRANKED_THRESHOLD, FileTags, GraphEdge, PageRankOutcome, PageRankRun,
    RankConfig, RankRequest, RankedEntry, RankedItem, Ranking, Stage,
};

/// Everything computed before PageRank.
struct Prepared<'r, 'a> {
    files: &'r [FileTags<'a>],
    index: TagIndex<'a>,
    graph: FileGraph,
    /// Per file: chat file.
    chat: Vec<bool>,
    /// SPEC §7.1 scores, per file (0 = not in the dict), plus anchored names that are not
    /// files of the request.
    personalization: HashMap<&'a str, f64>,
    /// Per file: personalization score (0 if none).
    file_pers: Vec<f64>,
    /// Files to force to the front (§7.1b), in anchor order, deduplicated.
    forced: Vec<&'a str>,
}

fn prepare<'r, 'a>(request: &'r RankRequest<'a>, config: &RankConfig) -> Prepared<'r, 'a> {
    let files: &'r [FileTags<'a>] = &request.files;
    let mut seen: HashSet<&str> = HashSet::with_capacity(files.len());
    let skip: Vec<bool> = files
        .iter()
        .map(|f| {
            let dup = !seen.insert(f.rel_fname);
            if dup {
                tracing::warn!(
                    file = f.rel_fname,
                    "file given twice to ranking; using its first entry"
                );
            }
            dup
        })
        .collect();
    let chat: Vec<bool> = files
        .iter()
        .zip(&skip)
        .map(|(f, &s)| f.chat && !s)
        .collect();
    let index = TagIndex::build(files, &skip);

    // §7.1a: anchors, resolved against the index.
    let num_files = request.num_files.max(files.len());
    let personalize = if num_files == 0 {
        0.0
    } else {
        100.0 / num_files as f64
    };
    let anchor_w = config.anchor_weight_multiplier;
    let mut anchors: HashMap<&'a str, f64> = HashMap::new();
    let mut forced: Vec<&'a str> = Vec::new();
    let mut forced_seen: HashSet<&'a str> = HashSet::new();
    for &f in &request.anchor_fnames {
        *anchors.entry(f).or_insert(0.0) += personalize * anchor_w;
        if forced_seen.insert(f) {
            forced.push(f);
        }
    }
    for &ident in &request.anchor_idents {
        let definers = index
            .ids
            .get(ident)
            .map(|&i| index.definers(i))
            .unwrap_or(&[]);
        if definers.is_empty() {
            tracing::debug!(ident, "anchor identifier is not defined anywhere; ignored");
            continue;
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
        let share = personalize * anchor_w / definers.len() as f64;
        for &d in definers {
            *anchors.entry(files[d as usize].rel_fname).or_insert(0.0) += share;
        }
    }
    let mut mentioned_idents: HashSet<&str> = request.mentioned_idents.clone();
    for &(f, ident) in &request.anchor_scoped {
        *anchors.entry(f).or_insert(0.0) += personalize * anchor_w;
        if forced_seen.insert(f) {
            forced.push(f);
        }
        mentioned_idents.insert(ident);
    }

    // §7.1: personalization.
    let mut personalization: HashMap<&'a str, f64> = HashMap::new();
    let mut file_pers = vec![0.0; files.len()];
    for (fi, file) in files.iter().enumerate() {
        if skip[fi] {
            continue;
        }
        let mut current = 0.0;
        if file.chat {
            current += personalize;
        }
        if request.mentioned_fnames.contains(file.rel_fname) {
            current = f64::max(current, personalize);
        }
        if path_components(file.rel_fname)
            .iter()
            .any(|c| mentioned_idents.contains(c))
        {
            current += personalize;
        }
        let anchored = anchors.get(file.rel_fname);
        if let Some(&a) = anchored {
            current += a;
        }
        if current > 0.0 || anchored.is_some() {
            personalization.insert(file.rel_fname, current);
            file_pers[fi] = current;
        }
    }
    for (&f, &a) in &anchors {
        personalization.entry(f).or_insert(a);
    }

    let mut mentioned_flags = vec![false; index.names.len()];
    for m in &mentioned_idents {
        if let Some(&i) = index.ids.get(m) {
            mentioned_flags[i as usize] = true;
        }
    }
    let mentioned = |i: u32| mentioned_flags[i as usize];
    let graph = FileGraph::build(
        &index,
        files.len(),
        &GraphInput {
            chat: &chat,
            mentioned: &mentioned,
            self_edge_weight: config.self_edge_weight,
            exact_edge_limit: config.exact_edge_limit,
        },
    );
    Prepared {
        files,
        index,
        graph,
        chat,
        personalization,
        file_pers,
        forced,
    }
}

/// The components Aider checks against the mentioned identifiers: `Path(rel).parts`, the
/// file name, and the file name without its extension (`os.path.splitext`).
fn path_components(rel_fname: &str) -> Vec<&str> {
    let mut parts: Vec<&str> = Vec::new();
    for comp in Path::new(rel_fname).components() {
        match comp {
            Component::Normal(s) => parts.extend(s.to_str()),
            Component::ParentDir => parts.push(".."),
            Component::RootDir => parts.push("/"),
            Component::CurDir | Component::Prefix(_) => {}
        }
    }
    let name = match parts.last() {
        Some(&"/") | None => "",
        Some(&last) => last,
    };
    parts.push(name);
    parts.push(splitext_stem(name));
    parts
}

/// `os.path.splitext(name)[0]` for a name without separators: leading dots do not start an
/// extension.
fn splitext_stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if name[..dot].bytes().any(|b| b != b'.') => &name[..dot],
        _ => name,
    }
}

/// Ranks the request's files and definitions (SPEC §6–§8). See the crate docs.
///
/// Never panics on any input. Runs in time linear in the tags plus, for graphs within
/// [`RankConfig::exact_edge_limit`], the graph's edges.
pub fn rank<'a>(request: &RankRequest<'a>, config: &RankConfig) -> Ranking<'a> {
    let prep = prepare(request, config);
    let Prepared {
        files,
        index,
        graph,
        chat,
        personalization,
        file_pers,
        forced,
    } = prep;
    let n = graph.nodes.len();
    let nodes: Vec<&'a str> = graph
        .nodes
        .iter()
        .map(|&f| files[f as usize].rel_fname)
        .collect();

    // §7.2–§7.3: PageRank, retried without personalization on division by zero.
    let requested = !personalization.is_empty();
    let pers_vec: Vec<f64> = graph.nodes.iter().map(|&f| file_pers[f as usize]).collect();
    let params = &config.pagerank;
    let mut personalized = requested;
    let mut result = if requested {
        power_iteration(&graph.adjacency, Some(&pers_vec), None, params)
    } else {
        power_iteration(&graph.adjacency, None, None, params)
    };
    if result == Err(PageRankError::ZeroPersonalization) {
        tracing::debug!("personalization sums to zero over the graph; PageRank without it");
        personalized = false;
        result = power_iteration(&graph.adjacency, None, None, params);
    }
    let (ranks, outcome) = match result {
        Ok(r) if n == 0 => (r.ranks, PageRankOutcome::EmptyGraph),
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
    };
    let pagerank_run = PageRankRun {
        personalization_requested: requested,
        personalized,
        outcome,
    };

    let mut entries: Vec<RankedEntry<'a>> = Vec::new();
    let mut file_ranks: HashMap<&'a str, f64> = HashMap::with_capacity(n);
    let mut definition_ranks: Vec<DefinitionRank<'a>> = Vec::new();
    let mut def_pairs: Vec<(u32, u32, f64)> = Vec::new();
    // Per file: whether stage 1 lists its definitions (Aider's `fnames_already_included`).
    let mut included = vec![false; files.len()];
    // Each file's position in name order, for tie-breaks without string comparisons.
    let mut by_name: Vec<u32> = (0..files.len() as u32).collect();
    by_name.sort_unstable_by(|&a, &b| files[a as usize].rel_fname.cmp(files[b as usize].rel_fname));
    let mut file_ord = vec![0u32; files.len()];
    for (pos, &f) in by_name.iter().enumerate() {
        file_ord[f as usize] = pos as u32;
    }

    if outcome != PageRankOutcome::Failed {
        for (u, &r) in ranks.iter().enumerate() {
            file_ranks.insert(nodes[u], r);
        }

        // §7.4: each node's rank spread over its out-edges by weight. Every definer of an
        // identifier gets the same share from a referencer, so one sum per identifier.
        let share = |u: usize, w: f64| {
            let total = graph.out_weight[u];
            if total == 0.0 {
                0.0
            } else {
                ranks[u] * w / total
            }
        };
        let mut ident_rank = vec![0.0; index.names.len()];
        for (u, &f) in graph.nodes.iter().enumerate() {
            for &(i, w) in graph.bundles(f) {
                ident_rank[i as usize] += share(u, w);
            }
        }
        for &i in &index.def_order {
            for &d in index.definers(i) {
                let r = if graph.referenced[i as usize] {
                    ident_rank[i as usize]
                } else {
                    share(graph.node_of[d as usize] as usize, graph.self_edge_weight)
                };
                def_pairs.push((d, i, r));
            }
        }
        // Aider: sorted(..., reverse=True, key=lambda x: (x[1], x[0])): rank, then file,
        // then identifier, all descending. Files compare by their position in name order.
        def_pairs.sort_unstable_by(|a, b| {
            b.2.total_cmp(&a.2)
                .then_with(|| file_ord[b.0 as usize].cmp(&file_ord[a.0 as usize]))
                .then_with(|| index.names[b.1 as usize].cmp(index.names[a.1 as usize]))
        });
        definition_ranks = def_pairs
            .iter()
            .map(|&(d, i, rank)| DefinitionRank {
                rel_fname: files[d as usize].rel_fname,
                ident: index.names[i as usize],
                rank,
            })
            .collect();

        // Stage 1: definition tags, chat files excluded.
        for &(d, i, rank) in &def_pairs {
            if chat[d as usize] {
                continue;
            }
            for t in index.definitions(d, i) {
                entries.push(RankedEntry {
                    stage: Stage::Definition,
                    item: RankedItem::Def {
                        tag: tag_at(files, d, t),
                        rank,
                    },
                });
                included[d as usize] = true;
            }
        }

        // Stage 2: graph nodes by PageRank (ties: name descending), unless in stage 1.
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by(|&a, &b| {
            ranks[b].total_cmp(&ranks[a]).then_with(|| {
                let (fa, fb) = (graph.nodes[a] as usize, graph.nodes[b] as usize);
                file_ord[fb].cmp(&file_ord[fa])
            })
        });
        for u in order {
            let f = graph.nodes[u] as usize;
            if !included[f] {
                entries.push(RankedEntry {
                    stage: Stage::GraphFile,
                    item: RankedItem::File {
                        rel_fname: nodes[u],
                        rank: Some(ranks[u]),
                    },
                });
            }
        }

        // Stage 3: other files never in the graph, sorted (Aider: set order).
        let mut rest: Vec<&'a str> = request
            .other_rel_fnames
            .iter()
            .copied()
            .filter(|f| !file_ranks.contains_key(f))
            .collect();
        rest.sort_unstable();
        rest.dedup();
        entries.extend(rest.into_iter().map(|rel_fname| RankedEntry {
            stage: Stage::OtherFile,
            item: RankedItem::File {
                rel_fname,
                rank: None,
            },
        }));

        // §7.5 step 6.
        if config.exclude_unranked {
            entries.retain(|e| match e.item {
                RankedItem::Def { .. } => true,
                RankedItem::File { rank, .. } => rank.unwrap_or(0.0) > EXCLUDE_UNRANKED_THRESHOLD,
            });
        }
    }

    // §8.2: stage 0, important other files.
    let mut others: Vec<&'a str> = request.other_rel_fnames.clone();
    others.sort_unstable();
    others.dedup();
    let important: Vec<&'a str> = others.into_iter().filter(|f| is_important(f)).collect();
    if !important.is_empty() {
        // Files with definition entries: exactly the `included` ones (exclude_unranked
        // keeps definitions).
        let with_defs: HashSet<&str> = files
            .iter()
            .zip(&included)
            .filter(|(_, inc)| **inc)
            .map(|(f, _)| f.rel_fname)
            .collect();
        let prelude: Vec<&'a str> = match config.dialect {
            Dialect::Aider => {
                let bare: HashSet<&str> = entries
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
                entries.retain(|e| !(e.is_file() && moved_set.contains(e.rel_fname())));
                moved
            }
        };
        let mut front: Vec<RankedEntry<'a>> = prelude
            .into_iter()
            .map(|rel_fname| RankedEntry {
                stage: Stage::Important,
                item: RankedItem::File {
                    rel_fname,
                    rank: file_ranks.get(rel_fname).copied(),
                },
            })
            .collect();
        front.append(&mut entries);
        entries = front;
    }

    // §7.1b: anchor files to the front.
    if !forced.is_empty() {
        let forced_set: HashSet<&str> = forced.iter().copied().collect();
        let (mut moved, rest): (Vec<RankedEntry<'a>>, Vec<RankedEntry<'a>>) = entries
            .into_iter()
            .partition(|e| forced_set.contains(e.rel_fname()));
        let present: HashSet<&str> = moved.iter().map(|e| e.rel_fname()).collect();
        let mut front: Vec<RankedEntry<'a>> = forced
            .iter()
            .filter(|f| !present.contains(*f))
            .map(|&rel_fname| RankedEntry {
                stage: Stage::Anchor,
                item: RankedItem::File {
                    rel_fname,
                    rank: file_ranks.get(rel_fname).copied(),
                },
            })
            .collect();
        for e in &mut moved {
            e.stage = Stage::Anchor;
        }
        front.append(&mut moved);
        front.extend(rest);
        entries = front;
    }

    Ranking {
        entries,
        nodes,
        file_ranks,
        definition_ranks,
        personalization,
        edge_count: graph.edge_count,
        pagerank: pagerank_run,
    }
}

/// Every edge of the file graph, in the order Aider's loops add them to networkx (see the
/// crate README for the node order). Materialises all edges: meant for debugging and for
/// parity harnesses that rebuild the graph in networkx.
pub fn graph_edges<'a>(request: &RankRequest<'a>, config: &RankConfig) -> Vec<GraphEdge<'a>> {
    let prep = prepare(request, config);
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(splitext_stem("..a.b"), "..a");
        assert_eq!(splitext_stem("..."), "...");
        assert_eq!(splitext_stem("a."), "a");
    }
}
