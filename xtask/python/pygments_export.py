"""Export pygments' lexer tables as data for repo-mapper's aider-profile identifier fallback.

Run by `cargo xtask vendor-lexers` with the Python of the parity virtual environment (aider-chat
0.86.2 and the pygments it installs):

    python xtask/python/pygments_export.py OUT.json LANGUAGE...

Aider 0.86.2 backfills the references of a file with definitions but no references with every
`Token.Name`-family token pygments yields for it (`guess_lexer_for_filename`). repo-mapper's
aider profile reproduces that with its own interpreter of pygments' RegexLexer state machines
(`repo-mapper-tags`, module `pygments`). This script writes the data that interpreter reads:

- `lexers`: for every exportable RegexLexer a language of ours can reach, its processed state
  table (`lexer._tokens`): per state, rules of [pattern, action, next state]. Patterns are
  translated from Python's `re` syntax to fancy-regex syntax, flags inline. Actions: null, a
  token type name, {"groups": [...]} (bygroups) or {"using": "this" | LEXER, "stack": [...]}.
  Next state: null, a negative pop count, "#push", or a list of state names ("#pop"/"#push").
  `retype`: Name tokens the lexer's own `get_tokens_unprocessed` turns into keyword types
  (the C family's standard type names).
- `files`: every lexer's file-name globs (as anchored regexes), priority, and which
  `analyse_text` it has, so that `guess_lexer_for_filename`'s choice can be replayed.

A lexer whose table holds a callback this format cannot express is listed in `unsupported`
with the reason; files it would lex keep repo-mapper's `-idents.scm` query.
"""

import fnmatch
import json
import re
import sys

import pygments
from pygments.lexer import Lexer, RegexLexer
from pygments.lexers import _iter_lexerclasses
from pygments.token import _TokenType



def closure(fn):
    return dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ())))


class Unsupported(Exception):
    pass


# Character classes longer than this are stored once, in `classes`, and referred to from
# patterns as CLASS_OPEN + index + CLASS_CLOSE (pygments spells Unicode categories out).
LONG_CLASS = 200
CLASS_OPEN = "\uf8ff"
CLASS_CLOSE = "\uf8fe"
CLASSES = {}


def shared_class(text):
    index = CLASSES.setdefault(text, len(CLASSES))
    return f"{CLASS_OPEN}{index}{CLASS_CLOSE}"


def translate_regex(pattern):
    """Python `re` syntax to fancy-regex syntax, for the constructs pygments' lexers use."""
    out = []
    class_at = 0
    i = 0
    n = len(pattern)
    in_class = False
    class_start = 0
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1] if i + 1 < n else ""
            if nxt == "Z":
                out.append("\\z")
            elif nxt == "b" and in_class:
                out.append("\\x08")
            elif nxt == "u" and re.match(r"[0-9a-fA-F]{4}", pattern[i + 2 : i + 6]):
                out.append("\\x{" + pattern[i + 2 : i + 6] + "}")
                i += 6
                continue
            elif nxt == "U" and re.match(r"[0-9a-fA-F]{8}", pattern[i + 2 : i + 10]):
                out.append("\\x{" + pattern[i + 2 : i + 10] + "}")
                i += 10
                continue
            elif nxt == "N":
                raise Unsupported(f"\\N escape in {pattern!r}")
            elif nxt.isdigit() and nxt != "0" and not in_class:
                out.append("\\" + nxt)  # backreference
            elif nxt == "0":
                m = re.match(r"0[0-7]{0,2}", pattern[i + 1 :])
                out.append("\\x{%x}" % int(m.group(), 8))
                i += 1 + len(m.group())
                continue
            elif nxt.isalnum() or nxt in "\\.^$|?*+()[]{}-&~#":
                out.append(c + nxt)
            elif nxt == "\n":
                out.append("\\n")
            elif nxt == "\t":
                out.append("\\t")
            elif nxt == " ":
                out.append("\\x20")
            else:
                out.append(nxt)
            i += 2
            continue
        if in_class:
            if c == "]" and i > class_start:
                in_class = False
                out.append(c)
                if sum(len(x) for x in out[class_at:]) > LONG_CLASS:
                    text = "".join(out[class_at:])
                    del out[class_at:]
                    out.append(shared_class(text))
            elif c == "[":
                out.append("\\[")
            elif c in "&~-" and i + 1 < n and pattern[i + 1] == c:
                out.append("\\" + c + "\\" + c)
                i += 2
                continue
            else:
                out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            class_at = len(out)
            out.append(c)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":
                out.append("\\]")
                i += 1
            class_start = i
            continue
        if c == "{":
            m = re.match(r"\{(\d*),(\d*)\}", pattern[i:])
            if m and m.group(1) == "" and m.group(2) != "":
                out.append("{0," + m.group(2) + "}")
                i += len(m.group())
                continue
            if not re.match(r"\{\d+(,\d*)?\}", pattern[i:]):
                out.append("\\{")
                i += 1
                continue
        out.append(c)
        i += 1
    # fancy-regex rejects a repeated empty group, which `words()` produces (`new(?:(?:)?)`).
    return re.sub(r"(?<!\\)\(\?:\)[?*+]?", "", "".join(out))


def flags_prefix(flags):
    f = ""
    if flags & re.IGNORECASE:
        f += "i"
    if flags & re.MULTILINE:
        f += "m"
    if flags & re.DOTALL:
        f += "s"
    if flags & re.VERBOSE:
        f += "x"
    return f"(?{f})" if f else ""


def export_action(action, wanted):
    if action is None:
        return None
    if type(action) is _TokenType:
        return str(action)
    qual = getattr(action, "__qualname__", "")
    if qual == "bygroups.<locals>.callback":
        return {"groups": [export_action(a, wanted) for a in closure(action)["args"]]}
    if qual == "using.<locals>.callback":
        cv = closure(action)
        if cv.get("kwargs"):
            raise Unsupported(f"using() with options {cv['kwargs']!r}")
        stack = cv.get("gt_kwargs", {}).get("stack")
        other = cv.get("_other")
        if other is None:
            target = "this"
        else:
            if not (isinstance(other, type) and issubclass(other, Lexer)):
                raise Unsupported(f"using({other!r})")
            target = other.__name__
            wanted.append(other)
        return {"using": target, "stack": list(stack) if stack else None}
    raise Unsupported(f"callback {qual or action!r}")


def export_next(new_state):
    if new_state is None:
        return None
    if isinstance(new_state, int):
        return new_state
    if new_state == "#push":
        return "#push"
    if isinstance(new_state, tuple):
        return list(new_state)
    raise Unsupported(f"next state {new_state!r}")


def defining_class(cls, attr):
    for base in cls.__mro__:
        if attr in base.__dict__:
            return base
    return None


def retype_names(cls, lexer):
    """Names the lexer's own get_tokens_unprocessed turns from Name into a keyword type."""
    owner = defining_class(cls, "get_tokens_unprocessed")
    if owner is RegexLexer:
        return []
    if owner.__name__ == "CFamilyLexer" or owner.__name__ == "GeneratedObjectiveCVariant":
        names = set()
        if lexer.stdlibhighlighting:
            names |= set(lexer.stdlib_types)
        if lexer.c99highlighting:
            names |= set(lexer.c99_types)
        if lexer.c11highlighting:
            names |= set(lexer.c11_atomic_types)
        if lexer.platformhighlighting:
            names |= set(lexer.linux_types)
        return sorted(names)
    raise Unsupported(f"own get_tokens_unprocessed in {owner.__name__}")


def export_lexer(cls, wanted):
    if not issubclass(cls, RegexLexer):
        raise Unsupported("not a RegexLexer")
    lexer = cls()
    owner = defining_class(cls, "get_tokens")
    if owner is not Lexer:
        raise Unsupported(f"own get_tokens in {owner.__name__}")
    states = {}
    for state, rules in lexer._tokens.items():
        out = []
        for rexmatch, action, new_state in rules:
            compiled = rexmatch.__self__
            out.append(
                [
                    flags_prefix(compiled.flags) + translate_regex(compiled.pattern),
                    export_action(action, wanted),
                    export_next(new_state),
                ]
            )
        states[state] = out
    options = {k: getattr(lexer, k) for k in ("stripnl", "stripall", "ensurenl", "tabsize")}
    if options != {"stripnl": True, "stripall": False, "ensurenl": True, "tabsize": 0}:
        raise Unsupported(f"options {options!r}")
    return {"states": states, "retype": retype_names(cls, lexer)}


def analyser(cls):
    owner = defining_class(cls, "analyse_text")
    if owner is None or owner is Lexer:
        return None
    return owner.__name__


def glob_regex(glob):
    # fnmatch.translate gives `(?s:...)\Z`; repo-mapper matches it against the base name.
    saved = dict(CLASSES)
    text = translate_regex(fnmatch.translate(glob))
    if CLASSES != saved:
        raise Unsupported(f"glob {glob!r}")
    return text


def main():
    from grep_ast.parsers import PARSERS

    out_path, *langs = sys.argv[1:]
    # A file name for every key of grep-ast's table (extensions and whole names) whose
    # language is one of `langs`.
    names = ["x" + key if key.startswith(".") else key for key, lang in PARSERS.items() if lang in langs]
    classes = list(_iter_lexerclasses())
    files = []
    reachable = []
    for cls in classes:
        globs = [(g, True) for g in cls.filenames] + [(g, False) for g in cls.alias_filenames]
        matched = [g for g in globs if any(fnmatch.fnmatch(n, g[0]) for n in names)]
        if not matched:
            continue
        reachable.append(cls)
        files.append(
            {
                "lexer": cls.__name__,
                "globs": [[glob_regex(g), primary] for g, primary in globs],
                "priority": cls.priority,
                "analyse": analyser(cls),
            }
        )
    lexers = {}
    unsupported = {}
    queue = list(reachable)
    while queue:
        cls = queue.pop(0)
        if cls.__name__ in lexers or cls.__name__ in unsupported:
            continue
        wanted = []
        try:
            lexers[cls.__name__] = export_lexer(cls, wanted)
        except Unsupported as e:
            unsupported[cls.__name__] = str(e)
        queue.extend(wanted)
    data = {
        "source": f"pygments {pygments.__version__} (installed with aider-chat 0.86.2); "
        "BSD-2-Clause, see LICENSE-pygments.txt",
        "classes": list(CLASSES),
        "lexers": dict(sorted(lexers.items())),
        "unsupported": dict(sorted(unsupported.items())),
        "files": sorted(files, key=lambda f: f["lexer"]),
    }
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=0, ensure_ascii=False, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
