//! The `--progress` bar.

use std::io::IsTerminal;

use repo_mapper::Progress;

/// The `--progress` bar (also shown when stderr is a terminal and over 1,000 files are
/// scanned); a no-op otherwise. `indicatif::ProgressBar` is a shared handle, safe to update
/// from the scan's worker threads.
#[derive(Clone)]
pub(crate) struct ProgressBar(Option<indicatif::ProgressBar>);

impl ProgressBar {
    pub(crate) fn new(requested: bool, files: usize) -> ProgressBar {
        let show = requested || (std::io::stderr().is_terminal() && files > 1000);
        ProgressBar(show.then(|| {
            let bar = indicatif::ProgressBar::with_draw_target(
                Some(files as u64),
                indicatif::ProgressDrawTarget::stderr(),
            );
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} scanning {pos}/{len} files {wide_bar} {elapsed}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar
        }))
    }

    pub(crate) fn update(&self, p: Progress) {
        if let Some(bar) = &self.0 {
            bar.set_length(p.total as u64);
            bar.set_position(p.done as u64);
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
