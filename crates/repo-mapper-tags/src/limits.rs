//! The bound on the work one file may cost (issue 12: no file can stall a map).

use std::fmt;
use std::time::{Duration, Instant};

/// How much work extracting the tags of one file may cost.
///
/// A file that tree-sitter cannot parse and query within the bound (a hundred thousand
/// nested blocks, say) is cut short: it keeps the tags found so far, or none, and the
/// result says where it stopped ([`CutShort`]). The bound is wall-clock time, checked by
/// tree-sitter's progress callbacks every hundred operations, so it holds whatever the
/// file's language or shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Time allowed for parsing and querying one file, together.
    pub time_per_file: Duration,
}

impl Limits {
    /// The default time per file: ten seconds. The largest generated C headers of the
    /// Linux tree (about 10 MB) take about three seconds on one core.
    pub const DEFAULT_TIME_PER_FILE: Duration = Duration::from_secs(10);

    /// Limits allowing `time_per_file` for each file.
    pub fn new(time_per_file: Duration) -> Limits {
        Limits { time_per_file }
    }

    /// The moment work on a file started now must stop.
    pub fn deadline(&self) -> Deadline {
        Deadline(Instant::now().checked_add(self.time_per_file))
    }
}

impl Default for Limits {
    fn default() -> Limits {
        Limits::new(Limits::DEFAULT_TIME_PER_FILE)
    }
}

/// A point in time after which work on a file stops (`None` inside: never).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline(Option<Instant>);

impl Deadline {
    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.0.is_some_and(|at| Instant::now() >= at)
    }
}

/// Why a file's extraction stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CutShort {
    /// Parsing did not finish: the file has no tags.
    Parse,
    /// The tag query (or the identifier fallback) did not finish: the file keeps the tags
    /// found before the deadline. Also set when the query dropped a match of more captures
    /// than tree-sitter's query cursor can count (4,095), which would have run to the
    /// deadline: the file keeps every other match's tags.
    Query,
    /// The tree is deeper than tree-sitter's query cursor handles (60,000 levels): the file
    /// keeps the tags of matches starting above that depth, whatever the clock.
    Depth,
}

impl CutShort {
    /// `parse` or `query`.
    pub fn as_str(self) -> &'static str {
        match self {
            CutShort::Parse => "parse",
            CutShort::Query => "query",
            CutShort::Depth => "depth",
        }
    }
}

impl fmt::Display for CutShort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_limit_is_expired_at_once_and_a_huge_one_never() {
        assert!(Limits::new(Duration::ZERO).deadline().expired());
        assert!(!Limits::new(Duration::MAX).deadline().expired());
        assert!(!Limits::default().deadline().expired());
    }
}
