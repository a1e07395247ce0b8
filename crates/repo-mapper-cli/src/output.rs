//! What goes to stdout: the map, or with `--format json` the map and its report.

use std::io::Write;

use repo_mapper::{Answer, Config};

use crate::args::Format;

/// Writes the answer in `format`: the map, or the map and its report as JSON.
pub(crate) fn write(
    out: &mut impl Write,
    format: Format,
    answer: &Answer,
    config: &Config,
) -> std::io::Result<()> {
    match format {
        Format::Json => answer.write_json(config, out),
        Format::Text => {
            let text = answer.result.as_ref().map_or("", |o| o.text.as_str());
            out.write_all(text.as_bytes())?;
            out.flush()
        }
    }
}
