"""Aider 0.86.2's own mention methods on a fixture's messages (issue 15's harness).

    python aider_mentions.py FIXTURE.json OUT.json

For each message, a stand-in for `Coder` (only what the three methods read: the root, the
chat files, the tracked files) runs `Coder.get_file_mentions`, `get_ident_mentions` and
`get_ident_filename_matches`, combined as `Coder.get_repo_map` combines them on the text
`get_cur_message_text` gives for one message. Writes the sorted sets per message.
"""

import json
import sys

from aider.coders.base_coder import Coder

ROOT = "/repo"


class Tracked:
    def __init__(self, files):
        self.files = files

    def get_tracked_files(self):
        return list(self.files)


class StandIn:
    """The attributes of `Coder` the three methods reach."""

    def __init__(self, files, chat):
        self.root = ROOT
        self.repo = Tracked(files)
        self.abs_fnames = {f"{ROOT}/{c}" for c in chat}
        self.abs_read_only_fnames = set()

    get_rel_fname = Coder.get_rel_fname
    get_inchat_relative_files = Coder.get_inchat_relative_files
    get_all_relative_files = Coder.get_all_relative_files
    get_addable_relative_files = Coder.get_addable_relative_files


def mentions(files, message):
    coder = StandIn(files, message["chat"])
    text = message["text"] + "\n"
    fnames = Coder.get_file_mentions(coder, text)
    idents = Coder.get_ident_mentions(coder, text)
    fnames.update(Coder.get_ident_filename_matches(coder, idents))
    return {"files": sorted(fnames), "idents": sorted(idents)}


def main():
    fixture_path, out_path = sys.argv[1:3]
    with open(fixture_path, encoding="utf-8") as f:
        fixture = json.load(f)
    out = [mentions(fixture["files"], m) for m in fixture["messages"]]
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False)


main()
