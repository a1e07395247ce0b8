"""Stock Aider 0.86.2 as `cargo xtask relevance` asks it (issue 16): a line-per-request server.

    python aider_relevance.py        (JSON lines on stdin, one JSON line back per request)

Each request: {"root": "/abs/root", "files": ["rel", ...], "chat": ["rel", ...],
"message": "...", "budgets": [1024, 4096]}. For it, this process:

1. derives the mentions as `Coder.get_repo_map` would, with Aider's own `Coder` methods on
   a stand-in (see `aider_mentions.py`);
2. for each budget, calls stock `RepoMap.get_repo_map(chat, other, mentioned_fnames,
   mentioned_idents, force_refresh=True)`, timing the call;
3. answers {"mentions": {"files", "idents"}, "order": [...], "maps": [{"budget", "text",
   "seconds"}, ...]}, where `order` is the ranked list `get_ranked_tags_map_uncached`
   searches (important files it prepends, then `get_ranked_tags`' entries), as file names
   in order of first appearance.

One `RepoMap` per root is kept for the whole run, with its tags cache in memory (Aider's
is on disk; the entries are the same, keyed by file and modification time), so calls after
a repository's first read only the files a checkout changed, as a long Aider session does.
Nothing of Aider's ranking or rendering is altered.
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from aider_driver import Model, NoSpinner, QuietIO, setup_tiktoken  # noqa: E402


def load():
    encoding = setup_tiktoken()
    import aider.repomap as repomap
    from aider.coders.base_coder import Coder
    from aider.special import filter_important_files

    repomap.Spinner = NoSpinner
    repomap.tqdm = lambda iterable, **kwargs: iterable

    class BenchRepoMap(repomap.RepoMap):
        def load_tags_cache(self):
            self.TAGS_CACHE = dict()

        def get_ranked_tags(self, *args, **kwargs):
            result = super().get_ranked_tags(*args, **kwargs)
            self.last_ranked = result
            return result

    return encoding, BenchRepoMap, Coder, filter_important_files


class Tracked:
    def __init__(self, files):
        self.files = files

    def get_tracked_files(self):
        return list(self.files)


def mentions(coder_cls, root, files, chat, message):
    """`Coder.get_repo_map`'s mentions for one message, from Aider's own methods."""

    class StandIn:
        get_rel_fname = coder_cls.get_rel_fname
        get_inchat_relative_files = coder_cls.get_inchat_relative_files
        get_all_relative_files = coder_cls.get_all_relative_files
        get_addable_relative_files = coder_cls.get_addable_relative_files

    coder = StandIn()
    coder.root = root
    coder.repo = Tracked(files)
    coder.abs_fnames = {os.path.join(root, c) for c in chat}
    coder.abs_read_only_fnames = set()
    text = message + "\n"
    fnames = coder_cls.get_file_mentions(coder, text)
    idents = coder_cls.get_ident_mentions(coder, text)
    fnames.update(coder_cls.get_ident_filename_matches(coder, idents))
    return fnames, idents


def ranked_order(rm, other_rel, important):
    """The file order of the list Aider's budget search walks."""
    ranked = rm.last_ranked or []
    named = set(tag[0] for tag in ranked)
    order = [fn for fn in important(sorted(set(other_rel))) if fn not in named]
    seen = set(order)
    for tag in ranked:
        if tag[0] not in seen:
            seen.add(tag[0])
            order.append(tag[0])
    return order


def answer(state, request):
    encoding, repomap_cls, coder_cls, important, maps = state
    root = request["root"]
    rm = maps.get(root)
    if rm is None:
        rm = repomap_cls(root=root, main_model=Model(encoding), io=QuietIO())
        maps[root] = rm
    chat_rel = request["chat"]
    chat_set = set(chat_rel)
    other_rel = [f for f in request["files"] if f not in chat_set]
    fnames, idents = mentions(coder_cls, root, request["files"], chat_rel, request["message"])
    chat = [os.path.join(root, f) for f in chat_rel]
    other = [os.path.join(root, f) for f in other_rel]
    out = {"mentions": {"files": sorted(fnames), "idents": sorted(idents)}, "maps": []}
    for budget in request["budgets"]:
        rm.max_map_tokens = budget
        rm.last_ranked = None
        start = time.perf_counter()
        text = rm.get_repo_map(chat, other, set(fnames), set(idents), force_refresh=True)
        seconds = time.perf_counter() - start
        out["maps"].append({"budget": budget, "text": text or "", "seconds": seconds})
        out["order"] = ranked_order(rm, other_rel, important)
    return out


def main():
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # whatever Aider prints goes to stderr
    encoding, repomap_cls, coder_cls, important = load()
    state = (encoding, repomap_cls, coder_cls, important, {})
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(state, json.loads(line))
        real_stdout.write(json.dumps(reply, ensure_ascii=False) + "\n")
        real_stdout.flush()


if __name__ == "__main__":
    main()
