"""A game's row in the ``games`` table, for both stores (SQLite and PostgreSQL):
its columns, encoding a new row, decoding one (naming a damaged one), and the
``WHERE`` clause of a :class:`~events.store.GameFilter`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from events.envelope import canonical_definition, genesis_hash
from events.store import GameFilter, GameRecord, StoreError, now_iso

GAME_COLS = (
    "id, game, rules_version, options, players, seed_commitment, table_game, seed, "
    "bots, parent, fork_at, status, created_at, reseeds, salted, winners, salt, host_key, definition"
)
_options_dec = msgspec.json.Decoder(dict[str, str])
_players_dec = msgspec.json.Decoder(tuple[str, ...])
_bots_dec = msgspec.json.Decoder(dict[int, str])
_reseeds_dec = msgspec.json.Decoder(tuple[tuple[int, str], ...])


class _Deadline(msgspec.Struct):
    """The fields of a stored definition that have no column of their own (issue 24)."""

    deadline: int = 0
    on_timeout: str = ""
    entropy: int = 1
    """The entropy scheme (ruling CL-S7)."""


_deadline_dec = msgspec.json.Decoder(_Deadline)
JSON = msgspec.json.Encoder(order="sorted")


def game_from_row(row: Sequence[object]) -> GameRecord:
    """A :class:`GameRecord` from the ``GAME_COLS`` columns (both backends);
    StoreError naming the game if the row is damaged."""
    try:
        return _decode_row(row)
    except (msgspec.DecodeError, msgspec.ValidationError, TypeError, ValueError) as exc:
        why = " ".join(str(exc).split())[:120]
        raise StoreError(f"game {str(row[0])[:40]!r}: damaged row in the games table ({why})") from None


def _decode_row(row: Sequence[object]) -> GameRecord:
    (gid, game, rules, options, players, commitment, table, seed, bots, parent, fork_at,
     status, created, reseeds, salted, winners, salt, host_key, definition) = row
    timing = _deadline_dec.decode(definition) if isinstance(definition, (str, bytes)) and definition else _Deadline()
    if status not in ("active", "over"):
        raise ValueError(f"status {str(status)[:20]!r}")
    for name, value in (("id", gid), ("game", game), ("rules_version", rules), ("seed_commitment", commitment)):
        if not isinstance(value, str):
            raise ValueError(f"{name} is not text")
    if not (seed is None or isinstance(seed, str)) or not (parent is None or isinstance(parent, str)):
        raise ValueError("seed or parent is not text")
    if not (fork_at is None or isinstance(fork_at, int)):
        raise ValueError("fork_at is not a number")
    return GameRecord(
        id=gid,  # type: ignore[arg-type]
        game=game,  # type: ignore[arg-type]
        rules_version=rules,  # type: ignore[arg-type]
        options=_options_dec.decode(options),  # type: ignore[arg-type]
        players=_players_dec.decode(players),  # type: ignore[arg-type]
        seed_commitment=commitment,  # type: ignore[arg-type]
        table_game=bool(table),
        seed=seed,
        bots=_bots_dec.decode(bots),  # type: ignore[arg-type]
        parent=parent,
        fork_at=fork_at,
        status=status,
        created_at=created,  # type: ignore[arg-type]
        reseeds=_reseeds_dec.decode(reseeds),  # type: ignore[arg-type]
        salted=bool(salted),
        secrets=2 if salted == 2 else 1,
        winners=_players_dec.decode(winners),  # type: ignore[arg-type]
        salt=salt,  # type: ignore[arg-type]
        host_key=host_key or "",  # type: ignore[arg-type]
        deadline=timing.deadline,
        on_timeout=timing.on_timeout,
        entropy=timing.entropy,
    )


def scan_rows(rows: Any) -> tuple[list[tuple[GameRecord, int]], list[str]]:
    """(readable games with their event counts, one line per damaged row): one bad
    row hides no other game (``list`` lists the rest and names it)."""
    good: list[tuple[GameRecord, int]] = []
    bad: list[str] = []
    for r in rows:
        try:
            good.append((game_from_row(r[:-1]), int(r[-1])))
        except (StoreError, TypeError, ValueError) as exc:
            bad.append(str(exc))
    return good, bad


def game_row(rec: GameRecord) -> tuple[object, ...]:
    """The values of a new ``games`` row (both backends), in ``INSERT_GAME_COLS`` order."""
    definition = rec.definition
    genesis = genesis_hash(definition)
    return (
        rec.id,
        rec.game,
        canonical_definition(definition).decode(),
        JSON.encode(rec.options).decode(),
        JSON.encode(rec.players).decode(),
        JSON.encode({str(k): v for k, v in sorted(rec.bots.items())}).decode(),
        rec.rules_version,
        rec.seed,
        rec.seed_commitment,
        int(rec.table_game),
        rec.parent,
        rec.fork_at,
        rec.status,
        rec.created_at or now_iso(),
        genesis,
        JSON.encode(rec.reseeds).decode(),
        2 if rec.secrets == 2 else int(rec.salted),
        genesis,
        JSON.encode(rec.winners).decode(),
        rec.salt,
        rec.host_key,
    )


INSERT_GAME_COLS = (
    "id, game, definition, options, players, bots, rules_version, seed, seed_commitment, "
    "table_game, parent, fork_at, status, created_at, genesis, reseeds, salted, head_hash, winners, "
    "salt, host_key"
)


def filter_sql(where: GameFilter | None, mark: str, player_sql: str) -> tuple[str, list[object]]:
    """``WHERE … ORDER BY … LIMIT …`` for a :class:`GameFilter` (both backends);
    ``mark`` is the parameter marker, ``player_sql`` tests one player by name."""
    where = where or GameFilter()
    conditions = (
        (where.game, f"g.game = {mark}"),
        (where.status, f"g.status = {mark}"),
        (where.player, player_sql),
        (where.tag, f"EXISTS (SELECT 1 FROM tags t WHERE t.game_id = g.id AND t.tag = {mark})"),
        (where.after, f"(g.created_at, g.id) > (SELECT created_at, id FROM games WHERE id = {mark})"),
    )
    clauses = [clause for value, clause in conditions if value is not None]
    args: list[object] = [value for value, _ in conditions if value is not None]
    hidden = (where.hidden_tag,) if isinstance(where.hidden_tag, str) else where.hidden_tag or ()
    if hidden:
        marks = ", ".join([mark] * len(hidden))
        clauses.append(f"NOT EXISTS (SELECT 1 FROM tags t WHERE t.game_id = g.id AND t.tag IN ({marks}))")
        args.extend(hidden)
    sql = (" WHERE " + " AND ".join(clauses)) if clauses else ""
    sql += " ORDER BY g.created_at, g.id"
    if where.limit is not None:
        sql += f" LIMIT {mark}"
        args.append(max(0, int(where.limit)))
    return sql, args
