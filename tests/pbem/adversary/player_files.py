"""The cheating players' catalogue, part 2: files that are not what they say
(a FIFO, a folder, dangling or device links, a sparse multi-gigabyte file, JSON
nested past any parser's stack) and files or names that carry terminal escapes.
Each must be refused in one line (exit 2, the store as it was), and nothing of
it may reach the host's terminal (:func:`adversary.inbox.send` checks that).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from adversary.honest import Mail
from adversary.host_tools import resign, write_json
from adversary.inbox import send
from adversary.judge import PlayerReceived

ESC = "\x1b]0;pwned\x07\x1b[2J\x1b[31m"
"""A title change, a clear screen and a colour: what a cheater would like the host's terminal to run."""


def _make(kind: str, mail: Mail, cheater: str) -> Path:
    """The cheater's file of ``kind``, in a folder of his (not yet sent)."""
    folder = mail.root / "mallory-files"
    folder.mkdir(exist_ok=True)
    path = folder / f"{mail.gid}-seq1-{cheater}-{kind}.json"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "dangling_link":
        path.symlink_to(folder / "nowhere.json")
    elif kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse_huge":
        with path.open("wb") as f:
            f.truncate(3 * 2**30)  # 3 GiB of holes: nothing is written, a whole read would be
    elif kind == "nested":
        path.write_text('{"format": "citylog-move/3", "commands": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif kind == "escape_in_name":
        own = json.loads(mail.join_file(cheater).read_bytes())
        path = folder / f"{mail.gid}-{ESC}-move.json"
        write_json(path, own)
    elif kind == "escape_in_fields":
        own = json.loads(mail.join_file(cheater).read_bytes())
        forged = resign({**own, "player": cheater + ESC, "game_id": mail.gid + ESC}, mail.players[cheater].key(),
                        "join")
        write_json(path, forged)
    else:
        raise ValueError(kind)
    return path


def _not_a_file(kind: str) -> Callable[[Mail, int], PlayerReceived]:
    def attack(mail: Mail, at: int) -> PlayerReceived:
        mail.start(at)
        cheater = list(mail.players)[-1]
        cheat = send(mail, _make(kind, mail, cheater))
        mail.play()
        return PlayerReceived({p: f for p, f in mail.finals().items() if p != cheater}, cheats=[cheat],
                              cheater=cheater)

    attack.__doc__ = f"A player sends the host a {kind.replace('_', ' ')} named like a move file: refused in one line."
    return attack


KINDS = ("fifo", "directory", "dangling_link", "dev_zero", "sparse_huge", "nested", "escape_in_name",
         "escape_in_fields")
ATTACKS = {f"file_{k}": _not_a_file(k) for k in KINDS}
