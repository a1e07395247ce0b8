"""Compare repo-mapper's `<lang>-idents.scm` queries with Aider's pygments Token.Name fallback.

Run from the workspace root with the Python of a virtual environment holding aider-chat==0.86.2
(only its pygments is used):

    python xtask/python/idents_vs_pygments.py [--markdown] [--diff] [--lexer LANG=ALIAS]... [LANG...]

For each language (default: every queries/repo-mapper/<lang>-idents.scm), the files under
fixtures/languages/<lang>/ are lexed by pygments, the lexer chosen by guess_lexer_for_filename as
Aider does (or the lexer named by --lexer LANG=ALIAS), and the Token.Name-family tokens are
compared, as a multiset of strings, with the captures of the idents query printed by the
dump_tags example of repo-mapper-tags (built here with cargo; CARGO_TARGET_DIR is honoured).

    recall = |ours ∩ pygments| / |pygments|     precision = |ours ∩ pygments| / |ours|

--markdown prints a Markdown table; --diff lists the names only one side yields. The totals leave
out languages for which pygments yields nothing.
"""

import collections
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
if not os.path.isdir(os.path.join(ROOT, "queries", "repo-mapper")):
    ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "xtask", "python"))
sys.dont_write_bytecode = True  # no __pycache__ next to aider_tags.py
from aider_tags import pygments_names  # noqa: E402

CAPTURE = re.compile(r"^\s*\d+ name\.\S+ (.*)$")


class QueryError(Exception):
    pass


def lexer_names(fname, alias):
    """The Token.Name-family tokens of `fname` under the pygments lexer called `alias`."""
    from pygments.lexers import get_lexer_by_name
    from pygments.token import Token

    with open(fname, encoding="utf-8") as f:
        code = f.read()
    return [text for ttype, text in get_lexer_by_name(alias).get_tokens(code) if ttype in Token.Name]


def dump_tags_binary():
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    binary = os.path.join(target, "debug", "examples", "dump_tags")
    build = ["cargo", "build", "-q", "-p", "repo-mapper-tags", "--example", "dump_tags"]
    if subprocess.run(build, cwd=ROOT).returncode != 0:
        if not os.path.exists(binary):
            raise SystemExit("cannot build the dump_tags example")
        print(f"warning: build failed, using the existing {binary}", file=sys.stderr)
    return binary


def our_names(binary, query, fname):
    out = subprocess.run(
        [binary, "--query", query, fname], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    names = []
    for line in out.splitlines():
        if line.startswith("query error"):
            raise QueryError(line)
        m = CAPTURE.match(line)
        if m:
            names.append(m.group(1))
    return names


def pct(a, b):
    return f"{100 * a / b:.0f}%" if b else "n/a"


def show(name):
    return repr(name) if not name or re.search(r"\s", name) else name


def parse_args(argv):
    opts = {"diff": False, "markdown": False, "lexer": {}, "langs": []}
    args = iter(argv)
    for arg in args:
        if arg == "--diff":
            opts["diff"] = True
        elif arg == "--markdown":
            opts["markdown"] = True
        elif arg == "--lexer":
            lang, _, alias = next(args, "").partition("=")
            if not alias:
                raise SystemExit("--lexer wants LANG=ALIAS, e.g. --lexer r=splus")
            opts["lexer"][lang] = alias
        elif arg.startswith("-"):
            raise SystemExit(__doc__)
        else:
            opts["langs"].append(arg)
    return opts


def main(argv):
    opts = parse_args(argv)
    qdir = os.path.join(ROOT, "queries", "repo-mapper")
    langs = opts["langs"] or sorted(
        f[: -len("-idents.scm")] for f in os.listdir(qdir) if f.endswith("-idents.scm")
    )
    binary = dump_tags_binary()
    md = opts["markdown"]
    if md:
        print("| language | pygments | ours | recall | precision |")
        print("|---|---:|---:|---:|---:|")
    totals = [0, 0, 0]
    for lang in langs:
        fdir = os.path.join(ROOT, "fixtures", "languages", lang)
        if not os.path.isdir(fdir):
            continue
        pyg, ours = collections.Counter(), collections.Counter()
        try:
            for f in sorted(os.listdir(fdir)):
                fname = os.path.join(fdir, f)
                alias = opts["lexer"].get(lang)
                pyg.update(lexer_names(fname, alias) if alias else pygments_names(fname))
                ours.update(our_names(binary, os.path.join(qdir, f"{lang}-idents.scm"), fname))
        except QueryError as err:
            print(f"| {lang} | {err} | | | |" if md else f"{lang:16} {err}")
            continue
        label = f"{lang} ({opts['lexer'][lang]})" if lang in opts["lexer"] else lang
        n_pyg, n_ours, common = sum(pyg.values()), sum(ours.values()), sum((pyg & ours).values())
        if n_pyg:  # no pygments lexer (chatito, udev): nothing to compare with
            for i, n in enumerate((n_pyg, n_ours, common)):
                totals[i] += n
        if md:
            print(f"| {label} | {n_pyg} | {n_ours} | {pct(common, n_pyg)} | {pct(common, n_ours if n_pyg else 0)} |")
        else:
            print(
                f"{label:16} pygments {n_pyg:4}  ours {n_ours:4}  "
                f"recall {pct(common, n_pyg):>4}  precision {pct(common, n_ours if n_pyg else 0):>4}"
            )
        if opts["diff"]:
            for side, c in (("  pygments only:", pyg - ours), ("  ours only:    ", ours - pyg)):
                items = " ".join(
                    f"{show(k)}×{v}" if v > 1 else show(k) for k, v in sorted(c.items())
                )
                print(side, items)
    n_pyg, n_ours, common = totals
    if md:
        print(f"| **all** | {n_pyg} | {n_ours} | {pct(common, n_pyg)} | {pct(common, n_ours)} |")
    else:
        print(
            f"{'all':16} pygments {n_pyg:4}  ours {n_ours:4}  "
            f"recall {pct(common, n_pyg):>4}  precision {pct(common, n_ours):>4}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
