"""Print the tags Aider 0.86.2 extracts from files, one per line, for comparison with ours.

Run with the Python of a virtual environment holding aider-chat==0.86.2:

    python xtask/python/aider_tags.py [--pygments-only] FILE...

Each line: `<line> <kind> <name>`, where line is 1-based (Aider's 0-based line + 1) and -1
for references from the pygments fallback. With --pygments-only, prints the identifiers the
pygments fallback would yield for each file, whatever the tree-sitter query finds.
"""

import os
import sys


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aider_driver import QuietIO as _QuietIO  # noqa: E402  (the one io stub of the harness)


def pygments_names(fname):
    from pygments.lexers import guess_lexer_for_filename
    from pygments.token import Token

    code = _QuietIO().read_text(fname)
    if not code:
        return []
    try:
        lexer = guess_lexer_for_filename(fname, code)
    except Exception:
        return []
    return [text for ttype, text in lexer.get_tokens(code) if ttype in Token.Name]


def main(argv):
    from aider.repomap import RepoMap

    pyg_only = "--pygments-only" in argv
    files = [a for a in argv if a != "--pygments-only"]
    rm = RepoMap.__new__(RepoMap)
    rm.io = _QuietIO()
    for fname in files:
        fname = os.path.abspath(fname)
        print(f"== {fname}")
        if pyg_only:
            for name in pygments_names(fname):
                print(f"-1 ref {name}")
            continue
        try:
            for tag in rm.get_tags_raw(fname, os.path.basename(fname)):
                line = tag.line + 1 if tag.line >= 0 else -1
                print(f"{line} {tag.kind} {tag.name}")
        except Exception as err:  # a query that does not compile, for instance
            print(f"ERROR {type(err).__name__}: {err}")


if __name__ == "__main__":
    main(sys.argv[1:])
