//! `cargo xtask corpus`: the real projects `cargo xtask parity --corpus` measures, fetched
//! at pinned versions from the package registries with their own clients (pip, npm, cargo
//! vendor, apt-get download) and unpacked under `target/corpus/` (never committed).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail, ensure};

use crate::parity::RepoSpec;
use crate::{python, workspace_root};

/// Where a project comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// A source distribution from PyPI (`pip download --no-binary=:all:`).
    PyPi,
    /// A package tarball from the npm registry (`npm pack`).
    Npm,
    /// A crate's source from crates.io (`cargo vendor` against a scratch manifest).
    Crate,
    /// A Debian binary package that ships sources (`apt-get download`, `dpkg-deb -x`).
    Debian,
}

/// One project of the corpus.
struct Project {
    /// Name in the table (`<language>-<project>`).
    name: &'static str,
    source: Source,
    package: &'static str,
    version: &'static str,
    /// The repository root inside the unpacked package.
    subdir: &'static str,
    what: &'static str,
}

const PROJECTS: &[Project] = &[
    Project {
        name: "py-rich",
        source: Source::PyPi,
        package: "rich",
        version: "13.9.4",
        subdir: "rich-13.9.4",
        what: "Python",
    },
    Project {
        name: "py-django",
        source: Source::PyPi,
        package: "Django",
        version: "5.1.4",
        subdir: "django-5.1.4",
        what: "Python, with JavaScript, CSS and templates",
    },
    Project {
        name: "js-lodash",
        source: Source::Npm,
        package: "lodash",
        version: "4.17.21",
        subdir: "package",
        what: "JavaScript",
    },
    Project {
        name: "ts-rxjs",
        source: Source::Npm,
        package: "rxjs",
        version: "7.8.1",
        subdir: "package/src",
        what: "TypeScript (the package's src/)",
    },
    Project {
        name: "go-prometheus",
        source: Source::Debian,
        package: "golang-github-prometheus-client-golang-dev",
        version: "1.14.0-3",
        subdir: "usr/share/gocode/src/github.com/prometheus/client_golang",
        what: "Go (client_golang 1.14.0)",
    },
    Project {
        name: "rb-rouge",
        source: Source::Debian,
        package: "ruby-rouge",
        version: "3.30.0-2",
        subdir: "usr/share/rubygems-integration/all/gems/rouge-3.30.0",
        what: "Ruby",
    },
    Project {
        name: "rs-regex-automata",
        source: Source::Crate,
        package: "regex-automata",
        version: "0.4.9",
        subdir: "",
        what: "Rust",
    },
    Project {
        name: "c-zstd-sys",
        source: Source::Crate,
        package: "zstd-sys",
        version: "2.0.13+zstd.1.5.6",
        subdir: "",
        what: "C (zstd 1.5.6) with Rust bindings",
    },
    Project {
        name: "java-cpp-jpype",
        source: Source::PyPi,
        package: "JPype1",
        version: "1.5.2",
        subdir: "jpype1-1.5.2",
        what: "Java, C++ and Python",
    },
    Project {
        name: "cs-pythonnet",
        source: Source::PyPi,
        package: "pythonnet",
        version: "3.0.5",
        subdir: "pythonnet-3.0.5",
        what: "C# and Python",
    },
];

fn corpus_dir() -> PathBuf {
    workspace_root()
        .join("target")
        .join("corpus")
        .join("parity")
}

fn project_dir(p: &Project) -> PathBuf {
    corpus_dir().join(format!("{}-{}", p.name, p.version))
}

/// The corpus repositories that have been fetched (all must be, or `cargo xtask corpus`
/// is suggested).
pub(crate) fn repo_specs() -> Result<Vec<RepoSpec>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for p in PROJECTS {
        let dir = project_dir(p);
        if !done_marker(&dir).exists() {
            missing.push(p.name);
            continue;
        }
        out.push(RepoSpec {
            name: p.name.to_owned(),
            root: dir.join(p.subdir),
            gated: true,
            why: format!(
                "{} {}=={} ({:?}): {}",
                p.name, p.package, p.version, p.source, p.what
            ),
        });
    }
    if !missing.is_empty() {
        eprintln!(
            "parity: not fetched (run `cargo xtask corpus`): {}",
            missing.join(", ")
        );
    }
    Ok(out)
}

fn done_marker(dir: &Path) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(".fetched");
    dir.with_file_name(name)
}

pub(crate) fn run(args: &[String]) -> Result<()> {
    if !args.is_empty() {
        bail!("usage: cargo xtask corpus");
    }
    let mut failed = Vec::new();
    for p in PROJECTS {
        if let Err(e) = ensure_project(p) {
            eprintln!("corpus: {} skipped: {e:#}", p.name);
            failed.push(p.name);
        }
    }
    if !failed.is_empty() {
        bail!("could not fetch: {}", failed.join(", "));
    }
    eprintln!("corpus: ready under {}", corpus_dir().display());
    Ok(())
}

/// The source tree of the corpus project `name` (e.g. `py-django`), fetched first if it is
/// not there yet. The store benchmark uses it too.
pub(crate) fn project_root(name: &str) -> Result<PathBuf> {
    let p = PROJECTS
        .iter()
        .find(|p| p.name == name)
        .with_context(|| format!("no corpus project named {name}"))?;
    ensure_project(p)
}

fn ensure_project(p: &Project) -> Result<PathBuf> {
    let dir = project_dir(p);
    if done_marker(&dir).exists() {
        eprintln!("corpus: {} present", p.name);
        return Ok(dir.join(p.subdir));
    }
    eprintln!("corpus: fetching {} {} {}", p.name, p.package, p.version);
    if dir.exists() {
        fs::remove_dir_all(&dir)?;
    }
    fs::create_dir_all(&dir)?;
    fetch(p, &dir)?;
    ensure!(
        dir.join(p.subdir).is_dir(),
        "{}: {} is not in the package",
        p.name,
        p.subdir
    );
    fs::write(done_marker(&dir), format!("{} {}\n", p.package, p.version))?;
    Ok(dir.join(p.subdir))
}

fn fetch(p: &Project, dir: &Path) -> Result<()> {
    let download = corpus_dir().join("downloads");
    fs::create_dir_all(&download)?;
    match p.source {
        Source::PyPi => {
            let spec = format!("{}=={}", p.package, p.version);
            run_cmd(
                Command::new(python())
                    .args(["-m", "pip", "download", "--quiet", "--no-deps"])
                    .args(["--no-binary=:all:", "--disable-pip-version-check"])
                    .arg(&spec)
                    .arg("-d")
                    .arg(&download),
            )?;
            let archive = find_download(&download, &[&p.package.to_lowercase(), p.version])?;
            unpack(&archive, dir)
        }
        Source::Npm => {
            run_cmd(
                Command::new("npm")
                    .args(["pack", "--silent"])
                    .arg(format!("{}@{}", p.package, p.version))
                    .arg("--pack-destination")
                    .arg(&download),
            )?;
            unpack(
                &download.join(format!("{}-{}.tgz", p.package, p.version)),
                dir,
            )
        }
        Source::Debian => {
            run_cmd(
                Command::new("apt-get")
                    .current_dir(&download)
                    .arg("download")
                    .arg(format!("{}={}", p.package, p.version)),
            )?;
            let deb = find_download(&download, &[p.package, &p.version.replace(':', "%3a")])?;
            run_cmd(Command::new("dpkg-deb").arg("-x").arg(&deb).arg(dir))
        }
        Source::Crate => {
            // A scratch package that depends on the crate; `cargo vendor` copies its source.
            let scratch = corpus_dir().join("scratch").join(p.name);
            fs::create_dir_all(scratch.join("src"))?;
            fs::write(scratch.join("src").join("lib.rs"), "")?;
            fs::write(
                scratch.join("Cargo.toml"),
                format!(
                    "[package]\nname = \"scratch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                     [dependencies]\n{} = \"={}\"\n\n[workspace]\n",
                    p.package, p.version
                ),
            )?;
            let vendor = scratch.join("vendor");
            run_cmd(
                Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
                    .current_dir(&scratch)
                    .args(["vendor", "--versioned-dirs", "--quiet"])
                    .arg(&vendor),
            )?;
            let src = vendor.join(format!("{}-{}", p.package, p.version));
            ensure!(
                src.is_dir(),
                "cargo vendor did not produce {}",
                src.display()
            );
            copy_tree(&src, dir)
        }
    }
}

/// Runs `cmd`; fails unless it exits 0.
pub(crate) fn run_cmd(cmd: &mut Command) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("running {:?}", cmd.get_program()))?;
    ensure!(
        status.success(),
        "{:?} failed ({status})",
        cmd.get_program()
    );
    Ok(())
}

/// The downloaded file whose lower-cased name contains every part.
fn find_download(dir: &Path, parts: &[&str]) -> Result<PathBuf> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_lowercase();
        if parts.iter().all(|p| name.contains(&p.to_lowercase())) {
            return Ok(path);
        }
    }
    bail!("no download matching {parts:?} in {}", dir.display())
}

/// Unpacks a .tar.gz, .tgz or .zip with Python's standard library; member names are
/// lower-cased at the top level so that `Django-5.1.4/` and `django-5.1.4/` agree.
fn unpack(archive: &Path, dir: &Path) -> Result<()> {
    let script = r#"
import os, sys, tarfile, zipfile
archive, dest = sys.argv[1], sys.argv[2]
def top_lower(name):
    head, sep, rest = name.partition("/")
    return head.lower() + sep + rest
if archive.endswith(".zip"):
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            info.filename = top_lower(info.filename)
            z.extract(info, dest)
else:
    with tarfile.open(archive) as t:
        members = []
        for m in t.getmembers():
            if not (m.isfile() or m.isdir()):
                continue
            m.name = top_lower(m.name)
            members.append(m)
        t.extractall(dest, members=members, filter="data")
"#;
    run_cmd(
        Command::new(python())
            .arg("-c")
            .arg(script)
            .arg(archive)
            .arg(dir),
    )
}

/// Copies the regular files and directories of `src` into `dst` (iteratively).
pub(crate) fn copy_tree(src: &Path, dst: &Path) -> Result<()> {
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        fs::create_dir_all(dst.join(&rel))?;
        for entry in fs::read_dir(src.join(&rel))? {
            let entry = entry?;
            let r = rel.join(entry.file_name());
            if entry.file_type()?.is_dir() {
                stack.push(r);
            } else if entry.file_type()?.is_file() {
                fs::copy(src.join(&r), dst.join(&r))?;
            }
        }
    }
    Ok(())
}
