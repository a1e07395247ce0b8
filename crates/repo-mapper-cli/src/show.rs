//! `repo-mapper show FILE#NAME | FILE:LINE`: a definition's whole source (the facade's
//! `show_symbol`), as text or JSON.

use std::io::Write;
use std::path::PathBuf;

use repo_mapper::{Dialect, ShownDefinition, SymbolTarget, Tokenizer, show_symbol};

use crate::Failure;
use crate::args::Format;
use crate::settings::root_from;

/// Shows `target` in the repository at `root` (or the one around the current directory).
pub(crate) fn run(
    target: &str,
    root: Option<&PathBuf>,
    max_tokens: Option<usize>,
    format: Format,
) -> Result<(), Failure> {
    let parsed = SymbolTarget::parse(target).ok_or_else(|| {
        Failure::fatal(format!(
            "error: `{target}` is neither FILE#NAME nor FILE:LINE (a line from 1)"
        ))
    })?;
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::fatal(format!("error: no current directory: {e}")))?;
    let root = root_from(root, &cwd)?;
    let cap = max_tokens.map(|n| (n, Tokenizer::default()));
    let shown = show_symbol(&root, &parsed, Dialect::Default, cap)
        .map_err(|why| Failure::nothing(format!("nothing to show: {why}")))?;
    let text = match format {
        Format::Text => as_text(&shown),
        Format::Json => as_json(&shown),
    };
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::fatal(format!(
            "error: cannot write the definition: {e}"
        ))),
        _ => Ok(()),
    }
}

/// Each definition under a `FILE:START-END NAME` line, a blank line between them.
fn as_text(shown: &[ShownDefinition]) -> String {
    let blocks: Vec<String> = shown
        .iter()
        .map(|d| {
            let head = format!("{}:{}-{} {}\n", d.file, d.start_line, d.end_line, d.name);
            head + &d.source
        })
        .collect();
    blocks.join("\n")
}

/// `{"definitions": [{file, name, start_line, end_line, source, omitted_lines}]}`.
fn as_json(shown: &[ShownDefinition]) -> String {
    let definitions: Vec<serde_json::Value> = shown
        .iter()
        .map(|d| {
            serde_json::json!({
                "file": d.file,
                "name": d.name,
                "start_line": d.start_line,
                "end_line": d.end_line,
                "source": d.source,
                "omitted_lines": d.omitted_lines,
            })
        })
        .collect();
    serde_json::json!({ "definitions": definitions }).to_string() + "\n"
}
