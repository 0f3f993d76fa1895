"""The host's inbox reading one cheater's file: what it made of it, and whether
its store changed (:func:`send`)."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from pathlib import Path

from adversary.honest import Mail
from adversary.judge import Cheat


def send(mail: Mail, path: Path, along: bool = False) -> Cheat:
    """The host reads an inbox holding only this file (so its effect is its own);
    ``along``: with the honest files now in the inbox (seats that act at the same
    time are applied together); the store is then compared with the one the host
    has after reading the honest files alone.  Files the host holds go back to
    the inbox."""
    folder = mail.root / f"cheat-{len(list(mail.root.glob('cheat-*')))}"
    folder.mkdir()
    moved = folder / path.name
    shutil.move(str(path), moved)
    others = [p for p in mail.inbox.glob("*.json") if p.is_file()] if along else []
    for other in others:
        shutil.move(str(other), folder / other.name)
    before = _without(mail, folder, path.name) if others else mail.dump()
    sent = moved.read_bytes() if others and moved.is_file() and not moved.is_symlink() else b""
    code, out, err = mail.host.run("inbox", str(folder))
    after = mail.dump()
    if others and after != before:
        # the cheat's presence may release an honest file held for its seat (seats acting at
        # once): what must not be in the store is anything recorded from the cheat itself
        kept = mail.sql("SELECT count(*) FROM signed WHERE game_id = ? AND statement = ?", mail.gid, sent)[0][0]
        after = before if not kept else after
    for left in folder.glob("*.json"):
        shutil.move(str(left), mail.inbox / left.name)  # held: the host reads them again later
    refused = os.path.lexists(folder / "refused" / path.name)
    if not refused and not os.path.lexists(folder / "applied" / path.name):
        code = -1  # held, not decided
    text = out + err
    # whatever a file holds or is named, no control sequence of the sender's reaches the host's terminal
    assert not [c for c in text if ord(c) < 32 and c not in "\n\t" or 127 <= ord(c) < 160], (
        f"{path.name!r}: the host's inbox printed a control character: {text!r}")
    return Cheat(path.name, code, before == after, refused, text.strip())


def _without(mail: Mail, folder: Path, cheat: str) -> list[str]:
    """What the host's store would hold after reading ``folder`` without the file
    ``cheat`` (on a copy of the store and of the honest files)."""
    from tests.helpers.pbem import Party, dump

    shadow = Party(folder.parent / f"{folder.name}-without", "host")
    with contextlib.closing(sqlite3.connect(mail.host.db)) as src, contextlib.closing(sqlite3.connect(shadow.db)) as dst:
        src.backup(dst)  # the file alone may miss what its write-ahead log holds
    honest = shadow.home / "in"
    honest.mkdir()
    for other in folder.glob("*.json"):
        if other.name != cheat and other.is_file() and not other.is_symlink():
            shutil.copy(other, honest / other.name)
    shadow.run("inbox", str(honest))
    return dump(shadow.db)
