"""The citylog CLI through typer's CliRunner: every command, and its errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.main import app

BOARD_19 = """\
# the rulebook's scoring example
R R R P R
P H C P .
R R R C L
P L C I I
R C P . I
"""


@pytest.fixture()
def db(tmp_path: Path) -> Path:
    return tmp_path / "c.db"


def run(db: Path, *args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["--db", str(db), *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def ok(db: Path, *args: str, input: str | None = None) -> str:
    code, out, err = run(db, *args, input=input)
    assert code == 0, f"{args} exited {code}: {err}{out}"
    return out


def dump(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def new_game(db: Path, *extra: str) -> str:
    out = ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json", *extra)
    return json.loads(out)["game_id"]


def test_new_show_and_log(db: Path) -> None:
    gid = new_game(db)
    shown = json.loads(ok(db, "show", gid, "--json"))
    assert shown["game"] == "card-city" and shown["to_act"] == ["alice"]
    assert shown["players"] == ["alice", "bob"]
    lines = [json.loads(x) for x in ok(db, "log", gid, "--json").splitlines()]
    assert [x["seq"] for x in lines] == list(range(1, len(lines) + 1))
    assert lines[0]["type"] == "cc.created"
    assert "alice draws" in ok(db, "log", gid)
    listed = [json.loads(x) for x in ok(db, "list", "--json").splitlines()]
    assert [g["game_id"] for g in listed] == [gid] and listed[0]["events"] == len(lines)


def test_show_as_player_hides_the_dividers_cards(db: Path) -> None:
    gid = new_game(db)
    alice = json.loads(ok(db, "show", gid, "--as", "alice", "--json"))["state"]
    bob = json.loads(ok(db, "show", gid, "--as", "bob", "--json"))["state"]
    assert "?" not in alice["holding"]["down"]
    assert bob["holding"]["down"] == ["?"] * 4 and bob["pool"] == []


def test_move_illegal_wrong_player_and_missing_game_leave_the_store_alone(db: Path) -> None:
    gid = new_game(db)
    before = dump(db)
    code, _, err = run(db, "move", gid, "--as", "alice", "build R 0,1")
    assert code == 2 and "[Phase 2]" in err and "Traceback" not in err
    code, _, err = run(db, "move", gid, "--as", "bob", "take pair")
    assert code == 2 and "not bob's turn" in err
    code, _, err = run(db, "move", gid, "--as", "zed", "take pair")
    assert code == 2 and "no player 'zed'" in err
    code, _, err = run(db, "move", "nope", "--as", "alice", "pass")
    assert code == 2 and "no game 'nope'" in err
    code, _, err = run(db, "move", gid, "--as", "alice", "fly away")
    assert code == 2 and "unknown command" in err
    assert dump(db) == before


def test_move_then_autoplay_to_the_end(db: Path) -> None:
    gid = new_game(db)
    shown = json.loads(ok(db, "show", gid, "--json"))
    held = shown["state"]["holding"]["down"]
    pair, rest = "".join(held[:2]), held[2:]
    out = json.loads(ok(db, "move", gid, "--as", "alice", f"split {pair} {rest[0]} {rest[1]}", "--json"))
    assert out["to_act"] == ["bob"]
    done = json.loads(ok(db, "autoplay", gid, "--bots", "greedy", "--json"))
    assert len(done["scores"]) == 2 and done["winners"]
    final = json.loads(ok(db, "show", gid, "--json"))
    assert final["to_act"] == [] and final["scores"] == done["scores"]
    code, _, err = run(db, "move", gid, "--as", "alice", "pass")
    assert code == 2 and "game is over" in err


def test_interactive_play_takes_a_numbered_choice(db: Path) -> None:
    gid = new_game(db)
    version = len(ok(db, "log", gid).splitlines())
    out = ok(db, "play", gid, "--as", "alice", input="1\nq\n")
    assert "1." in out
    assert len(ok(db, "log", gid).splitlines()) > version


def test_simulate_json_and_summary(db: Path) -> None:
    out = ok(db, "simulate", "card-city", "--players", "3", "--seed", "x", "--games", "2", "--json")
    rows = [json.loads(x) for x in out.splitlines()]
    assert len(rows) == 2 and {"game_id", "seed", "events", "scores", "winners"} <= set(rows[0])
    assert rows[0]["seed"] == "x/0" and len(rows[0]["scores"]) == 3
    text = ok(db, "simulate", "card-city", "--players", "2", "--seed", "y", "--bots", "greedy,random")
    assert "won" in text and "mean" in text


def test_explain_and_try(db: Path) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid)
    assert "Chance" in ok(db, "explain", gid, "--at", "2")
    code, out, _ = run(db, "explain", gid, "--at", "6", "--try", "build R 0,1")
    assert code == 1 and "illegal" in out
    last = len(ok(db, "log", gid).splitlines())
    scored = ok(db, "explain", gid, "--at", str(last - 1))
    assert "total" in scored and "empty squares" in scored


def test_fork_diff_export_import_verify(db: Path, tmp_path: Path) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid, "--bots", "random")
    code, _, err = run(db, "fork", gid, "--at", "4")  # CC-8: the redraw at 4 goes on at 5
    assert code == 2 and "inside the decision" in err
    at = next(x["seq"] for x in map(json.loads, ok(db, "log", gid, "--json").splitlines())
              if x["seq"] > 20 and x["type"] == "cc.built") - 1
    fork = json.loads(ok(db, "fork", gid, "--at", str(at), "--seed", "other", "--json"))
    assert fork["parent"] == gid and fork["at"] == at
    ok(db, "autoplay", fork["game_id"], "--bots", "random")
    d = json.loads(ok(db, "diff", gid, fork["game_id"], "--json"))
    assert d["identical"] is False and d["first_divergence"] > at
    assert json.loads(ok(db, "diff", gid, gid, "--json"))["identical"] is True

    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    assert "valid" in ok(db, "verify", str(path))
    assert "valid" in ok(db, "verify", gid)
    assert json.loads(ok(db, "diff", gid, str(path), "--json"))["identical"] is True
    imported = json.loads(ok(db, "import", str(path), "--json"))["game_id"]
    assert json.loads(ok(db, "diff", gid, imported, "--json"))["identical"] is True
    fork_file = tmp_path / "f.jsonl"
    ok(db, "export", fork["game_id"], "-o", str(fork_file))
    assert "valid" in ok(db, "verify", str(fork_file))  # reseeded chance re-derived


def tamper(text: str) -> str:
    """Change one value in an event line's payload (the first number or card)."""
    record = json.loads(text)
    payload = record["payload"]
    for key, value in payload.items():
        if isinstance(value, bool) or key == "type":
            continue
        if isinstance(value, int):
            payload[key] = value + 1
            break
        if isinstance(value, list) and value and isinstance(value[0], str):
            payload[key] = ["P" if value[0] != "P" else "R"] + value[1:]
            break
        if isinstance(value, str):
            payload[key] = value + "x"
            break
    else:
        raise AssertionError(f"nothing to tamper with in {text}")
    changed = json.dumps(record, separators=(",", ":"))
    assert changed != text
    return changed


@pytest.mark.parametrize("line", [2, 7, 40])
def test_verify_catches_an_edit_and_import_stores_nothing(db: Path, tmp_path: Path, line: int) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid)
    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    lines = path.read_text().splitlines()
    lines[line - 1] = tamper(lines[line - 1])
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(db, "verify", str(path))
    assert code == 1 and f"g.jsonl:{line}:" in out
    before = dump(db)
    code, _, err = run(db, "import", str(path))
    assert code == 2 and "not imported" in err
    assert dump(db) == before


def test_truncated_or_garbage_file_is_refused(db: Path, tmp_path: Path) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid)
    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    text = path.read_text()
    path.write_text(text[: len(text) // 2])  # cut mid-line
    ok(db, "list")
    before = dump(db)
    code, _, err = run(db, "import", str(path))
    assert code == 2 and "malformed" in err and "Traceback" not in err
    assert dump(db) == before
    path.write_text("hello\n")
    code, _, err = run(db, "verify", str(path))
    assert code == 2 and "not a citylog log" in err


def test_exported_player_view_hides_the_seed_and_still_chains(db: Path, tmp_path: Path) -> None:
    gid = new_game(db)
    path = tmp_path / "bob.jsonl"
    ok(db, "export", gid, "--as", "bob", "-o", str(path))
    text = path.read_text()
    header = json.loads(text.splitlines()[0])
    assert header["seed"] is None and header["view"] == "bob"
    drawn = [json.loads(x) for x in text.splitlines()[1:] if '"cc.drawn"' in x]
    assert drawn and all(set(d["payload"]["cards"]) == {"?"} for d in drawn)
    assert "s1" not in text
    assert "valid" in ok(db, "verify", str(path))
    code, _, err = run(db, "import", str(path))
    assert code == 2 and "view" in err


def test_score_and_where(db: Path, tmp_path: Path) -> None:
    board = tmp_path / "b.txt"
    board.write_text(BOARD_19)
    data = json.loads(ok(db, "score", "card-city", str(board), "--coins", "36", "--json"))
    assert data["total"] == 19 and data["coins_left"] == 1
    assert "19" in ok(db, "score", "card-city", str(board), "--coins", "36")
    bad = tmp_path / "bad.txt"
    bad.write_text(BOARD_19.replace("P H C P .", "P H C X ."))
    code, _, err = run(db, "score", "card-city", str(bad))
    assert code == 2 and f"{bad}:3:7:" in err and "unknown token" in err
    small = tmp_path / "s.txt"
    small.write_text("H R . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .\n")
    w = json.loads(ok(db, "where", "card-city", str(small), "--card", "I", "--json"))
    assert [1, 0] in w["legal"] and all(r >= 0 and c >= 0 for r, c in w["legal"])  # CL-7
    assert {x["rule"] for x in w["illegal"]} == {"Zoning Laws"}
    crowded = tmp_path / "crowded.txt"
    crowded.write_text("L L L L L\nL L H L L\nL L L L .\n. . . . .\n. . . . .\n")
    code, out, err = run(db, "score", "card-city", str(crowded))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{crowded}:3:7:" in err and "13 Leisure cards in one city; the box holds 12" in err
    fives = tmp_path / "fives.txt"
    fives.write_text("N N N N Fe\nN . . . .\n" + ". . . . .\n" * 3)
    code, _, err = run(db, "score", "5x5-city", str(fives))
    assert code == 2 and f"{fives}:2:1:" in err and "the game has 4 (FC-2)" in err


def test_table_game_takes_chance_by_hand(db: Path) -> None:
    out = ok(db, "new", "card-city", "--players", "a,b", "--table", "--json")
    gid = json.loads(out)["game_id"]
    assert json.loads(ok(db, "show", gid, "--json"))["to_act"] == ["chance"]
    before = dump(db)
    code, _, err = run(db, "move", gid, "--chance", "draw L L L L")  # round 1: only 6 L in a 2p pool
    assert code == 0, err
    code, _, err = run(db, "move", gid, "--chance", "draw L L L L L")
    assert code == 2 and "draw must be 4" in err
    assert dump(db) != before
    ok(db, "move", gid, "--chance", "draw R R I C")
    assert "valid" in ok(db, "verify", gid)


def test_demo_runs(db: Path) -> None:
    out = ok(db, "demo", "--quiet")
    assert "points" in out and "recorded as game" in out


def test_play_by_email_round_trip_and_stale_moves(db: Path, tmp_path: Path) -> None:
    gid = new_game(db)
    view = tmp_path / "alice.jsonl"
    ok(db, "export", gid, "--as", "alice", "-o", str(view))
    held = json.loads(ok(db, "show", str(view), "--json"))["state"]["holding"]["down"]
    move = tmp_path / "m.json"
    ok(db, "move", str(view), "--as", "alice", f"split {''.join(held[:2])} {held[2]} {held[3]}", "--out", str(move))
    ok(db, "apply", str(move))
    code, _, err = run(db, "apply", str(move))
    assert code == 2 and "stale move" in err
    move.write_text("{not json")
    code, _, err = run(db, "apply", str(move))
    assert code == 2 and "not a citylog move file" in err


@pytest.mark.parametrize("game", ["card-city", "5x5-city", "point-city"])
def test_explaining_the_end_gives_every_breakdown(db: Path, game: str) -> None:
    out = ok(db, "new", game, "--players", "ann,bob", "--seed", "e", "--bots", "greedy", "--json")
    gid = json.loads(out)["game_id"]
    last = len(ok(db, "log", gid).splitlines())
    text = ok(db, "explain", gid, "--at", str(last))
    final = json.loads(ok(db, "show", gid, "--json"))
    assert "winner:" in text
    for name, score in zip(final["players"], final["scores"], strict=True):
        assert f"{name}: {score}" in text
