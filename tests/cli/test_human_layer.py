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
    assert mine[:at] == log[:at]  # the prefix is the parent's
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
