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

import itertools
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from cli.main import app
from events.service import GameService
from events.store import SqliteStore
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
        self.docs["move"] = json.dumps({
            "format": "citylog-move/1", "game_id": gid, "player": "ann", "command": command,
            "seq": loaded.version, "hash": loaded.head_hash,
        }).encode() + b"\n"
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
    return out


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
