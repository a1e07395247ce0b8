"""Builds a fixture for the mention harness (issue 15) from a git repository's history.

    python3 xtask/python/mentions_fixture.py REPO_DIR NAME LICENSE COUNT OUT.json

Takes COUNT commits spread evenly over the history (merges included: their messages are
pull-request descriptions), each with its whole message and the files it changed that
exist at HEAD; every other message keeps those files as the chat files, the rest have
none. The file list is HEAD's. Run once by hand; the fixture is committed.
"""

import json
import subprocess
import sys


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout


def main():
    repo, name, licence, count, out = sys.argv[1:6]
    count = int(count)
    head = git(repo, "rev-parse", "HEAD").strip()
    files = sorted(git(repo, "ls-tree", "-r", "--name-only", "HEAD").splitlines())
    at_head = set(files)
    commits = git(repo, "rev-list", "HEAD").split()
    step = max(1, len(commits) // count)
    messages = []
    for i, sha in enumerate(commits[::step][:count]):
        text = git(repo, "log", "-1", "--format=%B", sha).rstrip("\n")
        changed = git(repo, "show", "--format=", "--name-only", "-m", "--first-parent", sha)
        chat = sorted({f for f in changed.splitlines() if f in at_head}) if i % 2 else []
        messages.append({"commit": sha, "text": text, "chat": chat})
    fixture = {
        "name": name,
        "source": f"git history of {name} at {head}",
        "license": licence,
        "files": files,
        "messages": messages,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(fixture, f, indent=1, ensure_ascii=False)
        f.write("\n")


main()
