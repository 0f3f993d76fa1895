"""The EventStore contract, run against every backend, plus SQLite specifics.

To add a backend, add a :class:`Backend` to ``BACKENDS``: how to open one on a
fresh directory, and how to make the insert of a given seq fail (for the
atomicity test).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ContextManager

import msgspec
import pytest

import events.sqlite_store as store_mod
from events.envelope import (
    GameDefinition,
    Recorded,
    chain,
    chain_hash,
    genesis_hash,
    payload_digest,
    verify_chain,
)
from events.store import Conflict, EventStore, GameExists, GameFilter, GameNotFound, GameRecord, Note, StoreBusy, StoreError
from events.backends import open_store
from events.sqlite_store import SCHEMA_VERSION, SqliteStore
from events.targets import default_db_path


# -- backends ----------------------------------------------------------------
@dataclass
class Backend:
    name: str
    open: Callable[[Path], EventStore]
    fail_insert_at: Callable[[EventStore, int], ContextManager[None]]


@contextlib.contextmanager
def _sqlite_fail_insert_at(store: EventStore, seq: int) -> Iterator[None]:
    assert isinstance(store, SqliteStore)
    conn = store._conn
    conn.execute(
        "CREATE TRIGGER fail_insert BEFORE INSERT ON events "
        f"WHEN NEW.seq = {int(seq)} BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
    )
    try:
        yield
    finally:
        conn.execute("DROP TRIGGER fail_insert")


@contextlib.contextmanager
def _pg_fail_insert_at(store: EventStore, seq: int) -> Iterator[None]:
    conn = store._conn  # type: ignore[attr-defined]
    conn.execute(
        "CREATE FUNCTION fail_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF NEW.seq = {int(seq)} THEN RAISE EXCEPTION 'injected failure'; END IF; "
        "RETURN NEW; END $$"
    )
    conn.execute(
        "CREATE TRIGGER fail_insert BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION fail_insert()"
    )
    try:
        yield
    finally:
        conn.execute("DROP TRIGGER fail_insert ON events")
        conn.execute("DROP FUNCTION fail_insert()")


BACKENDS = [
    Backend("sqlite", lambda d: SqliteStore(d / "citylog.db"), _sqlite_fail_insert_at),
    # ``open`` gets the URL of a fresh schema (the ``pg_url`` fixture), not a directory
    Backend("postgresql", lambda url: open_store(str(url)), _pg_fail_insert_at),
]


@pytest.fixture(params=BACKENDS, ids=lambda b: b.name)
def backend(request: pytest.FixtureRequest) -> Backend:
    return request.param


@pytest.fixture
def where(backend: Backend, request: pytest.FixtureRequest) -> object:
    """What ``backend.open`` takes: a fresh directory, or a fresh schema's URL."""
    if backend.name == "postgresql":
        return request.getfixturevalue("pg_url")
    return request.getfixturevalue("tmp_path")


@pytest.fixture
def store(backend: Backend, where: Path) -> Iterator[EventStore]:
    s = backend.open(where)
    yield s
    s.close()


# -- helpers -----------------------------------------------------------------
DEF = GameDefinition(
    game="demo",
    rules_version="1.0",
    options={"side": "b", "expansion": "none"},
    players=("ann", "bob"),
    seed_commitment="ab" * 32,
)


def rec(game_id: str, definition: GameDefinition = DEF, **rest: object) -> GameRecord:
    return GameRecord.of(game_id, definition, **rest)


def items(n: int, start: int = 0, tag: str = "ping") -> list[tuple[str, bytes]]:
    return [(tag, b'{"type":"%s","n":%d}' % (tag.encode(), i)) for i in range(start, start + n)]


def rows(records: list[Recorded]) -> list[tuple]:
    return [msgspec.structs.astuple(r) for r in records]


# -- the contract --------------------------------------------------------------
class _RolledBack(Exception):
    """Raised at the end of a :func:`rolled_back` block to undo it."""


@contextlib.contextmanager
def rolled_back(store: EventStore) -> Iterator[None]:
    """A transaction whose block is undone: it ends by raising, and the raise
    is expected."""
    with pytest.raises(_RolledBack):
        with store.transaction():
            yield
            raise _RolledBack


class TestEventStoreContract:
    def test_notes_are_kept_outside_the_chain(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        store.create_game(rec("g2"))
        written = store.append("g1", 0, items(3))
        store.add_note("g1", 2, "second")
        store.add_note("g1", 1, "first")
        store.add_note("g1", 2, "again, } and\nnewline")
        assert store.notes("g1") == [Note(1, "first"), Note(2, "second"), Note(2, "again, } and\nnewline")]
        assert store.notes("g2") == []
        assert store.read("g1") == written  # the events and their hashes are untouched
        for seq in (0, 4):
            with pytest.raises(StoreError):
                store.add_note("g1", seq, "out of range")
        with pytest.raises(GameNotFound):
            store.add_note("nope", 1, "x")
        with pytest.raises(GameNotFound):
            store.notes("nope")
        assert len(store.notes("g1")) == 3

    def test_create_get_round_trip(self, store: EventStore) -> None:
        r = rec(
            "g1",
            seed="s3cret",
            bots={1: "greedy"},
            status="active",
        )
        store.create_game(r)
        got = store.get_game("g1")
        assert got.created_at  # filled in
        assert msgspec.structs.replace(got, created_at="") == r
        assert got.definition == DEF
        assert got.genesis == genesis_hash(DEF)
        assert list(got.options) == ["expansion", "side"]  # sorted keys

    def test_create_keeps_every_column(self, store: EventStore) -> None:
        store.create_game(rec("parent"))
        r = GameRecord(
            id="child",
            game="demo",
            rules_version="2",
            options={"a": "1"},
            players=("x", "y", "z"),
            seed_commitment="cc",
            table_game=True,
            seed=None,
            bots={0: "random", 2: "greedy"},
            parent="parent",
            fork_at=7,
            status="over",
            created_at="2024-01-01T00:00:00+00:00",
        )
        store.create_game(r)
        assert store.get_game("child") == r
        assert store.get_game("child").definition.table is True

    def test_duplicate_id_raises_and_changes_nothing(self, store: EventStore) -> None:
        store.create_game(rec("g1", seed="one"))
        with pytest.raises(GameExists):
            store.create_game(rec("g1", seed="two"))
        assert store.get_game("g1").seed == "one"
        assert len(store.list_games()) == 1

    def test_fork_needs_existing_parent(self, store: EventStore) -> None:
        with pytest.raises(GameNotFound):
            store.create_game(rec("f", parent="nope", fork_at=1))
        assert store.list_games() == []

    def test_missing_game(self, store: EventStore) -> None:
        with pytest.raises(GameNotFound, match=r"^no game 'xyz'$"):
            store.get_game("xyz")
        for call in (
            lambda: store.version("xyz"),
            lambda: store.read("xyz"),
            lambda: store.append("xyz", 0, items(1)),
            lambda: store.set_status("xyz", "over"),
        ):
            with pytest.raises(GameNotFound):
                call()
        assert isinstance(GameNotFound("x"), StoreError)

    def test_list_games_order_and_counts(self, store: EventStore) -> None:
        store.create_game(rec("b", created_at="2024-01-02T00:00:00+00:00"))
        store.create_game(rec("c", created_at="2024-01-01T00:00:00+00:00"))
        store.create_game(rec("a", created_at="2024-01-02T00:00:00+00:00"))
        store.append("a", 0, items(3))
        store.append("c", 0, items(1))
        assert [g.id for g in store.list_games()] == ["c", "a", "b"]
        assert [(g.id, n) for g, n in store.list_games_with_counts()] == [
            ("c", 1),
            ("a", 3),
            ("b", 0),
        ]

    def test_append_read_version(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        assert store.version("g1") == 0
        assert store.read("g1") == []
        first = store.append("g1", 0, items(2))
        second = store.append("g1", 2, items(3, start=2, tag="pong"))
        assert [r.seq for r in first + second] == [1, 2, 3, 4, 5]
        assert store.version("g1") == 5
        got = store.read("g1")
        assert got == first + second
        assert [(r.type, r.payload) for r in got] == items(2) + items(3, start=2, tag="pong")
        assert all(type(r.payload) is bytes and r.game_id == "g1" for r in got)
        assert store.read("g1", upto=3) == got[:3]
        assert store.read("g1", upto=0) == []
        assert store.read("g1", upto=99) == got

    def test_games_are_separate_streams(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        store.create_game(rec("g2"))
        store.append("g1", 0, items(2))
        store.append("g2", 0, items(1))
        assert store.version("g1") == 2 and store.version("g2") == 1
        assert [r.game_id for r in store.read("g2")] == ["g2"]

    def test_stale_expected_version_conflicts_and_writes_nothing(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        store.append("g1", 0, items(2))
        before = store.read("g1")
        for expected in (0, 1, 3):
            with pytest.raises(Conflict, match=rf"expected version {expected}, found 2") as e:
                store.append("g1", expected, items(2, start=10))
            assert (e.value.expected, e.value.actual) == (expected, 2)
        assert store.read("g1") == before
        assert store.version("g1") == 2

    def test_empty_batch_checks_version_only(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        assert store.append("g1", 0, []) == []
        with pytest.raises(Conflict):
            store.append("g1", 1, [])
        assert store.version("g1") == 0

    def test_batch_failing_midway_leaves_nothing(self, store: EventStore, backend: Backend) -> None:
        store.create_game(rec("g1"))
        store.append("g1", 0, items(1))
        before = store.read("g1")
        with backend.fail_insert_at(store, 3):
            with pytest.raises(StoreError):
                store.append("g1", 1, items(4, start=1))  # seqs 2, 3 (fails), 4, 5
        assert store.read("g1") == before
        assert store.version("g1") == 1
        # the store is usable afterwards (no transaction left open)
        assert [r.seq for r in store.append("g1", 1, items(2))] == [2, 3]

    def test_batch_failing_inside_a_transaction_leaves_nothing(
        self, store: EventStore, backend: Backend
    ) -> None:
        store.create_game(rec("g1"))
        first = store.append("g1", 0, items(1))
        class Done(Exception):
            pass

        with backend.fail_insert_at(store, 3):
            with pytest.raises((Done, StoreError)):
                with store.transaction():
                    with pytest.raises(StoreError):
                        store.append("g1", 1, items(4, start=1))
                    if backend.name == "sqlite":  # no savepoint: the head is put back
                        assert store.head("g1") == (1, first[0].hash)
                        assert store.read("g1") == first
                    raise Done  # (PostgreSQL's transaction is aborted by then)
        assert store.read("g1") == first
        assert store.head("g1") == (1, first[0].hash)
        assert [r.seq for r in store.append("g1", 1, items(2))] == [2, 3]

    def test_transaction_is_atomic(self, store: EventStore) -> None:
        with rolled_back(store):
            store.create_game(rec("g1"))
            store.append("g1", 0, items(3))
        with pytest.raises(GameNotFound):
            store.get_game("g1")

        with store.transaction():
            store.create_game(rec("g1"))
            store.append("g1", 0, items(3))
        assert store.version("g1") == 3

    def test_conflict_inside_transaction_keeps_earlier_work(self, store: EventStore) -> None:
        with store.transaction():
            store.create_game(rec("g1"))
            store.append("g1", 0, items(1))
            with pytest.raises(Conflict):
                store.append("g1", 0, items(1))
            with pytest.raises(GameExists):
                store.create_game(rec("g1"))
        assert store.version("g1") == 1

    def test_nested_transaction_undoes_only_inner(self, store: EventStore) -> None:
        with store.transaction():
            store.create_game(rec("g1"))
            with pytest.raises(KeyError):
                with store.transaction():
                    store.append("g1", 0, items(2))
                    raise KeyError
            assert store.version("g1") == 0
            store.append("g1", 0, items(1))
        assert store.version("g1") == 1

    def test_set_status(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        assert store.get_game("g1").status == "active"
        store.set_status("g1", "over")
        assert store.get_game("g1").status == "over"
        with pytest.raises(StoreError):
            store.set_status("g1", "paused")  # type: ignore[arg-type]
        assert store.get_game("g1").status == "over"

    # -- heads in the games row, listing, waiting ------------------------------
    def test_head_is_kept_in_the_row(self, store: EventStore, backend: Backend) -> None:
        store.create_game(rec("g1"))
        assert store.head("g1") == (0, genesis_hash(DEF))
        written = store.append("g1", 0, items(3))
        assert store.head("g1") == (3, written[-1].hash)
        with pytest.raises(Conflict):
            store.append("g1", 1, items(1))
        with backend.fail_insert_at(store, 5):
            with pytest.raises(StoreError):
                store.append("g1", 3, items(2))
        assert store.head("g1") == (3, written[-1].hash)  # a failed append moves nothing
        assert [(g.id, n) for g, n in store.list_games_with_counts()] == [("g1", 3)]

    def test_append_checks_the_stored_head_not_a_remembered_one(
        self, store: EventStore, backend: Backend, where: object
    ) -> None:
        store.create_game(rec("g1", seed="s"))
        store.append("g1", 0, items(1))
        assert store.head("g1")[0] == 1  # this connection has seen seq 1
        other = backend.open(where)  # type: ignore[arg-type]
        other.append("g1", 1, items(2, start=1))
        other.close()
        with pytest.raises(Conflict, match="expected version 1, found 3"):
            store.append("g1", 1, items(1, start=9))
        with rolled_back(store):
            store.append("g1", 3, items(1, start=3))  # seq 4, rolled back
        with pytest.raises(Conflict, match="expected version 4, found 3"):
            store.append("g1", 4, items(1, start=9))
        written = store.append("g1", 3, items(1, start=3))
        assert [r.seq for r in written] == [4]
        assert store.read("g1") == chain(DEF, "g1", items(4), secret="s")
        assert store.head("g1") == (4, written[0].hash)

    def test_append_after_a_rolled_back_head_was_replaced(
        self, store: EventStore, backend: Backend, where: object
    ) -> None:
        """This connection's seq 2 is rolled back and another writer's seq 2 takes
        its place: an append expecting version 2 chains onto the other's."""
        store.create_game(rec("g1", seed="s"))
        store.append("g1", 0, items(1))
        with rolled_back(store):
            store.append("g1", 1, items(1, start=7))  # seq 2, rolled back
        other = backend.open(where)  # type: ignore[arg-type]
        other.append("g1", 1, items(1, start=1))  # seq 2, another payload
        other.close()
        written = store.append("g1", 2, items(1, start=2))
        assert store.read("g1") == chain(DEF, "g1", items(3), secret="s")
        assert store.head("g1") == (3, written[0].hash)

    def test_list_filters_and_pages(self, store: EventStore) -> None:
        for i, (game, players, status) in enumerate(
            [("demo", ("ann", "bob"), "active"), ("other", ("bob", "cy"), "over"),
             ("demo", ("cy", "dee"), "over"), ("demo", ("ann", "annie"), "active")]
        ):
            d = msgspec.structs.replace(DEF, game=game, players=players)
            store.create_game(rec(f"g{i}", d, status=status, created_at=f"2024-01-0{i + 1}T00:00:00+00:00"))
        ids = lambda **kw: [g.id for g, _ in store.list_games_with_counts(GameFilter(**kw))]  # noqa: E731
        assert ids() == ["g0", "g1", "g2", "g3"]
        assert ids(game="demo") == ["g0", "g2", "g3"]
        assert ids(player="ann") == ["g0", "g3"]  # a name, not a substring ("annie")
        assert ids(player="bob", status="over") == ["g1"]
        assert ids(status="active", game="other") == []
        assert ids(limit=2) == ["g0", "g1"]
        assert ids(limit=2, after="g1") == ["g2", "g3"]
        assert ids(limit=2, after="g3") == []
        assert ids(game="demo", after="g0", limit=1) == ["g2"]

    def test_wait_sees_another_writer(self, store: EventStore, backend: Backend, where: object) -> None:
        import threading

        store.create_game(rec("g1"))
        store.append("g1", 0, items(1))
        assert store.wait("g1", 0, timeout=5) == 1  # already past: no waiting
        assert store.wait("g1", 1, timeout=0.05) == 1  # nothing new: the timeout

        def write() -> None:  # another connection (a store belongs to its thread)
            other = backend.open(where)  # type: ignore[arg-type]
            other.append("g1", 1, items(2))
            other.close()

        t = threading.Timer(0.2, write)
        t.start()
        try:
            assert store.wait("g1", 1, timeout=30) == 3
        finally:
            t.join()

    # -- the hash chain ------------------------------------------------------
    def test_hash_chain_is_correct(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        store.append("g1", 0, items(2))
        store.append("g1", 2, items(3, start=2))
        got = store.read("g1")
        prev = genesis_hash(DEF)
        for r in got:
            assert r.prev_hash == prev
            assert r.hash == chain_hash(prev, r.seq, r.type, payload_digest(r.payload))
            prev = r.hash
        assert got == chain(DEF, "g1", items(5))
        assert verify_chain(DEF, got) is None

    def test_verify_chain_detects_tampering(self, store: EventStore) -> None:
        store.create_game(rec("g1"))
        good = store.append("g1", 0, items(5))
        assert verify_chain(DEF, good) is None
        changed = list(good)
        changed[2] = msgspec.structs.replace(good[2], payload=b'{"type":"ping","n":99}')
        assert verify_chain(DEF, changed) == 3
        retyped = list(good)
        retyped[1] = msgspec.structs.replace(good[1], type="pong")
        assert verify_chain(DEF, retyped) == 2
        reordered = [good[0], good[2], good[1], good[3], good[4]]
        assert verify_chain(DEF, reordered) == 2
        renumbered = [msgspec.structs.replace(r, seq=i + 1) for i, r in enumerate(reordered)]
        assert verify_chain(DEF, renumbered) == 2
        dropped = good[:3] + good[4:]
        assert verify_chain(DEF, dropped) == 4
        assert verify_chain(DEF, good[1:]) == 1
        other = msgspec.structs.replace(DEF, players=("bob", "ann"))
        assert verify_chain(other, good) == 1
        mixed = good[:2] + [msgspec.structs.replace(good[2], game_id="g2")] + good[3:]
        assert verify_chain(DEF, mixed) == 3

    def test_identical_games_have_identical_lines(self, store: EventStore) -> None:
        # Different ids, bots and creation times: none enters the chain.  (The seed
        # does, through the line nonces — and the definition commits to it anyway.)
        store.create_game(rec("g1", seed="x", created_at="2024-01-01T00:00:00+00:00"))
        store.create_game(rec("g2", seed="x", bots={1: "greedy"}))
        a = store.append("g1", 0, items(4))
        b = store.append("g2", 0, items(2))
        b += store.append("g2", 2, items(2, start=2))
        assert [r[1:] for r in rows(a)] == [r[1:] for r in rows(b)]
        # A fork shares its parent's prefix, then diverges.
        store.create_game(rec("fork", seed="x", parent="g1", fork_at=2))
        f = store.append("fork", 0, [(r.type, r.payload) for r in store.read("g1", upto=2)])
        f += store.append("fork", 2, items(1, start=50))
        assert [r.hash for r in f[:2]] == [r.hash for r in a[:2]]
        assert f[2].hash != a[2].hash and f[2].prev_hash == a[1].hash
        # A different definition changes every hash.
        store.create_game(rec("g3", msgspec.structs.replace(DEF, rules_version="1.1")))
        c = store.append("g3", 0, items(4))
        assert not {r.hash for r in c} & {r.hash for r in a}

    def test_tags_are_kept_outside_the_chain_and_filter_lists(self, store: EventStore) -> None:
        for gid in ("g1", "g2", "g3"):
            store.create_game(rec(gid))
        written = store.append("g1", 0, items(2))
        assert store.add_tags("g1", ["sim", "club", "sim"]) == ["sim", "club"]
        assert store.add_tags("g1", ["club"]) == []  # already there
        store.add_tags("g2", ["club"])
        assert store.tags(["g1", "g2", "g3"]) == {"g1": ("club", "sim"), "g2": ("club",)}
        assert store.read("g1") == written  # events and hashes untouched
        ids = lambda f: [g.id for g, _ in store.list_games_with_counts(f)]  # noqa: E731
        assert ids(GameFilter(tag="club")) == ["g1", "g2"]
        assert ids(GameFilter(hidden_tag="sim")) == ["g2", "g3"]
        assert ids(GameFilter(tag="club", hidden_tag="sim")) == ["g2"]
        assert store.remove_tags("g1", ["sim", "nope"]) == ["sim"]
        assert ids(GameFilter(hidden_tag="sim")) == ["g1", "g2", "g3"]
        for bad in ("", "-x", "a b", "x" * 41, "a\nb", "ab\n"):
            with pytest.raises(StoreError):
                store.add_tags("g1", [bad])
        with pytest.raises(GameNotFound):
            store.add_tags("nope", ["x"])
        with pytest.raises(GameNotFound):
            store.remove_tags("nope", ["x"])

    def test_ids_by_prefix_and_the_latest(self, store: EventStore) -> None:
        store.create_game(rec("ab12", created_at="2024-01-01T00:00:00+00:00"))
        store.create_game(rec("AB34", created_at="2024-01-02T00:00:00+00:00"))
        store.create_game(rec("c5", created_at="2024-01-03T00:00:00+00:00"))
        assert store.ids_with_prefix("ab") == ["ab12", "AB34"]  # any case, oldest first
        assert store.ids_with_prefix("aB3") == ["AB34"]
        assert store.ids_with_prefix("ab", limit=1) == ["ab12"]
        assert store.ids_with_prefix("%") == store.ids_with_prefix("_") == store.ids_with_prefix("") == []
        assert store.latest_id() == "c5"
        store.add_tags("c5", ["sim"])
        assert store.latest_id(hidden_tag="sim") == "AB34"
        assert store.latest_id(hidden_tag="none") == "c5"

    def test_delete_keeps_lineage_whole(self, store: EventStore) -> None:
        store.create_game(rec("p", seed="x"))
        store.append("p", 0, items(3))
        store.create_game(rec("f", seed="x", parent="p", fork_at=2))
        store.append("f", 0, items(2))
        store.create_game(rec("other", seed="x"))
        kept = store.append("other", 0, items(2))
        for gid in ("p", "f", "other"):
            store.add_note(gid, 1, "n")
            store.add_tags(gid, ["t"])
        store.add_signed("p", 1, b"statement")
        assert store.forks_of("p") == ["f"] and store.forks_of("f") == []
        with pytest.raises(StoreError, match="has forks"):
            store.delete_game("p")
        assert store.version("p") == 3  # refused: nothing removed
        store.delete_game("f")
        store.delete_game("p")
        for gid in ("p", "f"):
            with pytest.raises(GameNotFound):
                store.get_game(gid)
            with pytest.raises(GameNotFound):
                store.read(gid)
        assert store.signed("p") == {} and store.tags(["p", "f"]) == {}
        assert [g.id for g in store.list_games()] == ["other"]
        assert store.read("other") == kept and store.notes("other") == [Note(1, "n")]
        with pytest.raises(GameNotFound):
            store.delete_game("p")
        store.create_game(rec("p", seed="y"))  # the id is free again, and starts afresh
        assert store.version("p") == 0 and store.tags(["p"]) == {}

    def test_option_order_does_not_matter(self) -> None:
        other = msgspec.structs.replace(DEF, options={"expansion": "none", "side": "b"})
        assert list(other.options) != list(DEF.options)
        assert genesis_hash(other) == genesis_hash(DEF)
        assert genesis_hash(msgspec.structs.replace(DEF, table=True)) != genesis_hash(DEF)


# -- SQLite specifics ----------------------------------------------------------
V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE "games" (
   "id" TEXT PRIMARY KEY, "game" TEXT NOT NULL, "definition" TEXT NOT NULL,
   "options" TEXT NOT NULL, "players" TEXT NOT NULL, "bots" TEXT NOT NULL,
   "rules_version" TEXT NOT NULL, "seed" TEXT, "seed_commitment" TEXT NOT NULL,
   "table_game" INTEGER NOT NULL, "parent" TEXT, "fork_at" INTEGER,
   "status" TEXT NOT NULL, "created_at" TEXT NOT NULL);
CREATE TABLE "events" (
   "game_id" TEXT REFERENCES "games"("id"), "seq" INTEGER, "type" TEXT NOT NULL,
   "payload" BLOB NOT NULL, "prev_hash" TEXT NOT NULL, "hash" TEXT NOT NULL,
   PRIMARY KEY ("game_id", "seq"));
INSERT INTO meta VALUES ('schema_version', '1');
"""


def _make_v1(path: Path) -> None:
    """A database as the first release of the store left it (frozen here on purpose)."""
    definition = msgspec.json.encode(DEF, order="sorted").decode()
    conn = sqlite3.connect(path)
    conn.executescript(V1_SCHEMA)
    for gid in ("old", "empty"):
        conn.execute(
            "INSERT INTO games VALUES (?, 'demo', ?, ?, '[\"ann\",\"bob\"]', '{}', '1.0', 's', ?,"
            " 0, NULL, NULL, 'active', '2023-05-01T00:00:00+00:00')",
            (gid, definition, '{"expansion":"none","side":"b"}', DEF.seed_commitment),
        )
    for r in chain(DEF, "old", items(2)):
        conn.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?)", msgspec.structs.astuple(r))
    conn.commit()
    conn.close()


class TestSqliteStore:
    def test_migrates_v1_database(self, tmp_path: Path) -> None:
        path = tmp_path / "old.db"
        _make_v1(path)
        with SqliteStore(path) as s:
            assert s.schema_version() == SCHEMA_VERSION
            genesis = dict(s._conn.execute("SELECT id, genesis FROM games").fetchall())
            assert genesis == {"old": genesis_hash(DEF), "empty": genesis_hash(DEF)}
            index = s._conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'games_created'"
            ).fetchone()
            assert index is not None
            # migration 6 filled in each game's head from its events
            old_chain = chain(DEF, "old", items(2))
            assert s.head("old") == (2, old_chain[-1].hash)
            assert s.head("empty") == (0, genesis_hash(DEF))
            assert [(g.id, n) for g, n in s.list_games_with_counts()] == [("empty", 0), ("old", 2)]
            assert s.get_game("old").winners == ()
            # old data intact and extendable; the genesis path works for an empty game
            assert store_mod.SqliteStore.read(s, "old") == old_chain
            s.append("old", 2, items(1, start=2))
            assert verify_chain(DEF, s.read("old")) is None
            s.append("empty", 0, items(1))
            assert verify_chain(DEF, s.read("empty")) is None
            assert s.get_game("old").definition == DEF
            s.add_note("old", 1, "notes arrive with migration 6")  # issue 15
            assert s.notes("old") == [Note(1, "notes arrive with migration 6")]
            assert s.add_tags("old", ["kept"]) == ["kept"]  # issue 14: tags arrive with migration 9
            assert s.tags(["old"]) == {"old": ("kept",)}
        with SqliteStore(path) as s:  # reopening migrates nothing more
            assert s.schema_version() == SCHEMA_VERSION
            assert s.version("old") == 3

    def test_every_migration_from_scratch(self, tmp_path: Path) -> None:
        with SqliteStore(tmp_path / "new.db") as s:
            assert s.schema_version() == SCHEMA_VERSION == store_mod.MIGRATIONS[-1][0]
            versions = [v for v, _ in store_mod.MIGRATIONS]
            assert versions == sorted(set(versions))

    def test_failed_migration_leaves_db_as_it_was(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "old.db"
        _make_v1(path)
        broken = [*store_mod.MIGRATIONS, (SCHEMA_VERSION + 1, "CREATE TABLE broken (")]
        monkeypatch.setattr(store_mod, "MIGRATIONS", broken)
        monkeypatch.setattr(store_mod, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
        with pytest.raises(StoreError):
            SqliteStore(path)
        conn = sqlite3.connect(path)
        assert conn.execute("SELECT value FROM meta").fetchone() == ("1",)
        cols = [c[1] for c in conn.execute("PRAGMA table_info(games)")]
        assert "genesis" not in cols
        conn.close()

    def test_refuses_newer_schema(self, tmp_path: Path) -> None:
        path = tmp_path / "new.db"
        SqliteStore(path).close()
        conn = sqlite3.connect(path)
        conn.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
        conn.commit()
        conn.close()
        with pytest.raises(StoreError, match="schema version 999"):
            SqliteStore(path)

    def test_wal_and_durability(self, tmp_path: Path) -> None:
        with SqliteStore(tmp_path / "a.db") as s:
            assert s._conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert s._conn.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL
        with SqliteStore(tmp_path / "a.db", durability="normal") as s:
            assert s._conn.execute("PRAGMA synchronous").fetchone() == (1,)  # NORMAL
        with pytest.raises(StoreError):
            SqliteStore(tmp_path / "a.db", durability="fast")  # type: ignore[arg-type]

    def test_primary_key_is_the_last_check(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        with SqliteStore(tmp_path / "a.db") as s:
            s.create_game(rec("g1"))
            s.append("g1", 0, items(2))
            before = s.read("g1")
            # Make the store see a stale head, as if another writer slipped in.
            monkeypatch.setattr(
                store_mod,
                "_SQL_HEAD",
                "SELECT seq - 1, prev_hash FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
            )
            with pytest.raises(Conflict):
                s.append("g1", 1, items(2, start=5))
            monkeypatch.undo()
            assert s.read("g1") == before

    def test_busy_database_raises_store_busy(self, tmp_path: Path) -> None:
        path = tmp_path / "a.db"
        with SqliteStore(path, busy_timeout=0.05) as s:
            s.create_game(rec("g1"))
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")
            try:
                with pytest.raises(StoreBusy):
                    s.append("g1", 0, items(1))
            finally:
                other.execute("ROLLBACK")
                other.close()
            assert s.version("g1") == 0
            assert [r.seq for r in s.append("g1", 0, items(1))] == [1]

    def test_creates_parent_directory(self, tmp_path: Path) -> None:
        with SqliteStore(tmp_path / "deep" / "er" / "c.db") as s:
            s.create_game(rec("g1"))
        assert (tmp_path / "deep" / "er" / "c.db").exists()


def test_default_db_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CITYLOG_DB", str(tmp_path / "x.db"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "x.db"
    monkeypatch.delenv("CITYLOG_DB")
    assert default_db_path() == tmp_path / "xdg" / "citylog" / "citylog.db"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_db_path() == tmp_path / "home" / ".local" / "share" / "citylog" / "citylog.db"
