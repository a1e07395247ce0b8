//! How a fuzz input is made: a sample of the input's language, mutated one to four times.
//!
//! Every mutation draws only from the [`Rng`] it is given, so an input depends on nothing
//! but the seed and its index. Inputs never grow past [`MAX_LEN`].

use repo_mapper_tags::Language;

use super::{MAX_LEN, Rng, Sample};

/// Input number `rng` stands for: sample `own`, mutated one to four times; with the
/// names of the mutations, in order.
pub(super) fn input(rng: &mut Rng, samples: &[Sample], own: usize) -> (Vec<u8>, Vec<&'static str>) {
    let mut bytes = samples[own].bytes.clone();
    let rounds = 1 + rng.below(4);
    let mut names = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        names.push(mutate_once(rng, &mut bytes, samples, samples[own].lang));
        bytes.truncate(MAX_LEN);
    }
    (bytes, names)
}

/// One mutation, chosen by weight (deep nesting, the slowest kind, is rarer); its name.
fn mutate_once(
    rng: &mut Rng,
    bytes: &mut Vec<u8>,
    samples: &[Sample],
    lang: Language,
) -> &'static str {
    match rng.below(100) {
        0..=10 => (flip_bits(rng, bytes), "flip bits").1,
        11..=20 => (odd_bytes(rng, bytes), "odd bytes").1,
        21..=26 => (invalid_utf8(rng, bytes), "invalid utf-8").1,
        27..=37 => (splice(rng, bytes, samples), "splice").1,
        38..=46 => (duplicate_lines(rng, bytes), "duplicate lines").1,
        47..=53 => (nest(rng, bytes, lang), "nest").1,
        54..=56 => (nest_indented(rng, bytes), "nest indented").1,
        57..=63 => (truncate(rng, bytes), "truncate").1,
        64..=73 => (line_breaks(rng, bytes), "line breaks").1,
        74..=79 => (long_line(rng, bytes), "long line").1,
        80..=87 => (delete(rng, bytes), "delete").1,
        88..=95 => (swap_lines(rng, bytes), "swap lines").1,
        _ => (degenerate(rng, bytes), "degenerate").1,
    }
}

/// A position in `bytes` (its end included).
fn position(rng: &mut Rng, bytes: &[u8]) -> usize {
    rng.below(bytes.len() + 1)
}

/// The byte offsets where lines start (0 first).
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let breaks = bytes.iter().enumerate().filter(|&(_, &b)| b == b'\n');
    std::iter::once(0)
        .chain(breaks.map(|(i, _)| i + 1))
        .collect()
}

/// `piece` repeated `times` times, fewer when that would pass [`MAX_LEN`].
fn repeat(piece: &[u8], times: usize) -> Vec<u8> {
    piece.repeat(times.min(MAX_LEN / piece.len().max(1)))
}

fn insert(bytes: &mut Vec<u8>, at: usize, piece: &[u8]) {
    bytes.splice(at..at, piece.iter().copied());
}

/// Flips one to eight random bits; the top bit (which mostly makes the file not UTF-8,
/// and so of no interest to extraction) one time in eight.
fn flip_bits(rng: &mut Rng, bytes: &mut [u8]) {
    if bytes.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(bytes.len());
        let bit = if rng.one_in(8) { 7 } else { rng.below(7) };
        bytes[at] ^= 1 << bit;
    }
}

/// Bytes and tokens that upset lexers and parsers: brackets, quotes, comment markers, NUL,
/// a BOM, zero-width and non-breaking spaces, an emoji.
const ODD: &[&str] = &[
    "\0",
    "\n",
    "\r",
    "\t",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\"",
    "'",
    "`",
    "/*",
    "*/",
    "//",
    "#",
    "\\",
    "<",
    ">",
    "$",
    "@",
    ";",
    ":",
    "end",
    "\"\"\"",
    "<<EOF\n",
    "\u{a0}",
    "\u{feff}",
    "\u{200b}",
    "\u{1f600}",
    "é",
    "\u{7f}",
];

/// Inserts or overwrites one to four [`ODD`] pieces.
fn odd_bytes(rng: &mut Rng, bytes: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(4) {
        let piece = rng.pick(ODD).as_bytes();
        let at = position(rng, bytes);
        if rng.one_in(2) {
            let end = (at + piece.len()).min(bytes.len());
            bytes.splice(at..end, piece.iter().copied());
        } else {
            insert(bytes, at, piece);
        }
    }
}

/// Byte sequences that are not UTF-8: `source_from_bytes` rejects the file.
const INVALID: &[&[u8]] = &[
    b"\xff",
    b"\xfe",
    b"\x80",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x82",
    b"\xf0\x9f",
];

fn invalid_utf8(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = position(rng, bytes);
    let piece = *rng.pick(INVALID);
    insert(bytes, at, piece);
}

/// Inserts a chunk of up to 4 KiB of any sample, or overwrites with it.
fn splice(rng: &mut Rng, bytes: &mut Vec<u8>, samples: &[Sample]) {
    let other = &rng.pick(samples).bytes;
    let from = rng.below(other.len());
    let to = (from + 1 + rng.below(4096)).min(other.len());
    let chunk = &other[from..to];
    let at = position(rng, bytes);
    let end = if rng.one_in(2) {
        at
    } else {
        (at + rng.below(4096)).min(bytes.len())
    };
    bytes.splice(at..end, chunk.iter().copied());
}

/// Repeats a block of one to twenty lines 2 to 10,000 times.
fn duplicate_lines(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let starts = line_starts(bytes);
    let first = rng.below(starts.len());
    let last = (first + 1 + rng.below(20)).min(starts.len());
    let (from, to) = (
        starts[first],
        starts.get(last).copied().unwrap_or(bytes.len()),
    );
    let times = *rng.pick(&[2, 2, 10, 10, 100, 100, 1_000, 10_000]);
    let block = repeat(&bytes[from..to], times);
    insert(bytes, to, &block);
}

/// How deep a generated nesting goes: mostly shallow, one time in ten issue 12's 100,000.
fn depth(rng: &mut Rng) -> usize {
    *rng.pick(&[
        10, 10, 100, 100, 1_000, 1_000, 1_000, 10_000, 10_000, 100_000,
    ])
}

/// Opening constructs with their closers, per language (the generic brackets for all).
fn openers(lang: Language) -> &'static [(&'static str, &'static str)] {
    use Language::*;
    match lang {
        JavaScript | TypeScript | Tsx => &[
            ("function f(){", "}"),
            ("() => ", ""),
            ("`${", "}`"),
            ("<div>", "</div>"),
        ],
        Python => &[("g(", ")"), ("lambda: ", ""), ("[", "]"), ("f\"{", "}\"")],
        C | Cpp | Arduino => &[("{", "}"), ("if (x) {", "}"), ("#if X\n", "#endif\n")],
        Rust => &[("|x| (", ")"), ("mod m {", "}"), ("fn f() {", "}")],
        Go => &[("func() {", "}()")],
        Java | CSharp | Kotlin | Scala | Dart | Swift | D | Solidity | Php => &[("class C {", "}")],
        Clojure | Racket | Elisp | CommonLisp => &[("'(", ")"), ("#(", ")")],
        Ruby | Elixir | Lua | Julia => &[("begin\n", "end\n"), ("do\n", "end\n")],
        Bash => &[("$(", ")"), ("if x; then\n", "fi\n")],
        Haskell | Elm | OCaml | OCamlInterface => &[("let x = ", " in x")],
        _ => &[],
    }
}

/// Brackets and other openers every language gets.
const GENERIC: &[(&str, &str)] = &[
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("{\n", "}\n"),
    ("(\n", ")\n"),
    ("<", ">"),
    ("\"", "\""),
    ("/*", "*/"),
];

/// Nests an opening construct `depth` deep: one of the language's, a generic bracket, or
/// a line of the file up to its last opening bracket; closed half the time; in place of
/// the file or inserted at a line start.
fn nest(rng: &mut Rng, bytes: &mut Vec<u8>, lang: Language) {
    let (open, close) = match rng.below(3) {
        0 => opener_from(rng, bytes),
        1 if !openers(lang).is_empty() => to_owned(*rng.pick(openers(lang))),
        _ => to_owned(*rng.pick(GENERIC)),
    };
    let n = depth(rng);
    let mut nested = repeat(open.as_bytes(), n);
    nested.extend_from_slice(b"x");
    if rng.one_in(2) {
        nested.extend(repeat(close.as_bytes(), n));
    }
    if rng.one_in(3) {
        *bytes = nested;
    } else {
        let starts = line_starts(bytes);
        insert(bytes, *rng.pick(&starts), &nested);
    }
}

fn to_owned((open, close): (&str, &str)) -> (String, String) {
    (open.to_owned(), close.to_owned())
}

/// A line of `bytes` up to its last opening bracket, and the closers that balance it
/// (`("{", "}")` when no line has one).
fn opener_from(rng: &mut Rng, bytes: &[u8]) -> (String, String) {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(['(', '[', '{']))
        .collect();
    if lines.is_empty() {
        return to_owned(("{", "}"));
    }
    let line = rng.pick(&lines);
    let cut = line.rfind(['(', '[', '{']).map_or(line.len(), |i| i + 1);
    let open = &line[..cut];
    let mut stack = Vec::new();
    for c in open.chars() {
        match c {
            '(' => stack.push(')'),
            '[' => stack.push(']'),
            '{' => stack.push('}'),
            ')' | ']' | '}' if stack.last() == Some(&c) => {
                stack.pop();
            }
            _ => {}
        }
    }
    (open.to_owned(), stack.iter().rev().collect())
}

/// Nesting by indentation (Python, Haskell, YAML-like grammars): each line one more
/// level in, up to 1,500 levels (quadratic in bytes, so not deeper).
fn nest_indented(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let head = *rng.pick(&[
        "if x:", "def f():", "class C:", "do", "let", "- a:", "where",
    ]);
    let indent = *rng.pick(&[" ", "\t", "    "]);
    let n = depth(rng).min(1_500);
    let mut nested = String::new();
    for level in 0..n {
        if nested.len() > MAX_LEN {
            break;
        }
        nested.push_str(&indent.repeat(level));
        nested.push_str(head);
        nested.push('\n');
    }
    nested.push_str(&indent.repeat(n));
    nested.push_str("x\n");
    let at = if rng.one_in(2) { 0 } else { bytes.len() };
    insert(bytes, at, nested.as_bytes());
}

/// Cuts the input anywhere (in a UTF-8 sequence too).
fn truncate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = position(rng, bytes);
    bytes.truncate(at);
}

/// Line breaks other than `\n`: CRLF or CR everywhere, CR in places, or the breaks only
/// Python's `splitlines` counts (form feed, `\x85`, U+2028, ...) at line starts.
fn line_breaks(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let text = std::mem::take(bytes);
    *bytes = match rng.below(4) {
        0 => replace_newlines(&text, b"\r\n", |_| true),
        1 => replace_newlines(&text, b"\r", |_| true),
        2 => replace_newlines(&text, b"\r", |i| i % 3 == 0),
        _ => {
            let mut text = text;
            let starts = line_starts(&text);
            for _ in 0..1 + rng.below(8) {
                let brk = *rng.pick(&["\x0c", "\x0b", "\u{85}", "\u{2028}", "\u{2029}", "\x1c"]);
                let at = (*rng.pick(&starts)).min(text.len());
                insert(&mut text, at, brk.as_bytes());
            }
            text
        }
    };
}

/// `text` with the `i`-th `\n` replaced by `with` where `which(i)`.
fn replace_newlines(text: &[u8], with: &[u8], which: impl Fn(usize) -> bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 2);
    let mut i = 0;
    for &b in text {
        if b == b'\n' {
            if which(i) {
                out.extend_from_slice(with);
            } else {
                out.push(b);
            }
            i += 1;
        } else {
            out.push(b);
        }
    }
    out
}

/// One huge line: the file joined (newlines dropped), or a token repeated up to 100,000
/// times with no line break.
fn long_line(rng: &mut Rng, bytes: &mut Vec<u8>) {
    if rng.one_in(2) {
        bytes.retain(|&b| b != b'\n');
        return;
    }
    let token = *rng.pick(&["a", "x+", "ab ", "\"", "é", "\t", "0.", "f(x),"]);
    let line = repeat(token.as_bytes(), *rng.pick(&[1_000, 10_000, 100_000]));
    let at = position(rng, bytes);
    insert(bytes, at, &line);
}

/// Deletes a chunk of up to a quarter of the input.
fn delete(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let at = position(rng, bytes);
    let end = (at + rng.below(bytes.len() / 4 + 1)).min(bytes.len());
    bytes.drain(at..end);
}

/// Swaps two lines, or reverses the order of all lines (closers before openers).
fn swap_lines(rng: &mut Rng, bytes: &mut Vec<u8>) {
    let mut lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
    if lines.len() < 2 {
        return;
    }
    if rng.one_in(4) {
        lines.reverse();
    } else {
        let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
        lines.swap(a, b);
    }
    *bytes = lines.concat();
}

/// Replaces the input with a degenerate file: empty, one break, one NUL, a BOM, or
/// 100,000 NULs, newlines or carriage returns.
fn degenerate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    *bytes = match rng.below(8) {
        0 => Vec::new(),
        1 => b"\n".to_vec(),
        2 => b"\r".to_vec(),
        3 => b"\0".to_vec(),
        4 => "\u{feff}".as_bytes().to_vec(),
        5 => repeat(b"\0", 100_000),
        6 => repeat(b"\n", 100_000),
        _ => repeat(b"\r", 100_000),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_prefix_opener_is_balanced() {
        let mut rng = Rng(1);
        let (open, close) = opener_from(&mut rng, b"fn f(a: [u8; 2]) -> T {\n");
        assert_eq!(open, "fn f(a: [u8; 2]) -> T {");
        assert_eq!(close, "}");
    }

    #[test]
    fn newlines_are_replaced_where_asked() {
        assert_eq!(
            replace_newlines(b"a\nb\nc\n", b"\r\n", |i| i != 1),
            b"a\r\nb\nc\r\n"
        );
    }
}
