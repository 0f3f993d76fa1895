"""Logs from the store or from files, export and import.

Commands that read a game (``show``, ``log``, ``diff``, ``verify``) take a game id
or a path to an exported file; :func:`open_log` decides which.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import msgspec

from events.codec import decoder_for
from events.service import GameService, ServiceError
from events.store import GameNotFound, GameRecord, Note, new_game_id
from replay import logfile
from replay import record as text_record
from replay.logfile import FORMAT, Header, LogFile
from replay.trust import Sealer, attach_signed, seal, signed_bytes
from replay.verify import decode_events, verify


def header_of(record: GameRecord, view: str | None = None) -> Header:
    """A referee export has the seed; a player's view has it (and the commitment's
    salt) only once the game is over: the reveal (issue 10)."""
    reveal = view is None or record.status == "over"
    return Header(
        format=FORMAT,
        definition=record.definition,
        game_id=record.id,
        seed=record.seed if reveal else None,
        reseeds=record.reseeds if reveal else (),
        salt=record.salt if reveal else None,
        bots=record.bots,
        parent=record.parent,
        fork_at=record.fork_at,
        view=view,
        status=record.status,
        salted=record.salted,
    )


def export(
    service: GameService, game_id: str, player: str | None = None, sealer: Sealer | None = None
) -> LogFile:
    """The whole log, or ``player``'s view of it (no seed, hidden cards redacted).

    Lines carry the signed move and join files behind them (a view leaves out
    those that would show hidden cards); ``sealer`` (the host's key) seals it.
    """
    loaded = service.load(game_id)
    if player is None:
        log = logfile.from_records(header_of(loaded.record), loaded.records)
    else:
        seat = loaded.seat(player)
        secret = loaded.record.seed if loaded.record.salted else None
        lines = list(logfile.redacted_lines(loaded.records, loaded.events, loaded.game.redact, seat, secret))
        log = LogFile(header_of(loaded.record, loaded.players[seat]), lines)
    if loaded.record.pbem:
        attach_signed(log, service.store.signed(game_id))
        if sealer is not None:
            log.header = seal(log, sealer)
    return log


def view_of(log: LogFile, player: str) -> LogFile:
    """``player``'s view of a full log: line for line what ``export --as`` writes.

    This is the one redaction path: every command that takes ``--as P`` reads
    P's view through it (from the store or from a full file), or reads P's
    exported file itself, so what it prints is computable from P's file alone.
    """
    h = log.header
    players = h.definition.players
    if h.view is not None:
        if player != h.view:
            raise ServiceError(f"this file is {h.view}'s view; it cannot show what {player} sees")
        return log
    if player not in players:
        raise ServiceError(f"no player {player!r} (players: {', '.join(players)})")
    decoded = decode_events(log)
    if not isinstance(decoded, tuple):
        raise ServiceError(decoded.message("log"))
    game, events = decoded
    secret = h.seed if h.salted else None
    lines = list(logfile.redacted_lines(log.records(), events, game.redact, players.index(player), secret))
    reveal = h.status == "over"  # as header_of: the seed is the player's once the game is over
    header = msgspec.structs.replace(
        h, seed=h.seed if reveal else None, reseeds=h.reseeds if reveal else (),
        salt=h.salt if reveal else None, view=player, seal=None,
    )
    view = LogFile(header, lines)
    attach_signed(view, {x.seq: signed_bytes(x.signed) for x in log.lines if x.signed is not None})
    return view


def view_seat(log: LogFile) -> int | None:
    """The seat a view file shows, None for a full (referee) log."""
    if log.header.view is None:
        return None
    return log.header.definition.players.index(log.header.view)


def read_path(path: Path) -> LogFile:
    """A JSON Lines log, or a text record (re-decided into a log)."""
    return read_with_notes(path)[0]


def read_with_notes(path: Path) -> tuple[LogFile, list[Note]]:
    """A log file and the notes it carries (a text record's ``{comments}``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise logfile.LogFileError(f"{path}: not a text file") from None
    except OSError as exc:
        raise logfile.LogFileError(f"{path}: cannot read ({exc.strerror})") from None
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    if text_record.is_record(text):
        return text_record.read(text, str(path))
    return logfile.read(io.StringIO(text), str(path)), []


def export_record(service: GameService, game_id: str) -> str:
    """The game's text record, with its notes as comments."""
    return text_record.write(export(service, game_id), service.store.notes(game_id))


def open_log(service: GameService, ref: str, player: str | None = None) -> LogFile:
    """A game id in the store, or an exported file; ``player``: that player's view of it.

    A player's view file shows its own player only, whether or not ``player`` is given.
    """
    path = Path(ref)
    if path.is_file():
        log = read_path(path)
        return log if player is None else view_of(log, player)
    try:
        return export(service, ref, player)
    except GameNotFound:
        raise ServiceError(f"no game or file {ref!r}") from None


def import_log(service: GameService, log: LogFile, notes: list[Note] | None = None) -> str:
    """Verify ``log``, then store it (and ``notes``) as a new game (all or nothing)."""
    if log.header.view is not None:
        raise ServiceError(
            f"this file is {log.header.view}'s view of a game (hidden cards redacted); "
            "only a full export can be imported — look at it with 'citylog show FILE'"
        )
    verdict = verify(log)
    if not verdict.ok:
        raise ServiceError(f"not imported: {verdict.message('file')}")
    h = log.header
    parent = h.parent
    if parent is not None:
        try:
            service.store.get_game(parent)
        except GameNotFound:
            parent = None  # the parent lives in another database
    record = GameRecord.of(
        new_game_id(),
        h.definition,
        seed=h.seed,
        bots=h.bots,
        parent=parent,
        fork_at=h.fork_at if parent else None,
        reseeds=h.reseeds,
        salted=h.salted,
        salt=h.salt,
    )
    store = service.store
    with store.transaction():
        store.create_game(record)
        written = store.append(record.id, 0, [(x.type, bytes(x.payload)) for x in log.lines])
        if [w.hash for w in written] != [x.hash for x in log.lines]:
            raise ServiceError("not imported: the stored hashes differ from the file's")
        for x in log.lines:
            if x.signed is not None:  # play by email: the signed files travel with the log
                store.add_signed(record.id, x.seq, signed_bytes(x.signed))
        loaded = service.load(record.id)
        service.finish(record, loaded.game, loaded.state)
        for note in notes or ():
            store.add_note(record.id, note.seq, note.text)
    return record.id


def fold_log(log: LogFile) -> tuple[Any, list[Any], list[Any]]:
    """(game, events, states after each event) of a log; raises ServiceError if undecodable."""
    decoded = decode_events(log)
    if not isinstance(decoded, tuple):
        raise ServiceError(decoded.message("log"))
    game, events = decoded
    states: list[Any] = []
    state = None
    for e in events:
        state = game.apply(state, e)
        states.append(state)
    return game, events, states


__all__ = ["export", "export_record", "import_log", "open_log", "read_path", "read_with_notes", "fold_log", "decoder_for"]
