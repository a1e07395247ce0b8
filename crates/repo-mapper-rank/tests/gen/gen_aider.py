"""Ranked lists from Aider 0.86.2, for tests/aider.rs.

Run with the Python of a virtual environment holding aider-chat==0.86.2, from the crate
directory:

    python tests/gen/gen_aider.py fixture > tests/data/aider_fixture.json
    python tests/gen/gen_aider.py repo DIR [--chat REL]... [--ident NAME]... > OUT.json

`fixture` writes a small multi-language repository to a temporary directory (chat files,
mentions, important files, a file missing from disk, an identifier with six definers) and
ranks it in three scenarios, then ranks three sets of tags given directly (no references at
all; every edge-weight multiplier, Unicode names included; ties); `repo DIR` ranks an
existing directory's source files (copied to a temporary directory first, since Aider
writes its tag cache into the root).

Aider extracts the tags (its own tree-sitter queries); they are dumped with 1-based lines
(Aider's are 0-based; -1 stays -1) and fed back to Aider's `get_ranked_tags`, so both sides
rank the very same tags. Aider's method is patched in memory (never on disk):

- one square root per (referencer, definer): `weight=use_mul * math.sqrt(num_refs)` instead
  of re-assigning `num_refs` inside the definer loop (docs/parity.md R1);
- the PageRank result, the personalization dict and the sorted ranked definitions are kept
  on the instance so they can be dumped.

Stage 0 is computed with Aider's own `filter_important_files`, as
`get_ranked_tags_map_uncached` does. Floats are written with repr().

The output differs from run to run, even with PYTHONHASHSEED fixed: py-tree-sitter returns
captures in a varying order (docs/parity.md T2), Aider iterates sets, and its node order
follows string hashes. tests/aider.rs compares modulo exactly these.
"""

import inspect
import json
import os
import shutil
import sys
import tempfile
import textwrap

from aider import repomap as aider_repomap
from aider.repomap import RepoMap, Tag
from aider.special import filter_important_files


class QuietIO:
    encoding = "utf-8"

    def read_text(self, filename, silent=False):
        try:
            with open(str(filename), "r", encoding=self.encoding) as f:
                return f.read()
        except (OSError, UnicodeError):
            return None

    def tool_output(self, *args, **kwargs):
        pass

    tool_warning = tool_error = tool_output


def patched_get_ranked_tags():
    src = textwrap.dedent(inspect.getsource(RepoMap.get_ranked_tags))
    replacements = [
        ("num_refs = math.sqrt(num_refs)", "pass"),
        ("weight=use_mul * num_refs", "weight=use_mul * math.sqrt(num_refs)"),
        ("# distribute the rank from each source node, across all of its out edges",
         "self._captured = dict(ranks=ranked, personalization=personalization)"),
        ("# dump(ranked_definitions)", "self._captured['definitions'] = ranked_definitions"),
    ]
    for old, new in replacements:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    namespace = {}
    exec(compile(src, "<patched get_ranked_tags>", "exec"), vars(aider_repomap), namespace)
    return namespace["get_ranked_tags"]


class PatchedRepoMap(RepoMap):
    get_ranked_tags = patched_get_ranked_tags()


def one_based(tag):
    return tag.line + 1 if tag.line >= 0 else -1


def rank_scenario(root, name, chat_rel, other_rel, mentioned_fnames, mentioned_idents, given=None):
    """Ranks with Aider. `given` maps rel paths to `(line, kind, name)` tags (1-based lines)
    to use instead of Aider's extraction."""
    rm = PatchedRepoMap(root=root, io=QuietIO(), main_model=None)
    chat_fnames = [os.path.join(root, f) for f in chat_rel]
    other_fnames = [os.path.join(root, f) for f in other_rel]
    fnames = sorted(set(chat_fnames) | set(other_fnames))

    tags_by_fname = {}
    files = []
    for fname in fnames:
        if not os.path.isfile(fname):
            continue
        rel = rm.get_rel_fname(fname)
        if given is not None:
            tags = [Tag(rel, fname, line - 1 if line > 0 else -1, tag_name, kind)
                    for line, kind, tag_name in given.get(rel, [])]
        else:
            tags = list(RepoMap.get_tags(rm, fname, rel))
        tags_by_fname[fname] = tags
        files.append({
            "rel": rel,
            "chat": fname in chat_fnames,
            "tags": [[one_based(t), t.kind, t.name] for t in tags],
        })
    rm.get_tags = lambda fname, rel: tags_by_fname.get(fname, [])

    ranked = rm.get_ranked_tags(chat_fnames, other_fnames, set(mentioned_fnames), set(mentioned_idents))
    cap = getattr(rm, "_captured", {"ranks": {}, "personalization": {}, "definitions": []})
    def_rank = {key: rank for key, rank in cap.get("definitions", [])}

    entries = []
    for entry in ranked:
        if isinstance(entry, Tag):
            entries.append({"rel": entry.rel_fname, "line": one_based(entry), "name": entry.name,
                            "rank": repr(def_rank[(entry.rel_fname, entry.name)])})
        else:
            rank = cap["ranks"].get(entry[0])
            entries.append({"rel": entry[0], "rank": None if rank is None else repr(rank)})

    # get_ranked_tags_map_uncached's stage 0.
    other_rel_fnames = sorted(set(rm.get_rel_fname(f) for f in other_fnames))
    special = filter_important_files(other_rel_fnames)
    listed = set(e["rel"] for e in entries)
    stage0 = [f for f in special if f not in listed]

    return {
        "name": name,
        "files": files,
        "num_files": len(fnames),
        "other_rel_fnames": other_rel,
        "mentioned_fnames": sorted(mentioned_fnames),
        "mentioned_idents": sorted(mentioned_idents),
        "expect": {
            "stage0": stage0,
            "entries": entries,
            "file_ranks": {k: repr(v) for k, v in sorted(cap["ranks"].items())},
            "definition_ranks": [[f, i, repr(r)] for (f, i), r in cap.get("definitions", [])],
            "personalization": {k: repr(v) for k, v in sorted(cap["personalization"].items())},
        },
    }


FIXTURE = {
    "README.md": "# Demo\n",
    "setup.py": "def read_version():\n    return '1'\n\nVERSION = read_version()\n",
    ".github/workflows/ci.yml": "on: push\n",
    "Cargo.toml": "[package]\nname = 'demo'\n",
    "src/app/main.py": (
        "from app.models import UserModel, load_all\n"
        "from app.utils import long_snake_name, camelCaseName, _private\n\n"
        "def main():\n"
        "    users = load_all()\n"
        "    for u in users:\n"
        "        print(long_snake_name(u), camelCaseName(u), _private(u))\n"
        "    return UserModel.count()\n"
    ),
    "src/app/models.py": (
        "from app.utils import long_snake_name\n\n"
        "class UserModel:\n"
        "    def count(self):\n"
        "        return len(load_all())\n\n"
        "def load_all():\n"
        "    return [long_snake_name(x) for x in range(3)]\n"
    ),
    "src/app/utils.py": (
        "def long_snake_name(x):\n    return str(x)\n\n"
        "def camelCaseName(x):\n    return long_snake_name(x)\n\n"
        "def _private(x):\n    return x\n\n"
        "def unused_helper():\n    return 0\n"
    ),
    "lib/helpers.js": (
        "function formatUser(user) { return renderName(user.name); }\n"
        "function renderName(name) { return name.toUpperCase(); }\n"
        "module.exports = { formatUser };\n"
    ),
    "lib/view.js": "const h = require('./helpers');\nfunction show(u) { return h.formatUser(u); }\n",
    "plugins/p1.py": "def run():\n    return 1\n",
    "plugins/p2.py": "def run():\n    return 2\n",
    "plugins/p3.py": "def run():\n    return 3\n",
    "plugins/p4.py": "def run():\n    return 4\n",
    "plugins/p5.py": "def run():\n    return 5\n",
    "plugins/p6.py": "def run():\n    return 6\n",
    "plugins/runner.py": "from plugins import p1\n\ndef run_all():\n    return p1.run() + run()\n",
    "tests/test_models.py": (
        "from app.models import UserModel, load_all\n\n"
        "def test_count():\n    assert UserModel().count() == len(load_all())\n"
    ),
    "docs/notes.txt": "notes\n",
    "scripts/tool.rb": "class Tool\n  def go\n    helper\n  end\nend\n",
}


def fixture_cases():
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        for rel, text in FIXTURE.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        all_rel = sorted(FIXTURE) + ["deleted.py"]  # missing from disk, as git may list it
        cases.append(rank_scenario(root, "no_chat", [], all_rel, [], []))
        chat = ["src/app/main.py"]
        others = [f for f in all_rel if f not in chat]
        cases.append(rank_scenario(
            root, "chat_and_mentions", chat, others,
            ["lib/helpers.js"], ["UserModel", "plugins", "renderName"],
        ))
        # Only a file outside the graph is personalised: networkx divides by zero and Aider
        # retries without personalization.
        cases.append(rank_scenario(root, "zero_division_retry", ["docs/notes.txt"],
                                   [f for f in all_rel if f != "docs/notes.txt"], [], []))
    cases += synthetic_cases()
    return cases


def defs_refs(text):
    """`"def:a ref:b"` → tags on lines 1, 2, ..."""
    return [(i + 1, *t.split(":", 1)) for i, t in enumerate(text.split())]


# Tags given directly (the files exist but are empty): rules extraction rarely exercises.
SYNTHETIC = {
    # No reference anywhere: every definition refers to itself (SPEC §6.2).
    "no_references": (
        {"a.py": "def:x def:y", "b.py": "def:x def:_w", "c.py": "def:z def:x"},
        ["c.py"], [], [],
    ),
    # Every multiplier of SPEC §6.4, Unicode identifiers included (Python's isalpha,
    # isupper, islower and len count code points).
    "weights": (
        {
            "a.py": "ref:données_x ref:ÄÖÜäöüßx ref:_private_thing ref:名前_名前_名前 ref:x-y-z-w-v "
                    "ref:ab_12345 ref:__init__ ref:common ref:common ref:common ref:plainname "
                    "ref:MENTIONED ref:_1234567 ref:ÉÉÉÉÉÉÉÉ ref:ééééé-éé",
            "b.py": "def:données_x def:ÄÖÜäöüßx def:_private_thing def:名前_名前_名前 def:x-y-z-w-v "
                    "def:ab_12345 def:__init__ def:common def:plainname def:MENTIONED def:_1234567 "
                    "def:ÉÉÉÉÉÉÉÉ def:ééééé-éé def:orphan",
            "c.py": "def:common ref:common ref:__init__ ref:__init__",
            "d.py": "def:common def:__init__ ref:données_x",
            "e.py": "def:common",
            "f.py": "def:common",
            "g.py": "def:common def:orphan",
            "chat.py": "ref:common ref:common ref:plainname def:mine",
            "src/plainname/x.py": "ref:mine",
        },
        ["chat.py"], ["a.py", "d.py"], ["MENTIONED", "plainname"],
    ),
    # Ties: symmetric files and identifiers rank equal; order falls to names.
    "ties": (
        {"hub.py": "ref:p ref:q ref:r ref:s", "b.py": "def:p def:q", "c.py": "def:r def:s",
         "d.py": "def:lonely", "e.py": "def:lonely"},
        [], [], [],
    ),
}


def synthetic_cases():
    cases = []
    for name, (spec, chat, mentioned_fnames, mentioned_idents) in SYNTHETIC.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.realpath(tmp)
            for rel in spec:
                path = os.path.join(root, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").close()
            given = {rel: defs_refs(text) for rel, text in spec.items()}
            others = [f for f in sorted(spec) if f not in chat] + ["README.md"]
            cases.append(rank_scenario(root, name, chat, others, mentioned_fnames,
                                       mentioned_idents, given=given))
    return cases


SOURCE_EXTS = {".py", ".js", ".ts", ".rb", ".go", ".rs", ".java", ".c", ".h", ".cpp", ".scm"}


def repo_cases(directory, chat, idents):
    source = os.path.realpath(directory)
    rel = []
    for dirpath, dirnames, filenames in os.walk(source):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in filenames:
            if os.path.splitext(name)[1] in SOURCE_EXTS or name in ("README.md", "pyproject.toml"):
                rel.append(os.path.relpath(os.path.join(dirpath, name), source))
    rel.sort()
    # Work on a copy: Aider writes its tag cache into the root.
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        for f in rel:
            os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
            shutil.copyfile(os.path.join(source, f), os.path.join(root, f))
        cases = [rank_scenario(root, "repo_no_chat", [], rel, [], [])]
        if chat or idents:
            others = [f for f in rel if f not in chat]
            cases.append(rank_scenario(root, "repo_chat", chat, others, [], idents))
    return cases


def main(argv):
    if argv and argv[0] == "fixture":
        cases = fixture_cases()
    elif len(argv) >= 2 and argv[0] == "repo":
        chat = [argv[i + 1] for i, a in enumerate(argv) if a == "--chat"]
        idents = [argv[i + 1] for i, a in enumerate(argv) if a == "--ident"]
        cases = repo_cases(argv[1], chat, idents)
    else:
        sys.exit(__doc__)
    out = sys.stdout
    out.write('{\n "generated_by": "tests/gen/gen_aider.py",\n "cases": [\n')
    out.write(",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in cases))
    out.write("\n ]\n}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
