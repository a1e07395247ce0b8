//! `cargo xtask lint`: the house rules rustc and clippy do not check.
//!
//! * **`unsafe` where it is listed**: the files that allow `unsafe_code` (denied in the
//!   workspace's lints) are exactly those `docs/ARCHITECTURE.md` lists under
//!   [`UNSAFE_HEADING`].
//! * **Every rule reference leads somewhere**: each `behaviour.md §N` in the code and the
//!   docs names a section heading or a numbered rule of `docs/behaviour.md`.
//!
//! That functions fit on a screen is clippy's to check (`too_many_lines`, its threshold in
//! `clippy.toml`), in every crate, test, bench and this xtask alike.
//!
//! The scanner is lexical, not a parser: it strips comments, strings and character
//! literals. It is exact on rustfmt-formatted code.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// The heading of ARCHITECTURE's list of the files that may hold `unsafe`.
const UNSAFE_HEADING: &str = "## Where `unsafe` is allowed";

/// Runs every lint on the workspace; fails listing each violation.
pub(crate) fn run(args: &[String]) -> Result<()> {
    if let Some(arg) = args.first() {
        bail!("lint takes no arguments, got `{arg}`");
    }
    let root = crate::workspace_root();
    check_unsafe_list(&root)?;
    check_rule_references(&root)
}

/// Every `behaviour.md §N` in `.rs` and `.md` files against `docs/behaviour.md`'s headings.
fn check_rule_references(root: &Path) -> Result<()> {
    let doc = std::fs::read_to_string(root.join("docs/behaviour.md"))?;
    let sections = section_headings(&doc);
    let mut files = markdown_files(root)?;
    for dir in ["crates", "xtask"] {
        files.extend(rust_files(&root.join(dir))?);
    }
    let mut broken = Vec::new();
    let mut cited = 0;
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        for section in cited_sections(&text) {
            cited += 1;
            if !sections.contains(&section) {
                let rel = file.strip_prefix(root).unwrap_or(&file);
                broken.push(format!("{}: behaviour.md §{section}", rel.display()));
            }
        }
    }
    if !broken.is_empty() {
        bail!(
            "references to sections docs/behaviour.md does not have:\n  {}",
            broken.join("\n  ")
        );
    }
    eprintln!("lint: {cited} references to docs/behaviour.md, each to a section or rule it has");
    Ok(())
}

/// The section numbers of `doc`'s headings (`## §7 …`, `### §7.1a …`) and its rules'
/// numbers (`- **7.5.9** …`).
fn section_headings(doc: &str) -> std::collections::HashSet<String> {
    let numbers = doc.lines().filter_map(|l| {
        if let Some(rule) = l.trim_start().strip_prefix("- **") {
            return rule.split("**").next().map(str::to_owned); // a rule: `- **7.5.9** …`
        }
        let rest = l.trim_start_matches('#').strip_prefix(" §")?;
        rest.split_whitespace().next().map(str::to_owned)
    });
    numbers.collect()
}

/// The section numbers `text` cites as `behaviour.md §N`, `N` a number (a trailing `.`
/// or `,` is punctuation, not part of it).
fn cited_sections(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("behaviour.md §") {
        let rest = &text[at + "behaviour.md §".len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
            .unwrap_or(rest.len());
        let number = rest[..end].trim_end_matches('.');
        if number.starts_with(|c: char| c.is_ascii_digit()) {
            out.push(number.to_owned());
        }
    }
    out
}

/// The files allowing `unsafe_code` against ARCHITECTURE's list.
fn check_unsafe_list(root: &Path) -> Result<()> {
    let mut allowing = Vec::new();
    for dir in ["crates", "xtask"] {
        for file in rust_files(&root.join(dir))? {
            let text = std::fs::read_to_string(&file)?;
            if strip(&text).contains("allow(unsafe_code)") {
                let rel = file.strip_prefix(root).unwrap_or(&file);
                allowing.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    allowing.sort();
    let doc = std::fs::read_to_string(root.join("docs/ARCHITECTURE.md"))?;
    let listed = unsafe_listed(&doc);
    if allowing != listed {
        bail!(
            "the files that allow unsafe_code and docs/ARCHITECTURE.md's list under \
             \"{UNSAFE_HEADING}\" differ:\n  in the code: {allowing:?}\n  in the doc:  {listed:?}"
        );
    }
    eprintln!("lint: unsafe only in the {} listed files", listed.len());
    Ok(())
}

/// The paths listed (`` - `path` ``) in `doc`'s [`UNSAFE_HEADING`] section, sorted.
fn unsafe_listed(doc: &str) -> Vec<String> {
    let mut paths: Vec<String> = doc
        .lines()
        .skip_while(|l| l.trim() != UNSAFE_HEADING)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("- `")?.split('`').next().map(str::to_owned))
        .collect();
    paths.sort();
    paths
}

/// The `.rs` files under `dir`, outside `target/` directories.
fn rust_files(dir: &Path) -> Result<Vec<PathBuf>> {
    files_with_extension(dir, "rs", &["target"])
}

/// The workspace's `.md` files outside `target/`, the fixtures and `.git`.
fn markdown_files(root: &Path) -> Result<Vec<PathBuf>> {
    files_with_extension(root, "md", &["target", "fixtures", ".git"])
}

/// The files under `dir` whose extension is `ext`, not descending into directories named
/// in `skip`.
fn files_with_extension(dir: &Path, ext: &str, skip: &[&str]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let skipped = skip.iter().any(|s| path.file_name() == Some(s.as_ref()));
            if path.is_dir() && !skipped {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    Ok(out)
}

/// `text` with comments, strings and character literals blanked (line breaks kept).
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let skip = match (chars[i], chars.get(i + 1).copied()) {
            ('/', Some('/')) => until(&chars, i, |c, _| c == '\n'),
            ('/', Some('*')) => until(&chars, i + 2, |c, next| c == '*' && next == Some('/')) + 1,
            ('r', Some('"' | '#')) if raw_string_start(&chars, i) => raw_string_end(&chars, i),
            ('"', _) => quoted_end(&chars, i, '"'),
            ('\'', _) => char_literal_end(&chars, i).unwrap_or(i),
            _ => i,
        };
        if skip == i {
            out.push(chars[i]);
            i += 1;
        } else {
            let end = skip.min(chars.len() - 1);
            out.extend(
                chars[i..=end]
                    .iter()
                    .map(|&c| if c == '\n' { '\n' } else { ' ' }),
            );
            i = end + 1;
        }
    }
    out
}

/// The index before the first position at or after `from` where `stop` holds.
fn until(chars: &[char], from: usize, stop: impl Fn(char, Option<char>) -> bool) -> usize {
    (from..chars.len())
        .find(|&j| stop(chars[j], chars.get(j + 1).copied()))
        .map_or(chars.len() - 1, |j| {
            j.saturating_sub(usize::from(chars[j] == '\n'))
        })
}

fn quoted_end(chars: &[char], start: usize, quote: char) -> usize {
    let mut j = start + 1;
    while j < chars.len() {
        match chars[j] {
            '\\' => j += 2,
            c if c == quote => return j,
            _ => j += 1,
        }
    }
    chars.len() - 1
}

fn raw_string_start(chars: &[char], i: usize) -> bool {
    let prev_ident = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    !prev_ident && chars.get(i + 1 + hashes) == Some(&'"')
}

fn raw_string_end(chars: &[char], i: usize) -> usize {
    let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
    let mut j = i + 2 + hashes;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return j + hashes;
        }
        j += 1;
    }
    chars.len() - 1
}

/// The end of a character literal starting at `i` (`'a'`, `'\n'`, `'\u{1F600}'`), or
/// `None` for a lifetime.
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    match chars.get(i + 1)? {
        '\\' => (i + 2..chars.len().min(i + 12)).find(|&j| chars[j] == '\''),
        _ => (chars.get(i + 2) == Some(&'\'')).then_some(i + 2),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_references_are_read_with_their_letter_and_without_punctuation() {
        let text = "see behaviour.md §7.1a, behaviour.md §11. and behaviour.md §6.4 step 2";
        assert_eq!(cited_sections(text), ["7.1a", "11", "6.4"]);
        let doc = "# Behaviour\n## §7 Ranking\n### §7.1a Anchors\n- **7.1a.2** A rule.\ntext §9\n";
        let headings = section_headings(doc);
        assert!(headings.contains("7") && headings.contains("7.1a"));
        assert!(headings.contains("7.1a.2"), "rules count too");
        assert!(!headings.contains("9"), "only headings count");
    }

    #[test]
    fn the_unsafe_list_is_read_from_its_section_only() {
        let doc = "# A\n- `not/this.rs`\n## Where `unsafe` is allowed\n\nText.\n\n\
                   - `b/two.rs` — why.\n- `a/one.rs` — why,\n  on two lines.\n## Next\n- `c/no.rs`\n";
        assert_eq!(unsafe_listed(doc), ["a/one.rs", "b/two.rs"]);
    }

    #[test]
    fn strings_comments_and_chars_are_stripped() {
        let text = "let s = \"unsafe\"; // allow(unsafe_code)\nlet c = '}'; let r = r#\"x\"#;\n/* unsafe */ f();\n";
        let code = strip(text);
        assert!(!code.contains("unsafe"), "{code}");
        assert!(code.contains("f();"), "{code}");
    }
}
