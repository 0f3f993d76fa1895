"""The citylog CLI through typer's CliRunner: every command, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.clirun import dump, ok, run

BOARD_19 = """\
# the rulebook's scoring example
R R R P R
P H C P .
R R R C L
P L C I I
R C P . I
"""


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
    assert bob["holding"]["down"] == ["?"] * 4
    # GN-1/CL-8: the drawer counts the pool exactly; bob knows it up to the 4 cards drawn (none Leisure, CC-8)
    assert sum(alice["pool"]) == 36 and alice["pool_most"] == []
    assert [m - n for n, m in zip(bob["pool"], bob["pool_most"])] == [4, 4, 0, 4, 4]


def test_move_illegal_wrong_player_and_missing_game_leave_the_store_alone(db: Path) -> None:
    gid = new_game(db)
    before = dump(db)
    code, _, err = run(db, "move", gid, "--as", "alice", "build R 0,1")
    assert code == 2 and "[CB-2]" in err and "Traceback" not in err
    code, _, err = run(db, "move", gid, "--as", "bob", "take pair")
    assert code == 2 and "not bob's turn" in err
    code, _, err = run(db, "move", gid, "--as", "zed", "take pair")
    assert code == 2 and "no player 'zed'" in err
    code, _, err = run(db, "move", "nope", "--as", "alice", "pass")
    assert code == 2 and "no game or file 'nope'" in err
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
    assert len(rows) == 3 and {"game_id", "seed", "events", "scores", "winners"} <= set(rows[0])
    assert rows[0]["seed"] == "x/0" and len(rows[0]["scores"]) == 3
    assert rows[-1]["summary"]["games"] == 2
    text = ok(db, "simulate", "card-city", "--players", "2", "--seed", "y", "--bots", "greedy,random")
    assert "win" in text and "mean" in text and "p1 (greedy)" in text


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
    assert fork["parent"] == gid and fork["fork_at"] == at
    ok(db, "autoplay", fork["game_id"], "--bots", "random")
    code, out, _ = run(db, "diff", gid, fork["game_id"], "--json")
    d = json.loads(out)
    assert code == 1 and d["identical"] is False and d["first_divergence"] > at
    assert json.loads(ok(db, "diff", gid, gid, "--json"))["identical"] is True

    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    assert "valid" in ok(db, "verify", str(path))
    assert "valid" in ok(db, "verify", gid)
    assert json.loads(ok(db, "diff", gid, str(path), "--json"))["identical"] is True
    imported = json.loads(ok(db, "import", str(path), "--again", "--json"))["game_id"]
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
    assert "E6" in w["legal"] and all(s[0] >= "E" and s[1] >= "5" for s in w["legal"])  # CL-7, CL-10
    assert {x["rule"] for x in w["illegal"]} == {"CB-6"}  # the Zoning Laws [GL-2]
    crowded = tmp_path / "crowded.txt"
    crowded.write_text("L L L L L\nL L H L L\nL L L L .\n. . . . .\n. . . . .\n")
    code, out, err = run(db, "score", "card-city", str(crowded))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{crowded}:3:7:" in err and "13 Leisure cards in one city; the box holds 12" in err
    fives = tmp_path / "fives.txt"
    fives.write_text("N N N N Fe\nN . . . .\n" + ". . . . .\n" * 3)
    code, _, err = run(db, "score", "5x5-city", str(fives))
    assert code == 2 and f"{fives}:2:1:" in err and "the game has 4 [FC-2]" in err


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


def test_diff_exits_1_when_games_differ_and_speaks_the_games_words(db: Path) -> None:
    a = new_game(db)
    ok(db, "autoplay", a, "--bots", "random")
    code, out, _ = run(db, "diff", a, a)
    assert code == 0 and out.startswith("identical")
    at = next(x["seq"] for x in map(json.loads, ok(db, "log", a, "--json").splitlines())
              if x["seq"] > 20 and x["type"] == "cc.built") - 1
    fork = json.loads(ok(db, "fork", a, "--at", str(at), "--seed", "other", "--json"))["game_id"]
    ok(db, "autoplay", fork, "--bots", "random")
    code, out, _ = run(db, "diff", a, fork)
    assert code == 1
    assert "first divergence at seq" in out and "at the end" in out
    assert "score " in out  # the final scores compared though both games ended
    for field in ("gap_was_building", "pool:", "players[", "(4, 2"):
        assert field not in out
    other = json.loads(ok(db, "new", "point-city", "--players", "x,y", "--seed", "z", "--json"))["game_id"]
    code, out, _ = run(db, "diff", a, other)
    assert code == 1 and out.startswith("different games") and len(out.splitlines()) == 3


def test_show_prints_a_legend_and_a_point_city_market_that_does_not_wrap(db: Path) -> None:
    gid = json.loads(ok(db, "new", "point-city", "--players", "x,y", "--seed", "m", "--bots", "x=random,y=random",
                        "--json"))["game_id"]
    out = ok(db, "show", gid, "--at", "60")
    lines = out.splitlines()
    legend = next(x for x in lines if x.startswith("legend: "))
    for word in ("Ene energy", "Ecl ecology", "Eco economy", "Ing Ingenuity", "t4 civic token 4", "pay B1="):
        assert word in legend
    head = lines.index(next(x for x in lines if x.split() == ["A", "B", "C", "D"]))
    rows = lines[head + 1: head + 9]  # four rows of two lines each, fixed-width cells
    assert [r[:1] for r in rows[::2]] == ["1", "2", "3", "4"]
    header = lines[head]
    step = header.index("B") - header.index("A")  # the cell width
    assert all(len(r.rstrip()) <= header.index("D") + step for r in rows)  # no cell spills into the next
    for r in rows[::2]:  # every card id sits in its own column
        starts = [i for i, ch in enumerate(r) if ch == "#"]
        columns = [(i - (header.index("A") - step // 2)) // step for i in starts]
        assert len(set(columns)) == len(columns) and all(0 <= c < 4 for c in columns)
    assert all("|" not in r for r in rows)
    card = json.loads(ok(db, "new", "card-city", "--players", "a,b", "--seed", "s", "--json"))["game_id"]
    assert "legend: H City Hall · R Residential" in ok(db, "show", card)


def test_explain_try_on_an_automatic_step_points_at_the_decision(db: Path) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid, "--bots", "random")
    lines = [json.loads(x) for x in ok(db, "log", gid, "--json").splitlines()]
    phase = next(x["seq"] for x in lines if x["seq"] > 10 and "phase" in x["type"])
    code, out, err = run(db, "explain", gid, "--at", str(phase), "--try", "build R 1,0")
    text = out + err
    assert "game was over" not in text
    assert "automatic step" in text and "--at" in text


def _printed_board(show: str, title: str) -> str:
    """The board ``show`` prints under the line starting with ``title``: its header and every row."""
    lines = show.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith(title))
    rows = [lines[at + 1]]
    for line in lines[at + 2:]:
        if not line.split() or not line.split()[0].isdigit():
            break
        rows.append(line)
    return "\n".join(rows) + "\n"


def test_score_and_where_read_the_board_show_prints_card_city(db: Path, tmp_path: Path) -> None:
    gid = new_game(db)
    ok(db, "autoplay", gid, "--bots", "random")
    state = json.loads(ok(db, "show", gid, "--json"))
    board = tmp_path / "alice.txt"
    board.write_text(_printed_board(ok(db, "show", gid), "alice"))
    header = board.read_text().split("\n")[0].split()
    assert "·" in board.read_text() and "".join(header) in "ABCDEFGHI" and "E" in header  # [CL-10]
    coins = state["state"]["players"][0]["coins"]
    scored = json.loads(ok(db, "score", "card-city", str(board), "--coins", str(coins), "--json"))
    assert scored["total"] == state["scores"][0]
    # the score lines name squares as show labels them, as the log does
    log = ok(db, "log", gid)
    assert all(",-" not in line["detail"] and ",0" not in line["detail"] for line in scored["breakdown"])
    # where answers in the printed labels: City Hall (E5)'s neighbours, as play offers them
    shown = ok(db, "show", gid, "--at", "20")
    early = tmp_path / "early.txt"
    early.write_text(_printed_board(shown, "alice"))
    w = json.loads(ok(db, "where", "card-city", str(early), "--card", "R", "--json"))
    squares = w["legal"] + [x["square"] for x in w["illegal"]]
    assert set(squares) & {"E4", "D5", "F5", "E6"}
    assert all(s[0] in early.read_text().split("\n")[0] for s in squares)  # every answer is on the board
    assert "builds" in log and " at 0,0" not in log


@pytest.mark.skipif("5x5-city" not in __import__("core.registry", fromlist=["available"]).available(),
                    reason="5x5-city is not available in this build")
def test_score_reads_the_board_show_prints_5x5_city(db: Path, tmp_path: Path) -> None:
    gid = json.loads(ok(db, "new", "5x5-city", "--players", "eve,fay", "--seed", "b", "--bots",
                        "eve=random,fay=random", "--json"))["game_id"]
    state = json.loads(ok(db, "show", gid, "--json"))
    assert state["scores"]
    board = tmp_path / "eve.txt"
    board.write_text(_printed_board(ok(db, "show", gid), "eve"))
    assert board.read_text().split("\n")[0].split() == list("ABCDE")
    s = state["state"]
    args = ["score", "5x5-city", str(board), "--sides", s["sides"], "--json"]
    scored = json.loads(ok(db, *args))
    assert not s["planning"]  # a basic game: the board is the whole score
    assert scored["total"] == state["scores"][0]
    assert "{" not in " ".join(scored["details"].values()) and "[" not in " ".join(scored["details"].values())


@pytest.mark.skipif("5x5-city" not in __import__("core.registry", fromlist=["available"]).available(),
                    reason="5x5-city is not available in this build")
def test_score_leaves_out_the_lines_around_a_5x5_city_board_copied_from_show(db: Path, tmp_path: Path) -> None:
    """As ``score --help`` and the README say: the player's name above a copied board
    (``eve (0 parks, token held)``, five words, like a bare row) and the next player and
    the legend below are left out, as for Card City."""
    gid = json.loads(ok(db, "new", "5x5-city", "--players", "eve,fay", "--seed", "b", "--bots",
                        "eve=random,fay=random", "--json"))["game_id"]
    state = json.loads(ok(db, "show", gid, "--json"))
    shown = ok(db, "show", gid)
    lines = shown.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("eve"))
    assert len(lines[at].split()) == 5  # the name line reads like a bare board's row
    board = tmp_path / "eve.txt"
    board.write_text("\n".join(lines[at:]) + "\n")  # her name, her board, fay's, the legend
    args = ["score", "5x5-city", str(board), "--sides", state["state"]["sides"], "--json"]
    assert json.loads(ok(db, *args))["total"] == state["scores"][0]
    whole = tmp_path / "show.txt"
    whole.write_text(shown)  # the whole of show's output: the first board printed, eve's
    assert json.loads(ok(db, "score", "5x5-city", str(whole), "--sides", state["state"]["sides"], "--json"))[
        "total"] == state["scores"][0]
    # a labelled row too many is still refused, not left out
    rows = [x for x in lines[at + 1:at + 7]]
    extra = tmp_path / "six.txt"
    extra.write_text("\n".join([*rows, " 6" + rows[-1][2:]]) + "\n")
    code, _, err = run(db, "score", "5x5-city", str(extra))
    assert code == 2 and "a row too many" in err
