"""Time stock Aider 0.86.2's repo map, cold then warm, for `cargo xtask bench scale`.

Run with the Python of the parity virtual environment (aider-chat==0.86.2):

    python xtask/python/aider_scale.py ROOT FILES.txt BUDGET RUNS OUT.json

FILES.txt lists the repository's files, relative to ROOT, one per line (the files
repo-mapper's walk found, so both map the same list). Aider's imports and the file list are
outside the timing; `RepoMap.get_repo_map(chat_files=[], other_files=all)` is inside.
"Cold" starts without Aider's tags cache (`ROOT/.aider.tags.cache.v4`, removed first and
after); each warm run is a new `RepoMap` over the cache the cold run wrote, as a new Aider
process would be. Writes {"cold_s": …, "warm_s": [...], "peak_rss_kb": …}.
"""

import json
import resource
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from aider_driver import Model, NoSpinner, QuietIO, setup_tiktoken  # noqa: E402


def one_map(root, files, budget, encoding):
    from aider import repomap

    repomap.Spinner = NoSpinner
    repomap.tqdm = lambda iterable, **kwargs: iterable
    rm = repomap.RepoMap(
        map_tokens=budget, root=str(root), main_model=Model(encoding), io=QuietIO()
    )
    started = time.perf_counter()
    rm.get_repo_map([], files)
    return time.perf_counter() - started


def main(argv):
    root, files_txt, budget, runs, out = argv[1:6]
    root = Path(root)
    files = [str(root / line) for line in Path(files_txt).read_text().splitlines() if line]
    encoding = setup_tiktoken()
    cache = root / ".aider.tags.cache.v4"
    shutil.rmtree(cache, ignore_errors=True)
    try:
        cold = one_map(root, files, int(budget), encoding)
        warm = [one_map(root, files, int(budget), encoding) for _ in range(int(runs))]
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    Path(out).write_text(json.dumps({"cold_s": cold, "warm_s": warm, "peak_rss_kb": peak}))


if __name__ == "__main__":
    main(sys.argv)
