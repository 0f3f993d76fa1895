"""A player's record of the games she joined [CL-S18].

Law: her tools never join two different games under one game id with one key
(another genesis: another seed commitment, definition or host) unless she says
so (``--replace-joined``).  A game id is what players, notes and reminders name a
game by; a host that holds her joins of two games under one id can play both
and present either as "the game", each with its deal proven.  The mail agent
answers one invitation per game id and host key; ``citylog join`` by hand had no
memory at all.

The record is a file beside her keys (``keys/joined.jsonl``), one JSON line a
join: ``{"game_id", "player", "public_key", "genesis", "replaces"}``, read and
written as ``keys/revealed.jsonl``'s are (:mod:`cli.reveals`, CL-S16): the check
and the line are one step, holding ``joined.jsonl.lock``, and the line is written
before the join file (or mail), so a crash between leaves no join she has no
record of.  The same game again (the same genesis) is fine: a join is
deterministic, and answering an invitation twice makes the same file.
"""

from __future__ import annotations

from pathlib import Path

from events.service import ServiceError

RECORD = "joined.jsonl"
REPLACE_FLAG = "--replace-joined"


def genesis_joined(folder: Path, game_id: str, player: str, public_key: str) -> list[str]:
    """The geneses of the games under ``game_id`` this key joined as ``player``, in order."""
    from cli.reveals import read_record

    out: list[str] = []
    for item in read_record(folder / RECORD, "record of your joins", "no join is made without it [CL-S18]"):
        if (item.get("game_id"), item.get("player"), item.get("public_key")) == (game_id, player, public_key):
            genesis = item.get("genesis")
            if isinstance(genesis, str) and genesis not in out:
                out.append(genesis)
    return out


def record_join(folder: Path, game_id: str, player: str, public_key: str, genesis: str, replace: bool) -> None:
    """Check, then record, that this key joins game ``game_id`` of ``genesis`` as
    ``player``: ServiceError (one line, nothing recorded) if it joined another game
    under that id before and ``replace`` is not given.  Call it before the join is
    written or sent."""
    from cli.locks import held
    from cli.reveals import append_record

    folder.mkdir(parents=True, exist_ok=True)
    with held(folder / (RECORD + ".lock"), 60, "another command has held the record of your joins"):
        before = genesis_joined(folder, game_id, player, public_key)
        if genesis in before:
            return
        if before and not replace:
            raise ServiceError(
                f"{player} joined another game under the id {game_id} already (genesis {before[0][:12]}…, this "
                f"one {genesis[:12]}…): a host holding your joins of two games under one id can play both and "
                f"show you either as the game [CL-S18]; nothing written ({REPLACE_FLAG} joins it anyway, if your "
                f"host restarted the game)")
        append_record(folder / RECORD, {"game_id": game_id, "player": player, "public_key": public_key,
                                        "genesis": genesis, "replaces": bool(before)})
