"""Generate the golden maps of `crates/repo-mapper/tests/golden.rs` with the real Aider.

Runs fixed Aider 0.86.2 (the one-line sqrt fix, applied by xtask/python/aider_driver.py) on
each sample repository and scenario RUNS times, each in a fresh process with its own hash
seed. Aider is not deterministic even with the fix: py-tree-sitter returns each capture
group in an order that follows memory addresses, and Aider repeats the last node of every
group (docs/parity.md T1/T2), so a scenario's map can differ from run to run. A scenario
whose RUNS maps are all identical is "stable": its map is written as the expected output
and our aider profile must reproduce it byte for byte. Unstable scenarios are recorded
with the number of distinct maps Aider produced, and are not compared.

    python crates/repo-mapper/tests/gen/gen_golden.py [RUNS]

with the Python of a venv holding aider-chat==0.86.2 (e.g. target/parity/venv/bin/python).
Writes fixtures/golden/<repo>/<scenario>.txt and fixtures/golden/scenarios.json.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TOP = Path(__file__).resolve().parents[4]
DRIVER = TOP / "xtask" / "python" / "aider_driver.py"
GOLDEN = TOP / "fixtures" / "golden"

REPOS = {
    "sample-repo": {"chat": "app/services/checkout.py", "ident": "Order"},
    # The languages whose tag queries find references themselves: for the others Aider
    # backfills references with pygments, which we replace with tree-sitter queries
    # (docs/parity.md T8), so their maps cannot be byte-identical. julia would also abort
    # Aider's whole map (its query does not compile; T4).
    "languages": {"chat": "python/scheduler.py", "ident": "Scheduler",
                  "only": ("csharp/", "elixir/", "go/", "java/", "javascript/", "lua/",
                           "php/", "python/", "ruby/", "rust/", "scala/")},
}
BUDGETS = [256, 1024, 4096]


def repo_files(root):
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if not x.startswith("."))
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), root))
    return sorted(out)


def scenarios(repo):
    spec = REPOS[repo]
    out = []
    for b in BUDGETS:
        out.append({"id": f"nochat-{b}", "max_tokens": b, "max_context_window": None,
                    "chat_files": [], "mentioned_idents": []})
        out.append({"id": f"chat-{b}", "max_tokens": b, "max_context_window": None,
                    "chat_files": [spec["chat"]], "mentioned_idents": [spec["ident"]]})
    out.append({"id": "window-16384", "max_tokens": 1024, "max_context_window": 16384,
                "chat_files": [], "mentioned_idents": []})
    return out


def run_aider(root, files, scens, seed):
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.json"
        out = Path(tmp) / "out.json"
        job.write_text(json.dumps({"comparator": "fixed", "root": str(root), "files": files,
                                   "want_tags": False, "scenarios": scens}))
        env = dict(os.environ, PYTHONHASHSEED=str(seed))
        subprocess.run([sys.executable, str(DRIVER), str(job), str(out)], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        data = json.loads(out.read_text())
    return {s["id"]: (s["map"] or "") for s in data["scenarios"]}


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    index = []
    for repo in REPOS:
        root = TOP / "fixtures" / repo
        only = REPOS[repo].get("only")
        files = [f for f in repo_files(root) if only is None or f.startswith(only)]
        scens = scenarios(repo)
        maps = [run_aider(root, files, scens, seed) for seed in range(1, runs + 1)]
        (GOLDEN / repo).mkdir(parents=True, exist_ok=True)
        for s in scens:
            variants = {m[s["id"]] for m in maps}
            stable = len(variants) == 1
            path = GOLDEN / repo / f"{s['id']}.txt"
            if stable:
                path.write_text(maps[0][s["id"]], encoding="utf-8")
            elif path.exists():
                path.unlink()
            index.append({"repo": repo, **s, "files": files, "stable": stable,
                          "aider_runs": runs, "distinct_aider_maps": len(variants)})
            print(f"{repo:12} {s['id']:14} {'stable' if stable else f'{len(variants)} variants'}")
    (GOLDEN / "scenarios.json").write_text(json.dumps(
        {"comparator": "aider-chat 0.86.2, sqrt fix (xtask/python/aider_driver.py)",
         "tokenizer": "cl100k_base",
         "scenarios": index}, indent=1) + "\n")


if __name__ == "__main__":
    main()
