"""Laws between the two stores, ``copy`` and ``watch``, and the store's
environment (issue 11): read-only opens, foreign databases, URLs that are not
files, environment failures with their own exit code, a bounded cache."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.main import app
from core import registry
from events.copy import CopyError, copy_games
from events.service import CACHE_GAMES, GameService
from events.sqlite_store import SqliteStore
from events.store import EventStore, NotCitylog, StoreError, StoreUnavailable
from events.backends import open_store

GAMES = registry.names()  # card-city first: the fork at seq 10 below is at a decision boundary in its game


def play_stored(svc: GameService, game: str, seed: str, game_id: str | None = None) -> str:
    """A bot game from ``seed`` to its end; its id.  (A fixed salt: the seed
    commitment is salted, so only the same seed *and* salt give the same chain.)"""
    gid = svc.create(game, ["ann", "bob"], seed=seed, game_id=game_id, salt="5a" * 16)
    svc.autoplay(gid, "random")
    return gid


def lines(store: EventStore, gid: str) -> list[tuple[object, ...]]:
    return [msgspec.structs.astuple(r)[1:] for r in store.read(gid)]


# -- the law: both stores record a game identically -------------------------------
@settings(max_examples=max(6, settings.default.max_examples // 4))  # ci 6, thorough 500 (two games each)
@given(game=st.sampled_from(GAMES), seed=st.text("abcdef0123456789", min_size=1, max_size=8))
def test_both_stores_record_identical_lines(pg_cluster: str, tmp_path_factory: pytest.TempPathFactory,
                                            game: str, seed: str) -> None:
    """Same seed, same commands → byte-identical lines in SQLite and PostgreSQL."""
    lite = GameService(SqliteStore(tmp_path_factory.mktemp("law") / "a.db", durability="normal"))
    pg = GameService(open_store(pg_cluster))
    try:
        a = play_stored(lite, game, seed)
        b = play_stored(pg, game, seed)
        assert lines(lite.store, a) == lines(pg.store, b)
        assert lite.store.head(a) == pg.store.head(b)
        assert lite.store.get_game(a).status == pg.store.get_game(b).status == "over"
    finally:
        lite.store.close()
        pg.store.close()


# -- copy --------------------------------------------------------------------------
def test_copy_round_trip_sqlite_pg_sqlite(tmp_path: Path, pg_url: str) -> None:
    src = tmp_path / "src.db"
    svc = GameService(SqliteStore(src, durability="normal"))
    ids = [play_stored(svc, g, f"s{i}") for i, g in enumerate(GAMES)]
    child = svc.fork(ids[0], 10, seed="other")
    ids.append(child)
    svc.store.close()
    runner = CliRunner()
    first = runner.invoke(app, ["copy", "--from", str(src), "--to", pg_url])
    assert first.exit_code == 0, first.output
    assert f"{len(ids)} games copied" in first.output
    again = runner.invoke(app, ["copy", "--from", str(src), "--to", pg_url])
    assert again.exit_code == 0 and f"{len(ids)} already there" in again.output  # idempotent
    back = tmp_path / "back.db"
    res = runner.invoke(app, ["copy", "--from", pg_url, "--to", str(back)])
    assert res.exit_code == 0, res.output
    with SqliteStore(src) as a, open_store(pg_url) as p, SqliteStore(back) as b:  # type: ignore[attr-defined]
        for gid in ids:
            assert lines(a, gid) == lines(p, gid) == lines(b, gid)
            assert a.get_game(gid) == p.get_game(gid) == b.get_game(gid)
        assert p.get_game(child).parent == ids[0]


def test_interrupted_copy_finishes_when_rerun(tmp_path: Path, pg_url: str) -> None:
    svc = GameService(SqliteStore(tmp_path / "src.db", durability="normal"))
    ids = [play_stored(svc, "card-city", f"s{i}") for i in range(3)]
    dst = open_store(pg_url)
    calls = {"n": 0}
    real = dst.append

    def dying_append(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt  # the second game is cut off mid-copy
        return real(*args, **kwargs)

    dst.append = dying_append  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        copy_games(svc.store, dst)
    dst.append = real  # type: ignore[method-assign]
    assert [g.id for g in dst.list_games()] == ids[:1]  # whole games only
    report = copy_games(svc.store, dst)
    assert report.skipped == ids[:1] and report.copied == ids[1:]
    for gid in ids:
        assert lines(svc.store, gid) == lines(dst, gid)
    dst.close()
    svc.store.close()


def test_copy_refuses_a_different_game_under_the_same_id(tmp_path: Path) -> None:
    a = GameService(SqliteStore(tmp_path / "a.db", durability="normal"))
    b = GameService(SqliteStore(tmp_path / "b.db", durability="normal"))
    play_stored(a, "card-city", "one", game_id="same")
    play_stored(b, "card-city", "two", game_id="same")
    before = lines(b.store, "same")
    with pytest.raises(CopyError, match="different game"):
        copy_games(a.store, b.store)
    assert lines(b.store, "same") == before != lines(a.store, "same")
    a.store.close()
    b.store.close()


def test_copy_refuses_a_source_that_does_not_verify(tmp_path: Path) -> None:
    a = GameService(SqliteStore(tmp_path / "a.db", durability="normal"))
    gid = play_stored(a, "card-city", "one")
    a.store._conn.execute("UPDATE events SET payload = X'7B7D' WHERE game_id = ? AND seq = 3", (gid,))  # type: ignore[attr-defined]
    with SqliteStore(tmp_path / "b.db") as b:
        with pytest.raises(CopyError, match="breaks at seq 3"):
            copy_games(a.store, b)
        assert b.list_games() == []
    a.store.close()


# -- watch -------------------------------------------------------------------------
def test_watch_follows_appends_without_refolding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = GameService(SqliteStore(tmp_path / "full.db", durability="normal"))
    gid = full.create("card-city", ["ann", "bob"], seed="w", bots={1: "greedy"}, game_id="w", salt="5a" * 16)
    full.autoplay(gid, "random")
    final = full.store.read(gid)  # the whole game, to feed in as "another process"
    full.store.close()
    db2 = tmp_path / "live.db"
    live = GameService(SqliteStore(db2))  # the same game, up to ann's first decision
    live.create("card-city", ["ann", "bob"], seed="w", bots={1: "greedy"}, game_id="w", salt="5a" * 16)
    start = live.store.version(gid)
    assert live.store.read(gid) == final[:start] and start < len(final)
    live.store.close()
    reads: list[tuple[int | None, int]] = []
    # another writer appends whole decisions (a command and its automatic steps), a few at a time
    game = registry.get("card-city")
    decoded = [msgspec.json.decode(r.payload, type=game.event_type) for r in final]
    cuts = [i for i in range(start, len(final)) if game.command_of(decoded[i]) is not None]
    feeds = iter(list(zip(cuts[::3], cuts[3::3] + [len(final)])))
    real_read, real_wait = SqliteStore.read, SqliteStore.wait

    def counting_read(self, game_id, upto=None, after=0):  # type: ignore[no-untyped-def]
        reads.append((upto, after))
        return real_read(self, game_id, upto, after)

    def feeding_wait(self, game_id, seq, timeout, poll=0.2):  # type: ignore[no-untyped-def]
        step = next(feeds, None)
        if step is not None:
            i, j = step
            with SqliteStore(db2) as w:
                w.append(game_id, i, [(r.type, r.payload) for r in final[i:j]])
        return real_wait(self, game_id, seq, 0)

    monkeypatch.setattr(SqliteStore, "read", counting_read)
    monkeypatch.setattr(SqliteStore, "wait", feeding_wait)
    res = CliRunner().invoke(app, ["--db", str(db2), "watch", gid, "--last", "0", "--for", "60"])
    assert res.exit_code == 0, res.output
    out = res.output.splitlines()
    assert out[-1].startswith("game over")
    seqs = [int(line.split()[0]) for line in out[:-1]]
    assert seqs == list(range(start + 1, len(final) + 1))  # each new event once, in order
    assert reads[0] == (None, 0)  # one full read to start …
    assert all(after > 0 for _, after in reads[1:])  # … then only what was appended


# -- the environment (issue 11) ------------------------------------------------------
def test_list_on_a_new_path_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "dir" / "c.db"
    res = CliRunner().invoke(app, ["--db", str(target), "list"])
    assert res.exit_code == 0 and "no games yet" in res.output
    assert not (tmp_path / "no").exists()


def test_another_programs_sqlite_file_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "theirs.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE games (name TEXT)")
    conn.execute("INSERT INTO games VALUES ('chess')")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    for args in (["list"], ["new", "card-city", "--players", "2"]):
        res = CliRunner().invoke(app, ["--db", str(path), *args])
        assert res.exit_code == 2, res.output
        assert "not citylog's" in res.output
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["theirs.db"]  # no WAL switch: no -wal, no -shm
    with pytest.raises(NotCitylog):
        SqliteStore(path)


def test_a_file_that_is_not_sqlite_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(b"just some text, long enough to be a header\n" * 4)
    before = path.read_bytes()
    res = CliRunner().invoke(app, ["--db", str(path), "new", "card-city", "--players", "2"])
    assert res.exit_code == 2 and res.output.count("\n") == 1, res.output
    assert path.read_bytes() == before


def test_a_url_never_becomes_a_sqlite_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(app, ["--db", "mysql://u@h/db", "list"])
    assert res.exit_code == 2 and "unsupported store URL" in res.output
    bad = f"postgresql://nobody@/citylog?host={tmp_path}/nosocket&connect_timeout=2"
    res = CliRunner().invoke(app, ["--db", bad, "list"])
    assert res.exit_code == 4, res.output  # the server is the environment's
    monkeypatch.setenv("CITYLOG_DB", bad)
    assert CliRunner().invoke(app, ["list"]).exit_code == 4
    assert list(tmp_path.iterdir()) == []  # no 'postgresql:' or 'mysql:' file or directory


def test_password_never_printed(tmp_path: Path) -> None:
    bad = f"postgresql://ann:hunter2@/citylog?host={tmp_path}/nosocket"
    res = CliRunner().invoke(app, ["--db", bad, "list"])
    assert res.exit_code == 4 and "hunter2" not in res.output


def test_disk_full_is_an_environment_failure(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "full.db")
    svc = GameService(store)
    gid = svc.create("card-city", ["ann", "bob"], seed="f")
    pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
    store._conn.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full now
    before = store.read(gid)
    with pytest.raises(StoreUnavailable, match="full"):
        store.append(gid, len(before), [("x", b"x" * 200_000)])
    assert store.read(gid) == before
    store.close()


def test_environment_failures_exit_4_in_one_line() -> None:
    from cli.errors import ENVIRONMENT, guarded
    import typer

    @guarded
    def boom() -> None:
        raise StoreUnavailable("database or disk is full")

    with pytest.raises(typer.Exit) as e:
        boom()
    assert e.value.exit_code == ENVIRONMENT == 4


def test_a_lock_timeout_exits_4(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    SqliteStore(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        store = SqliteStore(path, busy_timeout=0.05)
        with pytest.raises(StoreError) as e:
            with store.transaction():
                pass
        assert type(e.value).__name__ == "StoreBusy"
        store.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_database_in_a_read_only_directory_can_be_read() -> None:
    """Reading commands open the file read-only.  The reads run in a forked
    child; as root the child first becomes 'nobody', so permissions apply."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="citylog-ro-"))
    try:
        base.chmod(0o755)
        d = base / "ro"
        d.mkdir()
        db = d / "c.db"
        svc = GameService(SqliteStore(db))
        gid = play_stored(svc, "card-city", "ro")
        svc.store.close()
        commands = (["list"], ["show", gid], ["log", gid], ["verify", gid], ["export", gid])
        warm = base / "warm.db"  # import every lazily imported module before dropping privileges
        shutil.copy(db, warm)
        for cmd in commands:
            assert CliRunner().invoke(app, ["--db", str(warm), *cmd]).exit_code == 0
        warm.unlink()
        before = sorted(os.listdir(d)), db.read_bytes()
        d.chmod(0o555)
        db.chmod(0o444)
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 0
            try:
                if os.geteuid() == 0:
                    os.setgid(65534)
                    os.setuid(65534)
                for i, cmd in enumerate(commands):
                    res = CliRunner().invoke(app, ["--db", str(db), *cmd])
                    if res.exit_code != 0:
                        sys.stderr.write(f"{cmd}: {res.output}")
                        code = 10 + i
                        break
            except BaseException:  # noqa: BLE001
                code = 99
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert (sorted(os.listdir(d)), db.read_bytes()) == before
    finally:
        for p in base.rglob("*"):
            p.chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)


def test_the_service_cache_is_bounded(tmp_path: Path) -> None:
    svc = GameService(SqliteStore(tmp_path / "c.db", durability="normal"), cache_games=4)
    ids = []
    for i in range(10):  # as simulate does: create, then load
        ids.append(svc.create("card-city", ["ann", "bob"], seed=f"c{i}", bots={0: "random", 1: "random"}))
        svc.load(ids[-1])
        assert len(svc._cache) == min(i + 1, 4)
    assert list(svc._cache) == ids[-4:]  # the most recent
    svc.load(ids[-4])
    assert list(svc._cache)[-1] == ids[-4]  # used: most recent again
    svc.load(ids[0])
    assert ids[0] in svc._cache and ids[-3] not in svc._cache and len(svc._cache) == 4
    assert CACHE_GAMES >= 1
    svc.store.close()


@pytest.mark.parametrize(
    "db, code, words",
    [
        ("", 2, "empty"),
        ("{tmp}", 2, "is a directory"),
        ("postgresql://u@/x?nosuchoption=1", 2, "cannot connect"),
        ("sqlite:///x.db", 2, "unsupported store URL"),
    ],
)
def test_bad_store_targets_are_bad_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         db: str, code: int, words: str) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["list"], ["new", "card-city", "--players", "2"]):
        res = CliRunner().invoke(app, ["--db", db.format(tmp=tmp_path), *args])
        assert res.exit_code == code and words in res.output, res.output
        assert res.output.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_copy_hostile_arguments(tmp_path: Path) -> None:
    src = tmp_path / "src.db"
    GameService(SqliteStore(src, durability="normal")).store.close()
    runner = CliRunner()
    missing = runner.invoke(app, ["copy", "--from", str(tmp_path / "nope.db"), "--to", str(tmp_path / "t.db")])
    assert missing.exit_code == 2 and "no database" in missing.output
    same = runner.invoke(app, ["copy", "--from", str(src), "--to", str(src)])
    assert same.exit_code == 2 and "same store" in same.output
    foreign = tmp_path / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    into_foreign = runner.invoke(app, ["copy", "--from", str(src), "--to", str(foreign)])
    assert into_foreign.exit_code == 2 and "not citylog's" in into_foreign.output
    # nothing created besides SQLite's own -wal/-shm of the (read-only) source
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("src.db-")) == [
        "foreign.db", "src.db"]


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_list_pages_filters_and_winners_from_the_cli(kind: str, tmp_path: Path,
                                                     request: pytest.FixtureRequest) -> None:
    db = str(request.getfixturevalue("pg_url")) if kind == "postgresql" else str(tmp_path / "l.db")
    svc = GameService(open_store(db))
    done = play_stored(svc, "card-city", "w1")
    five = svc.create("point-city", ["cy", "dee"], seed="w2")
    also = svc.create("card-city", ["ann", "cy"], seed="w3")
    rec = svc.store.get_game(done)
    assert rec.status == "over" and rec.winners and set(rec.winners) <= {"ann", "bob"}
    svc.store.close()
    run = lambda *a: CliRunner().invoke(app, ["--db", db, "list", *a])  # noqa: E731
    res = run()
    assert res.exit_code == 0
    assert [line.split()[0] for line in res.output.splitlines()] == [done, five, also]
    assert f"won by {' and '.join(rec.winners)}" in res.output.splitlines()[0]
    assert [ln.split()[0] for ln in run("--player", "cy").output.splitlines()] == [five, also]
    assert [ln.split()[0] for ln in run("--game", "card-city", "--status", "active").output.splitlines()] == [also]
    page = run("--limit", "1").output.splitlines()
    assert page == [page[0], f"… more: citylog list --after {done} (same filters)"]
    assert [ln.split()[0] for ln in run("--limit", "1", "--after", done).output.splitlines()][0] == five
    assert run("--status", "paused").exit_code == 2
    assert run("--limit", "0").exit_code == 2
    assert run("--after", "nosuchgame").exit_code == 2


def test_copy_continues_a_game_the_target_holds_a_prefix_of(tmp_path: Path, pg_url: str) -> None:
    svc = GameService(SqliteStore(tmp_path / "src.db", durability="normal"))
    gid = svc.create("card-city", ["ann", "bob"], seed="p", bots={1: "random"})
    dst = open_store(pg_url)
    assert copy_games(svc.store, dst).copied == [gid]
    svc.autoplay(gid, "random")  # the game goes on in the source
    report = copy_games(svc.store, dst)
    assert report.extended == [gid] and report.events > 0
    assert lines(dst, gid) == lines(svc.store, gid)
    assert dst.get_game(gid) == svc.store.get_game(gid)  # status and winners too
    assert dst.get_game(gid).status == "over"
    # a fork asked for alone brings its parent along
    child = svc.fork(gid, 10)
    other = SqliteStore(tmp_path / "other.db")
    assert copy_games(svc.store, other, [child]).copied == [gid, child]
    assert lines(other, child) == lines(svc.store, child)
    other.close()
    dst.close()
    svc.store.close()


@given(
    games=st.lists(
        st.tuples(st.sampled_from(["demo", "other"]),
                  st.lists(st.sampled_from(["ann", "bob", "cy", "dee"]), min_size=1, max_size=3, unique=True),
                  st.sampled_from(["active", "over"])),
        max_size=12,
    ),
    game=st.none() | st.sampled_from(["demo", "other", "nope"]),
    player=st.none() | st.sampled_from(["ann", "cy", "an"]),
    status=st.none() | st.sampled_from(["active", "over"]),
    limit=st.none() | st.integers(1, 5),
    after=st.none() | st.integers(0, 11),
)
def test_list_filters_agree_with_a_model(games, game, player, status, limit, after) -> None:  # type: ignore[no-untyped-def]
    """The store's filtered, paged listing == filtering every game in Python."""
    from events.envelope import GameDefinition
    from events.store import GameFilter, GameRecord

    store = SqliteStore(":memory:")
    recs = []
    for i, (name, players, st_) in enumerate(games):
        d = GameDefinition(name, "1", {}, tuple(players), "00")
        r = GameRecord.of(f"g{i:02d}", d, status=st_, created_at=f"2024-01-01T00:00:{i:02d}")
        store.create_game(r)
        recs.append(r)
    after_id = f"g{after:02d}" if after is not None and after < len(recs) else None
    want = [r.id for r in recs
            if (game is None or r.game == game) and (player is None or player in r.players)
            and (status is None or r.status == status) and (after_id is None or r.id > after_id)]
    if limit is not None:
        want = want[:limit]
    got = store.list_games_with_counts(GameFilter(game=game, player=player, status=status,
                                                  after=after_id, limit=limit))
    assert [g.id for g, _ in got] == want
    store.close()


def test_a_postgresql_schema_that_is_not_citylogs_is_refused_untouched(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE games (name TEXT)")
        conn.execute("INSERT INTO games VALUES ('chess')")
    for args in (["list"], ["new", "card-city", "--players", "2"]):
        res = CliRunner().invoke(app, ["--db", pg_url, *args])
        assert res.exit_code == 2 and "not citylog's" in res.output, res.output
    with psycopg.connect(pg_url) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
        assert tables == [("games",)]  # no meta, no events: nothing created
        assert conn.execute("SELECT name FROM games").fetchall() == [("chess",)]
        conn.execute("DROP TABLE games")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('schema_version', 'garbage')")
    res = CliRunner().invoke(app, ["--db", pg_url, "list"])
    assert res.exit_code == 2 and "not a number" in res.output, res.output


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_the_library_commands_on_both_stores(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """simulate's tag, list's hiding, a prefix, last, tag and delete --with-forks, on each backend."""
    import json

    db = request.getfixturevalue("pg_url") if kind == "postgresql" else str(tmp_path / "c.db")

    def ok(*args: str) -> str:
        res = CliRunner().invoke(app, [*args, "--db", db])
        assert res.exit_code == 0, (args, res.output)
        return res.stdout

    def ids(*args: str) -> list[str]:
        return [json.loads(x)["game_id"] for x in ok("list", "--json", *args).splitlines()]

    gid = json.loads(ok("new", "card-city", "--players", "2", "--seed", "s", "--json"))["game_id"]
    sims = [json.loads(x)["game_id"] for x in ok("simulate", "card-city", "--players", "2", "--games", "2",
                                                 "--seed", "x", "--json").splitlines()[:-1]]  # then the summary
    assert ids() == [gid] and ids("--tag", "sim") == sims and ids("--all") == [gid, *sims]
    assert json.loads(ok("show", "last", "--json"))["game_id"] == gid
    assert json.loads(ok("show", gid[:5].upper(), "--json"))["game_id"] == gid
    fork = json.loads(ok("fork", gid, "--at", "3", "--json"))["game_id"]
    ok("tag", fork, "mine")
    assert ids("--tag", "mine") == [fork]
    res = CliRunner().invoke(app, ["delete", gid, "--yes", "--db", db])
    assert res.exit_code == 2 and "fork" in res.stderr
    ok("delete", gid, "--with-forks", "--yes")
    ok("delete", "--tag", "sim", "--yes")
    assert ids("--all") == []


def test_a_postgresql_schema_of_version_2_gains_tags(pg_url: str) -> None:
    """Issue 14's migration (PostgreSQL step 3) on a store made before it: the
    games stay, and can be tagged."""
    import psycopg

    from events.pg_store import PG_MIGRATIONS
    from events.store import GameFilter

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        for _version, step in PG_MIGRATIONS[:2]:
            conn.execute(step)  # type: ignore[arg-type]
        conn.execute("INSERT INTO meta VALUES ('schema_version', '2')")
    before = open_store(pg_url)  # migrates to the latest
    try:
        assert before.schema_version() == PG_MIGRATIONS[-1][0] >= 3  # type: ignore[attr-defined]  (5: the clock, issue 24)
        svc = GameService(before)
        gid = svc.create("card-city", ["a", "b"], seed="s")
        assert before.add_tags(gid, ["sim"]) == ["sim"]
        assert before.list_games_with_counts(GameFilter(hidden_tag="sim")) == []
        assert svc.resolve(gid[:3].upper()) == gid
        svc.delete(gid)
        assert before.list_games() == []
    finally:
        before.close()
