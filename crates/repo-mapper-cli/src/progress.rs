//! The progress bar of the parsing a run has to do.

use std::io::IsTerminal;
use std::sync::{Arc, OnceLock};

use repo_mapper::Progress;

/// Files to parse from which a terminal gets a bar unasked: below it a cold run takes
/// about a second.
const SHOW_FROM_FILES: usize = 1_000;

/// The bar: shown when the scan announces the files it must read and parse — with
/// `--progress` whenever there are any, on a terminal when there are at least
/// [`SHOW_FROM_FILES`] — with files/s and an ETA. A warm run (nothing to parse) never
/// shows one. Cloned handles share the bar; updates come from the scan's threads.
#[derive(Clone)]
pub(crate) struct ProgressBar {
    requested: bool,
    bar: Arc<OnceLock<Option<indicatif::ProgressBar>>>,
}

impl ProgressBar {
    /// A bar that decides whether to show itself at the scan's first report.
    pub(crate) fn new(requested: bool) -> ProgressBar {
        ProgressBar {
            requested,
            bar: Arc::new(OnceLock::new()),
        }
    }

    /// Shows the scan's progress (deciding at the first report whether to show a bar).
    pub(crate) fn update(&self, p: Progress) {
        let bar = self.bar.get_or_init(|| self.start(p.total));
        if let Some(bar) = bar {
            bar.set_position(p.done as u64);
        }
    }

    fn start(&self, to_parse: usize) -> Option<indicatif::ProgressBar> {
        let terminal = std::io::stderr().is_terminal();
        shows(self.requested, terminal, to_parse).then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(to_parse as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} parsing {pos}/{len} files {wide_bar} {per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        })
    }

    /// Clears the bar, if one was shown.
    pub(crate) fn finish(&self) {
        if let Some(Some(bar)) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

/// Whether a run with `to_parse` files to parse shows a bar.
fn shows(requested: bool, terminal: bool, to_parse: usize) -> bool {
    to_parse > 0 && (requested || (terminal && to_parse >= SHOW_FROM_FILES))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_only_when_there_is_parsing_ahead() {
        assert!(!shows(true, true, 0), "a warm run never shows one");
        assert!(shows(true, false, 1), "--progress shows any parsing");
        assert!(!shows(false, true, SHOW_FROM_FILES - 1));
        assert!(shows(false, true, SHOW_FROM_FILES));
        assert!(
            !shows(false, false, 100_000),
            "never unasked off a terminal"
        );
    }
}
