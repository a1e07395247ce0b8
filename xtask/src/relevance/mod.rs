//! `cargo xtask relevance`: does the map show the files a change needed? Measured on real
//! history (issue 16): the task is a commit's message, the answer the source files it
//! modified, the repository as it was at the parent.
//!
//! For each repository of [`history::REPOS`] (read from a local copy: `--mirror DIR`), the
//! first `--commits N` qualifying commits back from the pinned one ([`history::tasks`]);
//! for each, two scenarios (S1: the message alone; S2: the most-changed modified file in
//! the chat, and the message) at each budget, answered by four systems on the same file
//! list: stock Aider 0.86.2 (`xtask/python/aider_relevance.py`), our aider profile given
//! Aider's mentions, our default profile given the message, and full-text search
//! (`bm25`, issue 24: it ranks files and makes no map). Each call is scored on the files
//! (recall, ranks, recall@5 and @10) and on the changed definitions the map shows
//! (`defs`). Writes every scored call to `target/relevance/relevance.json` and prints the
//! tables and both goals (issue 16's against Aider, issue 24's against bm25).
//!
//! Runs optimised: a debug build re-runs itself with `cargo run --release`.

mod bm25;
mod defs;
mod history;
mod score;
mod swebench;
mod systems;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use repo_mapper::{Mentions, Profile, Relevance};
use serde::{Deserialize, Serialize};

use crate::parity::tools::venv_python;
use crate::workspace_root;
use defs::Definition;
use history::{REPOS, Repo, Task};
use score::Row;
use systems::{Aider, Hints, Ours, Question};

const BUDGETS: [usize; 2] = [1024, 4096];

struct Args {
    mirror: PathBuf,
    commits: usize,
    /// Qualifying commits passed over first (a held-out set: `--skip 25`).
    skip: usize,
    repos: Vec<String>,
    /// An earlier artifact whose Aider and aider-profile answers are reused.
    reuse_aider: Option<PathBuf>,
    out: PathBuf,
    /// Overrides of the default profile's [`Relevance`], to measure one idea alone.
    relevance: Relevance,
    /// Only print each repository's tasks (commit and modified files), measure nothing.
    list_tasks: bool,
    /// SWE-bench instances to answer instead of commit histories (issue 45).
    swebench: Option<PathBuf>,
    /// Which part of the SWE-bench instances: development, held out, or all.
    split: swebench::Split,
    /// Leave stock Aider out of a SWE-bench run.
    no_aider: bool,
    /// Where a SWE-bench run checks its repositories out.
    clones: PathBuf,
    /// Whether `--out` was given (a SWE-bench run has its own default).
    out_given: bool,
}

/// Everything one run measured.
#[derive(Serialize, Deserialize, Default)]
struct Artifact {
    aider: String,
    repo_mapper_commit: String,
    budgets: Vec<usize>,
    commits_per_repo: usize,
    /// Qualifying commits passed over before those measured.
    #[serde(default)]
    skipped_per_repo: usize,
    /// The default profile's relevance settings in this run.
    #[serde(default)]
    relevance: String,
    repos: Vec<RepoRecord>,
    rows: Vec<Row>,
    /// Aider's mentions per (repo, commit, scenario): what the aider profile was given.
    mentions: Vec<MentionRecord>,
}

#[derive(Serialize, Deserialize)]
struct RepoRecord {
    name: String,
    github: String,
    language: String,
    pin: String,
    tasks: Vec<TaskRecord>,
}

#[derive(Serialize, Deserialize)]
struct TaskRecord {
    commit: String,
    parent: String,
    message: String,
    modified: Vec<String>,
    files: usize,
    /// The definitions the commit changed (see `defs`), what definition recall counts.
    #[serde(default)]
    definitions: Vec<Definition>,
}

#[derive(Serialize, Deserialize, Clone)]
struct MentionRecord {
    repo: String,
    commit: String,
    scenario: String,
    files: Vec<String>,
    idents: Vec<String>,
}

pub(crate) fn run(rest: &[String]) -> Result<()> {
    if cfg!(debug_assertions) {
        return rerun_optimised(rest);
    }
    let args = parse(rest)?;
    if let Some(data) = &args.swebench {
        return run_swebench(&args, data);
    }
    let previous = args.reuse_aider.as_deref().map(load).transpose()?;
    let mut artifact = Artifact {
        aider: "aider-chat 0.86.2 (stock)".into(),
        repo_mapper_commit: head_commit(),
        budgets: BUDGETS.to_vec(),
        commits_per_repo: args.commits,
        skipped_per_repo: args.skip,
        relevance: format!("{:?}", args.relevance),
        ..Artifact::default()
    };
    let mut runner = Runner::new(previous.as_ref(), args.relevance)?;
    runner.no_aider = args.no_aider;
    let clones = workspace_root().join("target/relevance/repos");
    for repo in REPOS
        .iter()
        .filter(|r| args.repos.is_empty() || args.repos.iter().any(|n| n == r.name))
    {
        let dir = history::clone(repo, &args.mirror, &clones)?;
        let tasks = history::tasks(&dir, repo, args.skip, args.commits)?;
        if args.list_tasks {
            for t in &tasks {
                println!("{} {} {}", repo.name, t.commit, t.modified.join(" "));
            }
            continue;
        }
        eprintln!("relevance: {}: {} tasks", repo.name, tasks.len());
        let record = runner.repo(repo, &dir, tasks, &mut artifact)?;
        artifact.repos.push(record);
    }
    if args.list_tasks {
        return Ok(());
    }
    std::fs::create_dir_all(args.out.parent().context("output directory")?)?;
    std::fs::write(&args.out, serde_json::to_string(&artifact)?)?;
    let (report, _) = report(&artifact);
    println!("{report}");
    eprintln!("relevance: wrote {}", args.out.display());
    Ok(())
}

/// `--swebench FILE`: the issue-localization suite (`swebench`).
fn run_swebench(args: &Args, data: &Path) -> Result<()> {
    let reuse: Option<swebench::Report> = match &args.reuse_aider {
        Some(p) => Some(serde_json::from_str(&std::fs::read_to_string(p)?)?),
        None => None,
    };
    let mut report = swebench::Report {
        repo_mapper_commit: head_commit(),
        split: format!("{:?}", args.split),
        relevance: format!("{:?}", args.relevance),
        ..Default::default()
    };
    let opts = swebench::Options {
        data,
        mirror: &args.mirror,
        clones: &args.clones,
        split: args.split,
        repos: &args.repos,
        no_aider: args.no_aider,
        reuse: reuse.as_ref(),
        relevance: args.relevance,
    };
    swebench::run(&opts, &mut report)?;
    let out = match args.out_given {
        true => args.out.clone(),
        false => swebench::default_out(),
    };
    std::fs::create_dir_all(out.parent().context("output directory")?)?;
    std::fs::write(&out, serde_json::to_string(&report)?)?;
    for budget in BUDGETS {
        println!("{}", swebench::tables(&report, budget));
    }
    eprintln!(
        "relevance: wrote {} ({} skipped)",
        out.display(),
        report.skipped.len()
    );
    Ok(())
}

/// The tables and the goal, as text; and whether the goal holds.
fn report(a: &Artifact) -> (String, bool) {
    let names: Vec<String> = a.repos.iter().map(|r| r.name.clone()).collect();
    let (goal, ok) = score::goal(&a.rows, &names);
    let text = format!(
        "Pooled over {} tasks ({} repositories):\n\n{}\nPer repository, budget 1024:\n\n{}\n{goal}",
        a.repos.iter().map(|r| r.tasks.len()).sum::<usize>(),
        a.repos.len(),
        score::pooled_table(&a.rows, &a.budgets),
        score::repo_table(&a.rows, &names, 1024),
    );
    (text, ok)
}

fn rerun_optimised(rest: &[String]) -> Result<()> {
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .current_dir(workspace_root())
        .args([
            "run",
            "--release",
            "--quiet",
            "-p",
            "xtask",
            "--",
            "relevance",
        ])
        .args(rest)
        .status()
        .context("running the optimised xtask")?;
    if !status.success() {
        bail!("cargo xtask relevance failed");
    }
    Ok(())
}

fn parse(rest: &[String]) -> Result<Args> {
    let mut args = Args {
        mirror: workspace_root().join("../.mirror"),
        commits: 25,
        skip: 0,
        repos: Vec::new(),
        reuse_aider: None,
        out: workspace_root().join("target/relevance/relevance.json"),
        relevance: Relevance::MEASURED,
        list_tasks: false,
        swebench: None,
        split: swebench::Split::Dev,
        no_aider: false,
        clones: workspace_root().join("target/relevance/repos"),
        out_given: false,
    };
    let mut it = rest.iter();
    while let Some(flag) = it.next() {
        let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--mirror" => args.mirror = PathBuf::from(value()?),
            "--commits" => args.commits = value()?.parse()?,
            "--skip" => args.skip = value()?.parse()?,
            "--repo" => args.repos.push(value()?.clone()),
            "--out" => {
                args.out = PathBuf::from(value()?);
                args.out_given = true;
            }
            "--swebench" => args.swebench = Some(PathBuf::from(value()?)),
            "--split" => args.split = swebench::Split::parse(value()?)?,
            "--no-aider" => args.no_aider = true,
            "--clones" => args.clones = PathBuf::from(value()?),
            "--reuse-aider" => args.reuse_aider = Some(PathBuf::from(value()?)),
            "--set" => set_relevance(&mut args.relevance, value()?)?,
            "--list-tasks" => args.list_tasks = true,
            other => bail!(
                "unknown flag `{other}`; usage: cargo xtask relevance [--mirror DIR] \
                 [--commits N] [--skip N] [--repo NAME]... [--reuse-aider FILE] [--out FILE] [--set KEY=VALUE]... [--list-tasks] \
                 [--no-aider] [--swebench FILE [--split dev|held-out|all] [--clones DIR]]"
            ),
        }
    }
    Ok(args)
}

/// `--set KEY=VALUE`: one field of the default profile's relevance.
fn set_relevance(r: &mut Relevance, kv: &str) -> Result<()> {
    let (key, value) = kv.split_once('=').context("--set takes KEY=VALUE")?;
    match key {
        "lexical_boost" => r.lexical_boost = value.parse()?,
        "path_weight" => r.path_weight = value.parse()?,
        "test_factor" => r.test_factor = value.parse()?,
        "important_first" => r.important_first = value.parse()?,
        "breadth" => r.breadth = value.parse()?,
        "caller_boost" => r.caller_boost = value.parse()?,
        "full_text" => r.full_text = value.parse()?,
        "fusion_k" => r.fusion_k = value.parse()?,
        "fusion_weight" => r.fusion_weight = value.parse()?,
        "def_boost" => r.def_boost = value.parse()?,
        "body_boost" => r.body_boost = value.parse()?,
        "body_files" => r.body_files = value.parse()?,
        "passage_weight" => r.passage_weight = value.parse()?,
        "passage_files" => r.passage_files = value.parse()?,
        "passage_min_terms" => r.passage_min_terms = value.parse()?,
        "signatures" => r.signatures = value.parse()?,
        "fused_within" => r.fused_within = value.parse()?,
        "co_change_weight" => r.co_change_weight = value.parse()?,
        "clue_weight" => r.clue_weight = value.parse()?,
        "term_counts" => r.term_counts = value.parse()?,
        "without_templates" => r.without_templates = value.parse()?,
        "specific_unsteered" => r.specific_unsteered = value.parse()?,
        _ => bail!("unknown relevance setting `{key}`"),
    }
    Ok(())
}

fn load(path: &Path) -> Result<Artifact> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("--reuse-aider reads {}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

fn head_commit() -> String {
    history::git(&workspace_root(), &["rev-parse", "HEAD"])
        .map(|s| s.trim().to_owned())
        .unwrap_or_default()
}

/// What one task gives every system and scenario: the definitions its commit changed,
/// and the bm25 index of its files at the parent.
struct Given {
    defs: Vec<Definition>,
    index: bm25::Index,
}

/// The systems, and Aider's earlier answers when they are reused.
struct Runner {
    aider: Option<Aider>,
    python: Option<PathBuf>,
    reused: HashMap<(String, String, String), (MentionRecord, Vec<Row>)>,
    ours_aider: Ours,
    ours_default: Ours,
    /// Leave stock Aider and the aider profile out (`--no-aider`).
    no_aider: bool,
}

impl Runner {
    fn new(previous: Option<&Artifact>, relevance: Relevance) -> Result<Runner> {
        let mut reused = HashMap::new();
        if let Some(prev) = previous {
            for m in &prev.mentions {
                let rows = prev
                    .rows
                    .iter()
                    .filter(|r| {
                        ["aider-stock", "ours-aider"].contains(&r.system.as_str())
                            && (&r.repo, &r.commit, &r.scenario)
                                == (&m.repo, &m.commit, &m.scenario)
                    })
                    .cloned()
                    .collect();
                let key = (m.repo.clone(), m.commit.clone(), m.scenario.clone());
                reused.insert(key, (m.clone(), rows));
            }
        }
        Ok(Runner {
            aider: None,
            python: None,
            reused,
            ours_aider: Ours::new(Profile::Aider),
            ours_default: Ours::new(Profile::Default).with_relevance(relevance),
            no_aider: false,
        })
    }

    /// Every task of one repository.
    fn repo(
        &mut self,
        repo: &Repo,
        dir: &Path,
        tasks: Vec<Task>,
        artifact: &mut Artifact,
    ) -> Result<RepoRecord> {
        let mut records = Vec::new();
        let total = tasks.len();
        for (i, task) in tasks.into_iter().enumerate() {
            let files = history::checkout(dir, &task.parent)?;
            let given = Given {
                defs: defs::changed_definitions(dir, &task)?,
                index: bm25::Index::build(dir, &files),
            };
            for scenario in ["S1", "S2"] {
                let chat = match scenario {
                    "S1" => vec![],
                    _ => vec![task.modified[0].clone()],
                };
                let q = Question {
                    root: dir,
                    files: &files,
                    chat: &chat,
                    message: &task.message,
                };
                self.task(repo, &task, scenario, &q, &given, artifact)?;
            }
            eprintln!("relevance: {} {}/{total}", repo.name, i + 1);
            records.push(TaskRecord {
                commit: task.commit,
                parent: task.parent,
                message: task.message,
                modified: task.modified,
                files: files.len(),
                definitions: given.defs,
            });
        }
        Ok(RepoRecord {
            name: repo.name.into(),
            github: repo.github.into(),
            language: repo.language.into(),
            pin: repo.pin.into(),
            tasks: records,
        })
    }

    /// One task in one scenario: every system at every budget, scored.
    fn task(
        &mut self,
        repo: &Repo,
        task: &Task,
        scenario: &str,
        q: &Question,
        given: &Given,
        artifact: &mut Artifact,
    ) -> Result<()> {
        let targets: Vec<String> = task
            .modified
            .iter()
            .filter(|f| !q.chat.contains(f))
            .cloned()
            .collect();
        let defs = &given.defs;
        let key = |system| [repo.name, task.commit.as_str(), scenario, system];
        if self.no_aider {
            let search = given.index.answer(q.message, q.chat);
            for budget in BUDGETS {
                let s = search.clone();
                (artifact.rows).push(Row::score(key("bm25"), budget, &targets, defs, s));
                let d = self.ours_default.ask(q, Hints::Message, budget);
                (artifact.rows).push(Row::score(key("ours-default"), budget, &targets, defs, d));
            }
            return Ok(());
        }
        let (mentions, aider_rows) = self.aider_rows(repo, task, scenario, q, &targets, defs)?;
        // Reused rows hold the aider profile's too: it cannot change (the parity gate).
        let reused = aider_rows.iter().any(|r| r.system == "ours-aider");
        artifact.rows.extend(aider_rows);
        let search = given.index.answer(q.message, q.chat);
        for budget in BUDGETS {
            let s = search.clone();
            artifact
                .rows
                .push(Row::score(key("bm25"), budget, &targets, defs, s));
            if !reused {
                let mut given = Mentions::default();
                given.files = mentions.files.iter().cloned().collect();
                given.idents = mentions.idents.iter().cloned().collect();
                let a = self.ours_aider.ask(q, Hints::Mentions(&given), budget);
                artifact
                    .rows
                    .push(Row::score(key("ours-aider"), budget, &targets, defs, a));
            }
            let d = self.ours_default.ask(q, Hints::Message, budget);
            artifact
                .rows
                .push(Row::score(key("ours-default"), budget, &targets, defs, d));
        }
        artifact.mentions.push(mentions);
        Ok(())
    }

    /// Aider's scored rows and mentions for one task and scenario: asked, or reused
    /// (then with the aider profile's rows).
    fn aider_rows(
        &mut self,
        repo: &Repo,
        task: &Task,
        scenario: &str,
        q: &Question,
        targets: &[String],
        defs: &[Definition],
    ) -> Result<(MentionRecord, Vec<Row>)> {
        let key = (
            repo.name.to_owned(),
            task.commit.clone(),
            scenario.to_owned(),
        );
        if let Some(hit) = self.reused.get(&key) {
            return Ok(hit.clone());
        }
        if self.aider.is_none() {
            let python = match &self.python {
                Some(p) => p.clone(),
                None => venv_python()?,
            };
            self.aider = Some(Aider::start(&python)?);
            self.python = Some(python);
        }
        let aider = self.aider.as_mut().expect("started");
        let answers = aider.ask(q, &BUDGETS)?;
        let rows = BUDGETS
            .iter()
            .zip(answers.answers)
            .map(|(&budget, a)| {
                let k = [repo.name, task.commit.as_str(), scenario, "aider-stock"];
                Row::score(k, budget, targets, defs, a)
            })
            .collect();
        let mentions = MentionRecord {
            repo: key.0,
            commit: key.1,
            scenario: key.2,
            files: answers.mentions.files.into_iter().collect(),
            idents: answers.mentions.idents.into_iter().collect(),
        };
        Ok((mentions, rows))
    }
}
