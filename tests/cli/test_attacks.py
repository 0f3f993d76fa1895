"""Issue 11: each way a hostile user fooled ``verify`` or crashed citylog, as a test
named after the attack.  Every one of these failed before the fix."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.cli.clirun import dump, ok, run
from core.engine import CHANCE, checked_decide
from events.codec import to_item
from events.envelope import chain_hash, genesis_hash, line_nonce, payload_digest
from events.service import GameService
from events.sqlite_store import SqliteStore
from replay import logfile
from replay.sources import export, read_path

BOARD = "H R . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .\n"


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "c.db"


def one_line(text: str) -> bool:
    return len(text.strip().splitlines()) == 1 and "Traceback" not in text


def bot_game(db: Path, game: str = "5x5-city", players: int = 3, seed: str = "r0") -> str:
    svc = GameService(SqliteStore(db))
    gid = svc.create(game, [f"p{i}" for i in range(players)], seed=seed, bots=dict.fromkeys(range(players), "greedy"))
    svc.store.close()
    return gid


def exported(db: Path, gid: str, path: Path, player: str | None = None) -> logfile.LogFile:
    svc = GameService(SqliteStore(db))
    log = export(svc, gid, player)
    svc.store.close()
    write(log, path)
    return log


def write(log: logfile.LogFile, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)


def rechain(log: logfile.LogFile, **header: Any) -> logfile.LogFile:
    """The log with a changed header, every line's hashes recomputed (with the
    nonces the header's seed and salt give, as their scheme says [CL-V6]; none
    without a seed): what anyone can do to a file when nothing signs it."""
    h = msgspec.structs.replace(log.header, **header)
    secret = logfile.LogFile(h, []).line_secret
    prev = genesis_hash(h.definition)
    lines = []
    for x in log.lines:
        nonce = line_nonce(secret, x.seq)
        digest = x.digest if x.redacted and x.digest else payload_digest(bytes(x.payload), nonce)
        new_hash = chain_hash(prev, x.seq, x.type, digest)
        lines.append(msgspec.structs.replace(x, prev_hash=prev, hash=new_hash, nonce=None))
        prev = new_hash
    return logfile.LogFile(h, lines)


# -- verify can be fooled -------------------------------------------------------------
def test_redaction_trick_another_legal_ending_in_a_full_log(db: Path, tmp_path: Path) -> None:
    """Mark the last decision's lines redacted, keep their real digests, swap in
    another legal placement: every hash is the real log's, the scores are not."""
    gid = bot_game(db)
    path = tmp_path / "full.jsonl"
    log = exported(db, gid, path)
    game = __import__("core.registry", fromlist=["get"]).get("5x5-city")
    events = [msgspec.json.decode(bytes(x.payload), type=game.event_type) for x in log.lines]
    i = max(k for k, e in enumerate(events) if (c := game.command_of(e)) is not None and c[0] != CHANCE)
    seat, command = game.command_of(events[i])
    before = game.fold(events[:i])
    types = [x.type for x in log.lines[i:]]
    tail = next(
        t for alt in game.legal(before, seat) if alt != command
        for t in [checked_decide(game, before, seat, alt)] if [to_item(e)[0] for e in t] == types
    )
    forged = list(log.lines[:i]) + [
        msgspec.structs.replace(x, payload=msgspec.Raw(to_item(e)[1]), digest=log.digest_of(x), redacted=True,
                                nonce=None)
        for x, e in zip(log.lines[i:], tail, strict=True)
    ]
    assert [x.hash for x in forged] == [x.hash for x in log.lines]
    assert game.result(game.fold(events[:i] + list(tail))).scores != game.result(game.fold(events)).scores
    write(logfile.LogFile(log.header, forged), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V1]" in out and f"full.jsonl:{i + 2}:" in out


def test_seedless_log_strip_the_seed_and_rechain(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "seedless.jsonl"
    log = exported(db, gid, path)
    write(rechain(log, seed=None, salted=False), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V2]" in out and "must carry its seed" in out
    before = dump(db)
    code, _, err = run(db, "import", str(path))
    assert code == 2 and "[CL-V2]" in err and dump(db) == before


def test_seedless_log_with_an_empty_commitment(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "seedless.jsonl"
    log = exported(db, gid, path)
    d = msgspec.structs.replace(log.header.definition, seed_commitment="")
    write(rechain(log, seed=None, salted=False, definition=d), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V2]" in out


def test_truncation_a_stored_game_marked_over_lost_its_last_events(db: Path) -> None:
    gid = bot_game(db, "5x5-city", 3)
    assert "the game is over" in ok(db, "verify", gid)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM events WHERE game_id = ? AND seq > 120", (gid,))
    code, out, _ = run(db, "verify", gid)
    assert code == 1 and "[CL-V4]" in out and "stop before the end" in out and one_line(out)


def test_truncation_a_file_cut_at_a_decision_boundary(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "point-city", 2)
    path = tmp_path / "cut.jsonl"
    log = exported(db, gid, path)
    game = __import__("core.registry", fromlist=["get"]).get("point-city")
    events = [msgspec.json.decode(bytes(x.payload), type=game.event_type) for x in log.lines]
    cut = max(k for k, e in enumerate(events) if game.command_of(e) is not None)  # keep 1..cut
    write(logfile.LogFile(log.header, log.lines[:cut]), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V4]" in out
    # a cut file that admits it is unfinished verifies, and says so
    write(logfile.LogFile(msgspec.structs.replace(log.header, status="active"), log.lines[:cut]), path)
    assert "the game is not over" in ok(db, "verify", str(path))


def test_unchained_header_bots_do_not_become_the_imported_games_bots(db: Path, tmp_path: Path) -> None:
    gid = json.loads(ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "s", "--json"))["game_id"]
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    write(logfile.LogFile(msgspec.structs.replace(log.header, bots={0: "greedy", 1: "no-such-bot"}), log.lines), path)
    new = json.loads(ok(db, "import", str(path), "--again", "--json"))["game_id"]
    assert GameService(SqliteStore(db)).store.get_game(new).bots == {}
    # the human seat is still human, and the game still plays
    shown = json.loads(ok(db, "show", new, "--json"))
    assert shown["to_act"] == ["alice"]
    # bots are the importer's choice, checked like `new --bots`
    code, _, err = run(db, "import", str(path), "--bots", "bob=no-such-bot")
    assert code == 2 and "no bot policy" in err


def test_unchained_header_parent_is_kept_only_if_the_prefix_is_the_parents(db: Path, tmp_path: Path) -> None:
    a = bot_game(db, "card-city", 2, "a")
    b = bot_game(db, "card-city", 2, "b")
    path = tmp_path / "b.jsonl"
    log = exported(db, b, path)
    write(logfile.LogFile(msgspec.structs.replace(log.header, parent=a, fork_at=10), log.lines), path)
    new = json.loads(ok(db, "import", str(path), "--again", "--json"))["game_id"]
    record = GameService(SqliteStore(db)).store.get_game(new)
    assert record.parent is None and record.fork_at is None
    # a real fork keeps its lineage
    fork = json.loads(ok(db, "fork", a, "--at", "10", "--json"))["game_id"]
    exported(db, fork, path)
    again = json.loads(ok(db, "import", str(path), "--again", "--json"))["game_id"]
    record = GameService(SqliteStore(db)).store.get_game(again)
    assert record.parent == a and record.fork_at == 10


def test_unchained_header_view_label_on_a_full_log(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    # a finished game's view carries the revealed seed (issue 10), and is then
    # re-decided in full: a view label turns nothing off, and a "view" showing
    # what its player may not see is refused (one spelling per line) [CL-V8]
    write(logfile.LogFile(msgspec.structs.replace(log.header, view="p0"), log.lines), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "must be redacted" in out
    # before the end a view carries no seed
    write(logfile.LogFile(msgspec.structs.replace(log.header, view="p0", status="active"), log.lines), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V3]" in out
    write(rechain(log, view="mallory", seed=None, salted=False), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V3]" in out


def test_unchained_header_reseeds_outside_the_log(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    write(logfile.LogFile(msgspec.structs.replace(log.header, reseeds=((1, "x"),)), log.lines), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "reseed at seq 1" in out


def test_unchained_header_status_that_lies(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    write(logfile.LogFile(msgspec.structs.replace(log.header, status="active"), log.lines), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V4]" in out


def test_payload_edited_inside_the_database_is_named_not_a_crash(db: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE events SET payload = ? WHERE game_id = ? AND seq = 5", (b'{"type":"cc.nope"}', gid))
    code, out, _ = run(db, "verify", gid)
    assert code == 1 and f"{gid}:6:" in out and one_line(out)
    for command in ("show", "log", "export"):
        before = dump(db)
        code, out, err = run(db, command, gid)
        assert code == 2 and one_line(err) and ("seq 5" in err or f"{gid}:6:" in err), (command, err)
        assert dump(db) == before


def test_corrupted_database_is_not_valid(db: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (index_page,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events'"
        ).fetchone()
        (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    with db.open("r+b") as f:  # the events index's root page now says it holds one cell
        f.seek((index_page - 1) * page_size + 3)
        f.write(b"\x00\x01")
    code, out, err = run(db, "verify", gid)  # before: "valid — 1 events"
    assert code == 1 and "valid —" not in out and "damaged" in out and one_line(out + err)


# -- internal errors ------------------------------------------------------------------
def test_rich_markup_injection_in_a_path_and_a_name(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    (tmp_path / "a[").mkdir()
    path = tmp_path / "a[" / "]g[bold].jsonl"  # the path holds "[/]" and "[bold]"
    assert "[/]" in str(path)
    log = exported(db, gid, path)
    names = ("x[/]y", "[bold]z")  # names `new` refuses, forged into a file
    created = json.loads(bytes(log.lines[0].payload))
    created["players"] = list(names)
    lines = [msgspec.structs.replace(log.lines[0], payload=msgspec.Raw(json.dumps(created).encode())), *log.lines[1:]]
    d = msgspec.structs.replace(log.header.definition, players=names)
    write(rechain(logfile.LogFile(log.header, lines), definition=d, salted=False), path)
    code, out, _ = run(db, "verify", str(path))  # names `new` would refuse: not a valid definition
    assert code == 1 and out.startswith(str(path)) and "x[/]y" in out
    assert "x[/]y" in ok(db, "show", str(path))
    assert "[bold]z" in ok(db, "log", str(path))
    board = tmp_path / "a[" / "]board.txt"
    board.write_text(BOARD)
    assert str(board) in ok(db, "score", "card-city", str(board), "--coins", "3")
    assert str(board) in ok(db, "where", "card-city", str(board), "--card", "R")


def deep(n: int = 5000) -> str:
    return "[" * n + "]" * n


@pytest.mark.parametrize("command", ["verify", "import", "show", "log"])
@pytest.mark.parametrize("where", ["header", "line", "payload"])
def test_json_nested_1000_deep(db: Path, tmp_path: Path, command: str, where: str) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    exported(db, gid, path)
    lines = path.read_text().splitlines()
    if where == "header":
        lines[0] = lines[0].replace('"reseeds":[]', f'"reseeds":{deep()}')
    elif where == "line":
        lines[3] = lines[3][:-1] + f',"extra":{deep()}}}'
    else:
        lines[3] = lines[3].replace('"payload":{', f'"payload":{{"x":{deep()},', 1)
    path.write_text("\n".join(lines) + "\n")
    before = dump(db)
    code, out, err = run(db, command, str(path))
    assert code in (1, 2) and one_line(out + err)
    assert dump(db) == before


def test_json_nested_1000_deep_move_file(db: Path, tmp_path: Path) -> None:
    move = tmp_path / "m.json"
    move.write_text(f'{{"unknown":{deep()}}}')
    code, _, err = run(db, "apply", str(move))
    assert code == 2 and "nested too deeply" in err and one_line(err)


@pytest.mark.parametrize("games", ["0", "-5"])
def test_simulate_games_zero_or_negative(db: Path, games: str) -> None:
    code, _, err = run(db, "simulate", "card-city", "--players", "2", "--seed", "x", "--games", games)
    assert code == 2 and one_line(err) and "--games" in err


def test_non_utf8_seed(db: Path) -> None:
    bad = b"\xff\xfe".decode("utf-8", "surrogateescape")  # what Python makes of such an argv
    code, _, err = run(db, "new", "card-city", "--players", "2", "--seed", bad)
    assert code == 2 and "not valid UTF-8" in err and one_line(err)
    assert dump(db) == [] or not any("INSERT INTO \"games\"" in x for x in dump(db))


def test_garbage_schema_version(db: Path) -> None:
    bot_game(db, "card-city", 2)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = 'garbage' WHERE key = 'schema_version'")
    before = dump(db)
    code, _, err = run(db, "list")
    assert code == 2 and "schema_version" in err and one_line(err)
    assert dump(db) == before


def test_one_bad_games_row_does_not_break_list(db: Path) -> None:
    good = bot_game(db, "card-city", 2, "a")
    bad = bot_game(db, "card-city", 2, "b")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET players = '{not json' WHERE id = ?", (bad,))
    code, out, err = run(db, "list")
    assert code == 1 and good in out and bad not in out
    assert bad in err and one_line(err)
    code, _, err = run(db, "show", bad)
    assert code == 2 and bad in err and one_line(err)


def test_log_file_is_read_as_a_stream_within_its_limits(db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    exported(db, gid, path)
    text = path.read_text()
    monkeypatch.setattr(logfile, "MAX_FILE_CHARS", len(text) + 1000)
    path.write_text(text + "\n" * 2000)  # blank lines past the limit
    code, _, err = run(db, "verify", str(path))
    assert code == 2 and "longer than the limit" in err and one_line(err)
    monkeypatch.setattr(logfile, "MAX_LINE_CHARS", 100)
    path.write_text(text)
    code, _, err = run(db, "verify", str(path))
    assert code == 2 and "g.jsonl:1: line longer than the limit" in err


def test_move_and_board_files_have_a_size_limit(db: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.txt"
    big.write_bytes(b"#" * (2 << 20))
    code, _, err = run(db, "score", "card-city", str(big))
    assert code == 2 and "longer than the limit" in err
    code, _, err = run(db, "apply", str(big))
    assert code == 2 and "longer than the limit" in err


# -- usability of errors --------------------------------------------------------------
def test_utf8_bom_and_trailing_blank_lines_are_accepted(db: Path, tmp_path: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    exported(db, gid, path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes() + b"\n\r\n\n")
    assert "valid" in ok(db, "verify", str(path))
    board = tmp_path / "b.txt"
    board.write_bytes(b"\xef\xbb\xbf" + BOARD.encode() + b"\n\n")
    assert "total" in ok(db, "score", "card-city", str(board), "--coins", "3")
    lines = path.read_text(encoding="utf-8-sig").splitlines()
    path.write_text("\n".join(lines[:5] + [""] + lines[5:]) + "\n")  # a blank line inside still is not
    code, _, err = run(db, "verify", str(path))
    assert code == 2 and "g.jsonl:6: blank line inside the log" in err


@pytest.mark.parametrize(
    "args",
    [
        ("new", "card-city", "--players", "-1"),
        ("new", "card-city", "--players", "2", "--seed", ""),
        ("new", "card-city", "--players", "a,a"),
        ("new", "card-city", "--players", "a,,b"),
        ("demo", "--players", "-3"),
        ("fork", "nope", "--at", "3", "--seed", ""),
    ],
)
def test_bad_players_and_seeds_are_refused(db: Path, args: tuple[str, ...]) -> None:
    code, _, err = run(db, *args)
    assert code == 2 and one_line(err)


def test_explain_try_with_bad_syntax_exits_2(db: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    code, _, err = run(db, "explain", gid, "--at", "6", "--try", "fly to the moon")
    assert code == 2 and "not a command" in err and one_line(err)
    code, out, _ = run(db, "explain", gid, "--at", "6", "--try", "build R 0,1")
    assert code == 1 and "illegal" in out


@pytest.mark.parametrize(
    "args", [("nosuch",), ("new",), ("new", "card-city"), ("show",), ("simulate", "x", "--games", "abc")]
)
def test_click_usage_errors_are_one_line(db: Path, args: tuple[str, ...]) -> None:
    code, out, err = run(db, *args)
    assert code == 2 and one_line(err) and not out and "╭" not in err


def test_read_path_accepts_what_it_wrote(tmp_path: Path, db: Path) -> None:
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    assert read_path(path) == log


def test_seedless_log_of_a_table_game_would_serve_unsalted_views(db: Path, tmp_path: Path) -> None:
    gid = json.loads(ok(db, "new", "card-city", "--players", "a,b", "--table", "--json"))["game_id"]
    ok(db, "move", gid, "--chance", "draw R R I C")
    path = tmp_path / "t.jsonl"
    log = exported(db, gid, path)
    assert "table game" in ok(db, "verify", str(path))
    write(rechain(log, seed=None, salted=False), path)
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "[CL-V2]" in out and "salts" in out
    before = dump(db)
    code, _, err = run(db, "import", str(path))
    assert code == 2 and dump(db) == before


def test_seedless_game_in_the_store_never_draws_from_an_empty_seed(db: Path) -> None:
    from events.service import ServiceError
    from events.store import GameRecord

    svc = GameService(SqliteStore(db))
    gid = svc.create("card-city", ["a", "b"], seed="s")
    record = svc.store.get_game(gid)
    seedless = GameRecord.of("seedless", record.definition, seed=None)
    svc.store.create_game(seedless)
    created = svc.store.read(gid)[:1]  # only the creation event: chance is next
    svc.store.append("seedless", 0, [(r.type, r.payload) for r in created])
    with pytest.raises(ServiceError, match="no seed to draw chance from"):
        svc.autoplay("seedless", "greedy")
    assert svc.store.version("seedless") == 1


@pytest.mark.parametrize("command", [("verify",), ("show",), ("log",), ("export",), ("fork", "--at", "2")])
def test_non_utf8_game_id_or_path(db: Path, command: tuple[str, ...]) -> None:
    bad = b"g\xff".decode("utf-8", "surrogateescape")
    code, out, err = run(db, command[0], bad, *command[1:])
    assert code == 2 and "not valid UTF-8" in err and one_line(err)


@pytest.mark.parametrize("command", [("show",), ("log",), ("explain", "--at", "2"), ("diff", "SELF")])
def test_a_forged_state_the_rules_never_reach_is_refused_not_rendered(
    db: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    """Found by the hostile suite: a creation event with four reserve counts
    instead of five decodes and folds (the fold never validates), then broke the
    render."""
    gid = bot_game(db, "card-city", 2)
    path = tmp_path / "g.jsonl"
    log = exported(db, gid, path)
    created = json.loads(bytes(log.lines[0].payload))
    created["reserve"] = created["reserve"][1:]
    lines = [msgspec.structs.replace(log.lines[0], payload=msgspec.Raw(json.dumps(created).encode())), log.lines[1]]
    write(logfile.LogFile(msgspec.structs.replace(log.header, status="active"), lines), path)  # it folds
    args = [str(path) if a == "SELF" else a for a in command]
    code, out, err = run(db, args[0], str(path), *args[1:])
    assert code in (0, 2) and (code == 0 or (one_line(err) and "verify" in err)), (code, out, err)
    if command == ("show",):
        assert code == 2  # the render is where it broke
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and "g.jsonl:2:" in out
