"""A player's record of the positions she signed a move at [CL-S17].

Law: a player's tools never sign two different moves for one position — one
game, one seat (her player and key), one seq of her view — unless she says so
(``--replace-answered``).  Two signed moves at one position let a dishonest host
apply whichever it likes (both carry her signature, and ``verify`` is content
with either); an unsigned refusal, a lost mail or a careless second ``move`` is
all it takes to get the second.  The same move again (the same commands against
the same line) is the same file — a signature is deterministic — and is fine.
A later view is the same decision too while a move she made before is not shown
applied there and would still land (:func:`still_pending`: the seat's decision
commutes with what came after, as in Card City's construction, CL-S3), and an
older view than one she signed a move on is refused (:func:`answered_later`).

The record is a file beside her keys (``keys/answered.jsonl``), one JSON line a
signed move: ``{"game_id", "player", "public_key", "seq", "hash", "move",
"commands", "replaces"}`` (``move``: the SHA-256 of what the signature covers).
``move``/``play`` on a view, the TUI (:func:`cli.movefile.write_move_file`, the one
writer) check and write it holding its lock, so two terminals at once are taken
in turn and the second, a different move, is refused; the mail agent reads it
before it queues a move file (``cli.post.agent``), so a file made by other means
at a position she answered is not sent.  The lines are read and written as
``keys/revealed.jsonl``'s are (:mod:`cli.reveals`, CL-S16).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from events import statements
from events.service import ServiceError
from events.statements import MoveFile

RECORD = "answered.jsonl"
REPLACE_FLAG = "--replace-answered"


@dataclass(frozen=True)
class Answer:
    """One signed move of the record."""

    seq: int
    move: str
    commands: tuple[str, ...]
    replaces: bool
    genesis: str | None = None


def move_digest(mf: MoveFile) -> str:
    """What identifies a move: the SHA-256 of what its signature covers (the position,
    its line's hash, the commands, the key)."""
    return hashlib.sha256(json.dumps(statements.body(mf), sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def view_genesis(log: Any) -> str:
    """The genesis of the chain a view's lines are on: its header's, once each line is
    checked to chain from it.  A move signs the hash of its view's last line, so that
    line's chain — not what the header says — is the game it lands on; a view whose
    header names another genesis than its lines start from (a host re-heading the real
    chain as "another game that had this id") would record a move under a genesis it
    does not land in, and a second move on the real view would not be refused.
    ServiceError (one line) for such a view: nothing is signed on it [CL-S17]."""
    from events.envelope import genesis_hash
    from replay.logfile import first_bad_line

    bad = first_bad_line(log)
    if bad is not None:
        raise ServiceError(f"the view's line {bad[0]} does not chain from the genesis its header names ({bad[1]}): "
                           f"its game is not the one it claims, and nothing is signed on it [CL-S17]")
    return genesis_hash(log.header.definition)


def answers(folder: Path, mf: MoveFile, genesis: str | None = None) -> list[Answer]:
    """The moves recorded in ``folder`` at ``mf``'s position (its game, player, key and seq)."""
    return answers_at(folder, mf.game_id, mf.player, mf.public_key, mf.seq, genesis)


def answers_at(folder: Path, game_id: str, player: str, public_key: str, seq: int | None,
               genesis: str | None = None) -> list[Answer]:
    """The moves recorded in ``folder`` at one position (``seq`` None: at every seq).
    ``genesis``: the game's genesis hash, where the caller knows it; a move recorded
    with another one was signed in another game that had this id (after a restart),
    on a chain nothing signed here lands on, so it is no answer here.  A record
    without one (older lines) counts, as it may be this game's."""
    from cli.reveals import read_record

    out = []
    for item in read_record(folder / RECORD, "record of your moves", "no move is signed or sent without it [CL-S17]"):
        if (item.get("game_id"), item.get("player"), item.get("public_key")) != (game_id, player, public_key):
            continue
        at = item.get("seq")
        if not isinstance(at, int) or seq is not None and at != seq:
            continue
        commands = item.get("commands")
        signed_in = item.get("genesis")
        if genesis is not None and isinstance(signed_in, str) and signed_in != genesis:
            continue
        out.append(Answer(at, str(item.get("move", "")),
                          tuple(str(c) for c in commands) if isinstance(commands, list) else (),
                          bool(item.get("replaces")),
                          signed_in if isinstance(signed_in, str) else None))
    return out


def still_pending(folder: Path, game_id: str, player: str, public_key: str, log: Any, game: Any,
                  states: list[Any], seat: int) -> Answer | None:
    """A move she signed at an earlier seq of this game that her view ``log`` does not
    show applied and that would still land now: her decision there commutes with what
    came after (a seat's key then and now are equal, as the host checks, CL-S3), so
    the host may apply it yet — and a move made on this view would be a second one
    for the same decision (a view a dishonest host sent while holding the first)."""
    seq = log.lines[-1].seq if log.lines else 0
    later = answered_later(folder, game_id, player, public_key, log, seq)
    if later is not None:
        return later
    if not states:
        return None
    now = game.decision_key(game.view(states[-1], seat), seat)
    if now is None:
        return None
    applied = {line.signed.get("seq") for line in log.lines
               if line.signed and line.signed.get("player") == player
               and str(line.signed.get("format", "")).startswith("citylog-move")}
    index = {line.seq: i for i, line in enumerate(log.lines)}
    for a in answers_at(folder, game_id, player, public_key, None, view_genesis(log)):
        if a.seq >= seq or a.seq in applied or a.seq not in index:
            continue
        if game.decision_key(game.view(states[index[a.seq]], seat), seat) == now:
            return a
    return None


def answered_later(folder: Path, game_id: str, player: str, public_key: str, log: Any, seq: int) -> Answer | None:
    """A move she signed at a later seq of this game than her view ``log`` (at ``seq``)
    shows: the view is older than one she answered (a host sending it again, a view
    file kept).  Whether her decision here is the one that move answers, an older view
    cannot tell; if it is, the move commutes with what came between and lands too, so
    a move made here would be a second one for one decision.  A record of another game
    that had this id (another genesis: nothing signed there lands on this chain) is
    not counted."""
    for a in answers_at(folder, game_id, player, public_key, None, view_genesis(log)):
        if a.seq > seq:
            return a
    return None


def pending_refusal(game_id: str, player: str, before: Answer, seq: int, where: str = "nothing written") -> str:
    """The one line that refuses a move for a decision a move not yet applied answers."""
    if before.seq > seq:
        return (f"{player} signed a move at seq {before.seq} of game {game_id} already "
                f"('{'; '.join(before.commands)}'), later than this view (seq {seq}): on an older view a move "
                f"for the decision it answers is a second one, and a dishonest host may apply either of the two "
                f"[CL-S17]: {where} ({REPLACE_FLAG} signs it anyway, at that risk)")
    return (f"{player} signed a move at seq {before.seq} of game {game_id} ('{'; '.join(before.commands)}') that "
            f"this view (seq {seq}) does not show applied, and that still fits this position: a second move for "
            f"one decision lets a dishonest host apply either of the two [CL-S17]: {where} "
            f"({REPLACE_FLAG} signs it anyway, at that risk)")


def refusal(mf: MoveFile, before: Answer, where: str = "") -> str:
    """The one line that refuses a second, different move at ``mf``'s position."""
    return refused_at(mf.game_id, mf.player, before, where)


def refused_at(game_id: str, player: str, before: Answer, where: str = "") -> str:
    """The one line that refuses a second, different move where ``before`` was signed."""
    return (f"{player} signed a move at seq {before.seq} of game {game_id} already ('{'; '.join(before.commands)}'); "
            f"a second, different move at one position lets a dishonest host apply either of the two [CL-S17]: "
            f"{where or 'nothing written'} ({REPLACE_FLAG} signs it anyway, at that risk)")


def check(folder: Path, mf: MoveFile, replace: bool, genesis: str | None = None) -> bool:
    """Whether ``mf`` is a new move at its position (to record); False if it is the
    same move again.  ServiceError (one line) if a different move was signed there
    and ``replace`` is not given.  ``genesis``: its game's (:func:`answers_at`)."""
    digest = move_digest(mf)
    found = answers(folder, mf, genesis)
    if any(a.move == digest for a in found):
        return False
    if found and not replace:
        raise ServiceError(refusal(mf, found[0]))
    return True


@contextlib.contextmanager
def held(folder: Path) -> Iterator[None]:
    """The record's lock (``answered.jsonl.lock``): a check and its record are one step."""
    from cli.locks import held as lock

    folder.mkdir(parents=True, exist_ok=True)
    with lock(folder / (RECORD + ".lock"), 60, "another command has held the record of your moves"):
        yield


def record(folder: Path, mf: MoveFile, replaces: bool, genesis: str | None = None) -> None:
    """Add ``mf`` to the record (hold :func:`held`, after :func:`check`); ``genesis``:
    its game's genesis hash (the chain it was signed on starts there)."""
    from cli.reveals import append_record

    append_record(folder / RECORD, {
        "game_id": mf.game_id, "player": mf.player, "public_key": mf.public_key, "seq": mf.seq, "hash": mf.hash,
        "move": move_digest(mf), "commands": list(mf.commands), "replaces": replaces,
        **({"genesis": genesis} if genesis else {})})


def refused_to_send(folder: Path, mf: MoveFile, queued: list[MoveFile], genesis: str | None = None) -> str | None:
    """The mail agent's backstop: why ``mf`` (a move file found in its queue) must not be
    sent, or None.  ``queued``: the moves the agent queued at its position before.  The
    same move again is fine; a different move at a position answered (in the agent's
    ledger or in the record of her moves) goes only if her tools recorded it as a
    replacement she chose (``--replace-answered``).  ``genesis``: the game's, as the
    agent's newest view of it says (:func:`answers_at`), None if it holds none."""
    digest = move_digest(mf)
    if any(move_digest(q) == digest for q in queued):
        return None
    found = answers(folder, mf, genesis)
    if any(a.move == digest and a.replaces for a in found):
        return None  # a replacement she chose, at that risk
    others = [Answer(q.seq, move_digest(q), q.commands, False) for q in queued] + \
        [a for a in found if a.move != digest]
    if not others:
        return None  # the first move at its position
    return refusal(mf, others[0], "not sent; the file is kept in the queue's 'refused'")
