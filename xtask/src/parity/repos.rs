//! The repositories parity runs on, their file lists and hashes, and the scenarios.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use repo_mapper_tags::{Dialect, Tag, TagKind, extract_files, filename_to_lang};
use sha2::{Digest, Sha256};

use crate::workspace_root;

/// A repository to measure.
#[derive(Debug, Clone)]
pub(crate) struct RepoSpec {
    /// Short name, used in the table and the artifact.
    pub name: String,
    /// The root both tools map.
    pub root: PathBuf,
    /// Whether the gate applies to it (see `why`).
    pub gated: bool,
    /// Where it comes from, and why it is or is not gated.
    pub why: String,
}

/// The fixture repositories of `cargo xtask parity` (without `--corpus`).
pub(super) fn fixtures() -> Vec<RepoSpec> {
    let root = workspace_root().join("fixtures");
    let spec = |name: &str, dir: &str, gated: bool, why: &str| RepoSpec {
        name: name.to_owned(),
        root: root.join(dir),
        gated,
        why: why.to_owned(),
    };
    vec![
        spec(
            "parity",
            "parity",
            true,
            "fixtures/parity: a small multi-language project written for this harness",
        ),
        spec("sample-repo", "sample-repo", true, "fixtures/sample-repo"),
        spec("render", "render/src", true, "fixtures/render/src"),
        spec(
            "languages",
            "languages",
            false,
            "fixtures/languages: one file per language; reported, not gated: the documented \
             tag divergences T8 (pygments fallback), T10 (zig) and T16 (r) change its graph",
        ),
    ]
}

/// One scenario: a budget, and chat file / mentioned identifier / context window.
#[derive(Debug, Clone)]
pub(super) struct Scenario {
    pub id: String,
    pub max_tokens: usize,
    pub max_context_window: Option<usize>,
    pub chat_files: Vec<String>,
    pub mentioned_idents: Vec<String>,
}

/// Languages on which Aider 0.86.2's repo map raises instead of returning a map: the
/// julia query does not compile against the language pack's grammar, and the
/// `tree_sitter.QueryError` escapes `RepoMap.get_repo_map` (docs/parity.md T4). Such files
/// are left out of both tools' file list (and counted in the report): with one in the list
/// Aider has no map to compare with.
pub(super) const AIDER_RAISES: [&str; 1] = ["julia"];

pub(super) const BUDGETS: [usize; 3] = [1024, 2048, 4096];
pub(super) const CONTEXT_WINDOW: usize = 16384;

/// A repository ready to measure: its files, their hash, our tags, the scenarios.
#[derive(Debug)]
pub(super) struct Repo {
    pub spec: RepoSpec,
    /// Every file, relative to the root, `/`-separated, sorted.
    pub files: Vec<String>,
    /// Files left out of both tools' list, with the reason (see [`AIDER_RAISES`]).
    pub excluded: Vec<String>,
    /// sha256 over the sorted (path, content sha256) list.
    pub sha256: String,
    /// Our tags (aider dialect) per file.
    pub tags: BTreeMap<String, Vec<Tag>>,
    /// The chat file and the mentioned identifier of the `+chat` scenarios.
    pub chat: Option<(String, String)>,
    pub scenarios: Vec<Scenario>,
}

impl Repo {
    pub(super) fn load(spec: RepoSpec) -> Result<Repo> {
        let root = spec
            .root
            .canonicalize()
            .with_context(|| format!("repository {} not found", spec.root.display()))?;
        let spec = RepoSpec { root, ..spec };
        let (excluded, files): (Vec<String>, Vec<String>) =
            list_files(&spec.root)?.into_iter().partition(|f| {
                filename_to_lang(Path::new(f)).is_some_and(|l| AIDER_RAISES.contains(&l))
            });
        let sha256 = tree_hash(&spec.root, &files)?;
        let inputs: Vec<(PathBuf, String)> = files
            .iter()
            .map(|f| (spec.root.join(f), f.clone()))
            .collect();
        let mut tags = BTreeMap::new();
        for ((_, rel), result) in inputs.iter().zip(extract_files(&inputs, Dialect::Aider)) {
            let file_tags = result.with_context(|| format!("extracting tags of {rel}"))?;
            tags.insert(rel.clone(), file_tags);
        }
        let chat = choose_chat(&tags);
        let mut scenarios = Vec::new();
        for budget in BUDGETS {
            scenarios.push(Scenario {
                id: format!("{budget}"),
                max_tokens: budget,
                max_context_window: None,
                chat_files: vec![],
                mentioned_idents: vec![],
            });
            if let Some((file, ident)) = &chat {
                scenarios.push(Scenario {
                    id: format!("{budget}+chat"),
                    max_tokens: budget,
                    max_context_window: None,
                    chat_files: vec![file.clone()],
                    mentioned_idents: vec![ident.clone()],
                });
            }
            scenarios.push(Scenario {
                id: format!("{budget}+win16k"),
                max_tokens: budget,
                max_context_window: Some(CONTEXT_WINDOW),
                chat_files: vec![],
                mentioned_idents: vec![],
            });
        }
        Ok(Repo {
            spec,
            files,
            excluded,
            sha256,
            tags,
            chat,
            scenarios,
        })
    }
}

/// Every regular file under `root` (hidden directories skipped), relative, sorted.
pub(super) fn list_files(root: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel_dir) = stack.pop() {
        let dir = root.join(&rel_dir);
        for entry in fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel = rel_dir.join(&name);
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if !name.starts_with('.') {
                    stack.push(rel);
                }
            } else if kind.is_file() {
                let rel = rel.to_str().context("non-UTF-8 path")?;
                out.push(rel.replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn tree_hash(root: &Path, files: &[String]) -> Result<String> {
    let mut listing = String::new();
    for f in files {
        let bytes = fs::read(root.join(f)).with_context(|| format!("reading {f}"))?;
        writeln!(listing, "{f}\t{}", hex(&Sha256::digest(&bytes)))?;
    }
    Ok(hex(&Sha256::digest(listing.as_bytes())))
}

pub(super) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        write!(s, "{b:02x}").expect("writing to a String");
    }
    s
}

/// The chat file is the file with the most distinct definitions (first in path order on a
/// tie); the mentioned identifier is the one it defines that the most other files refer
/// to (then the most references, then the first name).
fn choose_chat(tags: &BTreeMap<String, Vec<Tag>>) -> Option<(String, String)> {
    let defs = |tags: &[Tag]| -> BTreeSet<String> {
        tags.iter()
            .filter(|t| t.kind == TagKind::Def)
            .map(|t| t.name.clone())
            .collect()
    };
    let (file, names) = tags
        .iter()
        .map(|(f, t)| (f, defs(t)))
        .filter(|(_, d)| !d.is_empty())
        .fold(
            None::<(&String, BTreeSet<String>)>,
            |best, (f, d)| match best {
                Some((bf, bd)) if bd.len() >= d.len() => Some((bf, bd)),
                _ => Some((f, d)),
            },
        )?;
    let mut referrers: HashMap<&str, (BTreeSet<&str>, usize)> = HashMap::new();
    for (f, file_tags) in tags {
        for t in file_tags.iter().filter(|t| t.kind == TagKind::Ref) {
            let e = referrers.entry(t.name.as_str()).or_default();
            if f != file {
                e.0.insert(f.as_str());
            }
            e.1 += 1;
        }
    }
    let score = |n: &str| {
        referrers
            .get(n)
            .map_or((0, 0), |(files, count)| (files.len(), *count))
    };
    // max_by keeps the last maximum: iterate names in reverse so the first name wins.
    let ident = names.iter().rev().max_by_key(|n| score(n))?;
    Some((file.clone(), ident.clone()))
}
