"""Issue 26 (items 5 and 8): fork taking over a seat, undo without orphans,
--json errors, one --json key convention, import twice, solo verdicts, hint's label."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.clirun import dump, ok, run


def new(db: Path, game: str, players: str, seed: str, *extra: str) -> str:
    return json.loads(ok(db, "new", game, "--players", players, "--seed", seed, "--json", *extra))["game_id"]


def listed(db: Path, *extra: str) -> list[dict]:
    return [json.loads(x) for x in ok(db, "list", "--json", *extra).splitlines()]


# -- item 5: "what if?" on a bot game ----------------------------------------------------
def test_fork_as_takes_over_one_seat_and_the_others_keep_their_bots(db: Path) -> None:
    gid = new(db, "5x5-city", "ann,bo", "w1", "--bots", "ann=random,bo=random")
    parent = json.loads(ok(db, "show", gid, "--json"))
    assert parent["to_act"] == []  # the bots played it to its end
    log = [json.loads(x) for x in ok(db, "log", gid, "--json").splitlines()]
    at = next(x["seq"] for x in log if x["seq"] > 6 and x["text"].startswith("bo takes set")) - 1
    # a plain fork of a bot game replays the bots to the end at once [GL-3]
    plain = json.loads(ok(db, "fork", gid, "--at", str(at), "--json"))
    assert json.loads(ok(db, "show", plain["game_id"], "--json"))["to_act"] == []
    # --as bo: bo's seat is a person's from here; ann keeps her bot
    fork = json.loads(ok(db, "fork", gid, "--at", str(at), "--as", "bo", "--json"))
    assert fork["parent"] == gid and fork["fork_at"] == at and fork["take_over"] == ["bo"]
    shown = json.loads(ok(db, "show", fork["game_id"], "--as", "bo", "--json"))
    assert shown["to_act"] == ["bo"] and fork["to_act"] == ["bo"]
    mine = [json.loads(x) for x in ok(db, "log", fork["game_id"], "--json").splitlines()]
    drop = lambda lines: [{k: v for k, v in x.items() if k != "game_id"} for x in lines]  # noqa: E731
    assert drop(mine[:at]) == drop(log[:at])  # the prefix is the parent's
    # bo moves; the bot (ann) answers at once, up to bo's next decision
    ok(db, "move", fork["game_id"], "--as", "bo", shown["legal"][-1])
    again = json.loads(ok(db, "show", fork["game_id"], "--json"))
    assert again["to_act"] == ["bo"] and again["seq"] > shown["seq"]
    code, _, err = run(db, "verify", fork["game_id"])
    assert code == 0, err
    # a player who is not in the game: one line, exit 2, nothing stored
    before = dump(db)
    code, _, err = run(db, "fork", gid, "--at", str(at), "--as", "zed")
    assert code == 2 and "no player 'zed'" in err and dump(db) == before


def test_undo_leaves_no_active_orphan_in_list(db: Path) -> None:
    gid = new(db, "5x5-city", "alice,bob", "f2", "--bots", "bob=greedy")
    ok(db, "play", gid, "--as", "alice", input="1\n1\n1\n1\nq\n")
    out = ok(db, "play", gid, "--as", "alice", input="undo\nundo\nq\n")
    child = out.strip().split("citylog play ")[-1].split()[0]
    games = listed(db)
    # one game goes on: the last fork; each branch an undo left is tagged superseded [GL-3]
    assert [g["game_id"] for g in games] == [child]
    everything = {g["game_id"]: g for g in listed(db, "--all")}
    assert len(everything) == 3 and everything[gid]["tags"] == ["superseded"]
    middle = next(g for g in everything.values() if g["game_id"] not in (gid, child))
    assert middle["parent"] == gid and middle["tags"] == ["superseded"]
    assert everything[child]["parent"] == middle["game_id"] and everything[child]["tags"] == []
    assert {g["game_id"] for g in listed(db, "--tag", "superseded")} == {gid, middle["game_id"]}
    # the logs left are unchanged and still verify
    assert run(db, "verify", gid)[0] == 0


# -- item 8 ---------------------------------------------------------------------------------
def test_import_of_a_log_already_stored_is_refused_naming_the_game(db: Path, tmp_path: Path) -> None:
    gid = new(db, "card-city", "alice,bob", "i1", "--bots", "bob=greedy")
    path = tmp_path / "g.jsonl"
    ok(db, "export", gid, "-o", str(path))
    before = dump(db)
    code, out, err = run(db, "import", str(path))
    assert code == 2 and out == "" and f"already in this database, as game {gid}" in err
    assert len(err.splitlines()) == 1 and dump(db) == before
    copy = ok(db, "import", str(path), "--again").strip()  # a second copy only when asked
    assert copy != gid and {g["game_id"] for g in listed(db)} == {gid, copy}
    code, _, err = run(db, "import", str(path))  # now held twice: still refused, naming one
    assert code == 2 and "already in this database" in err


def test_solo_card_city_says_the_score_and_the_level_not_a_win(db: Path) -> None:
    gid = new(db, "card-city", "p1", "solo1", "--bots", "p1=greedy")
    shown = json.loads(ok(db, "show", gid, "--json"))
    score = shown["scores"][0]
    plain = ok(db, "show", gid)
    over = next(line for line in plain.splitlines() if "game over" in line)
    assert "winner" not in over and f"p1 scores {score} point" in over and "solo level" in over and "[CC-9]" in over
    row = next(line for line in ok(db, "list").splitlines() if line.startswith(gid))
    assert "won by" not in row and "solo game" in row


def test_hint_says_what_its_percentage_is(db: Path) -> None:
    gid = new(db, "card-city", "alice,bob", "h1", "--bots", "bob=greedy")
    lines = ok(db, "hint", gid, "--as", "alice", "--budget", "8").splitlines()
    assert "estimated win chance" in lines[0] and all("value" not in line for line in lines)
    assert all("estimated win chance" in line for line in lines[1:] if "playouts" in line)


def test_show_json_names_squares_as_commands_do(db: Path) -> None:
    """[GL-5, CL-10]: a Card City city keyed by frame square (City Hall at E5), as in
    `build R E4`; a 5x5 City board's squares as in `place TILE A1`."""
    gid = new(db, "card-city", "alice,bob", "q1", "--bots", "alice=greedy,bob=greedy")
    state = json.loads(ok(db, "show", gid, "--json"))["state"]
    cities = [p["city"] for p in state["players"]]
    assert all(city["E5"] == "H" for city in cities)
    builds = [json.loads(x)["text"] for x in ok(db, "log", gid, "--json").splitlines()]
    built = {line.split(" at ")[-1].split()[0] for line in builds if line.startswith("alice builds")}
    assert built and built <= set(cities[0])  # the squares the log names are the keys
    five = new(db, "5x5-city", "ann,bo", "q2", "--bots", "ann=random,bo=random")
    boards = json.loads(ok(db, "show", five, "--json"))["state"]["boards"]
    assert all(len(b["squares"]) == 25 and set(b["squares"]) == {f"{c}{r}" for c in "ABCDE" for r in range(1, 6)}
               for b in boards)


# -- item 6: rulings name their witnesses [GL-4] ------------------------------------------
def test_explain_and_picture_name_the_witnesses_of_a_discard(db: Path, tmp_path: Path) -> None:
    gid = new(db, "card-city", "ada", "demo", "--bots", "ada=greedy")
    log = [json.loads(x) for x in ok(db, "log", gid, "--json").splitlines()]
    seq = next(x["seq"] for x in log if "no legal square" in x["text"])
    text = ok(db, "explain", gid, "--at", str(seq))
    assert "Witnesses" in text and "(zoning, size limit or frame)" in text
    squares = {line.split()[0] for line in text.splitlines() if line.startswith("  ") and "[" in line}
    if not squares:  # the size limit keeps it out of every square: they are listed in one line
        squares = set(text.split("touching the city (")[-1].split(")")[0].split(", "))
    assert squares and all(len(sq) == 2 for sq in squares)
    plain, outlined = tmp_path / "a.svg", tmp_path / "b.svg"
    ok(db, "picture", gid, "--at", str(seq), "-o", str(plain))
    ok(db, "picture", gid, "--at", str(seq), "--explain", "-o", str(outlined))
    assert 'class="witness"' not in plain.read_text()
    assert 0 < outlined.read_text().count('class="witness"') <= len(squares)
    assert f"evidence for seq {seq}" in outlined.read_text()
