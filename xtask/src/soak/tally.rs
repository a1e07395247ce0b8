//! What a soak counted: calls, edits, differences, the warm server's memory, and the
//! summary printed at the end.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One warm answer that differed from the fresh one.
#[derive(Debug)]
pub(crate) struct Difference {
    pub call: usize,
    /// `map` or `search`.
    pub tool: &'static str,
    pub root: usize,
    pub profile: String,
    pub repeated: bool,
    pub from_cache: Option<bool>,
    /// The edits of the root since the previous call on the same session.
    pub edits_before: Vec<String>,
    /// The first line that differs (warm, then fresh).
    pub first: (String, String),
}

/// The counts of a run.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub maps: usize,
    pub searches: usize,
    pub repeats: usize,
    pub edits: BTreeMap<String, usize>,
    pub differences: Vec<Difference>,
    /// The warm server's `VmRSS` after each call, KiB.
    pub rss: Vec<u64>,
    /// The files of all the roots after each call (beside `rss`).
    pub files: Vec<usize>,
    /// Client-side time of the warm calls and of the fresh answers.
    pub warm: Duration,
    pub fresh: Duration,
    pub saved: Vec<PathBuf>,
}

impl Tally {
    /// The summary table.
    pub(super) fn print(&self, header: &str, elapsed: Duration) {
        let mib = |k: u64| k as f64 / 1024.0;
        let edits: usize = self.edits.values().sum();
        println!("{header}");
        println!("  {:<13} {:.1} s", "run", elapsed.as_secs_f64());
        println!(
            "  {:<13} {} (repo_map {}, of which identical to the last {}; search_identifiers {})",
            "calls",
            self.maps + self.searches,
            self.maps,
            self.repeats,
            self.searches
        );
        println!(
            "  {:<13} {:.1} s warm, {:.1} s fresh",
            "time",
            self.warm.as_secs_f64(),
            self.fresh.as_secs_f64()
        );
        let kinds: Vec<String> = self.edits.iter().map(|(k, n)| format!("{k} {n}")).collect();
        println!("  {:<13} {edits}: {}", "edits", kinds.join(", "));
        self.print_differences();
        if let (Some(first), Some(min), Some(max), Some(last)) = (
            self.rss.first(),
            self.rss.iter().min(),
            self.rss.iter().max(),
            self.rss.last(),
        ) {
            println!(
                "  {:<13} first {:.1} MiB, min {:.1}, max {:.1}, last {:.1} ({} samples)",
                "server RSS",
                mib(*first),
                mib(*min),
                mib(*max),
                mib(*last),
                self.rss.len()
            );
        }
        self.print_rss_by_quarter();
        for path in &self.saved {
            println!("  {:<13} {}", "case saved", path.display());
        }
    }

    /// The median `VmRSS` and file count of each quarter of the run: memory that grows
    /// while the file count does not is kept per call.
    fn print_rss_by_quarter(&self) {
        let n = self.rss.len().min(self.files.len());
        if n < 4 {
            return;
        }
        let quarters: Vec<String> = (0..4)
            .map(|q| {
                let range = q * n / 4..(q + 1) * n / 4;
                let rss = median(&self.rss[range.clone()]) as f64 / 1024.0;
                let files = median(&self.files[range]);
                format!("{rss:.1} MiB at {files} files")
            })
            .collect();
        println!("  {:<13} {}", "by quarter", quarters.join("; "));
    }

    /// The differences: a count by tool, then one line each.
    fn print_differences(&self) {
        let count = |tool: &str| self.differences.iter().filter(|d| d.tool == tool).count();
        let cached = self
            .differences
            .iter()
            .filter(|d| d.from_cache == Some(true))
            .count();
        println!(
            "  {:<13} {} (repo_map {}, of which from the map cache {}; search_identifiers {})",
            "differences",
            self.differences.len(),
            count("map"),
            cached,
            count("search")
        );
        for d in &self.differences {
            let cache = match d.from_cache {
                Some(true) => ", from the map cache",
                _ => "",
            };
            let repeat = if d.repeated { ", repeated request" } else { "" };
            println!(
                "    call {:>3}: {} root {} {}{repeat}{cache}; edits before: [{}]",
                d.call,
                d.tool,
                d.root,
                d.profile,
                d.edits_before.join(", ")
            );
            println!("      warm:  {}", clip(&d.first.0));
            println!("      fresh: {}", clip(&d.first.1));
        }
    }
}

/// The median of `values` (the upper one of an even count); 0 when there are none.
fn median<T: Copy + Ord + Default>(values: &[T]) -> T {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// `line` cut to 100 characters.
fn clip(line: &str) -> String {
    match line.char_indices().nth(100) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

/// The first line where `warm` and `fresh` differ (`<end>` past the last line).
pub(crate) fn first_difference(warm: &str, fresh: &str) -> (String, String) {
    let (mut w, mut f) = (warm.lines(), fresh.lines());
    loop {
        match (w.next(), f.next()) {
            (None, None) => return ("<same lines>".into(), "<same lines>".into()),
            (a, b) if a != b => {
                let end = |l: Option<&str>| l.unwrap_or("<end>").to_owned();
                return (end(a), end(b));
            }
            _ => {}
        }
    }
}
