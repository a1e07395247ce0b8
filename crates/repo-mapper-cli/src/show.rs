//! `repo-mapper show FILE#NAME | FILE:LINE`: a definition's whole source (the facade's
//! `show_symbol`); `repo-mapper outline PATH...`: what files define (`outline`); as text or
//! JSON.

use std::io::Write;
use std::path::PathBuf;

use repo_mapper::{
    Dialect, FileOutline, ShownDefinition, SymbolTarget, Tokenizer, outline_text, outlines,
    show_symbol,
};

use crate::Failure;
use crate::args::{Format, SourceArgs};
use crate::settings::root_from;

/// Shows `target` in the repository at `root` (or the one around the current directory).
pub(crate) fn run(target: &str, args: &SourceArgs) -> Result<(), Failure> {
    let (root, max_tokens, format) = (args.root.as_ref(), args.max_tokens, args.format);
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
    write_out(&text)
}

/// Outlines `paths` in the repository at `root` (or the one around the current directory).
pub(crate) fn outline(paths: &[PathBuf], args: &SourceArgs) -> Result<(), Failure> {
    let (root, max_tokens, format) = (args.root.as_ref(), args.max_tokens, args.format);
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::fatal(format!("error: no current directory: {e}")))?;
    let root = root_from(root, &cwd)?;
    let outlines = outlines(&root, paths, Dialect::Default)
        .map_err(|why| Failure::nothing(format!("nothing to outline: {why}")))?;
    let text = match format {
        Format::Text => outline_text(&outlines, max_tokens.map(|n| (n, Tokenizer::default()))),
        Format::Json => outline_json(&outlines),
    };
    write_out(&text)
}

/// `{"files": [{file, language, lines, symbols: [{kind, name, signature, start_line,
/// end_line, parent, depth, visibility, doc}], imports: [{module, line, category, path,
/// declared_in}] or null, warning}]}` (JSON takes no cap; `null` imports: not supported
/// or not parsed; `warning`: why the file was not parsed, else `null`).
fn outline_json(outlines: &[FileOutline]) -> String {
    let files: Vec<serde_json::Value> = outlines
        .iter()
        .map(|o| {
            let symbols: Vec<serde_json::Value> = o
                .symbols
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "kind": s.kind, "name": s.name, "signature": s.signature,
                        "start_line": s.start_line, "end_line": s.end_line,
                        "parent": s.parent, "depth": s.depth,
                        "visibility": s.visibility.map(|v| v.as_str()), "doc": s.doc,
                    })
                })
                .collect();
            let imports = o.imports.as_ref().map(|imports| {
                imports
                    .iter()
                    .map(|i| {
                        serde_json::json!({
                            "module": i.module, "line": i.line, "category": i.category.as_str(),
                            "path": i.path, "declared_in": i.declared_in,
                        })
                    })
                    .collect::<Vec<_>>()
            });
            serde_json::json!({
                "file": o.file, "language": o.language, "lines": o.lines, "symbols": symbols,
                "imports": imports, "warning": o.warning,
            })
        })
        .collect();
    serde_json::json!({ "files": files }).to_string() + "\n"
}

/// Writes `text` to stdout; a closed pipe is no failure.
fn write_out(text: &str) -> Result<(), Failure> {
    match std::io::stdout().lock().write_all(text.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::fatal(format!("error: cannot write: {e}")))
        }
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
