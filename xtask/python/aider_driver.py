"""Run Aider 0.86.2's repo map for `cargo xtask parity` and write what it computed as JSON.

Run with the Python of the parity virtual environment (aider-chat==0.86.2):

    python xtask/python/aider_driver.py JOB.json OUT.json
    python xtask/python/aider_driver.py --count TEXTS.json OUT.json

JOB.json:

    {"comparator": "fixed" | "stock",
     "root": "/abs/repo/root",
     "files": ["rel/path", ...],          # every file of the repository, relative to root
     "want_tags": true,                   # also write every file's tags
     "pin_captures": false,               # pin the capture order for every comparator
     "scenarios": [{"id": "...", "max_tokens": 1024, "max_context_window": null,
                    "chat_files": ["rel/path"], "mentioned_idents": ["name"]}, ...]}

The comparators:

* `stock`: `aider.repomap` exactly as installed.
* `fixed`: the same module with one line changed, so that edge weights no longer depend on
  Python's set order: `num_refs = math.sqrt(num_refs)` inside the loop over an identifier's
  definers is removed and the edge gets `weight=use_mul * math.sqrt(num_refs)`. The patch is
  applied to the source text at import time (the installed file is never touched); if the
  expected text is not found exactly once the driver fails.
* `pinned`: `fixed`, plus py-tree-sitter's per-process capture order pinned to source order
  (see `pin_capture_order`); a diagnostic comparator that isolates docs/parity.md T2.

Nothing of Aider's ranking, rendering or token counting is altered. The driver only
replaces what prints (the spinner, tqdm, the io object), gives the tags cache an in-memory
dict (so nothing is written under the repository), supplies a `main_model` whose
`token_count(text)` is `len(cl100k_base.encode_ordinary(text))` (what repo-mapper counts,
and what `tiktoken`'s `encode(text, disallowed_special=())` gives, as litellm calls it), and
wraps `networkx.pagerank` and `RepoMap.get_ranked_tags` to record their return values.

`--count` reads a JSON list of strings and writes, for each, the exact token count and
Aider's estimate (`RepoMap.token_count`), to cross-check repo-mapper's counts.
"""

import difflib
import hashlib
import importlib.util
import json
import os
import sys
import types
from importlib import metadata
from pathlib import Path

TOKENIZER = "cl100k_base"
PATCH_OLD = (
    "                    # scale down so high freq (low value) mentions don't dominate\n"
    "                    num_refs = math.sqrt(num_refs)\n"
    "\n"
    "                    G.add_edge(referencer, definer, weight=use_mul * num_refs, ident=ident)\n"
)
PATCH_NEW = (
    "                    # scale down so high freq (low value) mentions don't dominate\n"
    "                    # (parity: the square root is taken once, in the edge weight)\n"
    "\n"
    "                    G.add_edge(referencer, definer, weight=use_mul * math.sqrt(num_refs), ident=ident)\n"
)


def setup_tiktoken():
    """Point tiktoken at the encoding files litellm ships, so nothing is downloaded."""
    if "TIKTOKEN_CACHE_DIR" not in os.environ:
        spec = importlib.util.find_spec("litellm")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("aider_driver: litellm is not installed in this environment")
        base = Path(list(spec.submodule_search_locations)[0])
        os.environ["TIKTOKEN_CACHE_DIR"] = str(base / "litellm_core_utils" / "tokenizers")
    import tiktoken

    return tiktoken.get_encoding(TOKENIZER)


def load_repomap(comparator, pin_captures=False):
    """Imports `aider.repomap`, patched for the fixed and pinned comparators; with
    `pin_captures` the capture order is pinned whatever the comparator. Returns
    (module, patch)."""
    import aider

    spec = importlib.util.find_spec("aider.repomap")
    path = Path(spec.origin)
    source = path.read_text(encoding="utf-8")
    patch = {
        "file": "aider/repomap.py",
        "sha256": hashlib.sha256(source.encode("utf-8")).hexdigest(),
        "applied": False,
    }
    pin = comparator == "pinned" or pin_captures
    if comparator == "stock" and not pin:
        import aider.repomap as module

        return module, patch
    if comparator not in ("fixed", "pinned", "stock"):
        raise SystemExit(f"aider_driver: unknown comparator {comparator!r}")
    patched = source
    edits = []
    if comparator != "stock":
        edits.append((PATCH_OLD, PATCH_NEW))
    if pin:
        edits.append((PIN_DEFS_OLD, PIN_DEFS_NEW))
    for old, new in edits:
        count = patched.count(old)
        if count != 1:
            raise SystemExit(
                f"aider_driver: the line to patch was found {count} times in {path} "
                f"(expected exactly once): is this aider-chat 0.86.2?\n{old}"
            )
        patched = patched.replace(old, new)
    module = types.ModuleType("aider.repomap")
    module.__file__ = str(path)
    module.__package__ = "aider"
    module.__spec__ = spec
    sys.modules["aider.repomap"] = module
    aider.repomap = module
    exec(compile(patched, f"{path} (patched by aider_driver.py)", "exec"), module.__dict__)
    diff = "".join(
        difflib.unified_diff(
            source.splitlines(keepends=True),
            patched.splitlines(keepends=True),
            "a/aider/repomap.py",
            "b/aider/repomap.py",
        )
    )
    patch.update(
        applied=True,
        patched_sha256=hashlib.sha256(patched.encode("utf-8")).hexdigest(),
        diff=diff,
    )
    if pin:
        pin_capture_order(module)
        patch["capture_order"] = PINNED_CAPTURE_ORDER
        patch["definition_order"] = PINNED_DEFINITION_ORDER
    return module, patch


# The pinned comparators also list the definitions of one (file, identifier) by line:
# Aider keeps them in a set of Tag tuples, iterated in string-hash order (PYTHONHASHSEED),
# so overloads and a typedef beside its struct come out in a per-process order
# (docs/parity.md R3). repo-mapper lists them by line.
PIN_DEFS_OLD = "            ranked_tags += list(definitions.get((fname, ident), []))\n"
PIN_DEFS_NEW = (
    "            ranked_tags += sorted(definitions.get((fname, ident), []), "
    "key=lambda t: t.line)\n"
)
PINNED_DEFINITION_ORDER = (
    "get_ranked_tags: each (file, identifier)'s definition set listed by line, "
    "not in set order"
)

PINNED_CAPTURE_ORDER = (
    "RepoMap._run_captures wrapped: each capture name's node list sorted by "
    "(start_byte, end_byte), capture names ordered by their first node"
)


def pin_capture_order(module):
    """The `pinned` comparator: fixed Aider with py-tree-sitter's capture order made
    deterministic. `QueryCursor.captures()` returns each capture name's nodes in an order
    that changes from process to process (docs/parity.md T2), and Aider repeats the last
    one (T1), so which reference is counted twice, and with it the edge weights, changes
    from run to run. Sorting the nodes into source order removes that, and is what
    repo-mapper's aider profile does. A diagnostic comparator: not Aider as shipped."""
    original = module.RepoMap._run_captures

    def run_captures(self, query, node):
        captures = original(self, query, node)
        items = [
            (name, sorted(nodes, key=lambda n: (n.start_byte, n.end_byte)))
            for name, nodes in captures.items()
        ]
        items.sort(key=lambda kv: (kv[1][0].start_byte, kv[1][0].end_byte) if kv[1] else (0, 0))
        return dict(items)

    module.RepoMap._run_captures = run_captures


def comparator_tuple(comparator, patch):
    versions = {}
    for dist in (
        "aider-chat",
        "grep-ast",
        "tree-sitter-language-pack",
        "tree-sitter",
        "networkx",
        "tiktoken",
        "pygments",
        "scipy",
        "numpy",
    ):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return {
        "comparator": comparator,
        "versions": versions,
        "python": sys.version.split()[0],
        "patch": patch,
        "tokenizer": {
            "id": TOKENIZER,
            "library": "tiktoken " + str(versions["tiktoken"]),
            "count": "len(encoding.encode_ordinary(text))",
        },
        "hash_seed": os.environ.get("PYTHONHASHSEED"),
    }


class QuietIO:
    """The io object Aider needs: reads files as Aider's InputOutput does, prints nothing."""

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


class Model:
    """The `main_model` Aider's RepoMap calls `token_count` on."""

    def __init__(self, encoding):
        self.encoding = encoding

    def token_count(self, text):
        return len(self.encoding.encode_ordinary(text))


class NoSpinner:
    def __init__(self, *args, **kwargs):
        pass

    def step(self, *args, **kwargs):
        pass

    def end(self, *args, **kwargs):
        pass


def tag_row(tag):
    """A ranked-list entry: [rel_fname, 1-based line, name] for a tag, [rel_fname] for a file."""
    if len(tag) == 1:
        return [tag[0]]
    return [tag.rel_fname, tag.line + 1 if tag.line >= 0 else -1, tag.name]


def run_job(job, out):
    encoding = setup_tiktoken()
    repomap, patch = load_repomap(job["comparator"], job.get("pin_captures", False))
    repomap.Spinner = NoSpinner
    repomap.tqdm = lambda iterable, **kwargs: iterable

    import networkx

    calls = []
    original_pagerank = networkx.pagerank

    def recording_pagerank(G, *args, **kwargs):
        result = original_pagerank(G, *args, **kwargs)
        calls.append((G, result))
        return result

    networkx.pagerank = recording_pagerank

    class DriverRepoMap(repomap.RepoMap):
        def load_tags_cache(self):
            # In memory: nothing is written under the repository.
            self.TAGS_CACHE = dict()

        def get_ranked_tags(self, *args, **kwargs):
            result = super().get_ranked_tags(*args, **kwargs)
            self.last_ranked = result
            return result

    root = os.path.realpath(job["root"])
    files = job["files"]
    abs_of = {rel: os.path.join(root, rel) for rel in files}
    result = {"comparator": comparator_tuple(job["comparator"], patch), "scenarios": []}

    if job.get("want_tags"):
        rm = DriverRepoMap(root=root, main_model=Model(encoding), io=QuietIO())
        tags = {}
        for rel in files:
            try:
                rows = [
                    [t.line + 1 if t.line >= 0 else -1, t.kind, t.name]
                    for t in rm.get_tags(abs_of[rel], rel)
                ]
            except Exception as err:  # a query that does not compile, for instance
                rows = [[0, "error", f"{type(err).__name__}: {err}"]]
            tags[rel] = rows
        result["tags"] = tags

    for scenario in job["scenarios"]:
        # A fresh RepoMap per scenario, as a fresh Aider process would have (the tags it
        # reads are this process's, like Aider's own cache).
        rm = DriverRepoMap(
            root=root,
            main_model=Model(encoding),
            io=QuietIO(),
            map_tokens=scenario["max_tokens"],
            max_context_window=scenario.get("max_context_window"),
        )
        rm.last_ranked = None
        chat = [abs_of[rel] for rel in scenario["chat_files"]]
        chat_set = set(scenario["chat_files"])
        other = [abs_of[rel] for rel in files if rel not in chat_set]
        del calls[:]
        entry = {"id": scenario["id"]}
        try:
            text = rm.get_repo_map(
                chat,
                other,
                mentioned_fnames=set(),
                mentioned_idents=set(scenario["mentioned_idents"]),
                force_refresh=True,
            )
        except Exception as err:  # Aider lets it escape: no map at all
            text = None
            entry["error"] = f"{type(err).__name__}: {err}"
        entry["map"] = text
        entry["tokens"] = rm.token_count(text) if text else None
        entry["exact_tokens"] = len(encoding.encode_ordinary(text)) if text else None
        entry["ranked"] = (
            [tag_row(t) for t in rm.last_ranked] if rm.last_ranked is not None else None
        )
        if calls:
            G, ranked = calls[-1]
            entry["file_ranks"] = dict(ranked)
            # Aider's own per-(file, ident) ranks: get_ranked_tags stored each edge's share
            # in the edge data; sum them in its order.
            definition_ranks = {}
            for src in G.nodes:
                for _src, dst, data in G.out_edges(src, data=True):
                    if "rank" in data:
                        key = (dst, data["ident"])
                        definition_ranks[key] = definition_ranks.get(key, 0.0) + data["rank"]
            entry["definition_ranks"] = [[f, i, r] for (f, i), r in definition_ranks.items()]
            entry["nodes"] = len(G.nodes)
            entry["edges"] = G.number_of_edges()
        else:
            entry["file_ranks"] = None
            entry["definition_ranks"] = None
        result["scenarios"].append(entry)

    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f)


def run_count(texts_file, out):
    encoding = setup_tiktoken()
    repomap, _ = load_repomap("stock")
    rm = repomap.RepoMap.__new__(repomap.RepoMap)
    rm.main_model = Model(encoding)
    with open(texts_file, encoding="utf-8") as f:
        texts = json.load(f)
    counts = [
        {"exact": len(encoding.encode_ordinary(t)), "aider_estimate": rm.token_count(t)}
        for t in texts
    ]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(counts, f)


def main(argv):
    # Whatever Aider prints goes to stderr; our result goes to the output file.
    real_stdout = sys.stdout
    sys.stdout = sys.stderr
    try:
        if len(argv) == 3 and argv[0] == "--count":
            run_count(argv[1], argv[2])
        elif len(argv) == 2:
            with open(argv[0], encoding="utf-8") as f:
                job = json.load(f)
            run_job(job, argv[1])
        else:
            raise SystemExit(__doc__)
    finally:
        sys.stdout = real_stdout


if __name__ == "__main__":
    main(sys.argv[1:])
