//! Diagnostics on stderr: the tracing subscriber, one escaped line per event, and the
//! panic hook that hides panics the store catches.

use std::io::{IsTerminal, Write};

use repo_mapper::{QUIET_LOG_TARGETS, catches_panic_at, escape_control, push_escaped};

/// Writes `repo-mapper: {message}` to stderr as one line, control characters escaped.
pub(crate) fn say(message: &str) {
    eprintln!("repo-mapper: {}", escape_control(message));
}

/// The tag store catches some panics of its database (on damaged data files) and treats
/// the store as damaged (one warning of ours), so the default hook's "thread … panicked
/// at" report would be noise on stderr. Panics anywhere else keep the default report.
pub(crate) fn quiet_caught_store_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info.location().is_some_and(catches_panic_at) {
            tracing::debug!("the tag store's database panicked (caught): {info}");
        } else {
            default(info);
        }
    }));
}

/// Installs the diagnostics subscriber: our events on stderr, one escaped line each
/// ([`EscapedStderr`]), coloured only on a terminal without `NO_COLOR`.
pub(crate) fn init_tracing(verbose: bool) {
    let ansi = colour_stderr();
    let _ = tracing_subscriber::fmt()
        .with_env_filter(diagnostics_filter(verbose))
        .with_writer(EscapedStderr { ansi })
        .with_ansi(ansi)
        .without_time()
        .with_target(false)
        .try_init();
}

/// Colour only when stderr is a terminal and `NO_COLOR` is unset or empty
/// (<https://no-color.org>).
fn colour_stderr() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `RUST_LOG` if set and valid, else `warn` (`debug` with `-v`); the tag store's database's
/// own log lines ([`QUIET_LOG_TARGETS`]) are off unless `RUST_LOG` names them.
fn diagnostics_filter(verbose: bool) -> tracing_subscriber::EnvFilter {
    use tracing_subscriber::EnvFilter;
    let default = if verbose { "debug" } else { "warn" };
    let base = std::env::var("RUST_LOG")
        .ok()
        .filter(|s| !s.trim().is_empty() && EnvFilter::try_new(s).is_ok())
        .unwrap_or_else(|| default.to_owned());
    let mut directives = base.clone();
    for target in QUIET_LOG_TARGETS.iter().filter(|t| !base.contains(*t)) {
        directives.push_str(&format!(",{target}=off"));
    }
    EnvFilter::try_new(&directives).unwrap_or_else(|_| EnvFilter::new(default))
}

/// Diagnostics' stderr: each event is buffered and written as one line with its control
/// characters escaped ([`escape_diagnostic`]), so a file name cannot split a warning or
/// reach the terminal raw.
struct EscapedStderr {
    /// Colour is on: the formatter's own SGR sequences (`ESC[…m`) pass through.
    ansi: bool,
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for EscapedStderr {
    type Writer = EventLine;

    fn make_writer(&'a self) -> EventLine {
        EventLine {
            bytes: Vec::new(),
            keep_sgr: self.ansi,
        }
    }
}

/// One diagnostic event on its way to stderr, written out when dropped.
struct EventLine {
    bytes: Vec<u8>,
    keep_sgr: bool,
}

impl Write for EventLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EventLine {
    fn drop(&mut self) {
        if self.bytes.is_empty() {
            return;
        }
        let line = escape_diagnostic(&String::from_utf8_lossy(&self.bytes), self.keep_sgr);
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
}

/// `event` as one line: every control character escaped ([`push_escaped`]) except the
/// final `\n` (added if missing), and, with `keep_sgr`, SGR colour sequences.
fn escape_diagnostic(event: &str, keep_sgr: bool) -> String {
    let body = event.strip_suffix('\n').unwrap_or(event);
    let mut out = String::with_capacity(event.len() + 1);
    let mut rest = body;
    while let Some(c) = rest.chars().next() {
        let sgr = if keep_sgr { sgr_len(rest) } else { 0 };
        let len = if sgr > 0 { sgr } else { c.len_utf8() };
        if sgr > 0 {
            out.push_str(&rest[..sgr]);
        } else {
            push_escaped(&mut out, c);
        }
        rest = &rest[len..];
    }
    out.push('\n');
    out
}

/// The length of the SGR sequence (`ESC [ digits and ; m`) that `s` starts with, or 0.
fn sgr_len(s: &str) -> usize {
    let Some(params) = s.strip_prefix("\x1b[") else {
        return 0;
    };
    let digits = params
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    if params.as_bytes().get(digits) == Some(&b'm') {
        digits + 3
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_is_one_line_with_its_controls_escaped() {
        let event = " WARN can't include a\nb\x1b[2J\r\t.py\n";
        assert_eq!(
            escape_diagnostic(event, false),
            " WARN can't include a\\nb\\x1b[2J\\r\\t.py\n"
        );
        assert_eq!(escape_diagnostic("no newline", false), "no newline\n");
    }

    #[test]
    fn colour_sequences_pass_only_when_colour_is_on() {
        let event = "\x1b[33m WARN\x1b[0m x\x1b[2Jy\x1b[\n";
        assert_eq!(
            escape_diagnostic(event, true),
            "\x1b[33m WARN\x1b[0m x\\x1b[2Jy\\x1b[\n"
        );
        assert_eq!(
            escape_diagnostic(event, false),
            "\\x1b[33m WARN\\x1b[0m x\\x1b[2Jy\\x1b[\n"
        );
    }
}
