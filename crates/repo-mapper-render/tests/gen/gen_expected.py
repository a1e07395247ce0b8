"""Generate the golden outputs of repo-mapper-render's tests from grep-ast and Aider.

Run from anywhere with the Python of a virtual environment holding aider-chat==0.86.2
(grep-ast 0.9.0, tree-sitter-language-pack 0.13.0):

    python crates/repo-mapper-render/tests/gen/gen_expected.py

It writes, under fixtures/render/expected/:

* one `<source>.txt` per source file: a line `source <path>`, then for each case a header
  `@@ case <label> dialects=<both|aider|default> lois=<comma-separated 0-based rows>` followed
  by grep-ast's TreeContext output (the options Aider's render_tree passes) for those lines of
  interest: as Aider runs it for `aider` and `both`, as our default dialect works (see
  SPLIT_AT_NEWLINE_ONLY and TSX_GRAMMAR) for `default`. Output lines always start with `│` or `⋮`, so headers cannot be confused with them.
* one `to_tree.<scenario>.txt` per to_tree scenario: Aider's RepoMap.to_tree output for the
  item list in fixtures/render/to_tree/<scenario>.tsv (also written here). Lines of that list:
  `tag<TAB>rel_fname<TAB>0-based line<TAB>kind<TAB>name`, `file<TAB>rel_fname` (a bare entry)
  or `chat<TAB>rel_fname` (a chat file); a first line `dialects<TAB>both|aider`.

Cases are chosen deterministically (seeded per file), so re-running gives the same files.
Paths are relative to the repository root.
"""

import os
import random
import sys
import zlib

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
FIXTURES = os.path.join(ROOT, "fixtures", "render")
EXPECTED = os.path.join(FIXTURES, "expected")
TO_TREE = os.path.join(FIXTURES, "to_tree")

# Files whose output differs between our dialects. For these, the aider-dialect cases are
# grep-ast as Aider runs it, and the default-dialect cases are grep-ast run the way our
# default dialect works: lines split at "\n" only (Python's splitlines also breaks at \f,
# \x85, \u2028, ...), and .tsx parsed with the TSX grammar (grep-ast maps it to typescript).
SPLIT_AT_NEWLINE_ONLY = {
    "fixtures/render/src/formfeed.py",
    "fixtures/render/src/separators.js",
}
TSX_GRAMMAR = {
    "fixtures/languages/tsx/TodoList.tsx",
}


class NewlineOnly(str):
    """A str whose splitlines() breaks at "\n" only, as our default dialect splits lines."""

    def splitlines(self, keepends=False):
        assert not keepends
        parts = self.split("\n")
        if parts and parts[-1] == "":
            parts.pop()
        return parts


def default_dialect_context(rel, code):
    """grep-ast's TreeContext as our default dialect behaves on this file."""
    import grep_ast.grep_ast as ga

    original = ga.filename_to_lang
    if rel in TSX_GRAMMAR:
        ga.filename_to_lang = lambda _name: "tsx"
    try:
        return context(rel, NewlineOnly(code))
    finally:
        ga.filename_to_lang = original


class QuietIO:
    """Aider's InputOutput.read_text, minus the messages."""

    encoding = "utf-8"

    def read_text(self, filename, silent=False):
        try:
            with open(str(filename), "r", encoding=self.encoding) as f:
                return f.read()
        except (OSError, UnicodeError):
            return None

    def tool_error(self, *args, **kwargs):
        pass

    tool_warning = tool_output = tool_error


def repo_map():
    from aider.repomap import RepoMap

    rm = RepoMap.__new__(RepoMap)
    rm.io = QuietIO()
    rm.tree_cache = {}
    rm.tree_context_cache = {}
    return rm


def context(rel, code):
    from grep_ast import TreeContext

    # Exactly the arguments of Aider 0.86.2's render_tree.
    return TreeContext(
        rel,
        code,
        color=False,
        line_number=False,
        child_context=False,
        last_line=False,
        margin=0,
        mark_lois=False,
        loi_pad=0,
        show_top_of_file_parent_scope=False,
    )


def render(ctx, lois):
    ctx.lines_of_interest = set()
    ctx.add_lines_of_interest(lois)
    ctx.add_context()
    return ctx.format()


def def_lines(rm, rel):
    try:
        tags = list(rm.get_tags_raw(os.path.join(ROOT, rel), rel) or [])
    except Exception:  # a query that does not compile (julia)
        return []
    return sorted({t.line for t in tags if t.kind == "def" and t.line >= 0})


def source_files():
    files = []
    for base in ("fixtures/languages", "fixtures/render/src"):
        for dirpath, _, names in os.walk(os.path.join(ROOT, base)):
            for name in names:
                files.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    return sorted(files)


def cases_for(rel, num_lines, defs):
    rng = random.Random(zlib.crc32(rel.encode()))
    last = num_lines - 1
    cases = []
    if defs:
        cases.append(("defs", defs))
        cases.append(("first-def", [defs[0]]))
        cases.append(("last-def", [defs[-1]]))
        cases.append(("middle-def", [defs[len(defs) // 2]]))
        if len(defs) > 2:
            cases.append(("every-other-def", defs[::2]))
        for k in range(3 if num_lines < 200 else 6):
            n = rng.randint(2, min(6, len(defs))) if len(defs) >= 2 else 1
            cases.append((f"defs-sample-{k}", sorted(rng.sample(defs, n))))
    cases.append(("top", [0]))
    cases.append(("bottom", [last]))
    cases.append(("top-and-bottom", [0, last]))
    for k in range(4 if num_lines < 200 else 10):
        n = rng.randint(1, 6)
        cases.append((f"random-{k}", sorted(rng.sample(range(num_lines), min(n, num_lines)))))
    for gap in (1, 2, 3):
        if num_lines > gap + 2:
            i = rng.randrange(0, num_lines - gap - 1)
            cases.append((f"gap-{gap}", [i, i + gap + 1]))
    cases.append(("past-end", [num_lines + 2]))
    return cases


# Hand-picked cases on fixtures/render/src/gaps.py (0-based rows; see the file).
GAPS_CASES = [
    ("gap1-closed", [7, 9]),
    ("gap2-open", [7, 10]),
    ("gap3-open", [7, 11]),
    ("chain-of-gap1", [7, 9, 11]),
    ("blank-after-return", [12]),
    ("blank-pickup-inside-loop", [24]),
    ("blank-pickup-once", [1]),
    ("method-in-class", [20]),
    ("nested-three-deep", [35]),
    ("nested-and-sibling", [35, 41]),
    ("class-body-line", [18]),
    ("multi-line-def-header", [47]),
    ("docstring-top", [0]),
    ("last-line", [50]),
    ("all-lines-of-interest", list(range(0, 51))),
    ("duplicates", [20, 20, 20]),
]

GAPS_AIDER_ONLY = [
    # Python's negative indexing: -1 is the last row's scopes, and -1 with 1 closes row 0.
    ("negative-row", [-1, 1]),
]


def write_render_goldens():
    from grep_ast import filename_to_lang

    rm = repo_map()
    os.makedirs(EXPECTED, exist_ok=True)
    count = 0
    for rel in source_files():
        if not filename_to_lang(rel):
            continue
        with open(os.path.join(ROOT, rel), "r", encoding="utf-8") as f:
            code = f.read()
        if not code.endswith("\n"):
            code += "\n"
        ctx = context(rel, code)
        num_lines = len(code.splitlines())
        base = cases_for(rel, num_lines, def_lines(rm, rel))
        if rel in SPLIT_AT_NEWLINE_ONLY or rel in TSX_GRAMMAR:
            default_ctx = default_dialect_context(rel, code)
            cases = [(label, lois, "aider", ctx) for label, lois in base]
            cases += [(label, lois, "default", default_ctx) for label, lois in base]
        else:
            cases = [(label, lois, "both", ctx) for label, lois in base]
        if rel.endswith("gaps.py"):
            cases += [(label, lois, "both", ctx) for label, lois in GAPS_CASES]
            cases += [(label, lois, "aider", ctx) for label, lois in GAPS_AIDER_ONLY]
        out = [f"source {rel}\n"]
        for label, lois, dialects, c in cases:
            out.append(f"@@ case {label} dialects={dialects} lois={','.join(map(str, lois))}\n")
            out.append(render(c, lois))
            count += 1
        name = rel.replace("/", "__") + ".txt"
        with open(os.path.join(EXPECTED, name), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(out))
    return count


def to_tree_scenarios(rm):
    """(name, dialects, items, chat): items are Tag tuples or bare (rel,) tuples."""
    from aider.repomap import Tag

    def tags(rel, limit=None, step=1):
        fname = os.path.join(ROOT, rel)
        lines = def_lines(rm, rel)[::step][:limit]
        found = {}
        for t in rm.get_tags_raw(fname, rel):
            if t.kind == "def" and t.line in lines:
                # The first name in sort order: capture order varies between runs.
                found[t.line] = min(found.get(t.line, t.name), t.name)
        return [Tag(rel, fname, line, found[line], "def") for line in sorted(found)]

    py = "fixtures/languages/python/scheduler.py"
    js = "fixtures/languages/javascript/event_bus.js"
    rs = "fixtures/languages/rust/lru.rs"
    go = "fixtures/render/src/registry.go"
    rb = "fixtures/render/src/inventory.rb"
    mini = "fixtures/render/src/minified.js"
    uni = "fixtures/render/src/unicode.rs"
    text = "fixtures/render/src/textwrap.py"

    several = tags(py) + tags(js, limit=3) + tags(rs, step=2) + tags(go, limit=4)
    several += [("fixtures/README.md",), ("Cargo.toml",), ("fixtures/render/README.md",)]
    yield "several-files", "both", several, set()
    yield "chat-files-skipped", "both", several + tags(rb), {js, "Cargo.toml", rb}
    yield "long-lines-cut", "both", tags(mini) + tags(uni) + tags(text, limit=5), set()
    yield "bare-only", "both", [("b.txt",), ("a/b.txt",), ("a.txt",), ("A.txt",)], set()
    yield "all-chat", "both", tags(rb), {rb}
    yield "empty", "both", [], set()
    # A bare entry sorting before tags of the same file hides them (Aider's tuple order).
    yield "bare-before-tags", "both", tags(go, limit=2) + [(go,)], set()
    # Same rel_fname, tags listed out of order and duplicated.
    shuffled = tags(rb)
    random.Random(7).shuffle(shuffled)
    yield "unsorted-duplicates", "both", shuffled + shuffled[:3], set()
    # An identifier-fallback reference (line -1) reaching to_tree: Python indexes from the end.
    ref = Tag(py, os.path.join(ROOT, py), -1, "sleep", "ref")
    yield "fallback-ref-line", "aider", tags(py, limit=1) + [ref], set()


def write_to_tree_goldens():
    rm = repo_map()
    os.makedirs(TO_TREE, exist_ok=True)
    count = 0
    for name, dialects, items, chat in to_tree_scenarios(rm):
        rows = [f"dialects\t{dialects}\n"]
        for item in items:
            if len(item) == 1:
                rows.append(f"file\t{item[0]}\n")
            else:
                rows.append(f"tag\t{item.rel_fname}\t{item.line}\t{item.kind}\t{item.name}\n")
        rows += [f"chat\t{rel}\n" for rel in sorted(chat)]
        with open(os.path.join(TO_TREE, f"{name}.tsv"), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(rows))
        rm.tree_cache = {}
        output = rm.to_tree(items, chat)
        with open(
            os.path.join(EXPECTED, f"to_tree.{name}.txt"), "w", encoding="utf-8", newline="\n"
        ) as f:
            f.write(output)
        count += 1
    return count


def main():
    import grep_ast  # noqa: F401  (fail early without the venv)

    n = write_render_goldens()
    m = write_to_tree_goldens()
    print(f"{n} TreeContext cases, {m} to_tree scenarios", file=sys.stderr)


if __name__ == "__main__":
    main()
