//! Our `TreeContext` against a literal, naive transcription of grep-ast's algorithm (per-row
//! scope sets, sorted header lists), on inputs grep-ast itself cannot take: very deep
//! nesting (grep-ast recurses and raises RecursionError) and many random line sets.

use std::collections::BTreeSet;
use std::path::Path;

use repo_mapper_render::{HEADER_MAX, TreeContext, render_language};
use repo_mapper_tags::{Dialect, Language, grammar, read_source};

/// grep-ast's TreeContext with Aider's options, transcribed as directly as possible (rows
/// from `\n`-split lines, as in the default dialect; no negative rows).
struct Naive<'a> {
    lines: Vec<&'a str>,
    scopes: Vec<BTreeSet<usize>>,
    header: Vec<(usize, usize)>,
}

impl<'a> Naive<'a> {
    fn new(code: &'a str, language: Language) -> Self {
        let mut lines: Vec<&str> = code.split('\n').collect();
        if lines.last() == Some(&"") {
            lines.pop();
        }
        let num_lines = lines.len() + 1;
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&grammar(language)).unwrap();
        let tree = parser.parse(code, None).unwrap();

        let mut scopes = vec![BTreeSet::new(); num_lines];
        let mut headers: Vec<Vec<(usize, usize, usize)>> = vec![Vec::new(); num_lines];
        let mut cursor = tree.walk();
        'walk: loop {
            let node = cursor.node();
            let (start, end) = (node.start_position().row, node.end_position().row);
            if end > start {
                headers[start].push((end - start, start, end));
            }
            for scope in &mut scopes[start..=end] {
                scope.insert(start);
            }
            if cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        let header: Vec<(usize, usize)> = headers
            .iter_mut()
            .enumerate()
            .map(|(i, h)| {
                h.sort();
                if h.len() > 1 {
                    let (size, start, end) = h[0];
                    (
                        start,
                        if size > HEADER_MAX {
                            start + HEADER_MAX
                        } else {
                            end
                        },
                    )
                } else {
                    (i, i + 1)
                }
            })
            .collect();
        Naive {
            lines,
            scopes,
            header,
        }
    }

    fn render(&self, lois: &[i64]) -> String {
        let Naive {
            lines,
            scopes,
            header,
        } = self;
        let num_lines = lines.len() + 1;
        let lois: BTreeSet<i64> = lois.iter().copied().filter(|&i| i >= 0).collect();
        if lois.is_empty() {
            return String::new();
        }
        let mut show: BTreeSet<i64> = lois.clone();
        for &i in &lois {
            if i as usize >= num_lines {
                continue;
            }
            for &s in &scopes[i as usize] {
                let (hs, he) = header[s];
                if hs > 0 {
                    show.extend(hs as i64..he as i64);
                }
            }
        }
        let sorted: Vec<i64> = show.iter().copied().collect();
        let mut closed = show.clone();
        for w in sorted.windows(2) {
            if w[1] - w[0] == 2 {
                closed.insert(w[0] + 1);
            }
        }
        let blank = |s: &str| {
            s.chars()
                .all(|c| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c))
        };
        for i in 0..lines.len() {
            if closed.contains(&(i as i64))
                && !blank(lines[i])
                && i + 2 < num_lines
                && blank(lines[i + 1])
            {
                closed.insert(i as i64 + 1);
            }
        }
        let mut out = String::new();
        let mut dots = !closed.contains(&0);
        for (i, line) in lines.iter().enumerate() {
            if !closed.contains(&(i as i64)) {
                if dots {
                    out.push_str("⋮\n");
                    dots = false;
                }
                continue;
            }
            out.push('│');
            out.push_str(line);
            out.push('\n');
            dots = true;
        }
        out
    }
}

fn naive_render(code: &str, language: Language, lois: &[i64]) -> String {
    Naive::new(code, language).render(lois)
}

/// A small deterministic generator (xorshift), so the test needs no dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn check_random_cases(code: &str, language: Language, rounds: usize, seed: u64) {
    let ctx = TreeContext::new(code, Some(language), Dialect::Default);
    let naive = Naive::new(code, language);
    let rows = ctx.line_count() + 2;
    let mut rng = Rng(seed | 1);
    for _ in 0..rounds {
        let n = 1 + rng.below(8);
        let lois: Vec<i64> = (0..n).map(|_| rng.below(rows) as i64).collect();
        assert_eq!(
            ctx.render(&lois),
            naive.render(&lois),
            "{language} lois {lois:?}"
        );
    }
}

#[test]
fn random_lines_on_every_fixture_match_the_naive_model() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files = Vec::new();
    for dir in ["languages", "render/src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(d).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    let mut checked = 0;
    for (k, file) in files.iter().enumerate() {
        let Some(language) = render_language(file, Dialect::Default) else {
            continue;
        };
        let mut code = read_source(file).unwrap().unwrap();
        if !code.ends_with('\n') {
            code.push('\n');
        }
        check_random_cases(&code, language, 40, 0x9e37_79b9 + k as u64);
        checked += 1;
    }
    assert!(checked >= 55, "{checked} files");
}

/// `depth` nested blocks, one per line, then the closing braces (no indentation, so the
/// file stays linear in `depth`).
fn nested_js(depth: usize) -> String {
    let mut code = String::from("function f(x) {\n");
    code.push_str(&"if (x) {\n".repeat(depth));
    code.push_str("return x;\n");
    code.push_str(&"}\n".repeat(depth + 1));
    code
}

#[test]
fn deep_nesting_matches_the_naive_model() {
    // grep-ast's recursive walk raises RecursionError from about 1,000 levels.
    let depth = 1_500;
    let code = nested_js(depth);
    check_random_cases(&code, Language::JavaScript, 30, 7);
    let deepest = depth as i64 + 1;
    assert_eq!(
        TreeContext::new(code.as_str(), Some(Language::JavaScript), Dialect::Default)
            .render(&[deepest]),
        naive_render(&code, Language::JavaScript, &[deepest])
    );
}

#[test]
fn very_deep_nesting_does_not_overflow_the_stack() {
    let depth = 20_000;
    let code = nested_js(depth);
    let ctx = TreeContext::new(code.as_str(), Some(Language::JavaScript), Dialect::Aider);
    let out = ctx.render(&[depth as i64 + 1]);
    // Every `if` line is the header of a scope around the deepest line.
    // Every `if` line heads a scope around the deepest line; the innermost headers (up to
    // HEADER_MAX lines) reach into the closing braces.
    let expected = format!("⋮\n{}│return x;\n", "│if (x) {\n".repeat(depth));
    assert!(out.starts_with(&expected), "{}", &out[out.len() - 200..]);
    assert!(out.ends_with("│}\n⋮\n"));

    let parens = format!(
        "def f():\n    pass\nx = {}1{}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let ctx = TreeContext::new(parens, Some(Language::Python), Dialect::Default);
    assert_eq!(
        ctx.render(&[0, 2]),
        "│def f():\n│    pass\n│x = ".to_owned()
            + &"(".repeat(depth)
            + "1"
            + &")".repeat(depth)
            + "\n"
    );
}
