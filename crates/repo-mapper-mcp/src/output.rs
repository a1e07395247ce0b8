//! What the tools answer, typed: each tool's `outputSchema` is generated from these, and
//! its `structuredContent` has their shape (the text content is the same JSON, for
//! clients that read only text; tests hold the answers to the schemas).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

/// The `repo_map` tool's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct RepoMapOutput {
    /// The map: ranked definitions with their enclosing scopes, within `token_limit`
    /// tokens; empty when there is none.
    pub map: String,
    /// How the map was made: the ranked list (`entries`), the files it shows, the budget
    /// (`token_limit`, `tokens`), the scan and the time of each step.
    pub report: Map<String, Value>,
    /// Why no map could be made, or null.
    pub error: Option<String>,
}

/// The `search_identifiers` tool's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SearchOutput {
    /// The query, as matched; one longer than 256 bytes is cut there, followed by `...
    /// and N more bytes`.
    pub query: String,
    /// How many results this answer holds.
    pub count: usize,
    /// Exact matches first, definitions before references.
    pub results: Vec<SearchResult>,
    /// Where the next page starts (pass it as `cursor`), when there are more results than
    /// `max_results` or than `max_tokens` holds; null on the last page.
    pub next_cursor: Option<String>,
}

/// One place an identifier is defined or used.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SearchResult {
    /// The file, relative to the root (control characters escaped).
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// The identifier.
    pub name: String,
    /// `definition` or `reference`.
    pub kind: ResultKind,
    /// The lines around it, its own among them, joined with `\n`.
    pub context: String,
}

/// Whether a [`SearchResult`] defines its name or uses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResultKind {
    /// Where the name is defined.
    Definition,
    /// Where the name is used.
    Reference,
}

/// The `show_symbol` tool's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ShowOutput {
    /// The definitions asked for, in file order (several when a name is ambiguous).
    pub definitions: Vec<ShownSource>,
}

/// One definition's source.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct ShownSource {
    /// The file, relative to the root (control characters escaped).
    pub file: String,
    /// The defined name.
    pub name: String,
    /// Its first line, from 1.
    pub start_line: usize,
    /// Its last line, from 1.
    pub end_line: usize,
    /// Its lines; when cut short by `max_tokens`, ending with a line that says so.
    pub source: String,
    /// Lines left out to keep within `max_tokens`.
    pub omitted_lines: usize,
}

/// The `outline` tool's answer.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OutlineOutput {
    /// Each file under a `FILE (LANGUAGE, N lines)` line: its imports, a line per category
    /// (`imports stdlib: …`, `imports third_party: …`, `imports local: MODULE → PATH`),
    /// then each symbol indented by its depth as `[KIND] SIGNATURE  [START-END] VISIBILITY
    /// — DOC`, within `max_tokens`.
    pub outline: String,
    /// Per file: what the outline shows of it.
    pub files: Vec<OutlinedFile>,
    /// Where the next page starts (pass it as `cursor` with the same `paths`), when
    /// `max_tokens` left lines out.
    pub next_cursor: Option<String>,
}

/// What an `outline` answer shows of one file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OutlinedFile {
    /// The file, relative to the root (control characters escaped).
    pub file: String,
    /// Its language.
    pub language: String,
    /// Its number of lines.
    pub lines: usize,
    /// How many symbols it defines.
    pub symbols: usize,
    /// How many of them the outline shows (fewer when `max_tokens` cut it).
    pub shown: usize,
    /// How many imports it has (`null`: imports of its language are not supported).
    pub imports: Option<usize>,
    /// How many of them the outline shows.
    pub imports_shown: usize,
    /// Why the file was not explored, when it was not (it is larger than the map's
    /// file-size limit, say): one line; `null` otherwise.
    pub warning: Option<String>,
}
