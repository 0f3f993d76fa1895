"""The hostile-input suite: mutated files through every reading command.

Exported logs (full and a player's view), move files and board files are
mutated at the byte level and at the JSON level, then handed to each command
that reads them, in-process (CliRunner).  The law: the command exits 0, 1 or 2
(never an internal error: CliRunner would hold the exception), a refusal is one
line, and the database is unchanged after a refusal.

``ci`` runs a few hundred examples in all; ``thorough`` tens of thousands:

    HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_hostile_input.py
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import resource
import signal
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.main import app
from events import statements
from events.service import GameService
from events.statements import MOVE_FORMAT, MoveFile
from events.sqlite_store import SqliteStore
from replay import logfile
from replay.sources import export

THOROUGH = os.environ.get("HYPOTHESIS_PROFILE") == "thorough"


def examples(ci: int) -> settings:
    """``ci`` examples by default, 50 times as many in ``thorough``."""
    return settings(
        max_examples=ci * 50 if THOROUGH else ci,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


BOARD_CC = "# a board\nR R R P R\nP H C P .\nR R R C L\nP L C I I\nR C P . I\n"
BOARD_5X5 = "F S H E O\nN T P W G\n. . . . .\nF S H E O\nN T P W G\n"


class World:
    """One database with a game of each kind, and the files made from them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.db = root / "w.db"
        svc = GameService(SqliteStore(self.db))
        self.docs: dict[str, bytes] = {}
        for game, n in (("card-city", 2), ("5x5-city", 2), ("point-city", 2)):
            gid = svc.create(game, [f"p{i}" for i in range(n)], seed=f"hostile-{game}",
                             bots=dict.fromkeys(range(n), "greedy"))
            self.docs[f"{game}.full"] = self._text(export(svc, gid))
        # unfinished games (a human seat to act), each seat's view, and a move file
        for game in ("card-city", "5x5-city", "point-city"):
            gid = svc.create(game, ["ann", "bob"], seed=f"hostile-view-{game}", bots={1: "greedy"})
            self.docs[f"{game}.live"] = self._text(export(svc, gid))
            self.live_id = gid
            for seat in ("ann", "bob"):
                self.docs[f"{game}.view.{seat}"] = self._text(export(svc, gid, seat))
        loaded = svc.load(gid)
        command = loaded.game.format_command(next(iter(loaded.game.legal(loaded.state, 0))))
        self.docs["move"] = statements.encode(
            MoveFile(MOVE_FORMAT, gid, "ann", loaded.version, loaded.head_hash, (command,), "", ""))
        svc.store.close()
        self.docs["board.card-city"] = BOARD_CC.encode()
        self.docs["board.5x5-city"] = BOARD_5X5.encode()
        self.original = root / "original.jsonl"
        self.original.write_bytes(self.docs["card-city.full"])

    @staticmethod
    def _text(log: logfile.LogFile) -> bytes:
        import io

        out = io.StringIO()
        logfile.write(log, out)
        return out.getvalue().encode()

    def snapshot(self) -> list[str]:
        with sqlite3.connect(self.db) as conn:
            return list(conn.iterdump())


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("hostile"))


# -- mutations --------------------------------------------------------------------------
MARKUP = ["[/]", "[bold]", "[red]x[/red]", "\\", "[link=file:///]", ":smile:"]
ODD_STRINGS = st.sampled_from(
    ["", " ", "\x00", "\ufeff", "é", "\udcff", "💥", "-1", "NaN", "cc.created", "over", "active", "p0",
     "citylog-log/1", "citylog-move/1", "0" * 64, *MARKUP]
) | st.text(max_size=20)
ODD_NUMBERS = st.sampled_from([0, -1, 1, 2, 3, 2**31, 2**63, -(2**63), 10**30, 1e308, -0.0, 0.5]) | st.integers()
DEEP = "\u0000DEEP\u0000"  # replaced by a 3,000-deep JSON array after encoding

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | ODD_NUMBERS | ODD_STRINGS | st.just(DEEP),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ODD_STRINGS, inner, max_size=4),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, prefix + (i,))
    return out


def _set(doc: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    if not path:
        return value
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return doc


@st.composite
def json_mutation(draw: st.DrawFn, data: bytes) -> bytes:
    """Change, delete or add one value somewhere in one line's JSON; or move, drop or
    duplicate a whole line."""
    lines = data.decode("utf-8").splitlines()
    i = draw(st.integers(0, len(lines) - 1))
    what = draw(st.sampled_from(["set", "set", "set", "delete", "add", "drop", "dup", "swap"]))
    if what in ("drop", "dup", "swap"):
        j = draw(st.integers(0, len(lines) - 1))
        if what == "drop":
            del lines[i]
        elif what == "dup":
            lines.insert(j, lines[i])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return ("\n".join(lines) + "\n").encode()
    doc = json.loads(lines[i])
    paths = _paths(doc)
    path = draw(st.sampled_from(paths))
    value = draw(JSON_VALUES)
    if what == "add":
        target = doc
        for key in path:
            target = target[key]
        if isinstance(target, dict):
            target[draw(ODD_STRINGS)] = value
        elif isinstance(target, list):
            target.append(value)
        else:
            doc = _set(doc, path, value, False)
    else:
        doc = _set(doc, path, value, what == "delete" and len(path) > 0)
    text = json.dumps(doc, ensure_ascii=draw(st.booleans()))
    text = text.replace(json.dumps(DEEP), "[" * 3000 + "]" * 3000)
    lines[i] = text
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


@st.composite
def byte_mutation(draw: st.DrawFn, data: bytes) -> bytes:
    """A few byte-level edits: flip, insert, delete, truncate, repeat a slice,
    a BOM, blank lines, CRLF."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        n = len(out)
        what = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "repeat", "bom", "blank", "crlf"]))
        at = draw(st.integers(0, max(n - 1, 0)))
        if what == "flip" and n:
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif what == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=8) | st.sampled_from([b"[/]", b"\n", b"\xff", b"{"]))
        elif what == "delete":
            del out[at : at + draw(st.integers(1, 64))]
        elif what == "truncate":
            del out[at:]
        elif what == "repeat":
            out[at:at] = out[at : at + draw(st.integers(1, 200))]
        elif what == "bom":
            out[0:0] = b"\xef\xbb\xbf"
        elif what == "blank":
            out[at:at] = b"\n" * draw(st.integers(1, 3))
        else:
            out[:] = out.replace(b"\n", b"\r\n")
    return bytes(out)


def mutated(data: bytes) -> st.SearchStrategy[bytes]:
    return st.one_of(json_mutation(data), byte_mutation(data))


# -- the law ----------------------------------------------------------------------------
def check(world: World, args: list[str]) -> str:
    before = world.snapshot()
    result = CliRunner().invoke(app, ["--db", str(world.db), *args])
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"{args}: internal error {exc!r}"
    code = result.exit_code
    assert code in (0, 1, 2), f"{args}: exit {code}"
    out, err = result.stdout, result.stderr
    assert "Traceback" not in out + err
    if code == 2:
        assert err.endswith("\n") and err.count("\n") == 1 and not out.strip(), f"{args}: {err!r} {out[:200]!r}"
        assert err[:-1].isprintable(), f"{args}: a control character in {err!r}"
    if code != 0:
        assert world.snapshot() == before, f"{args}: the database changed after a refusal"
    if code == 1 and args[0] == "verify":
        assert out.count("\n") == 1 and out[:-1].isprintable(), f"{args}: {out!r}"
    assert not FOREIGN.search(out + err), f"{args}: a terminal control reached the output: {FOREIGN.search(out + err)!r}"
    return out


FOREIGN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""A character that drives a terminal (ESC, CSI, a carriage return, a bidi override):
piped output holds none — the program's own colours are only for a terminal."""


LOG_COMMANDS: list[Callable[[str, World], list[str]]] = [
    lambda f, w: ["verify", f],
    lambda f, w: ["verify", f, "--json"],
    lambda f, w: ["import", f],
    lambda f, w: ["show", f],
    lambda f, w: ["show", f, "--json", "--at", "3"],
    lambda f, w: ["show", f, "--as", "p1"],
    lambda f, w: ["log", f],
    lambda f, w: ["log", f, "--json"],
    lambda f, w: ["diff", str(w.original), f],
    lambda f, w: ["diff", f, f, "--json"],
    lambda f, w: ["explain", f, "--at", "4"],
    lambda f, w: ["explain", f, "--at", "6", "--try", "pass"],
    lambda f, w: ["move", f, "--as", "ann", "pass", "--out", str(w.root / "out-move.json")],
]


def _write(world: World, name: str, data: bytes) -> str:
    path = world.root / name
    path.write_bytes(data)
    return str(path)


@examples(150)
@given(data=st.data())
def test_mutated_full_logs_through_every_reading_command(world: World, data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(sorted(k for k in world.docs if k.endswith((".full", ".live")))))
    blob = data.draw(mutated(world.docs[doc]))
    command = data.draw(st.sampled_from(LOG_COMMANDS))
    check(world, command(_write(world, "m.jsonl", blob), world))


@examples(60)
@given(data=st.data())
def test_mutated_player_views_through_every_reading_command(world: World, data: st.DataObject) -> None:
    doc = data.draw(st.sampled_from(sorted(k for k in world.docs if ".view." in k)))
    blob = data.draw(mutated(world.docs[doc]))
    command = data.draw(st.sampled_from(LOG_COMMANDS))
    check(world, command(_write(world, "v.jsonl", blob), world))


@examples(60)
@given(data=st.data())
def test_mutated_move_files_through_apply(world: World, data: st.DataObject) -> None:
    blob = data.draw(mutated(world.docs["move"]))
    check(world, ["apply", _write(world, "mv.json", blob)])


@examples(60)
@given(data=st.data())
def test_mutated_board_files_through_score_and_where(world: World, data: st.DataObject) -> None:
    game = data.draw(st.sampled_from(["card-city", "5x5-city"]))
    blob = data.draw(byte_mutation(world.docs[f"board.{game}"]))
    path = _write(world, "b.txt", blob)
    args = data.draw(st.sampled_from(
        [["score", "card-city", path, "--coins", "3"], ["where", "card-city", path, "--card", "R"]]
        if game == "card-city" else [["score", "5x5-city", path, "--sides", "ABAAABBAAA", "--planning", "4"]]
    ))
    check(world, args)


def test_the_unmutated_documents_pass(world: World) -> None:
    """The law's baseline: the real files are accepted (so a refusal above is the mutation's)."""
    for name in sorted(k for k in world.docs if k.endswith(".full") or ".view." in k):
        result = CliRunner().invoke(app, ["--db", str(world.db), "verify", _write(world, "ok.jsonl", world.docs[name])])
        assert result.exit_code == 0, (name, result.stdout)
    board = _write(world, "ok.txt", world.docs["board.card-city"])
    assert CliRunner().invoke(app, ["--db", str(world.db), "score", "card-city", board, "--coins", "3"]).exit_code == 0


ARGUMENT_TEMPLATES = [
    ["show", "{ref}", "--at", "{n}"], ["show", "{ref}", "--as", "{s}"], ["log", "{ref}"],
    ["verify", "{ref}"], ["explain", "{ref}", "--at", "{n}"], ["explain", "{ref}", "--at", "{n}", "--try", "{s}"],
    ["explain", "{ref}", "--at", "{n}", "--as", "{s}", "--try", "pass"], ["diff", "{ref}", "{ref}"],
    ["export", "{ref}", "--as", "{s}"], ["fork", "{ref}", "--at", "{n}", "--seed", "{s}"],
    ["move", "{ref}", "--as", "{s}", "{s}"], ["move", "{ref}", "--chance", "{s}"],
    ["new", "{s}", "--players", "{s}", "--seed", "{s}"], ["new", "point-city", "--players", "{s}"],
    ["new", "card-city", "--players", "2", "--option", "{s}"], ["new", "5x5-city", "--players", "2", "--bots", "{s}"],
    ["simulate", "{s}", "--players", "{s}", "--seed", "{s}", "--games", "{n}"],
    ["demo", "--players", "{n}", "--game", "{s}"], ["where", "card-city", "{ref}", "--card", "{s}"],
    ["score", "{s}", "{ref}", "--coins", "{n}"], ["import", "{ref}", "--bots", "{s}"],
]


@examples(100)
@given(data=st.data())
def test_hostile_arguments(world: World, data: st.DataObject) -> None:
    """Odd text and numbers (non-UTF-8, markup, huge, negative) in every argument."""
    template = data.draw(st.sampled_from(ARGUMENT_TEMPLATES))
    refs = st.sampled_from([world.live_id, str(world.original), "nope", str(world.root)]) | ODD_STRINGS
    args = []
    for part in template:
        if part == "{ref}":
            args.append(data.draw(refs))
        elif part == "{s}":
            args.append(data.draw(ODD_STRINGS | st.sampled_from(["ann", "bob", "pass", "greedy", "2", "card-city"])))
        elif part == "{n}":
            args.append(str(data.draw(ODD_NUMBERS)))
        else:
            args.append(part)
    if "\x00" in "".join(args):
        return  # an argv can not hold a NUL byte
    if "--games" in args:  # simulate writes whole games when it succeeds: keep the work small
        i = args.index("--games") + 1
        if args[i].isdigit() and int(args[i]) > 2:
            args[i] = "2"
    check(world, args)


# -- a database edited behind citylog's back -------------------------------------------
GAME_COLUMNS = ["game", "options", "players", "bots", "rules_version", "seed", "seed_commitment", "table_game",
                "parent", "fork_at", "status", "reseeds", "salted", "genesis", "definition"]
EVENT_COLUMNS = ["seq", "type", "payload", "prev_hash", "hash"]
SQL_VALUES = st.none() | ODD_NUMBERS.filter(lambda n: not isinstance(n, int) or -(2**63) <= n < 2**63) | \
    ODD_STRINGS.filter(lambda s: "\udcff" not in s) | st.binary(max_size=40) | \
    st.sampled_from(["{}", "[]", '{"0":"nope"}', '[[1,"x"]]', "over", "active", '{"type":"cc.nope"}'])


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("stored")
    path = root / "base.db"
    svc = GameService(SqliteStore(path))
    ids = [svc.create(g, ["ann", "bob"], seed=f"db-{g}", bots={0: "greedy", 1: "greedy"})
           for g in ("card-city", "5x5-city", "point-city")]
    svc.store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path, ids


_copies = itertools.count()


@examples(60)
@given(data=st.data())
def test_a_row_edited_in_the_database(stored: tuple[Path, list[str]], tmp_path: Path, data: st.DataObject) -> None:
    """One value of one row of ``games`` or ``events`` changed: every reading command
    names the problem in a line (never an internal error), and ``verify`` of the
    game whose row was changed never says valid unless nothing changed."""
    base, ids = stored
    db = tmp_path / f"edited-{next(_copies)}.db"  # a new file: an earlier example's connection may linger
    db.write_bytes(base.read_bytes())
    gid = data.draw(st.sampled_from(ids))
    value = data.draw(SQL_VALUES)
    with sqlite3.connect(db) as conn:
        if data.draw(st.booleans()):
            column = data.draw(st.sampled_from(EVENT_COLUMNS))
            (n,) = conn.execute("SELECT count(*) FROM events WHERE game_id = ?", (gid,)).fetchone()
            seq = data.draw(st.integers(1, n))
            where = "FROM events WHERE game_id = ? AND seq = ?"
            (old,) = conn.execute(f"SELECT {column} {where}", (gid, seq)).fetchone()
            try:
                conn.execute(f"UPDATE events SET {column} = ? WHERE game_id = ? AND seq = ?", (value, gid, seq))
            except sqlite3.IntegrityError:
                return  # the schema refuses it (NOT NULL, the primary key)
            # every column of an event is chained: a changed one is never valid
            event_changed = type(old) is not type(value) or old != value
        else:
            event_changed = False
            column = data.draw(st.sampled_from(GAME_COLUMNS))
            try:
                conn.execute(f"UPDATE games SET {column} = ? WHERE id = ?", (value, gid))
            except sqlite3.IntegrityError:
                return
    world = World.__new__(World)
    world.db = db
    args = data.draw(st.sampled_from([["verify", gid], ["show", gid], ["log", gid], ["list"], ["export", gid],
                                      ["explain", gid, "--at", "3"], ["diff", gid, ids[0]],
                                      ["fork", gid, "--at", "2"], ["autoplay", gid], ["move", gid, "--as", "ann", "pass"],
                                      ["import", str(base)]]))
    out = check(world, args)
    if args[0] == "verify" and event_changed:
        assert "valid —" not in out, f"{column} = {value!r}: {out}"


# -- what a path may name: FIFOs, devices, directories, links, sparse giants ------------
GIANT = 8 << 30
"""A sparse file of 8 GiB: read whole, it would not fit in the memory the test allows."""


def _special(root: Path) -> dict[str, Path]:
    """One path of each kind that is not a readable regular file within limits."""
    root.mkdir(exist_ok=True)
    kinds: dict[str, Path] = {}
    fifo = root / "fifo.jsonl"
    if not fifo.exists():
        os.mkfifo(fifo)
    kinds["fifo"] = fifo
    folder = root / "folder.jsonl"
    folder.mkdir(exist_ok=True)
    kinds["directory"] = folder
    for name, target in (("dangling", root / "nothing-here"), ("zero", Path("/dev/zero")), ("to-fifo", fifo)):
        link = root / f"{name}.jsonl"
        if not link.is_symlink():
            link.symlink_to(target)
        kinds[f"link to {name}"] = link
    giant = root / "giant.jsonl"
    with giant.open("wb") as handle:
        handle.truncate(GIANT)  # sparse: no disk used
    kinds["sparse giant"] = giant
    if Path("/dev/null").exists():
        kinds["device"] = Path("/dev/null")
    return kinds


class _Hung(Exception):
    pass


@contextlib.contextmanager
def _watchdog(what: object, seconds: int = 20) -> Iterator[None]:
    """A hang (on a FIFO) fails the test instead of stalling it, and reading
    /dev/zero or a giant whole fails with MemoryError (an address-space limit)
    instead of taking the machine's memory."""

    def hung(signum: int, frame: Any) -> None:
        raise _Hung(f"{what}: hung for {seconds} s")

    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        in_use = int(statm.read().split()[0]) * resource.getpagesize()
    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    resource.setrlimit(resource.RLIMIT_AS, (in_use + (1 << 30), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _bounded_run(world: World, args: list[str], seconds: int = 20) -> tuple[int, str, str]:
    """A command in-process under :func:`_watchdog`."""
    with _watchdog(args, seconds):
        result = CliRunner().invoke(app, ["--db", str(world.db), *args])
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), f"{args}: internal error {exc!r}"
    return result.exit_code, result.stdout, result.stderr


SPECIAL_COMMANDS: list[Callable[[str, World], list[str]]] = [
    lambda f, w: ["verify", f],
    lambda f, w: ["show", f],
    lambda f, w: ["log", f],
    lambda f, w: ["import", f],
    lambda f, w: ["diff", str(w.original), f],
    lambda f, w: ["legal", f, "--as", "ann"],
    lambda f, w: ["export", f, "--format", "text"],
    lambda f, w: ["apply", f],
    lambda f, w: ["join", f, "--as", "ann"],
    lambda f, w: ["score", "card-city", f, "--coins", "3"],
    lambda f, w: ["where", "card-city", f, "--card", "R"],
]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_special_files_are_refused_in_one_line_never_read(world: World) -> None:
    """The law: whatever a path names, every reading command answers in one line
    (exit 2), at once, without reading more than its limit — never a hang on a
    FIFO, never /dev/zero or a sparse 8 GiB file read whole (on main: a hang,
    or MemoryError and exit 3)."""
    before = world.snapshot()
    for kind, path in _special(world.root / "special").items():
        for command in SPECIAL_COMMANDS:
            args = command(str(path), world)
            code, out, err = _bounded_run(world, args)
            assert code == 2, f"{kind}: {args}: exit {code}: {err}{out}"
            assert err.count("\n") == 1 and err[:-1].isprintable() and not out.strip(), f"{kind}: {args}: {err!r}"
    assert world.snapshot() == before


def test_key_files_are_read_bounded_and_regular_only(world: World) -> None:
    from cli.keys import load_key
    from events.service import ServiceError

    for kind, path in _special(world.root / "special").items():
        with _watchdog(kind), pytest.raises(ServiceError) as refused:
            load_key(path)
        assert str(path) in str(refused.value) and "\n" not in str(refused.value), kind


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_an_inbox_with_special_files_refuses_each_and_applies_the_rest(tmp_path: Path) -> None:
    """A FIFO, a directory, links to nothing, to /dev/zero and to a FIFO, and a
    sparse giant, each named *.json, beside a real move file: each is refused
    with its reason and moved to refused/ (a rename: never read, never copied),
    the move is applied (on main: a hang, or the whole run aborted)."""
    db = tmp_path / "h.db"
    svc = GameService(SqliteStore(db))
    gid = svc.create("card-city", ["ann", "bob"], seed="inbox-special", bots={1: "greedy"})
    loaded = svc.load(gid)
    command = loaded.game.format_command(next(iter(loaded.game.legal(loaded.state, 0))))
    svc.store.close()
    inbox = tmp_path / "in"
    special = _special(tmp_path / "kinds")
    inbox.mkdir()
    for kind, path in special.items():
        name = kind.replace(" ", "-") + ".json"
        if path.is_symlink():
            (inbox / name).symlink_to(os.readlink(path))
        elif path.is_fifo():
            os.mkfifo(inbox / name)
        elif path.is_dir():
            (inbox / name).mkdir()
        elif path.is_file():
            with (inbox / name).open("wb") as handle:
                handle.truncate(GIANT)
        else:
            (inbox / name).symlink_to(path)  # a device
    (inbox / "move.json").write_bytes(statements.encode(
        MoveFile(MOVE_FORMAT, gid, "ann", loaded.version, loaded.head_hash, (command,), "", "")))
    world = World.__new__(World)
    world.db = db
    code, out, err = _bounded_run(world, ["inbox", str(inbox)])
    assert code == 2, err + out
    lines = out.splitlines()
    assert any(line.startswith("move.json: applied") for line in lines), out
    refused = sorted(p.name for p in (inbox / "refused").iterdir())
    assert refused == sorted(k.replace(" ", "-") + ".json" for k in special), refused
    assert sum("refused" in line for line in lines) == len(special)
    assert not FOREIGN.search(out + err)


# -- text from files and senders never drives the terminal -------------------------------
NASTY = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e\r"
"""An OSC title change, a screen clear, an 8-bit CSI, a bidi override, a carriage return."""


def test_escape_sequences_from_files_notes_and_names_never_reach_the_terminal(world: World, tmp_path: Path) -> None:
    """Every printed piece of foreign text goes through one cleaner (cli.output.clean):
    a note written into the database behind citylog's back, an inbox file's name;
    control characters in a log's names or game id are refused where the file is
    read, and in a note where it is added (on main: ESC and CSI printed raw by
    show, log, legal, note and inbox)."""
    doc = world.docs["card-city.live"].decode().splitlines()
    header = json.loads(doc[0])
    header["game_id"] = "g" + NASTY
    header["definition"]["players"][0] = "ann" + NASTY
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([json.dumps(header), *doc[1:]]) + "\n")
    name = "ann" + NASTY
    outputs = []
    for args in (["show", str(forged)], ["log", str(forged)], ["legal", str(forged), "--as", name],
                 ["verify", str(forged)], ["diff", str(world.original), str(forged)], ["show", str(forged), "--json"]):
        result = CliRunner().invoke(app, ["--db", str(world.db), *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
        outputs.append((args, result.stdout + result.stderr))
    db = tmp_path / "n.db"
    svc = GameService(SqliteStore(db))
    gid = svc.create("card-city", ["ann", "bob"], seed="nasty", bots={1: "greedy"})
    svc.store.close()
    result = CliRunner().invoke(app, ["--db", str(db), "note", gid, "--at", "1", "look" + NASTY])
    assert result.exit_code == 2 and "control characters" in result.stderr  # refused where it enters
    SqliteStore(db).add_note(gid, 1, "look" + NASTY)  # written behind citylog's back
    for args in (["note", gid], ["note", gid, "--json"], ["export", gid, "--format", "text"]):
        result = CliRunner().invoke(app, ["--db", str(db), *args])
        assert result.exit_code == 0, result.stderr
        outputs.append((args, result.stdout + result.stderr))
    inbox = tmp_path / "in"
    inbox.mkdir()
    (inbox / f"x{NASTY}.json").write_text("{not json")
    result = CliRunner().invoke(app, ["--db", str(db), "inbox", str(inbox)])
    assert result.exit_code == 2 and "refused" in result.stdout
    outputs.append((["inbox"], result.stdout + result.stderr))
    for args, text in outputs:
        assert not FOREIGN.search(text), f"{args}: {FOREIGN.search(text)!r} in {text[:300]!r}"
    assert all("control character" in text for _, text in outputs[:6])  # no game has such names: refused
    assert "pwned" in outputs[6][1] and "pwned" in outputs[8][1]  # a note is shown, only its controls are gone


def test_a_default_file_name_never_leaves_its_folder(world: World, tmp_path: Path) -> None:
    """A game id chosen by whoever made the file (``../../x``) names a default
    output file: it stays one path component inside the folder given."""
    doc = world.docs["card-city.live"].decode().splitlines()
    header = json.loads(doc[0])
    header["game_id"] = "../../../../escaped"
    forged = tmp_path / "f.jsonl"
    forged.write_text("\n".join([json.dumps(header), *doc[1:]]) + "\n")
    db = world.db
    loaded_legal = CliRunner().invoke(app, ["--db", str(db), "legal", str(forged), "--as", "ann", "--json"])
    command = json.loads(loaded_legal.stdout)["legal"][0]
    out = tmp_path / "a" / "b" / "c" / "d" / "out"
    out.mkdir(parents=True)
    result = CliRunner().invoke(app, ["--db", str(db), "move", str(forged), "--as", "ann", command, "--out", str(out) + "/"])
    assert result.exit_code == 0, result.stderr
    written = [p for p in tmp_path.rglob("*move.json")]
    assert len(written) == 1 and written[0].parent == out, written  # on main: tmp_path/a/escaped-…


@pytest.mark.parametrize("salt", ["zz" * 16, "5a" * 15 + "5", "5A" * 16, "5a" * 17, "", 7])
def test_a_salt_that_is_not_32_lower_case_hex_digits_is_one_line(world: World, tmp_path: Path, salt: object) -> None:
    doc = world.docs["card-city.full"].decode().splitlines()
    header = json.loads(doc[0])
    header["salt"] = salt
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([json.dumps(header), *doc[1:]]) + "\n")
    for args in (["verify", str(path)], ["show", str(path)], ["import", str(path)]):
        code, out, err = _bounded_run(world, args)
        assert code in (1, 2), (args, code, err)  # on main: exit 3 (bytes.fromhex)
        assert len((out + err).splitlines()) == 1


@pytest.mark.parametrize("args", [
    ["new", "card-city", "--players", "a" * 41 + ",bob"],
    ["new", "card-city", "--players", "ann,bob", "--seed", "s" * 201],
    ["new", "card-city", "--players", "ann\u202e,bob"],
])
def test_overlong_or_unprintable_names_and_seeds_are_refused(world: World, args: list[str]) -> None:
    check(world, args)
    result = CliRunner().invoke(app, ["--db", str(world.db), *args])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1  # on main: accepted


def test_overlong_fields_in_files_are_refused(world: World, tmp_path: Path) -> None:
    move = json.loads(world.docs["move"])
    for field, value in (("commands", ["x" * 501]), ("player", "a" * 41), ("game_id", "g" * 65)):
        path = tmp_path / f"{field}.json"
        path.write_text(json.dumps({**move, field: value}, sort_keys=True, separators=(",", ":")) + "\n")
        code, out, err = _bounded_run(world, ["apply", str(path)])
        assert code == 2 and ("at most" in err or "characters" in err) and len(err.splitlines()) == 1, (field, err)
    doc = world.docs["card-city.full"].decode().splitlines()
    header = json.loads(doc[0])
    header["game_id"] = "g" * 65
    path = tmp_path / "long-id.jsonl"
    path.write_text("\n".join([json.dumps(header), *doc[1:]]) + "\n")
    code, out, err = _bounded_run(world, ["show", str(path)])
    assert code == 2 and "at most 64" in err, err


def test_the_key_folder_of_a_postgresql_store_is_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``key new`` needs no connection: with a postgresql:// store its key lands in
    $XDG_DATA_HOME/citylog/keys, never in a folder made from the URL (on main:
    ./postgresql:/nobody@nowhere/keys)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = "postgresql://nobody@nowhere/citylog"
    result = CliRunner().invoke(app, ["--db", url, "key", "new", "host"])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "data" / "citylog" / "keys" / "host.key").is_file()
    assert not (tmp_path / "postgresql:").exists()
    monkeypatch.setenv("CITYLOG_DB", url)
    result = CliRunner().invoke(app, ["key", "show", "host"])
    assert result.exit_code == 0, result.stderr
