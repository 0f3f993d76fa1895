"""Logs from the store or from files, export and import.

Commands that read a game (``show``, ``log``, ``diff``, ``verify``) take a game id
or a path to an exported file; :func:`open_log` decides which.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from core import registry
from events.codec import decoder_for
from events.envelope import genesis_hash
from events.service import GameService, ServiceError
from events.store import GameNotFound, GameRecord, Note, new_game_id
from replay import logfile
from core.upgrade import rules_for
from replay.logfile import FORMAT, Header, LogFile
from replay.verify import decode_events, verify

if TYPE_CHECKING:  # the text record and the signing checks load on first use (start-up)
    from replay.trust import Sealer


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
        secret = loaded.record.line_secret
        lines = list(logfile.redacted_lines(loaded.records, loaded.events, loaded.game.redact, seat, secret))
        log = LogFile(header_of(loaded.record, loaded.players[seat]), lines)
    from replay import analyses  # loaded on use (start-up)

    judged = analyses.from_store(service.store, game_id, None if player is None else loaded.players[seat])
    if judged:  # its reader's judgements, beside the chain [CL-X2]
        log.header = msgspec.structs.replace(log.header, analyses={k: msgspec.Raw(v) for k, v in judged.items()})
    if loaded.record.pbem:
        from replay.trust import attach_signed, seal

        attach_signed(log, service.store.signed(game_id))
        if sealer is not None:
            log.header = seal(log, sealer)
    return log


def view_of(log: LogFile, player: str, source: str = "log") -> LogFile:
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
        raise ServiceError(decoded.message(source))
    game, events = decoded
    secret = log.line_secret
    lines = list(logfile.redacted_lines(log.records(), events, game.redact, players.index(player), secret))
    from replay import analyses

    reveal = h.status == "over"  # as header_of: the seed is the player's once the game is over
    header = msgspec.structs.replace(
        h, seed=h.seed if reveal else None, reseeds=h.reseeds if reveal else (),
        salt=h.salt if reveal else None, view=player, seal=None,
        analyses=_carried(analyses.only(analyses.from_log(log), player)),  # P's own only [CL-X2]
    )
    view = LogFile(header, lines)
    from replay.trust import attach_signed, signed_bytes

    attach_signed(view, {x.seq: signed_bytes(x.signed) for x in log.lines if x.signed is not None})
    return view


def _carried(items: dict[str, bytes]) -> Any:
    return {k: msgspec.Raw(v) for k, v in items.items()} if items else msgspec.UNSET


def checked_analyses(log: LogFile, source: str = "log") -> dict[str, bytes]:
    """The judgements a file carries, checked against its game [CL-X1]; a view's
    its player's own only [CL-X2].  ServiceError names the first that does not fit."""
    from replay import analyses

    items = analyses.from_log(log)
    if not items:
        return {}
    game, events, states = fold_log(log, source)
    try:
        analyses.check(game, events, states, log.header.definition.players, log.header.definition.rules_version,
                       items, log.header.view)
    except analyses.AnalysisError as exc:
        raise ServiceError(f"{source}: {exc} [CL-X1]") from None
    return items


def judgements(service: GameService | None, ref: str, log: LogFile) -> dict[str, bytes]:
    """The judgements to show beside ``log`` (``ref``'s log, or a view of it), never
    recomputed: a file's own (its header, a record's annotations), a stored game's
    from its ``analyses`` table; a view's its player's own only [CL-X2]; checked
    against the game [CL-X1]."""
    from replay import analyses

    if service is not None and not Path(ref).is_file() and log.header.analyses is msgspec.UNSET:
        stored = analyses.from_store(service.store, ref, log.header.view)
        log = LogFile(msgspec.structs.replace(log.header, analyses=_carried(stored)), log.lines)
    return checked_analyses(log, ref)


def view_seat(log: LogFile) -> int | None:
    """The seat a view file shows, None for a full (referee) log."""
    if log.header.view is None:
        return None
    if log.header.view not in log.header.definition.players:
        raise ServiceError(f"the view's player {log.header.view!r} is not one of the game's players [CL-V3]")
    return log.header.definition.players.index(log.header.view)


def read_path(path: Path) -> LogFile:
    """A JSON Lines log, or a text record (re-decided into a log)."""
    return read_with_notes(path)[0]


def read_with_notes(path: Path) -> tuple[LogFile, list[Note]]:
    """A log file and the notes it carries (a text record's ``{comments}``)."""
    from replay.bounded import read_regular

    # bounded while reading, regular files only: /dev/zero, a FIFO or a sparse
    # multi-gigabyte file is refused in one line, never read whole
    data = read_regular(path, logfile.MAX_FILE_CHARS, "log file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise logfile.LogFileError(f"{path}: not a text file") from None
    text = text.removeprefix("\ufeff")  # a byte-order mark from a Windows editor
    from replay import record as text_record

    if text_record.is_record(text):
        return text_record.read(text, str(path))
    return logfile.read(io.StringIO(text), str(path)), []


def export_record(service: GameService, game_id: str) -> str:
    """The game's text record, with its notes as comments."""
    from replay import record as text_record

    return text_record.write(export(service, game_id), service.store.notes(game_id))


def stored_log(service: GameService, game_id: str) -> LogFile:
    """A stored game's full log as it is in the database, not decoded or folded
    (so ``verify`` can name a line whose payload was edited in the database)."""
    store = service.store
    record = store.get_game(game_id)
    records = store.read(game_id)
    for number, r in enumerate(records, start=2):
        if not (type(r.seq) is int and type(r.type) is str and type(r.payload) is bytes
                and type(r.prev_hash) is str and type(r.hash) is str):
            raise ServiceError(f"{game_id}:{number}: a damaged events row (a column holds the wrong kind of value)")
    problem = logfile.salt_problem(record.salt)
    if problem is not None:
        raise ServiceError(f"{game_id}: {problem} (the games row was edited)")
    log = logfile.from_records(header_of(record), records)
    if record.pbem:  # the signed move and join files behind the lines, as an export carries them
        from replay.trust import attach_signed

        try:
            attach_signed(log, store.signed(game_id))
        except (msgspec.DecodeError, RecursionError):
            raise ServiceError(f"{game_id}: a damaged signed row (not a JSON statement)") from None
    return log


def open_log(service: GameService, ref: str, player: str | None = None) -> LogFile:
    """A game id in the store, or an exported file; ``player``: that player's view of it.

    A player's view file shows its own player only, whether or not ``player`` is given.
    """
    path = Path(ref)
    if path.is_file():
        log = read_path(path)
        return log if player is None else view_of(log, player, ref)
    try:
        return stored_log(service, ref) if player is None else export(service, ref, player)
    except GameNotFound:
        raise ServiceError(f"no game or file {ref!r}") from None


def import_log(
    service: GameService,
    log: LogFile,
    notes: list[Note] | None = None,
    bots: dict[int, str] | None = None,
    again: bool = False,
) -> str:
    """Verify ``log``, then store it (and ``notes``) as a new game (all or nothing).

    A log some stored game already holds (:func:`already_stored`) is refused
    unless ``again``: importing the same file twice never silently duplicates.

    Nothing the unchained header says is taken on trust: the status is the
    fold's; bot seats are the importer's (``bots``), never the file's; a parent
    is kept only if it is in this database and the file's first ``fork_at``
    lines are the parent's own.  [CL-V5]
    """
    if log.header.view is not None:
        raise ServiceError(
            f"this file is {log.header.view}'s view of a game (hidden cards redacted); "
            "only a full export can be imported — look at it with 'citylog show FILE'"
        )
    verdict = verify(log)
    if not verdict.ok:
        raise ServiceError(f"not imported: {verdict.message('file')}")
    judged = checked_analyses(log, "file")  # refused before anything is written [CL-X1]
    h = log.header
    parent = _lineage(service, log)
    record = GameRecord.of(
        _imported_id(service, log),
        h.definition,
        seed=h.seed,
        bots=_checked_bots(service, log, bots or {}),
        parent=parent,
        fork_at=h.fork_at if parent else None,
        reseeds=h.reseeds,
        salted=h.salted,
        salt=h.salt,
    )
    same = None if again else already_stored(service, log)
    if same is not None:
        raise ServiceError(
            f"not imported: this log is already in this database, as game {same} (the same definition "
            f"and the same {len(log.lines)} events, up to the same hash); see it with 'citylog show {same}' "
            f"(or store a second copy: import --again)"
        )
    from replay.trust import signed_bytes

    service.writer.write_lines(  # the one write path: the hashes must come out as the file's
        record,
        [(x.type, bytes(x.payload)) for x in log.lines],
        [x.hash for x in log.lines],
        signed=[(x.seq, signed_bytes(x.signed)) for x in log.lines if x.signed is not None],
        notes=[(note.seq, note.text) for note in notes or ()],
        analyses=list(judged.items()),
    )
    return record.id


def already_stored(service: GameService, log: LogFile) -> str | None:
    """The id of a stored game holding exactly this log (the same genesis, so the
    same definition and seed commitment, and the same head: the same last seq and
    hash), or None.  Importing the same file twice would make a second, identical
    game: ``import`` refuses instead (exit 2)."""
    if not log.lines:
        return None
    genesis = genesis_hash(log.header.definition)
    head = (log.lines[-1].seq, log.lines[-1].hash)
    store = service.store
    for rec in store.list_games():
        if rec.genesis == genesis and store.head(rec.id) == head:
            return rec.id
    return None


_PBEM_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def _imported_id(service: GameService, log: LogFile) -> str:
    """A new id; a play-by-email game keeps its own, which every signed move and
    join file (and the host's seal) names, so the imported game still verifies."""
    h = log.header
    if not h.definition.host_key:
        return new_game_id()
    if h.game_id is None or not _PBEM_ID.fullmatch(h.game_id):
        raise ServiceError("not imported: a play-by-email log must name its game id (letters, digits, - and _)")
    try:
        service.store.get_game(h.game_id)
    except GameNotFound:
        return h.game_id
    raise ServiceError(
        f"not imported: game {h.game_id} is already in this database "
        "(a play-by-email game keeps its id: its signed files name it)"
    )


def _lineage(service: GameService, log: LogFile) -> str | None:
    """The header's parent, if it is in this store and shares the file's first
    ``fork_at`` lines hash for hash; else None (the lineage is not kept).  [CL-V5]"""
    h = log.header
    if h.parent is None or h.fork_at is None or not 1 <= h.fork_at <= len(log.lines):
        return None
    try:
        parent = service.store.read(h.parent, upto=h.fork_at)
    except GameNotFound:
        return None  # the parent lives in another database
    if [r.hash for r in parent] != [x.hash for x in log.lines[: h.fork_at]]:
        return None
    return h.parent


def _checked_bots(service: GameService, log: LogFile, bots: dict[int, str]) -> dict[int, str]:
    game = registry.get(log.header.definition.game)
    players = log.header.definition.players
    for seat, policy in bots.items():
        if not 0 <= seat < len(players):
            raise ServiceError(f"no seat {seat} for a bot (players: {', '.join(players)})")
        if policy not in game.bots:
            raise ServiceError(f"no bot policy {policy!r} for {game.spec.title} (bots: {', '.join(game.bots)})")
    return dict(bots)


def fold_log(log: LogFile, source: str | None = None) -> tuple[Any, list[Any], list[Any]]:
    """(game, events, states after each event) of a log; raises ServiceError if undecodable.
    The game is the rules in effect at the log's end (its definition's, or its last
    upgrade's, where this citylog keeps them)."""
    source = source or log.header.game_id or "log"
    decoded = decode_events(log)
    if not isinstance(decoded, tuple):
        raise ServiceError(decoded.message(source))
    game, events = decoded
    states: list[Any] = []
    state = None
    for line, e in zip(log.lines, events, strict=True):
        try:
            state = game.apply(state, e)
        except Exception as exc:  # noqa: BLE001 - the fold never validates: a forged event may not fit
            raise ServiceError(
                f"{source}:{line.seq + 1}: the event does not fit the game at this point "
                f"({type(exc).__name__}); 'citylog verify' names the first bad line"
            ) from None
        states.append(state)
    # the rules in effect at the log's end decide what comes next (an upgrade switches them) [CL-U1]
    return rules_for(game, log.header.definition.rules_version, events) or game, events, states


__all__ = ["export", "export_record", "import_log", "open_log", "read_path", "read_with_notes", "fold_log", "decoder_for"]
