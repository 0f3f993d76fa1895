"""The host's inbox: ``citylog inbox DIR`` applies every move, join and reveal
file in DIR, and what the other commands share of it.

Joins first, then reveals, then moves by position and seat; files of seats
acting at once wait until all are in.  Each file is moved to DIR/applied or
DIR/refused in the step that records it; runs on one DIR take turns
(``DIR/.citylog-inbox.lock``).  ``apply`` (:mod:`cli.mail`) applies one file as
the inbox does (:func:`apply_file`); ``timeout --inbox`` and the mail agent's
deadlines count a seat answered only by a file of hers the host would apply now
(:func:`held_players`, [CL-S9]); the mail agent (:mod:`cli.post.host_side`)
applies the folder it saves attachments into with :func:`_inbox`.  The command
is registered by :mod:`cli.mail` with the other play-by-email commands.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from cli.context import service
from cli.inputs import check_statement
from cli.output import emit_json, say
from events import statements
from events.limits import FieldTooLong
from events.service import GameService, ServiceError, StaleMove
from events.statements import (
    CommittedJoin,
    HandOver,
    Invite,
    JoinFile,
    MoveFile,
    StatementError,
    Reveal,
)
from events.store import GameNotFound
from replay.bounded import FileRefused, entries, read_regular

INBOX_LOCK = ".citylog-inbox.lock"
"""The lock file ``inbox`` holds in DIR while it works: two runs on one folder
take turns (the second finds the files the first handled gone)."""
LOCK_WAIT = 60.0
"""Seconds an ``inbox`` run waits for another run on the same folder (then exit 4)."""
MAX_STATEMENT = 1 << 20
"""A move, join or invitation file longer than this (1 MiB) is refused unread."""


def inbox(
    ctx: typer.Context,
    folder: Annotated[Path, typer.Argument(metavar="DIR")],
    json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """Apply every move and join file in DIR.

    Joins first, then moves by position and seat; files of seats acting at
    once wait until all are in (the log does not depend on the order they
    arrived).  Handled files move to DIR/applied or DIR/refused.

    Each file is moved to DIR/applied in the same transaction that records it
    (the database is unchanged if it cannot be moved); runs on one DIR take
    turns; a file another run handled meanwhile is left to it.

    \b
    Example:
      citylog inbox in/
    """
    if not folder.is_dir():
        raise ServiceError(f"no directory {folder}")
    for where in ("applied", "refused"):  # checked before anything is applied
        _prepare(folder / where)
    svc = service(ctx)
    with _folder_lock(folder):
        failed = _inbox(svc, folder, json)
    if failed:
        raise typer.Exit(2)


def _inbox(svc: GameService, folder: Path, json: bool) -> int:
    found: list[tuple[Path, statements.Statement | None, str]] = []
    for path in entries(folder, ".json"):
        try:
            data = read_regular(path, MAX_STATEMENT, "move or join file")
        except FileRefused as exc:
            if not os.path.lexists(path):
                continue  # handled by another run meanwhile
            found.append((path, None, str(exc)))
            continue
        try:
            decoded = statements.decode(data, path.name)
            check_statement(decoded, path.name)
            found.append((path, decoded, ""))
        except (StatementError, FieldTooLong) as exc:
            found.append((path, None, str(exc)))
    failed = 0

    def order(item: tuple[Path, Any, str]) -> tuple[int, int, int, str]:
        path, st, _ = item
        if isinstance(st, (JoinFile, CommittedJoin)):
            return (0, 0, 0, path.name)
        if isinstance(st, Reveal):  # after the joins: a reveal needs every seat joined [CL-S7]
            return (0, 1, 0, path.name)
        if isinstance(st, MoveFile):
            players = _players(svc, st.game_id)
            seat = players.index(st.player) if st.player in players else 99
            return (1, st.seq, seat, path.name)
        return (2, 0, 0, path.name)

    pending = sorted(found, key=order)
    present = {(st.game_id, st.player) for _, st, _ in pending if isinstance(st, MoveFile)}
    for path, st, problem in pending:
        if st is None or isinstance(st, Invite):
            if _aside(path, "refused") is not None:
                _tell(json, path, "refused", problem or "an invitation is for a player, not the host")
                failed += 1
            continue
        if isinstance(st, MoveFile):
            waiting = _waiting_for(svc, st, present)
            if waiting:
                _tell(json, path, "held", f"waiting for {', '.join(waiting)} (they act at the same time)")
                continue
        if _recorded(svc, st):  # recorded by an earlier or a concurrent run: never applied twice
            if _aside(path, "applied") is not None:
                _tell(json, path, "applied", "already recorded")
            continue
        try:
            written = _apply_and_file(svc, st, path)
        except _Vanished:
            continue  # another run took the file; what this run did is rolled back
        except StaleMove as exc:
            if _aside(path, "refused") is not None:
                _tell(json, path, "stale", str(exc))
                failed += 1
            continue
        except (ServiceError, ValueError, GameNotFound) as exc:
            # a file naming a game this store does not hold is refused like any
            # other: no file can stop the run, or stall the inbox for every later run
            if _aside(path, "refused") is not None:
                _tell(json, path, "refused", _refusal(exc))
                failed += 1
            continue
        _mark_clock(svc, st.game_id)
        _tell(json, path, "applied", _seqs(written[0].seq, written[-1].seq) if written else "nothing new")
    if not found and not json:
        say("inbox empty")
    if not json:
        _say_reveals(svc, {st.game_id for _, st, _ in pending if st is not None})
    return failed


def _say_reveals(svc: GameService, games: set[str]) -> None:
    """Who must still reveal, in each game the run touched that waits for reveals [CL-S7]."""
    for game_id in sorted(games):
        try:
            loaded = svc.load(game_id)
        except Exception:  # noqa: BLE001 - an unknown game was refused above
            continue
        waiting = svc.waiting_to_reveal(loaded)
        if waiting:
            say(f"game {game_id}: waiting for {', '.join(waiting)} to reveal the entropy committed at the join "
                f"('citylog outbox {game_id} DIR' sends the views asking for it) [CL-S7]")


def _refusal(exc: Exception) -> str:
    """Why a file was refused, in one line."""
    if isinstance(exc, GameNotFound):
        return f"no game {exc.game_id!r} in this store (the file names another host's game, or none)"
    return str(exc)


def _apply_and_file(svc: GameService, st: statements.Statement, path: Path) -> list[Any]:
    """Apply ``st`` and move its file to DIR/applied in one step: the move is
    made inside the transaction (so a failed move undoes the apply), and a
    failed commit puts the file back (so the folder never says applied for
    what the database did not record)."""
    moved: Path | None = None
    try:
        with svc.store.transaction():
            written = apply_file(svc, st)
            moved = _aside(path, "applied")
            if moved is None:
                raise _Vanished
    except BaseException:
        if moved is not None:  # the commit failed: nothing recorded, the file goes back
            os.rename(moved, path)
        raise
    return written


class _Vanished(Exception):
    """The file being applied was taken by another run: undo this run's apply."""


def apply_file(svc: GameService, st: statements.Statement) -> list[Any]:
    if isinstance(st, (JoinFile, CommittedJoin)):
        return svc.join(st)
    if isinstance(st, Reveal):
        return svc.reveal(st)
    if isinstance(st, MoveFile):
        return svc.submit_move(st)
    if isinstance(st, HandOver):
        return svc.hand_over(st)
    raise ServiceError("an invitation is for a player to answer with 'citylog join'")


def _mark_clock(svc: GameService, game_id: str) -> None:
    """The host's clock: when it saw the game's new last line (issue 24, deadlines)."""
    from events.deadlines import mark

    with contextlib.suppress(Exception):  # a clock note never stops an apply
        mark(svc, game_id, time.time())


def _recorded(svc: GameService, st: statements.Statement) -> bool:
    """The very statement (its one canonical encoding, signature included) is
    already in its game's signed record: applied by an earlier or a concurrent
    run.  A file differing in anything, signature or content, is not."""
    try:
        rows = svc.store.signed(st.game_id).values()
    except Exception:  # noqa: BLE001 - an unknown game is refused when applied
        return False
    return statements.encode(st) in rows


def _prepare(target: Path) -> None:
    """A one-line refusal before anything is applied if ``target`` (made when
    first needed) cannot be the directory handled files move into."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ServiceError(f"{target} is not a directory; handled files cannot be moved there (nothing applied)")


def _folder_lock(folder: Path) -> contextlib.AbstractContextManager[None]:
    """Hold DIR's inbox lock (DIR/.citylog-inbox.lock); wait for another run up to
    ``LOCK_WAIT`` seconds, then exit 4."""
    from cli.locks import held

    return held(folder / INBOX_LOCK, LOCK_WAIT, f"another 'citylog inbox' has held {folder}")


def _players(svc: GameService, game_id: str) -> tuple[str, ...]:
    try:
        return svc.store.get_game(game_id).players
    except Exception:  # noqa: BLE001 - an unknown game is refused when applied
        return ()


def _waiting_for(svc: GameService, mv: MoveFile, present: set[tuple[str, str]]) -> list[str]:
    """Players whose files must come in before ``mv`` applies (none when it would be refused)."""
    try:
        players = svc.load(mv.game_id).players
        others = svc.holds_move(mv)
    except Exception:  # noqa: BLE001 - refused with its reason when applied
        return []
    return [players[s] for s in others if (mv.game_id, players[s]) not in present]


def _aside(path: Path, where: str) -> Path | None:
    """Move ``path`` into DIR/``where`` (a rename, never a copy: a FIFO or a
    link is moved as it is); where it went, None if it is gone (another run took it).
    An ``OSError`` other than that is raised (the caller's transaction undoes
    what it recorded)."""
    target = path.parent / where
    target.mkdir(exist_ok=True)  # checked by _prepare before the run
    stem, suffix = path.stem, path.suffix
    for n in range(10_000):
        dest = target / (path.name if n == 0 else f"{stem}.{n}{suffix}")
        if os.path.lexists(dest):
            continue
        try:
            os.link(path, dest, follow_symlinks=False)  # fails if dest exists: no overwrite race
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None
        except OSError:  # no hard links here (a directory, another file system)
            if not os.path.lexists(path):
                return None
            os.rename(path, dest)
            return dest
        try:
            os.unlink(path)
        except FileNotFoundError:  # another run moved it meanwhile and kept its own copy
            os.unlink(dest)
            return None
        return dest
    raise ServiceError(f"{target}: too many files named like {path.name}")


def _tell(json: bool, path: Path, outcome: str, why: str) -> None:
    if json:
        emit_json({"file": path.name, "outcome": outcome, "why": why})
    else:
        say(f"{path.name}: {outcome} — {why}")


def held_players(folder: Path, game_id: str, svc: Any) -> set[str]:
    """Players with a move file for ``game_id`` waiting in ``folder`` (an inbox) that
    the host would apply now (``svc``'s admission accepts it).

    [CL-S9] Law: a seat is spared its timeout only by a file of hers the host would
    apply now.  A file naming her that would be refused — signed by another key,
    stale, a replay — is no answer: counted, it would spare a silent seat for ever
    (nothing is applied when no one is timed out, so it would never leave the inbox),
    and anyone can write one."""
    if not folder.is_dir():
        raise ServiceError(f"no directory {folder}")
    out: set[str] = set()
    for path in entries(folder, ".json"):
        try:
            st = statements.decode(read_regular(path, MAX_STATEMENT, "move file"), path.name)
        except (FileRefused, StatementError):
            continue
        if isinstance(st, MoveFile) and st.game_id == game_id and st.player not in out and _admissible(svc, st):
            out.add(st.player)
    return out


def _admissible(svc: Any, mv: MoveFile) -> bool:
    """Whether the host would apply ``mv`` now (its signature, position, first use) [CL-S9]."""
    try:
        svc.admission.admit_move(mv)
    except Exception:  # noqa: BLE001 - any refusal: not an answer
        return False
    return True


def _seqs(first: int, last: int) -> str:
    """``seq 5`` for one event, ``seqs 6–9`` for several.

    >>> _seqs(5, 5), _seqs(6, 9)
    ('seq 5', 'seqs 6–9')
    """
    return f"seq {first}" if first == last else f"seqs {first}–{last}"
