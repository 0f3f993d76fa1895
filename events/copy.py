"""Copy games between stores (SQLite ⇄ PostgreSQL), verified on both sides.

Each game is checked on the source (its chain verifies from its definition's
genesis), written to the target through its writer (:mod:`events.writer`, the one
write path) by the target's own ``append`` (which re-derives every hash), read back and compared line by line: identical seq,
type, payload, prev_hash and hash.  A game already complete in the target is
skipped; one the target holds a prefix of is continued.  The signed move and
join files (play by email), notes and tags travel with each game, so a copied
game verifies as the original does.  Each game is copied in
one transaction, so an interrupted copy leaves whole games, and rerunning it
finishes the job (idempotent).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from events.envelope import Recorded, verify_chain
from events.repository import Repository
from events.store import EventStore, GameNotFound, GameRecord, StoreError
from events.writer import Writer

BATCH = 5_000


class CopyError(StoreError):
    """A game that cannot be copied faithfully (the source does not verify, or
    the target holds a different game under the same id)."""


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    """Games created in the target."""
    extended: list[str] = field(default_factory=list)
    """Games the target held a prefix of, completed."""
    skipped: list[str] = field(default_factory=list)
    """Games already identical in the target."""
    events: int = 0
    """Events written."""
    side: int = 0
    """Signed files, notes and tags written (beside the chains)."""


def _secret(rec: GameRecord) -> str | None:
    return rec.line_secret


def _check(rec: GameRecord, records: list[Recorded], side: str) -> None:
    bad = verify_chain(rec.definition, records, _secret(rec))
    if bad is not None:
        raise CopyError(f"game {rec.id}: the {side} chain breaks at seq {bad}; nothing copied for it")


def _copy_side_tables(src: EventStore, writer: Writer, game_id: str) -> int:
    """Bring the game's signed move and join files, notes and tags to ``dst``
    (those it lacks; idempotent): a copied play-by-email game still verifies,
    and nothing a player wrote beside the chain is lost.  A signed file the
    target holds differently for the same seq is a different game: CopyError.
    Returns how many rows were written."""
    dst = writer.store
    wrote = 0
    have = dst.signed(game_id)
    for seq, statement in src.signed(game_id).items():
        if seq not in have:
            writer.add_signed(game_id, seq, statement)
            wrote += 1
        elif have[seq] != statement:
            raise CopyError(f"game {game_id}: the target holds another signed file for seq {seq}; rolled back")
    missing = Counter((n.seq, n.text) for n in src.notes(game_id))
    missing.subtract(Counter((n.seq, n.text) for n in dst.notes(game_id)))
    for note in src.notes(game_id):  # in the source's order
        key = (note.seq, note.text)
        if missing[key] > 0:
            writer.add_note(game_id, note.seq, note.text)
            missing[key] -= 1
            wrote += 1
    tags = src.tags([game_id]).get(game_id, ())
    if tags:
        wrote += len(writer.add_tags(game_id, list(tags)))
    return wrote


def _lineage_order(games: list[GameRecord]) -> list[GameRecord]:
    """Parents before their forks (then oldest first)."""
    by_id = {g.id: g for g in games}
    out: list[GameRecord] = []
    placed: set[str] = set()

    def place(g: GameRecord) -> None:
        if g.id in placed:
            return
        if g.parent is not None and g.parent in by_id:
            place(by_id[g.parent])
        placed.add(g.id)
        out.append(g)

    for g in games:
        place(g)
    return out


def copy_games(
    src: EventStore,
    dst: EventStore,
    game_ids: Iterable[str] | None = None,
    progress: Callable[[str, str], None] | None = None,
) -> CopyReport:
    """Copy ``game_ids`` (default: every game) from ``src`` to ``dst``; a fork
    brings its ancestors along (its lineage must exist in the target)."""
    report = CopyReport()
    writer = Writer(Repository(dst, cache_games=0))  # the one write path, into the target
    if game_ids is None:
        games = src.list_games()
    else:
        games, seen = [], set()
        for gid in game_ids:
            rec = src.get_game(gid)
            while rec.id not in seen:
                seen.add(rec.id)
                games.append(rec)
                if rec.parent is None:
                    break
                rec = src.get_game(rec.parent)
    for rec in _lineage_order(games):
        source = src.read(rec.id)
        _check(rec, source, "source")
        try:
            have = dst.get_game(rec.id)
        except GameNotFound:
            have = None
        if have is not None and (
            have.definition != rec.definition or have.seed != rec.seed or have.salted != rec.salted
        ):
            raise CopyError(f"game {rec.id}: the target holds a different game under this id")
        with dst.transaction():
            start = 0
            if have is not None:
                start = dst.version(rec.id)
                if start > len(source):
                    raise CopyError(f"game {rec.id}: the target is ahead of the source ({start} events)")
                if start and dst.read(rec.id, upto=start) != source[:start]:
                    raise CopyError(f"game {rec.id}: the target's events differ from the source's")
            writer.copy_in(rec, source, start, exists=have is not None, batch=BATCH)
            if have is not None and (have.status, have.winners) != (rec.status, rec.winners):
                writer.set_status(rec)
            written = dst.read(rec.id)
            if written != source:  # same seq, type, payload, prev_hash and hash
                raise CopyError(f"game {rec.id}: the copy does not read back identical; rolled back")
            _check(rec, written, "copied")
            beside = _copy_side_tables(src, writer, rec.id)
        report.side += beside
        report.events += len(source) - start
        kind = "copied" if have is None else ("extended" if start < len(source) else "skipped")
        getattr(report, kind).append(rec.id)
        if progress is not None:
            progress(rec.id, kind)
    return report
