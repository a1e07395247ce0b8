//! `cargo xtask vendor-queries`: vendor Aider's tree-sitter tag queries.
//!
//! The only source is the `aider-chat` wheel on PyPI, fetched with `pip download`. Every
//! `aider/queries/<subdir>/*-tags.scm` file is written to `queries/<subdir>/`, after applying
//! our recorded patch `queries/patches/<subdir>/<file>.patch` when there is one. The
//! upstream credit files and Aider's licence travel with them, and `queries/PROVENANCE.toml`
//! records the package, version, wheel hash and, per file, the upstream and vendored sha256.
//!
//! `--check` rebuilds that tree in memory and fails when `queries/` differs from it;
//! `--record-patches` turns local edits of vendored files into patch files.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

use crate::{python, workspace_root};

const PACKAGE: &str = "aider-chat";
const VERSION: &str = "0.86.2";
const WHEEL: &str = "aider_chat-0.86.2-py3-none-any.whl";
/// Query directories inside the wheel (`aider/queries/<subdir>`), in Aider's search order.
const SUBDIRS: [&str; 2] = ["tree-sitter-language-pack", "tree-sitter-languages"];
const LICENCE_IN_WHEEL: &str = "aider_chat-0.86.2.dist-info/licenses/LICENSE.txt";
const LICENCE_FILE: &str = "LICENSE-aider-chat.txt";
const PROVENANCE_FILE: &str = "PROVENANCE.toml";

enum Mode {
    Write,
    Check,
    RecordPatches,
}

/// What the wheel holds that we vendor.
struct Upstream {
    wheel_sha256: String,
    /// `<subdir>/<file>` → text, for every `.scm` and `README.md` of the query directories.
    files: BTreeMap<String, String>,
    licence: String,
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    let mode = match args {
        [] => Mode::Write,
        [flag] if flag == "--check" => Mode::Check,
        [flag] if flag == "--record-patches" => Mode::RecordPatches,
        _ => bail!("usage: cargo xtask vendor-queries [--check | --record-patches]"),
    };
    let root = workspace_root();
    let queries = root.join("queries");
    let upstream = fetch_upstream(&root)?;
    match mode {
        Mode::Write => {
            let expected = expected_tree(&upstream, &queries)?;
            for subdir in SUBDIRS {
                fs::create_dir_all(queries.join(subdir))?;
            }
            for stale in vendored_files_on_disk(&queries)? {
                if !expected.contains_key(&stale) {
                    fs::remove_file(queries.join(&stale))?;
                    eprintln!("removed {stale}");
                }
            }
            for (path, text) in &expected {
                fs::write(queries.join(path), text).with_context(|| format!("writing {path}"))?;
            }
            eprintln!("wrote {} files under queries/", expected.len());
        }
        Mode::Check => {
            let expected = expected_tree(&upstream, &queries)?;
            let mut problems = Vec::new();
            for (path, text) in &expected {
                match fs::read_to_string(queries.join(path)) {
                    Ok(actual) if &actual == text => {}
                    Ok(_) => problems.push(format!(
                        "{path}: differs from {PACKAGE} {VERSION} plus patches"
                    )),
                    Err(_) => problems.push(format!("{path}: missing")),
                }
            }
            for path in vendored_files_on_disk(&queries)? {
                if !expected.contains_key(&path) {
                    problems.push(format!("{path}: not in {PACKAGE} {VERSION}"));
                }
            }
            if !problems.is_empty() {
                for p in &problems {
                    eprintln!("  {p}");
                }
                bail!(
                    "queries/ differs from {PACKAGE} {VERSION} in {} place(s); edit a vendored \
                     query, then run `cargo xtask vendor-queries --record-patches`",
                    problems.len()
                );
            }
            eprintln!(
                "queries/ matches {PACKAGE} {VERSION} plus {} recorded patch(es)",
                count_patches(&queries)?
            );
        }
        Mode::RecordPatches => {
            for (path, original) in upstream.files.iter().filter(|(p, _)| p.ends_with(".scm")) {
                let patch_path = queries.join("patches").join(format!("{path}.patch"));
                let local = fs::read_to_string(queries.join(path))
                    .with_context(|| format!("reading queries/{path}"))?;
                if &local == original {
                    if patch_path.exists() {
                        fs::remove_file(&patch_path)?;
                        eprintln!("dropped patch for {path} (no local change left)");
                    }
                    continue;
                }
                let patch = diffy::create_patch(original, &local);
                fs::create_dir_all(patch_path.parent().expect("patch has a parent"))?;
                fs::write(&patch_path, patch.to_string())?;
                eprintln!("recorded patches/{path}.patch");
            }
            // PROVENANCE.toml must describe the patched files.
            let expected = expected_tree(&upstream, &queries)?;
            fs::write(queries.join(PROVENANCE_FILE), &expected[PROVENANCE_FILE])?;
        }
    }
    Ok(())
}

/// Downloads the wheel (once; it is kept under `target/xtask/`) and reads what we vendor.
fn fetch_upstream(root: &Path) -> Result<Upstream> {
    let dir = root
        .join("target")
        .join("xtask")
        .join(format!("{PACKAGE}-{VERSION}"));
    let wheel = dir.join(WHEEL);
    if !wheel.exists() {
        fs::create_dir_all(&dir)?;
        eprintln!("downloading {PACKAGE}=={VERSION} from PyPI");
        let status = Command::new(python())
            .args([
                "-m",
                "pip",
                "download",
                "--quiet",
                "--no-deps",
                "--only-binary=:all:",
            ])
            .arg(format!("{PACKAGE}=={VERSION}"))
            .arg("-d")
            .arg(&dir)
            .status()
            .context("running pip download (is python3 with pip installed?)")?;
        ensure!(status.success(), "pip download {PACKAGE}=={VERSION} failed");
    }
    let wheel_bytes = fs::read(&wheel).with_context(|| format!("reading {}", wheel.display()))?;
    let extracted = dir.join("extracted");
    if extracted.exists() {
        fs::remove_dir_all(&extracted)?;
    }
    // The wheel is a zip file; Python (needed for pip anyway) unpacks it.
    let status = Command::new(python())
        .args([
            "-c",
            "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])",
        ])
        .arg(&wheel)
        .arg(&extracted)
        .status()
        .context("unpacking the wheel with python")?;
    ensure!(status.success(), "could not unpack {}", wheel.display());

    let mut files = BTreeMap::new();
    for subdir in SUBDIRS {
        let src = extracted.join("aider").join("queries").join(subdir);
        for entry in fs::read_dir(&src).with_context(|| format!("listing {}", src.display()))? {
            let path = entry?.path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default()
                .to_owned();
            if name.ends_with(".scm") || name == "README.md" {
                files.insert(format!("{subdir}/{name}"), fs::read_to_string(&path)?);
            }
        }
    }
    ensure!(!files.is_empty(), "the wheel holds no queries");
    let licence = fs::read_to_string(extracted.join(LICENCE_IN_WHEEL))
        .context("reading Aider's licence from the wheel")?;
    Ok(Upstream {
        wheel_sha256: sha256(&wheel_bytes),
        files,
        licence,
    })
}

/// The complete vendored tree (paths relative to `queries/`), patches applied.
fn expected_tree(upstream: &Upstream, queries: &Path) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    let mut provenance = String::new();
    writeln!(
        provenance,
        "# Written by `cargo xtask vendor-queries`; do not edit by hand."
    )?;
    writeln!(
        provenance,
        "# Patched files: `cargo xtask vendor-queries --record-patches`."
    )?;
    writeln!(provenance, "[source]")?;
    writeln!(provenance, "package = \"{PACKAGE}\"")?;
    writeln!(provenance, "version = \"{VERSION}\"")?;
    writeln!(
        provenance,
        "url = \"https://pypi.org/project/{PACKAGE}/{VERSION}/\""
    )?;
    writeln!(provenance, "wheel = \"{WHEEL}\"")?;
    writeln!(provenance, "wheel_sha256 = \"{}\"", upstream.wheel_sha256)?;
    writeln!(
        provenance,
        "licence = \"Apache-2.0 ({LICENCE_FILE}); grammar credits and licences in each README.md\""
    )?;
    for (path, original) in &upstream.files {
        let mut text = original.clone();
        let patch_rel = format!("patches/{path}.patch");
        let patch_file = queries.join(&patch_rel);
        let patched = patch_file.exists();
        if patched {
            let patch_text = fs::read_to_string(&patch_file)?;
            let patch = diffy::Patch::from_str(&patch_text)
                .with_context(|| format!("parsing {patch_rel}"))?;
            text = diffy::apply(original, &patch)
                .with_context(|| format!("{patch_rel} does not apply to {PACKAGE} {VERSION}"))?;
        }
        if path.ends_with(".scm") {
            writeln!(provenance, "\n[[file]]")?;
            writeln!(provenance, "path = \"{path}\"")?;
            writeln!(provenance, "upstream = \"aider/queries/{path}\"")?;
            writeln!(
                provenance,
                "upstream_sha256 = \"{}\"",
                sha256(original.as_bytes())
            )?;
            writeln!(provenance, "sha256 = \"{}\"", sha256(text.as_bytes()))?;
            if patched {
                writeln!(provenance, "patch = \"{patch_rel}\"")?;
            }
        }
        out.insert(path.clone(), text);
    }
    out.insert(LICENCE_FILE.to_owned(), upstream.licence.clone());
    out.insert(PROVENANCE_FILE.to_owned(), provenance);
    Ok(out)
}

/// Files currently under the vendored directories, plus the two top-level vendored files.
fn vendored_files_on_disk(queries: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for subdir in SUBDIRS {
        let dir = queries.join(subdir);
        if !dir.exists() {
            continue;
        }
        for entry in fs::read_dir(&dir)? {
            let name = entry?.file_name().to_string_lossy().into_owned();
            out.push(format!("{subdir}/{name}"));
        }
    }
    for name in [LICENCE_FILE, PROVENANCE_FILE] {
        if queries.join(name).exists() {
            out.push(name.to_owned());
        }
    }
    Ok(out)
}

fn count_patches(queries: &Path) -> Result<usize> {
    let mut n = 0;
    let mut stack: Vec<PathBuf> = vec![queries.join("patches")];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "patch") {
                n += 1;
            }
        }
    }
    Ok(n)
}

/// The SHA-256 of `bytes`, in hex. The workspace hashes with blake3 everywhere else; the
/// provenance keeps SHA-256 because it is the digest PyPI publishes for each wheel, so
/// anyone can check the record against the index.
fn sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest {
        write!(out, "{b:02x}").expect("writing to a String cannot fail");
    }
    out
}
