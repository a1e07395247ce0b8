//! What goes to stdout: the map, or with `--format json` the map and its report.

use std::borrow::Cow;
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
        Format::Json => {
            let mut json = answer.to_json(config);
            json.remove("error"); // the exit code and stderr say it
            let json = serde_json::to_string_pretty(&json).expect("JSON values serialise");
            writeln!(out, "{}", escape_json_controls(&json))?;
        }
        Format::Text => {
            let text = answer.result.as_ref().map_or("", |o| o.text.as_str());
            out.write_all(text.as_bytes())?;
        }
    }
    out.flush()
}

/// serde_json escapes U+0000–U+001F in strings but leaves DEL and C1 controls raw (JSON
/// allows them): escape those too, as `\u007f`. Outside strings pretty JSON has only `\n`
/// and spaces, so every other control character is inside a string.
fn escape_json_controls(json: &str) -> Cow<'_, str> {
    if !json.chars().any(|c| c.is_control() && c != '\n') {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        if c.is_control() && c != '\n' {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_keeps_no_raw_control_character_but_its_line_breaks() {
        let json =
            serde_json::to_string_pretty(&serde_json::json!({"f": "a\x7f\u{85}\n\x1b"})).unwrap();
        let escaped = escape_json_controls(&json);
        assert!(!escaped.chars().any(|c| c.is_control() && c != '\n'));
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back["f"], "a\x7f\u{85}\n\x1b");
    }
}
