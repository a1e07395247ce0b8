//! Standard input and output for rmcp, with every incoming line checked first.
//!
//! rmcp 3.11's stdio transport drops a line that is not JSON (`{not json`, a truncated
//! request, bytes that are not UTF-8, a NUL byte) without a reply, and says so only at
//! debug level (`transport/async_rw.rs`: rmcp stopped answering them on purpose, after
//! modelcontextprotocol/rust-sdk#938). A client then waits for an answer that never comes.
//! JSON-RPC 2.0 asks for a parse error (−32700, `"id": null`), so this module answers it:
//!
//! ```text
//! stdin ──► pump_input ──► (JSON lines) ──► rmcp ──► pump_output ──► stdout
//!                  └──────► (one parse error per bad line) ──┘
//! ```
//!
//! `pump_input` reads stdin line by line (at most rmcp's line length), passes each line
//! that is JSON on to rmcp unchanged, and for any other line logs one warning and queues
//! the parse error. `pump_output` is the one writer of stdout: it writes rmcp's output and
//! the parse errors a whole line at a time, so they never interleave. Well-formed JSON
//! that is not a JSON-RPC message still reaches rmcp, which answers it with −32600.
//!
//! JSON nested deeper than serde_json's recursion limit (128 levels) is dropped by rmcp
//! the same silent way: its parse fails with a syntax error ("recursion limit
//! exceeded"), although the line is JSON. Such a line is answered here instead, with an
//! invalid-request error (−32600) carrying the request's `id`, found without nesting
//! (a notification, which has no `id`, gets no answer, only the warning).

use std::io;

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use serde_json::Value;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Bytes buffered between the pumps and rmcp, each way.
const PIPE_CAPACITY: usize = 64 * 1024;

/// A UTF-8 byte order mark, which rmcp strips from the start of a line (RFC 8259 §8.1).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// The deepest nesting of arrays and objects rmcp's parse of a message takes: serde_json
/// gives up past 127 levels (its recursion limit of 128 counts the top-level value too).
pub(crate) const MAX_DEPTH: usize = 127;

/// The two ends rmcp is served on, and the tasks that connect them to the process's
/// standard streams.
pub(crate) struct CheckedStdio {
    /// What rmcp reads: the input's lines that are JSON.
    rmcp_input: DuplexStream,
    /// What rmcp writes: copied to the output line by line.
    rmcp_output: DuplexStream,
    output: JoinHandle<io::Result<()>>,
}

impl CheckedStdio {
    /// Starts the pumps between `input`/`output` (stdin and stdout) and rmcp's ends, on the
    /// current tokio runtime.
    pub(crate) fn spawn<R, W>(input: R, output: W) -> CheckedStdio
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (to_rmcp, rmcp_input) = tokio::io::duplex(PIPE_CAPACITY);
        let (rmcp_output, from_rmcp) = tokio::io::duplex(PIPE_CAPACITY);
        let (replies, replies_rx) = mpsc::unbounded_channel();
        // The input pump is not waited for: it may be blocked reading stdin, which cannot
        // be cancelled, when rmcp stops for another reason than the end of its input.
        tokio::spawn(pump_input(input, to_rmcp, replies));
        let output = tokio::spawn(pump_output(from_rmcp, replies_rx, output));
        CheckedStdio {
            rmcp_input,
            rmcp_output,
            output,
        }
    }

    /// rmcp's two ends, for `serve`, and a handle on the output pump.
    pub(crate) fn split(self) -> ((DuplexStream, DuplexStream), OutputPump) {
        ((self.rmcp_input, self.rmcp_output), OutputPump(self.output))
    }
}

/// The task writing stdout, to wait for once rmcp has stopped.
pub(crate) struct OutputPump(JoinHandle<io::Result<()>>);

impl OutputPump {
    /// Waits until everything rmcp wrote (and every parse error queued before it stopped)
    /// is on the output. A reader that went away (a broken pipe) is not an error.
    pub(crate) async fn finish(self) -> io::Result<()> {
        match self.0.await.map_err(io::Error::other)? {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    }
}

/// What one input line is.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// JSON (or an empty line, which rmcp skips): passed on to rmcp as it is.
    Pass,
    /// Only spaces or tabs: no message, dropped.
    Blank,
    /// Not JSON: dropped, and answered with a parse error; why.
    Bad(String),
    /// JSON nested deeper than [`MAX_DEPTH`]: dropped, and answered with an
    /// invalid-request error when it is a request (or not a message at all).
    TooDeep(Deep),
    /// A line longer than rmcp reads, skipped: answered with an invalid-request error
    /// and its `id` (what [`Heads`] read of it), unless it is a notification.
    TooLong(Heads),
    /// An `initialize` request without a string `protocolVersion`: dropped, and answered
    /// with an invalid-params error with this `id`.
    Unversioned(Value),
    /// JSON that is no message rmcp reads (a wrong `jsonrpc` version, `params` that are
    /// not an object, …), which rmcp may drop without a word: dropped, and answered with
    /// an invalid-request error carrying its `id` (null when it has no valid one), unless
    /// it is a notification, which nobody awaits an answer to; why.
    Unreadable {
        /// The id to answer with.
        id: Value,
        /// A `method` and no `id`: only logged.
        notification: bool,
        /// What rmcp's reading said.
        why: String,
    },
}

/// The longest reason an answer quotes from rmcp's reading of a line.
const MAX_REASON: usize = 300;

/// A line nested too deep for rmcp, as far as it was read without nesting.
#[derive(Debug, PartialEq, Eq)]
struct Deep {
    /// How deep it nests.
    depth: usize,
    /// Its top-level `id`, when it has a valid one (a string, a number or null).
    id: Option<Value>,
    /// Whether it is a notification (a `method` and no `id`): then nobody waits for an
    /// answer, and JSON-RPC gives it none.
    notification: bool,
}

/// Checks one line (with or without its `\n`) as rmcp will read it: a leading byte order
/// mark and a trailing `\r` do not count.
fn check(line: &[u8]) -> Verdict {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
    if line.is_empty() {
        return Verdict::Pass;
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Blank;
    }
    let text = match std::str::from_utf8(line) {
        Ok(text) => text,
        Err(e) => {
            return Verdict::Bad(format!("not UTF-8 (byte {})", e.valid_up_to() + 1));
        }
    };
    // Most lines are messages rmcp reads: read once, as rmcp will read them; the other
    // checks are for the lines that are not.
    let message = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(text);
    if message.is_err() {
        // serde_json skips an ignored value without a recursion limit (which the typed
        // reading counts as a syntax error): whether the line is JSON however deep it
        // nests, and how deep.
        if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
            return Verdict::Bad(format!("not JSON ({e})"));
        }
        let depth = nesting_depth(text.as_bytes());
        if depth > MAX_DEPTH {
            return Verdict::TooDeep(deep(text, depth));
        }
    }
    if let Some(id) = unversioned_initialize(text) {
        return Verdict::Unversioned(id);
    }
    match message {
        Ok(_) => Verdict::Pass,
        Err(e) => unreadable(text, &e),
    }
}

/// [`Verdict::Unreadable`] for `text`, JSON nested no deeper than rmcp reads that rmcp's
/// reading refused with `e`.
fn unreadable(text: &str, e: &serde_json::Error) -> Verdict {
    let mut why = e.to_string();
    if let Some((cut, _)) = why.char_indices().nth(MAX_REASON) {
        why.truncate(cut);
        why.push('…');
    }
    let members = top_level_members(text);
    let member = |name: &str| members.iter().find(|(key, _)| key == name).map(|m| m.1);
    let id = member("id").and_then(scalar_id).unwrap_or(Value::Null);
    let notification = member("method").is_some() && member("id").is_none();
    Verdict::Unreadable {
        id,
        notification,
        why,
    }
}

/// The `id` of `text` when it is an `initialize` request whose `protocolVersion` is no
/// string (or missing): rmcp then reads it as a request of a later revision and answers
/// that its `_meta` is missing, which says nothing of what is wrong.
fn unversioned_initialize(text: &str) -> Option<Value> {
    // Most lines are no `initialize`: they are passed over without being read twice.
    if !text.contains("\"initialize\"") {
        return None;
    }
    let members = top_level_members(text);
    let member = |name: &str| members.iter().find(|(key, _)| key == name).map(|m| m.1);
    if member("method").and_then(|m| serde_json::from_str::<String>(m).ok())? != "initialize" {
        return None;
    }
    let params = member("params").and_then(|p| serde_json::from_str::<Value>(p).ok());
    let version = params.as_ref().and_then(|p| p.get("protocolVersion"));
    match version {
        Some(Value::String(_)) => None,
        _ => Some(member("id").and_then(scalar_id).unwrap_or(Value::Null)),
    }
}

/// How deep arrays and objects nest in `json` (valid JSON), counted in one pass without
/// recursion: brackets inside strings do not count.
fn nesting_depth(json: &[u8]) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    let mut strings = StringSkipper::default();
    for &byte in json {
        if strings.inside(byte) {
            continue;
        }
        match byte {
            b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Tells, byte by byte, whether a byte of JSON text is part of a string (its quotes
/// included).
#[derive(Debug, Default, PartialEq, Eq)]
struct StringSkipper {
    in_string: bool,
    escaped: bool,
}

impl StringSkipper {
    /// Whether `byte`, the next of the text, is inside a string or one of its quotes.
    fn inside(&mut self, byte: u8) -> bool {
        if !self.in_string {
            self.in_string = byte == b'"';
            return self.in_string;
        }
        match (self.escaped, byte) {
            (true, _) => self.escaped = false,
            (false, b'\\') => self.escaped = true,
            (false, b'"') => self.in_string = false,
            _ => {}
        }
        true
    }
}

/// What a line nested `depth` deep is, read from its top-level members only.
fn deep(text: &str, depth: usize) -> Deep {
    let members = top_level_members(text);
    let member = |name: &str| members.iter().find(|(key, _)| key == name);
    let id = member("id").and_then(|(_, value)| scalar_id(value));
    let has_id = member("id").is_some();
    Deep {
        depth,
        id,
        notification: member("method").is_some() && !has_id,
    }
}

/// The members of `json`'s top-level object (valid JSON), each key decoded and its value
/// as text, nested values skipped without being entered; none when it is no object.
fn top_level_members(json: &str) -> Vec<(String, &str)> {
    let bytes = json.as_bytes();
    let mut members = Vec::new();
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return members;
    }
    at += 1;
    loop {
        at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return members; // `}`: the object is empty
        }
        let key_end = value_end(bytes, at);
        let key = serde_json::from_str::<String>(&json[at..key_end]).unwrap_or_default();
        // Past the key's spaces and its `:`.
        let start = skip_space(bytes, skip_space(bytes, key_end) + 1);
        let end = value_end(bytes, start);
        members.push((key, json[start..end].trim_end()));
        at = skip_space(bytes, end);
        if bytes.get(at) != Some(&b',') {
            return members;
        }
        at += 1;
    }
}

/// The first byte at or after `at` that is no JSON whitespace.
fn skip_space(bytes: &[u8], at: usize) -> usize {
    let spaces = bytes.get(at..).unwrap_or_default();
    at + spaces
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count()
}

/// Where the value that starts at `at` ends: the `,`, `}` or `]` after it that closes
/// nothing it opened, or the end of the text; a string ends after its closing quote.
fn value_end(bytes: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut strings = StringSkipper::default();
    for (i, &byte) in bytes.iter().enumerate().skip(at) {
        if strings.inside(byte) {
            if depth == 0 && !strings.in_string {
                return i + 1; // a string value's closing quote
            }
            continue;
        }
        match byte {
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth == 0 => return i,
            b']' | b'}' => depth -= 1,
            b',' if depth == 0 => return i,
            _ => {}
        }
    }
    bytes.len()
}

/// A member's value as a JSON-RPC `id`: a string, a number or null (anything else is no
/// valid id, and the answer's `id` is then null).
fn scalar_id(value: &str) -> Option<Value> {
    match serde_json::from_str::<Value>(value).ok()? {
        id @ (Value::String(_) | Value::Number(_) | Value::Null) => Some(id),
        _ => None,
    }
}

/// The JSON-RPC 2.0 parse error, as one line: −32700, `"id": null`, the reason as `data`.
fn parse_error(reason: &str) -> Vec<u8> {
    let reply = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": -32700, "message": "Parse error", "data": reason },
    });
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// The JSON-RPC 2.0 invalid-request error for a line nested too deep, as one line: −32600,
/// the request's `id` (null if it has none), the reason as `data`.
fn too_deep_error(deep: &Deep) -> Vec<u8> {
    let reason = format!(
        "nested {} levels deep; at most {MAX_DEPTH} are read",
        deep.depth
    );
    let id = deep.id.clone().unwrap_or(Value::Null);
    error_line(id, -32600, "Invalid Request", &reason)
}

/// The JSON-RPC 2.0 invalid-params error for an `initialize` without a string
/// `protocolVersion`, as one line: −32602, its `id`.
fn unversioned_error(id: Value) -> Vec<u8> {
    let reason = "initialize needs params.protocolVersion, a string naming the revision \
                  the client speaks (e.g. \"2025-06-18\")";
    error_line(id, -32602, "Invalid params", reason)
}

/// A JSON-RPC 2.0 error answer, as one line.
fn error_line(id: Value, code: i64, message: &str, data: &str) -> Vec<u8> {
    let reply = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message, "data": data },
    });
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// How reading one line ended.
enum LineEnd {
    /// A line (with its `\n`, unless the input ended first) is in the buffer.
    Line,
    /// The line was longer than rmcp accepts: it was skipped, up to its `\n`; what its
    /// top-level members said of it, read on the way.
    TooLong(Heads),
    /// The input ended.
    Eof,
}

/// Reads one line into `line` (cleared first), never holding more than
/// [`DEFAULT_MAX_LINE_LENGTH`] bytes of it.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> io::Result<LineEnd> {
    line.clear();
    let limit = DEFAULT_MAX_LINE_LENGTH as u64 + 1;
    if (&mut *input).take(limit).read_until(b'\n', line).await? == 0 {
        return Ok(LineEnd::Eof);
    }
    if line.ends_with(b"\n") || line.len() <= DEFAULT_MAX_LINE_LENGTH {
        return Ok(LineEnd::Line);
    }
    let mut heads = Heads::default();
    heads.feed(line);
    loop {
        line.clear();
        let read = (&mut *input)
            .take(64 * 1024)
            .read_until(b'\n', line)
            .await?;
        heads.feed(line);
        if read == 0 || line.ends_with(b"\n") {
            line.clear();
            return Ok(LineEnd::TooLong(heads));
        }
    }
}

/// The longest `id` value [`Heads`] keeps: longer, it is no id anyone would send.
const MAX_ID_TEXT: usize = 1024;

/// What a line's top-level object says of it, read byte by byte as it streams past (a line
/// too long to hold): whether it has an `id` and a `method`, and the `id`'s text.
#[derive(Debug, Default, PartialEq, Eq)]
struct Heads {
    depth: usize,
    strings: StringSkipper,
    /// The top-level key being read or last read (its first bytes), and whether the
    /// parser is past its `:`.
    key: Vec<u8>,
    in_value: bool,
    /// The `id` member's text so far, while it is read.
    id_text: Option<Vec<u8>>,
    /// The `id`'s whole text, once read.
    id: Option<Vec<u8>>,
    has_id: bool,
    has_method: bool,
}

impl Heads {
    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.step(byte);
        }
    }

    fn step(&mut self, byte: u8) {
        let was_in_string = self.strings.in_string;
        let in_string = self.strings.inside(byte);
        if let Some(text) = &mut self.id_text
            && (in_string || self.depth > 1 || !matches!(byte, b',' | b'}'))
            && text.len() < MAX_ID_TEXT
        {
            text.push(byte);
        }
        if in_string {
            // A top-level key's bytes (its quotes not included).
            let in_key = self.depth == 1 && !self.in_value && was_in_string;
            if in_key && self.strings.in_string && self.key.len() < 8 {
                self.key.push(byte);
            }
            return;
        }
        match byte {
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_member();
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b':' if self.depth == 1 && !self.in_value => self.start_value(),
            b',' if self.depth == 1 => self.end_member(),
            _ => {}
        }
    }

    fn start_value(&mut self) {
        self.in_value = true;
        match &self.key[..] {
            b"id" => {
                self.has_id = true;
                self.id_text = Some(Vec::new());
            }
            b"method" => self.has_method = true,
            _ => {}
        }
    }

    fn end_member(&mut self) {
        if let Some(text) = self.id_text.take() {
            self.id = Some(text);
        }
        self.in_value = false;
        self.key.clear();
    }

    /// The `id` as an answer gives it: its value when it is a valid one, else null.
    fn id(&self) -> Value {
        let text = self.id.as_deref().and_then(|t| std::str::from_utf8(t).ok());
        text.and_then(|t| scalar_id(t.trim()))
            .unwrap_or(Value::Null)
    }

    /// Whether nobody awaits an answer: a notification (a `method` and no `id`).
    fn notification(&self) -> bool {
        self.has_method && !self.has_id
    }
}

/// Reads the input line by line: JSON lines go on to rmcp, each other line is logged and
/// answered (through `replies`). Ends at the end of the input (then rmcp's input ends too),
/// or when rmcp no longer reads.
async fn pump_input<R: AsyncRead + Unpin>(
    input: R,
    mut to_rmcp: DuplexStream,
    replies: mpsc::UnboundedSender<Vec<u8>>,
) -> io::Result<()> {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        number += 1;
        let verdict = match read_line(&mut input, &mut line).await? {
            LineEnd::Eof => break,
            LineEnd::TooLong(heads) => Verdict::TooLong(heads),
            LineEnd::Line => check(&line),
        };
        match verdict {
            Verdict::Pass => to_rmcp.write_all(&line).await?,
            other => {
                if let Some(answer) = refusal(other, number)
                    && replies.send(answer).is_err()
                {
                    break;
                }
            }
        }
    }
    to_rmcp.shutdown().await
}

/// Logs why input line `number` does not reach rmcp; the answer to send, if it gets one.
fn refusal(verdict: Verdict, number: u64) -> Option<Vec<u8>> {
    let invalid = "answered with a JSON-RPC invalid-request error";
    match verdict {
        Verdict::Pass | Verdict::Blank => None,
        Verdict::Bad(reason) => {
            tracing::warn!(
                "MCP input line {number} is {reason}; answered with a JSON-RPC parse error"
            );
            Some(parse_error(&reason))
        }
        Verdict::TooLong(heads) if heads.notification() => {
            tracing::warn!(
                "MCP input line {number} (a notification) is longer than \
                 {DEFAULT_MAX_LINE_LENGTH} bytes; ignored"
            );
            None
        }
        Verdict::TooLong(heads) => {
            tracing::warn!(
                "MCP input line {number} is longer than {DEFAULT_MAX_LINE_LENGTH} bytes; {invalid}"
            );
            let why = format!("the line is longer than {DEFAULT_MAX_LINE_LENGTH} bytes");
            Some(error_line(heads.id(), -32600, "Invalid Request", &why))
        }
        Verdict::TooDeep(deep) if deep.notification => {
            tracing::warn!(
                "MCP input line {number} (a notification) nests {} levels deep, more \
                 than {MAX_DEPTH}; ignored",
                deep.depth
            );
            None
        }
        Verdict::TooDeep(deep) => {
            tracing::warn!(
                "MCP input line {number} nests {} levels deep, more than {MAX_DEPTH}; {invalid}",
                deep.depth
            );
            Some(too_deep_error(&deep))
        }
        Verdict::Unversioned(id) => {
            tracing::warn!(
                "MCP input line {number} is an initialize request without a string \
                 protocolVersion; answered with a JSON-RPC invalid-params error"
            );
            Some(unversioned_error(id))
        }
        Verdict::Unreadable {
            notification: true,
            why,
            ..
        } => {
            tracing::warn!(
                "MCP input line {number} is a notification the server cannot read ({why}); \
                 ignored"
            );
            None
        }
        Verdict::Unreadable { id, why, .. } => {
            tracing::warn!(
                "MCP input line {number} is no message the server reads ({why}); {invalid}"
            );
            Some(error_line(id, -32600, "Invalid Request", &why))
        }
    }
}

/// Writes rmcp's output and the queued parse errors to `output`, whole lines only, until
/// rmcp's output ends; then the parse errors still queued.
async fn pump_output<W: AsyncWrite + Unpin>(
    from_rmcp: DuplexStream,
    mut replies: mpsc::UnboundedReceiver<Vec<u8>>,
    mut output: W,
) -> io::Result<()> {
    let mut from_rmcp = BufReader::new(from_rmcp);
    // A partial line stays here while a parse error is written (`read_until` keeps what
    // it read when the other branch wins), and is written once it is whole.
    let mut line = Vec::new();
    let mut replies_open = true;
    loop {
        // Parse errors first: one queued was for a line read before any request rmcp may
        // be answering now, so it goes out before that answer.
        tokio::select! {
            biased;
            reply = replies.recv(), if replies_open => match reply {
                Some(reply) => output.write_all(&reply).await?,
                None => replies_open = false,
            },
            read = from_rmcp.read_until(b'\n', &mut line) => {
                if read? == 0 || !line.ends_with(b"\n") {
                    output.write_all(&line).await?;
                    break;
                }
                output.write_all(&line).await?;
                line.clear();
            }
        }
        output.flush().await?;
    }
    while let Ok(reply) = replies.try_recv() {
        output.write_all(&reply).await?;
    }
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_passes_and_anything_else_is_a_parse_error() {
        for good in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n",
            b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
            b"\n",
            b"",
        ] {
            assert_eq!(check(good), Verdict::Pass, "{good:?}");
        }
        // JSON that is no message: answered with a null id, as rmcp answers some of them.
        for no_message in [
            &b"{\"a\":1}\r\n"[..],
            b"\xEF\xBB\xBF{\"a\":1}\n",
            b"[1, 2]",
            b"{\"not\": \"a message\"}\n",
        ] {
            let verdict = check(no_message);
            let refused = matches!(
                verdict,
                Verdict::Unreadable {
                    id: Value::Null,
                    notification: false,
                    ..
                }
            );
            assert!(refused, "{no_message:?}: {verdict:?}");
        }
        assert_eq!(check(b"  \t\n"), Verdict::Blank);
        for bad in [
            &b"{not json\n"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"na\n",
            b"{\"a\":\"\xff\xfe\"}\n",
            b"{\"a\":\"x\0y\"}\n",
            b"\0\n",
            b"{\"a\":1} trailing\n",
        ] {
            assert!(matches!(check(bad), Verdict::Bad(_)), "{bad:?}");
        }
        let Verdict::Bad(reason) = check(b"ab\xffcd\n") else {
            panic!("not UTF-8 is bad");
        };
        assert_eq!(reason, "not UTF-8 (byte 3)");
    }

    /// Requests rmcp cannot read as one are answered with their id (rmcp drops them
    /// without a word): a wrong version, `params` that are no object.
    #[test]
    fn a_request_rmcp_cannot_read_is_answered_with_its_id() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"1.0","id":7,"method":"tools/call","params":{"name":"outline"}}"#,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":[1,2,3]}"#,
                json!("x"),
            ),
            (
                r#"{"id":{"x":1},"jsonrpc":"2.0","method":"tools/call","params":[]}"#,
                Value::Null,
            ),
        ] {
            match check(line.as_bytes()) {
                Verdict::Unreadable {
                    id: got,
                    notification: false,
                    why,
                } => {
                    assert_eq!(got, id, "{line}");
                    assert!(!why.is_empty() && why.chars().count() <= MAX_REASON + 1);
                }
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    /// `[` and `{` nested `n` deep inside a request's arguments, beside a string full of
    /// brackets (which do not count).
    fn nested_request(id: &str, n: usize) -> String {
        let open = "[{\"a\":".repeat(n / 2) + &"[".repeat(n % 2);
        let close = "]".repeat(n % 2) + &"}]".repeat(n / 2);
        format!(
            r#"{{"jsonrpc":"2.0","method":"tools/call","id":{id},"params":{{"name":"x","arguments":{{"s":"[[{{\\\"[","deep":{open}0{close}}}}}}}"#
        )
    }

    #[test]
    fn nesting_is_measured_outside_strings() {
        assert_eq!(nesting_depth(br#"{"a":"[[[{{{\"]]]","b":[1,{"c":[]}]}"#), 4);
        assert_eq!(nesting_depth(b"7"), 0);
        for n in [0, 1, 124, 125, 126, 5_000] {
            let line = nested_request("1", n);
            serde_json::from_str::<serde::de::IgnoredAny>(&line).unwrap();
            assert_eq!(nesting_depth(line.as_bytes()), 3 + n, "{n}");
        }
    }

    #[test]
    fn a_line_deeper_than_rmcp_reads_is_refused_with_its_id() {
        assert_eq!(
            check(nested_request("1", MAX_DEPTH - 3).as_bytes()),
            Verdict::Pass
        );
        for (id, expected) in [
            ("7", json!(7)),
            (r#""a\"b""#, json!("a\"b")),
            ("null", Value::Null),
            ("[1]", Value::Null),
        ] {
            let line = nested_request(id, MAX_DEPTH - 2);
            let Verdict::TooDeep(deep) = check(line.as_bytes()) else {
                panic!("{line}");
            };
            assert_eq!(deep.depth, MAX_DEPTH + 1);
            assert_eq!(deep.id.unwrap_or(Value::Null), expected, "{id}");
            assert!(!deep.notification);
        }
        let notification = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        let Verdict::TooDeep(deep) = check(notification.as_bytes()) else {
            panic!("too deep");
        };
        assert!(deep.notification && deep.id.is_none());
        let top_array = format!("{}{}", "[".repeat(300), "]".repeat(300));
        let Verdict::TooDeep(deep) = check(top_array.as_bytes()) else {
            panic!("too deep");
        };
        assert!(!deep.notification && deep.id.is_none());
    }

    #[test]
    fn an_initialize_without_a_string_protocol_version_is_refused() {
        let init = |version: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{{version}"capabilities":{{}},"clientInfo":{{"name":"initialize","version":"0"}}}}}}"#
            )
        };
        let good = init(r#""protocolVersion":"2025-06-18","#);
        assert_eq!(check(good.as_bytes()), Verdict::Pass);
        for bad in [r#""protocolVersion":7,"#, r#""protocolVersion":null,"#, ""] {
            let line = init(bad);
            assert_eq!(
                check(line.as_bytes()),
                Verdict::Unversioned(json!(1)),
                "{line}"
            );
        }
        // Only `initialize` is read: another method naming it passes.
        let other =
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"initialize"}}"#;
        assert_eq!(check(other.as_bytes()), Verdict::Pass);
        let reply: Value = serde_json::from_slice(&unversioned_error(json!("x"))).unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (json!("x"), json!(-32602))
        );
    }

    #[test]
    fn the_refusal_is_one_json_rpc_line_with_the_id() {
        let deep = Deep {
            depth: 500,
            id: Some(json!("req-1")),
            notification: false,
        };
        let line = too_deep_error(&deep);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let reply: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(reply["id"], "req-1");
        assert_eq!(reply["error"]["code"], -32600);
        assert!(reply["error"]["data"].as_str().unwrap().contains("500"));
    }

    #[test]
    fn a_parse_error_is_one_json_rpc_line() {
        let line = parse_error("not JSON (EOF while parsing)");
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        let reply: serde_json::Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(reply["jsonrpc"], "2.0");
        assert!(reply["id"].is_null() && reply.get("id").is_some());
        assert_eq!(reply["error"]["code"], -32700);
    }

    #[tokio::test]
    async fn bad_lines_are_answered_and_good_ones_reach_rmcp_in_order() {
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{bad\n\n\
            {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\nno newline at the end";
        let (output, mut stdout) = tokio::io::duplex(PIPE_CAPACITY);
        let stdio = CheckedStdio::spawn(input, output);
        let ((mut rmcp_input, mut rmcp_output), pump) = stdio.split();
        let mut received = Vec::new();
        rmcp_input.read_to_end(&mut received).await.unwrap();
        assert_eq!(
            received,
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n\
              {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
        );
        rmcp_output.write_all(b"{\"answer\":").await.unwrap();
        rmcp_output.write_all(b"1}\n").await.unwrap();
        drop((rmcp_input, rmcp_output));
        pump.finish().await.unwrap();
        let mut written = String::new();
        stdout.read_to_string(&mut written).await.unwrap();
        let lines: Vec<serde_json::Value> = written
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let errors = lines
            .iter()
            .filter(|l| l["error"]["code"] == -32700)
            .count();
        assert_eq!(errors, 2, "{written}");
        assert!(lines.iter().any(|l| l["answer"] == 1), "{written}");
        assert_eq!(lines.len(), 3, "{written}");
    }

    #[tokio::test]
    async fn an_overlong_request_is_known_by_its_id() {
        let huge = "x".repeat(DEFAULT_MAX_LINE_LENGTH + 10);
        for (line, id, notification) in [
            (
                format!(
                    r#"{{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{{"q":"{huge}"}}}}"#
                ),
                json!(42),
                false,
            ),
            (
                format!(
                    r#"{{"params":{{"id":1,"q":"{huge}","s":"\"id\":9"}},"id" : "late","method":"x"}}"#
                ),
                json!("late"),
                false,
            ),
            (
                format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"q":"{huge}"}}}}"#
                ),
                Value::Null,
                true,
            ),
            (
                format!(r#"{{"id":{{"no":1}},"method":"x","q":"{huge}"}}"#),
                Value::Null,
                false,
            ),
            (format!("[{huge}]"), Value::Null, false),
        ] {
            let input = format!("{line}\n");
            let mut reader = BufReader::new(input.as_bytes());
            let mut buffer = Vec::new();
            let end = read_line(&mut reader, &mut buffer).await.unwrap();
            let LineEnd::TooLong(heads) = end else {
                panic!("not too long");
            };
            assert_eq!(heads.id(), id, "{}", &line[..60]);
            assert_eq!(heads.notification(), notification, "{}", &line[..60]);
        }
    }

    #[tokio::test]
    async fn an_overlong_line_is_skipped_without_holding_it() {
        let mut input = vec![b'x'; DEFAULT_MAX_LINE_LENGTH + 10];
        input.extend_from_slice(b"\n{\"after\":1}\n");
        let mut reader = BufReader::new(&input[..]);
        let mut line = Vec::new();
        let end = read_line(&mut reader, &mut line).await.unwrap();
        assert!(matches!(end, LineEnd::TooLong(_)));
        assert!(line.capacity() <= 2 * (DEFAULT_MAX_LINE_LENGTH + 1));
        let end = read_line(&mut reader, &mut line).await.unwrap();
        assert!(matches!(end, LineEnd::Line));
        assert_eq!(line, b"{\"after\":1}\n");
    }
}
