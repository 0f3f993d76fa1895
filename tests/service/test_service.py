"""The service: determinism for every game, and two processes racing on one game."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from core import registry
from events.service import GameService, ServiceError, StaleMove
from events.store import Conflict
from events.sqlite_store import SqliteStore

GAMES = registry.available()


def _lines(db: Path, gid: str) -> list[tuple[int, str, bytes, str]]:
    store = SqliteStore(db)
    return [(r.seq, r.type, r.payload, r.hash) for r in store.read(gid)]


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_options_and_bots_give_byte_identical_event_lines(name: str, tmp_path: Path) -> None:
    game = registry.get(name)
    n = min(2, game.spec.max_players)
    players = [f"p{i}" for i in range(n)]
    ids = []
    for db_name in ("a.db", "b.db"):
        svc = GameService(SqliteStore(tmp_path / db_name))
        # the commitment's salt is random unless given: it is part of the definition
        ids.append(svc.create(name, players, seed="same", bots=dict.fromkeys(range(n), "greedy"), salt="5a" * 16))
    a, b = _lines(tmp_path / "a.db", ids[0]), _lines(tmp_path / "b.db", ids[1])
    assert a == b and len(a) > 10
    svc = GameService(SqliteStore(tmp_path / "a.db"))
    other = svc.create(name, players, seed="different", bots=dict.fromkeys(range(n), "greedy"))
    assert _lines(tmp_path / "a.db", other) != a


@pytest.mark.parametrize("name", GAMES)
def test_human_commands_replayed_give_identical_lines(name: str, tmp_path: Path) -> None:
    """Same seed and the same human commands, in two databases: the same log."""
    game = registry.get(name)
    players = ["ann", "bob"][: max(game.spec.min_players, min(2, game.spec.max_players))]
    logs = []
    for db_name in ("a.db", "b.db"):
        svc = GameService(SqliteStore(tmp_path / db_name))
        gid = svc.create(name, players, seed="human", salt="5a" * 16)
        for _ in range(12):
            loaded = svc.load(gid)
            actors = game.to_act(loaded.state)
            if not actors:
                break
            seat = actors[0]
            command = next(iter(game.legal(loaded.state, seat)))  # the first legal command
            svc.submit(gid, seat, command, expected_version=loaded.version)
        logs.append(_lines(tmp_path / db_name, gid))
    assert logs[0] == logs[1]


def _racer(db: str, gid: str, version: int, text: str, queue: "mp.Queue[str]") -> None:
    svc = GameService(SqliteStore(db))
    loaded = svc.load(gid)
    seat = loaded.game.to_act(loaded.state)[0]
    command = loaded.game.parse_command(loaded.state, seat, text)
    try:
        svc.submit(gid, seat, command, expected_version=version)
        queue.put("won")
    except (StaleMove, Conflict) as exc:
        queue.put(f"lost: {exc}")


def test_two_processes_one_wins_each_version(tmp_path: Path) -> None:
    db = tmp_path / "race.db"
    svc = GameService(SqliteStore(db))
    gid = svc.create("card-city", ["ann", "bob"], seed="race")
    loaded = svc.load(gid)
    held = loaded.state.holding.cards
    text = f"split {''.join(held[:2])} {held[2]} {held[3]}"
    ctx = mp.get_context("spawn")
    queue: mp.Queue[str] = ctx.Queue()
    procs = [ctx.Process(target=_racer, args=(str(db), gid, loaded.version, text, queue)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    outcomes = sorted(queue.get(timeout=5) for _ in procs)
    assert outcomes[0].startswith("lost") and outcomes[1] == "won"
    after = svc.load(gid)
    assert [r.seq for r in after.records] == list(range(1, after.version + 1))
    splits = [e for e in after.events if type(e).__name__ == "Split"]
    assert len(splits) == 1  # nothing duplicated


def test_a_game_under_older_rules_replays_but_cannot_be_continued(tmp_path: Path) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    svc = GameService(SqliteStore(db))
    gid = svc.create("card-city", ["ann", "bob"], seed="old")
    with sqlite3.connect(db) as conn:  # as if recorded by an earlier citylog
        conn.execute("UPDATE games SET rules_version = 'card-city/0' WHERE id = ?", (gid,))
    fresh = GameService(SqliteStore(db))
    loaded = fresh.load(gid)  # the fold reads any rules version
    assert loaded.version > 1
    seat = loaded.game.to_act(loaded.state)[0]
    command = next(iter(loaded.game.legal(loaded.state, seat)))
    with pytest.raises(ServiceError, match="can be replayed, not continued"):
        fresh.submit(gid, seat, command)
    assert fresh.store.version(gid) == loaded.version


def test_resolve_names_a_game_by_id_prefix_or_last() -> None:
    from events.service import AmbiguousGame
    from events.store import GameNotFound

    svc = GameService(SqliteStore(":memory:"))
    for gid in ("last", "ab12", "AB34", "cd56"):  # a game may even be called 'last'
        svc.create("card-city", ["a", "b"], seed="s", game_id=gid)
    assert svc.resolve("last") == "last"  # an exact id first
    assert svc.resolve("Ab1") == "ab12" and svc.resolve("c") == "cd56"
    with pytest.raises(AmbiguousGame, match="ab12, AB34") as err:
        svc.resolve("ab")
    assert err.value.exit_code == 2
    with pytest.raises(GameNotFound):
        svc.resolve("zz")
    svc.store.delete_game("last")
    assert svc.resolve("LAST") == "cd56"
    svc.store.add_tags("cd56", ["sim"])
    assert svc.resolve("last") == "AB34"  # simulated games are never 'last'


def test_delete_removes_a_game_and_its_forks_only_when_asked() -> None:
    svc = GameService(SqliteStore(":memory:"))
    parent = svc.create("card-city", ["a", "b"], seed="s", bots={0: "greedy", 1: "greedy"})
    fork = svc.fork(parent, 10)
    grandchild = svc.fork(fork, 10)
    other = svc.create("card-city", ["a", "b"], seed="t")
    svc.load(parent)  # cached
    assert svc.with_forks(parent) == [grandchild, fork, parent]
    with pytest.raises(ServiceError, match="2 forks"):
        svc.delete(parent)
    assert svc.delete(fork, with_forks=True) == [grandchild, fork]
    assert svc.delete(parent) == [parent]
    assert [g.id for g in svc.store.list_games()] == [other]
    with pytest.raises(Exception, match="no game"):
        svc.load(parent)  # not served from the cache
