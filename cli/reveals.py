"""The player's side of committed entropy: no join shows its entropy [CL-S15], and
a commitment is opened at one position only [CL-S12].

A player's record of the positions she revealed her entropy at [CL-S12].

Her entropy and salt for a game derive from her key and the game's genesis
(:func:`events.statements.join_entropy`), so every game of one genesis — the one
she joined, or a re-run of it the host made from a backup of its database, with
her old join replayed — commits her to the same entropy.  Once she revealed it,
the host knows it; a re-run in which the host's own seat joins after that could
choose the deal.  Law: a player opens her commitment of a game (her key, its
genesis) at one position only, the position after the last join that she first
revealed at; asked at another (the joins were re-run), she refuses.  The same
position again is harmless (the same commitments are chained before it), and
makes the same file.

The record is a file beside her keys (``keys/revealed.jsonl``), one JSON line
per reveal: ``{"genesis", "public_key", "seq", "hash"}``; ``citylog reveal`` and
the mail agent both read and write it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from events.service import ServiceError
from events.signing import same_hex

RECORD = "revealed.jsonl"

MAX_RECORD = 16 << 20
"""A record longer than this is refused unread (a reveal a game: ~250 bytes a line)."""


def read_record(path: Path, what: str = "record of your reveals",
                after: str = "no reveal is made without the record of your reveals [CL-S12]") -> list[dict[str, object]]:
    """The JSON objects of a record of lines (a missing record: none); a line cut by a
    crash is skipped alone [CL-S16].  ServiceError (one line) if it cannot be read."""
    from replay.bounded import FileRefused, read_regular

    if not os.path.lexists(path):
        return []
    try:
        text = read_regular(path, MAX_RECORD, what).decode("utf-8")
    except (FileRefused, UnicodeDecodeError) as exc:
        raise ServiceError(f"{exc}; {after}") from None
    out = []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash: what it named was not sent
        if isinstance(item, dict):
            out.append(item)
    return out


def _lines(path: Path) -> list[dict[str, object]]:
    return read_record(path)


def append_record(path: Path, item: dict[str, object]) -> None:
    """Add ``item`` as a line of its own (after a newline when a crash cut the last
    one), durably [CL-S16]."""
    line = json.dumps(item, sort_keys=True) + "\n"
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = "\n" + line  # [CL-S16] the cut line stays a line of its own, skipped
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def record_reveal(folder: Path, game_id: str, genesis: str, public_key: str, seq: int, head: str) -> None:
    """Check, then record, that this key reveals its entropy of ``genesis`` at
    (``seq``, ``head``): ServiceError (one line, nothing recorded) if it revealed
    it at another position before [CL-S12].  Call it before the reveal is written
    or sent.

    [CL-S16] The check and the record are one step: both are made holding the
    record's lock (``revealed.jsonl.lock``), so two reveals at once (the mail
    agent and ``citylog reveal``, two agents of one data directory) never both
    pass the check at two positions; and the line is written on a line of its
    own (after a newline when a crash cut the last one), so a cut line never
    swallows the next record."""
    from cli.locks import held

    path = folder / RECORD
    folder.mkdir(parents=True, exist_ok=True)
    with held(folder / (RECORD + ".lock"), 60, "another reveal has held the record of your reveals"):
        for item in _lines(path):
            if item.get("genesis") != genesis or item.get("public_key") != public_key:
                continue
            if item.get("seq") == seq and isinstance(item.get("hash"), str) and same_hex(str(item["hash"]), head, 64):
                return  # the same position: the same file, harmless
            raise ServiceError(
                f"you revealed your entropy of game {game_id} (genesis {genesis[:12]}…) at seq {item.get('seq')} "
                f"already; asked again at another position (seq {seq}, {head[:12]}…), the host re-ran the "
                "game's joins after seeing it and could choose the deal: no reveal is made (ask for a new game) [CL-S12]"
            )
        append_record(path, {"genesis": genesis, "public_key": public_key, "seq": seq, "hash": head})


def refuse_clear_entropy(definition: Any, what: str) -> None:
    """[CL-S15] No join citylog makes shows its entropy.  A game whose definition
    says its joins carry their entropy in the clear (``citylog-join/2``, the scheme
    of games made before CL-S7) lets the host read every join before its own seat
    (a puppet no player can tell apart) joins with an entropy ground against them:
    the host would choose the deal, and every ``verify`` would call it proven.  The
    host writes the definition, so the player's side refuses: ServiceError."""
    from core.chance import COMMITTED_ENTROPY

    if definition.entropy != COMMITTED_ENTROPY:
        raise ServiceError(
            f"{what} is to a game whose joins show their entropy in the clear (citylog-join/2): the host "
            "could read yours and choose the deal; citylog joins only games whose joins commit to their "
            "entropy (ask the host for a new game) [CL-S15]"
        )
