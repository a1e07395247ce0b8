//! The systems compared: stock Aider 0.86.2 (a Python process kept for the whole run) and
//! repo-mapper's profiles (warm sessions in this process).

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use repo_mapper::{CacheLocation, Config, MapRequest, Mentions, Profile, Relevance, RepoMap};
use serde::{Deserialize, Serialize};

use crate::workspace_root;

/// What one system returned for one (task, scenario, budget).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Answer {
    /// The files the map shows, in map order.
    pub map_files: Vec<String>,
    /// Every candidate file in ranked order (first appearance in the ranked list).
    pub order: Vec<String>,
    /// Wall time of the call, seconds.
    pub seconds: f64,
    /// The map's text (for definition recall, then dropped); `None` for a system that
    /// makes no map.
    #[serde(skip)]
    pub map_text: Option<String>,
}

/// One question: a repository at a parent commit, its files, the chat files, the message.
pub(super) struct Question<'a> {
    pub root: &'a Path,
    pub files: &'a [String],
    pub chat: &'a [String],
    pub message: &'a str,
}

/// Stock Aider behind `xtask/python/aider_relevance.py`.
pub(super) struct Aider {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

/// Aider's answer: its mentions, and one answer per budget.
pub(super) struct AiderAnswers {
    pub mentions: Mentions,
    pub answers: Vec<Answer>,
}

#[derive(Deserialize)]
struct Reply {
    mentions: ReplyMentions,
    order: Vec<String>,
    maps: Vec<ReplyMap>,
}

#[derive(Deserialize)]
struct ReplyMentions {
    files: Vec<String>,
    idents: Vec<String>,
}

#[derive(Deserialize)]
struct ReplyMap {
    text: String,
    seconds: f64,
}

impl Aider {
    /// Starts the driver with the parity environment's Python.
    pub(super) fn start(python: &Path) -> Result<Aider> {
        let script = workspace_root().join("xtask/python/aider_relevance.py");
        let mut child = Command::new(python)
            .arg(script)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env("PYTHONHASHSEED", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .context("starting the Aider relevance driver")?;
        let stdin = child.stdin.take().context("driver stdin")?;
        let stdout = BufReader::new(child.stdout.take().context("driver stdout")?);
        Ok(Aider {
            child,
            stdin,
            stdout,
        })
    }

    /// Aider's maps of `q` at each budget.
    pub(super) fn ask(&mut self, q: &Question, budgets: &[usize]) -> Result<AiderAnswers> {
        let request = serde_json::json!({
            "root": q.root, "files": q.files, "chat": q.chat,
            "message": q.message, "budgets": budgets,
        });
        writeln!(self.stdin, "{request}")?;
        self.stdin.flush()?;
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        ensure!(!line.is_empty(), "the Aider relevance driver stopped");
        let reply: Reply = serde_json::from_str(&line)?;
        let known: HashSet<&str> = q.files.iter().map(String::as_str).collect();
        let answers = reply
            .maps
            .iter()
            .map(|m| Answer {
                map_files: map_files(&m.text, &known),
                order: reply.order.clone(),
                seconds: m.seconds,
                map_text: Some(m.text.clone()),
            })
            .collect();
        let mut mentions = Mentions::default();
        mentions.files = reply.mentions.files.into_iter().collect();
        mentions.idents = reply.mentions.idents.into_iter().collect();
        Ok(AiderAnswers { mentions, answers })
    }
}

impl Drop for Aider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The file headers of a rendered map (Aider's and ours alike): lines naming a known file,
/// with or without the colon that precedes its definitions.
pub(super) fn map_files(text: &str, known: &HashSet<&str>) -> Vec<String> {
    let mut seen = HashSet::new();
    text.lines()
        .filter(|l| !l.starts_with('│') && !l.starts_with('⋮'))
        .map(|l| l.strip_suffix(':').unwrap_or(l))
        .filter(|l| known.contains(l) && seen.insert(*l))
        .map(str::to_owned)
        .collect()
}

/// A repo-mapper profile, one warm session per repository.
pub(super) struct Ours {
    profile: Profile,
    relevance: Option<Relevance>,
    session: Option<(PathBuf, RepoMap)>,
}

/// How a repo-mapper system gets its mentions.
pub(super) enum Hints<'a> {
    /// Given (Aider's, for the aider profile), one map as Aider's `RepoMap` makes it.
    Mentions(&'a Mentions),
    /// Its own, from the message, with the fallback chain: what `--message` does.
    Message,
}

impl Ours {
    pub(super) fn new(profile: Profile) -> Ours {
        Ours {
            profile,
            relevance: None,
            session: None,
        }
    }

    /// With these ranking departures instead of the profile's own.
    pub(super) fn with_relevance(mut self, relevance: Relevance) -> Ours {
        self.relevance = Some(relevance);
        self
    }

    fn session(&mut self, root: &Path) -> &mut RepoMap {
        if self.session.as_ref().is_none_or(|(r, _)| r != root) {
            let mut config = Config::new(root).with_profile(self.profile);
            config.cache = CacheLocation::Memory;
            // Tags kept between calls, as Aider's process keeps its tags cache.
            config.warm_session = true;
            // The history as the CLI reads it: the clone is checked out at the parent.
            config.history = true;
            if let Some(r) = self.relevance {
                config.set_relevance(r);
            }
            self.session = Some((root.to_owned(), RepoMap::new(config)));
        }
        &mut self.session.as_mut().expect("just made").1
    }

    /// The map of `q` at `budget`.
    pub(super) fn ask(&mut self, q: &Question, hints: Hints, budget: usize) -> Answer {
        let abs = |f: &String| q.root.join(f);
        let chat: HashSet<&str> = q.chat.iter().map(String::as_str).collect();
        let others = q.files.iter().filter(|f| !chat.contains(f.as_str()));
        let mut request = MapRequest::new(others.map(abs).collect())
            .with_chat_files(q.chat.iter().map(abs).collect());
        let session = self.session(q.root);
        session.set_budget(budget, None);
        let start = Instant::now();
        let (mentions, fallback) = match hints {
            Hints::Mentions(m) => (m.clone(), false),
            Hints::Message => (session.mentions(&request, q.message), true),
        };
        if fallback {
            request = request.with_message(q.message);
        }
        request = request
            .with_mentioned_files(mentions.files)
            .with_mentioned_idents(mentions.idents);
        let result = if fallback {
            session.map_with_fallback(&request)
        } else {
            session.map(&request)
        };
        let seconds = start.elapsed().as_secs_f64();
        let known: HashSet<&str> = q.files.iter().map(String::as_str).collect();
        let (text, report) = match &result {
            Ok(out) => (out.text.as_str(), Some(&*out.report)),
            Err(no) => ("", no.report()),
        };
        let mut seen = HashSet::new();
        let order = report
            .map(|r| &r.entries)
            .into_iter()
            .flatten()
            .filter(|e| !chat.contains(e.file.as_str()) && seen.insert(e.file.as_str()))
            .map(|e| e.file.clone())
            .collect();
        Answer {
            map_files: map_files(text, &known),
            order,
            seconds,
            map_text: Some(text.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_files_are_the_headers_of_known_files() {
        let text = "\nsrc/a.py:\n│class A:\n⋮\n\nREADME.md\n\nnot/known.py:\n│x\n";
        let known: HashSet<&str> = ["src/a.py", "README.md", "src/b.py"].into();
        assert_eq!(map_files(text, &known), ["src/a.py", "README.md"]);
    }
}
