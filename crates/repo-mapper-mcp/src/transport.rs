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

use std::io;

use rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// Bytes buffered between the pumps and rmcp, each way.
const PIPE_CAPACITY: usize = 64 * 1024;

/// A UTF-8 byte order mark, which rmcp strips from the start of a line (RFC 8259 §8.1).
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

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
    match serde_json::from_str::<serde::de::IgnoredAny>(text) {
        Ok(_) => Verdict::Pass,
        Err(e) if e.is_syntax() || e.is_eof() => Verdict::Bad(format!("not JSON ({e})")),
        Err(_) => Verdict::Pass,
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

/// How reading one line ended.
enum LineEnd {
    /// A line (with its `\n`, unless the input ended first) is in the buffer.
    Line,
    /// The line was longer than rmcp accepts: it was skipped, up to its `\n`.
    TooLong,
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
    loop {
        line.clear();
        let read = (&mut *input)
            .take(64 * 1024)
            .read_until(b'\n', line)
            .await?;
        if read == 0 || line.ends_with(b"\n") {
            line.clear();
            return Ok(LineEnd::TooLong);
        }
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
        match read_line(&mut input, &mut line).await? {
            LineEnd::Eof => break,
            LineEnd::TooLong => {
                tracing::warn!(
                    "MCP input line {number} is longer than {DEFAULT_MAX_LINE_LENGTH} bytes; \
                     ignored"
                );
                continue;
            }
            LineEnd::Line => {}
        }
        match check(&line) {
            Verdict::Pass => to_rmcp.write_all(&line).await?,
            Verdict::Blank => {}
            Verdict::Bad(reason) => {
                tracing::warn!(
                    "MCP input line {number} is {reason}; answered with a JSON-RPC parse error"
                );
                if replies.send(parse_error(&reason)).is_err() {
                    break;
                }
            }
        }
    }
    to_rmcp.shutdown().await
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

    #[test]
    fn json_passes_and_anything_else_is_a_parse_error() {
        for good in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"[..],
            b"{\"a\":1}\r\n",
            b"\xEF\xBB\xBF{\"a\":1}\n",
            b"[1, 2]",
            b"\n",
            b"",
            b"{\"not\": \"a message\"}\n",
        ] {
            assert_eq!(check(good), Verdict::Pass, "{good:?}");
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
        let input: &[u8] = b"{\"a\":1}\n{bad\n\n{\"b\":2}\nno newline at the end";
        let (output, mut stdout) = tokio::io::duplex(PIPE_CAPACITY);
        let stdio = CheckedStdio::spawn(input, output);
        let ((mut rmcp_input, mut rmcp_output), pump) = stdio.split();
        let mut received = Vec::new();
        rmcp_input.read_to_end(&mut received).await.unwrap();
        assert_eq!(received, b"{\"a\":1}\n\n{\"b\":2}\n");
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
    async fn an_overlong_line_is_skipped_without_holding_it() {
        let mut input = vec![b'x'; DEFAULT_MAX_LINE_LENGTH + 10];
        input.extend_from_slice(b"\n{\"after\":1}\n");
        let mut reader = BufReader::new(&input[..]);
        let mut line = Vec::new();
        let end = read_line(&mut reader, &mut line).await.unwrap();
        assert!(matches!(end, LineEnd::TooLong));
        assert!(line.capacity() <= 2 * (DEFAULT_MAX_LINE_LENGTH + 1));
        let end = read_line(&mut reader, &mut line).await.unwrap();
        assert!(matches!(end, LineEnd::Line));
        assert_eq!(line, b"{\"after\":1}\n");
    }
}
