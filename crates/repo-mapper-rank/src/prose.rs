//! What the user wrote in a message, without what an issue template wrote for them
//! ([`without_templates`]): the default profile reads an issue's words, and a template's
//! instructions and its environment report are words about no file of the repository —
//! or worse, about the one file that prints versions.

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// Words that make a heading an environment report's: the section under it lists
/// versions, platforms and installed packages.
const ENVIRONMENT_WORDS: [&str; 6] = [
    "environment",
    "version",
    "system info",
    "platform",
    "installed",
    "show_versions",
];

/// A heading with more words than this is prose, whatever words it has.
const MAX_HEADING_WORDS: usize = 6;

/// `message` without the parts an issue template adds, read as Markdown: HTML comments
/// (a template's instructions), and each section whose heading names the environment or
/// versions (`## Environment`, `**Environment info**`, a pasted `INSTALLED VERSIONS`)
/// up to the next heading. Each part left out becomes a line break. Borrowed when
/// nothing is left out.
///
/// ```
/// use repo_mapper_rank::without_templates;
///
/// let issue = "<!-- Describe the bug. -->\nmerge drops attrs\n\n\
///              **Environment**:\n\npython: 3.8\nnumpy: 1.19\n\n**Expected**\n\nattrs kept\n";
/// let prose = without_templates(issue);
/// assert!(prose.contains("merge drops attrs") && prose.contains("attrs kept"));
/// assert!(!prose.contains("numpy") && !prose.contains("Describe"));
/// ```
pub fn without_templates(message: &str) -> Cow<'_, str> {
    let dropped = template_ranges(message);
    if dropped.is_empty() {
        return Cow::Borrowed(message);
    }
    let mut kept = String::with_capacity(message.len());
    let mut at = 0;
    for r in dropped {
        if r.start > at {
            kept.push_str(&message[at..r.start]);
        }
        kept.push('\n');
        at = at.max(r.end);
    }
    kept.push_str(&message[at..]);
    Cow::Owned(kept)
}

/// The byte ranges of `message` a template wrote, in order (they may touch, never
/// overlap one another's starts).
fn template_ranges(message: &str) -> Vec<Range<usize>> {
    let mut dropped: Vec<Range<usize>> = Vec::new();
    let mut blocks = Blocks::default();
    // The start of the environment section being read, if any.
    let mut section: Option<usize> = None;
    for (event, range) in Parser::new(message).into_offset_iter() {
        if let Event::Html(html) | Event::InlineHtml(html) = &event
            && html.trim_start().starts_with("<!--")
            && section.is_none()
        {
            dropped.push(range.clone());
        }
        let Some(block) = blocks.read(&event, range) else {
            continue;
        };
        if let Some(title) = block.heading {
            if let Some(start) = section.take() {
                dropped.push(start..block.range.start);
            }
            if names_environment(&title) {
                section = Some(block.range.start);
            }
        }
    }
    if let Some(start) = section {
        dropped.push(start..message.len());
    }
    dropped.sort_by_key(|r| r.start);
    dropped
}

/// Whether a heading's text announces an environment report.
fn names_environment(title: &str) -> bool {
    let lower = title.to_lowercase();
    lower.split_whitespace().count() <= MAX_HEADING_WORDS
        && ENVIRONMENT_WORDS.iter().any(|w| lower.contains(w))
}

/// A top-level block of the message, once read to its end.
struct Block {
    range: Range<usize>,
    /// Its text when it is a heading, or a paragraph whose first line is all bold
    /// (`**Environment info**`, with at most a colon after it): that line's text.
    heading: Option<String>,
}

/// Reads the parser's events into top-level blocks.
#[derive(Default)]
struct Blocks {
    depth: usize,
    /// Where the block being read starts.
    start: Option<Range<usize>>,
    /// Whether it may be a heading (a heading or a paragraph): only then is its text
    /// kept, so a pasted log of megabytes is not copied.
    may_head: bool,
    text: String,
    /// Whether everything read of the paragraph's first line so far is bold (or a colon).
    all_bold: bool,
    bold: usize,
    /// Whether the paragraph's first line has ended.
    past_first_line: bool,
}

impl Blocks {
    /// Takes one event; returns the block it ends, if it ends one at the top level.
    fn read(&mut self, event: &Event<'_>, range: Range<usize>) -> Option<Block> {
        match event {
            Event::Start(tag) => {
                if self.depth == 0 {
                    let heading = matches!(tag, Tag::Heading { .. });
                    self.start = Some(range);
                    self.may_head = heading || matches!(tag, Tag::Paragraph);
                    self.text.clear();
                    self.all_bold = !heading;
                    self.bold = 0;
                    self.past_first_line = false;
                } else if matches!(tag, Tag::Strong) {
                    self.bold += 1;
                }
                self.depth += 1;
                None
            }
            Event::End(tag) => {
                self.depth = self.depth.saturating_sub(1);
                if matches!(tag, TagEnd::Strong) {
                    self.bold = self.bold.saturating_sub(1);
                }
                (self.depth == 0).then(|| self.finish(*tag))?
            }
            Event::SoftBreak | Event::HardBreak => {
                self.past_first_line = true;
                None
            }
            Event::Text(_) | Event::Code(_) if self.past_first_line || !self.may_head => None,
            Event::Text(text) | Event::Code(text) => {
                if self.bold == 0 && !text.trim().trim_end_matches(':').is_empty() {
                    self.all_bold = false;
                }
                self.text.push_str(text);
                None
            }
            _ => None,
        }
    }

    /// The block just ended by `tag`.
    fn finish(&mut self, tag: TagEnd) -> Option<Block> {
        let range = self.start.take()?;
        let heading = matches!(tag, TagEnd::Heading(_))
            || (matches!(tag, TagEnd::Paragraph) && self.all_bold && !self.text.is_empty());
        Some(Block {
            range,
            heading: heading.then(|| std::mem::take(&mut self.text)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_without_a_template_is_borrowed() {
        let text = "Fix `Table.add_row` when the row is empty.\n\n## Steps\n\n1. call it\n";
        assert!(matches!(without_templates(text), Cow::Borrowed(_)));
    }

    #[test]
    fn html_comments_are_left_out() {
        let text = "<!-- Please include a copy-pastable example -->\n\nmerge fails\n\
                    \nSee <!-- inline hint --> this.\n";
        let prose = without_templates(text);
        assert!(
            !prose.contains("copy-pastable") && !prose.contains("hint"),
            "{prose}"
        );
        assert!(
            prose.contains("merge fails") && prose.contains("this."),
            "{prose}"
        );
    }

    #[test]
    fn an_environment_section_ends_at_the_next_heading() {
        let text = "Bug\n\n**Environment info**\n- OS: Mac\n- Python version: 3.8\n\
                    - Sphinx extensions: sphinx.ext.napoleon\n\n**Additional context**\n\
                    glossary terms clash\n";
        let prose = without_templates(text);
        assert!(
            !prose.contains("napoleon") && !prose.contains("Mac"),
            "{prose}"
        );
        assert!(
            prose.contains("Additional context") && prose.contains("glossary"),
            "{prose}"
        );
    }

    #[test]
    fn pasted_installed_versions_run_to_the_end() {
        let text = "attrs are shared\n\n<details><summary>Output of <tt>xr.show_versions()</tt>\
                    </summary>\n\nINSTALLED VERSIONS\n------------------\ncommit: None\n\
                    python: 3.8.5\nnetCDF4: 1.5.4\n\n</details>\n";
        let prose = without_templates(text);
        assert!(prose.contains("attrs are shared"), "{prose}");
        assert!(
            !prose.contains("netCDF4") && !prose.contains("python: 3.8.5"),
            "{prose}"
        );
    }

    #[test]
    fn a_long_heading_or_bold_prose_is_no_environment_heading() {
        let text = "## Since version 3 the parser drops every trailing comment\n\nparse(x)\n\
                    \n**Note** the version string is read from `setup.cfg`.\n";
        assert!(matches!(without_templates(text), Cow::Borrowed(_)));
    }

    #[test]
    fn any_text_is_cut_at_char_boundaries() {
        for text in [
            "## Environment\n",
            "**Environment**",
            "<!--",
            "<!-- é -->é",
            "# Versions\n<!-- x",
            "**é**:\n\nü",
            "",
        ] {
            let _ = without_templates(text).len();
        }
    }
}
