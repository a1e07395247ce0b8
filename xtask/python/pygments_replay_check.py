"""Check repo-mapper's replay of pygments (aider profile, T8) against pygments itself.

Run with the Python of the parity virtual environment, from the workspace root:

    python xtask/python/pygments_replay_check.py [--show N] PATH...

Every file under the PATHs that repo-mapper's aider dialect would give a language is lexed by
pygments as Aider 0.86.2 does (`guess_lexer_for_filename`, the `Token.Name` family) and by
`dump_tags --pygments` (built here); the name sequences must be equal. Prints per lexer the
files that agree, differ, or are not replayed, with the first difference of up to N files;
exits 1 when any replayed file differs.
"""

import collections
import json
import os
import subprocess
import sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "xtask", "python"))
sys.dont_write_bytecode = True
from aider_tags import pygments_names  # noqa: E402


def ours(binary, files):
    out = {}
    for i in range(0, len(files), 300):
        chunk = files[i : i + 300]
        text = subprocess.run([binary, "--pygments", *chunk], capture_output=True, text=True).stdout
        cur = None
        for line in text.split("\n"):
            if line.startswith("== "):
                name = line[3:]
                cur = None
                if name.endswith(" (not replayed)"):
                    out[name[: -len(" (not replayed)")]] = None
                elif not name.endswith(" (no language)"):
                    cur = out.setdefault(name, [])
            elif cur is not None and line != "":
                cur.append(json.loads(line))
    return out


def main():
    args = sys.argv[1:]
    show = 3
    if args[:1] == ["--show"]:
        show = int(args[1])
        args = args[2:]
    from grep_ast.parsers import PARSERS
    from pygments.lexers import guess_lexer_for_filename

    files = []
    for root in args:
        if os.path.isfile(root):
            files.append(root)
            continue
        for dirpath, _, names in os.walk(root):
            for n in names:
                ext = os.path.splitext(n)[1]
                if n in PARSERS or ext in PARSERS:
                    files.append(os.path.join(dirpath, n))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    build = ["cargo", "build", "-q", "--release", "-p", "repo-mapper-tags", "--example", "dump_tags"]
    subprocess.run(build, check=True)
    got = ours(os.path.join(target, "release", "examples", "dump_tags"), files)
    stats = collections.defaultdict(lambda: [0, 0, 0])
    shown = collections.Counter()
    bad = False
    for f in files:
        if f not in got:
            continue
        try:
            with open(f, encoding="utf-8") as fh:
                code = fh.read()
            lexer = type(guess_lexer_for_filename(f, code)).__name__
        except Exception:
            lexer = "(none)"
        theirs = pygments_names(f)
        mine = got[f]
        s = stats[lexer]
        if mine is None:
            s[2] += 1
        elif mine == theirs:
            s[0] += 1
        else:
            s[1] += 1
            bad = True
            if shown[lexer] < show:
                shown[lexer] += 1
                i = next((k for k, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
                print(f"  {lexer} {f}: name {i}: ours {mine[i:i+4]} pygments {theirs[i:i+4]} (lengths {len(mine)}/{len(theirs)})")
    print("lexer: same / differ / not replayed")
    for lexer, (a, b, c) in sorted(stats.items()):
        print(f"  {lexer}: {a} / {b} / {c}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
