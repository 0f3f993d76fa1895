"""``citylog hint``: the search's choice for a player, from that player's view only."""

from __future__ import annotations

import json
from pathlib import Path

from replay.sources import fold_log, read_path, view_seat
from tests.cli.test_cli_commands import ok, run


def test_hint_reads_the_players_view_and_lists_every_legal_command(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    gid = json.loads(ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json"))["game_id"]
    from_store = json.loads(ok(db, "hint", gid, "--as", "alice", "--budget", "12", "--json"))
    assert from_store["player"] == "alice"
    assert from_store["best"] == from_store["alternatives"][0]["command"]
    assert sum(a["visits"] for a in from_store["alternatives"]) == 12
    # the same answer from alice's exported view file: nothing beyond her view was read
    ok(db, "export", gid, "--as", "alice", "-o", str(tmp_path / "alice.jsonl"))
    from_file = json.loads(ok(db, "hint", str(tmp_path / "alice.jsonl"), "--as", "alice", "--budget", "12", "--json"))
    assert from_file == from_store
    log = read_path(tmp_path / "alice.jsonl")
    game, _, states = fold_log(log)
    seat = view_seat(log)
    legal = sorted(map(game.format_command, game.legal(states[-1], seat)))
    assert sorted(a["command"] for a in from_store["alternatives"]) == legal
    text = ok(db, "hint", gid, "--as", "alice", "--budget", "12")
    assert from_store["best"] in text.splitlines()[0]


def test_hint_refuses_out_of_turn_and_without_a_player(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    gid = json.loads(ok(db, "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--json"))["game_id"]
    code, _, err = run(db, "hint", gid, "--as", "bob", "--budget", "5")
    assert code == 2 and "not bob's turn" in err
    code, _, err = run(db, "hint", gid, "--as", "carol", "--budget", "5")
    assert code == 2
    code, _, _ = run(db, "hint", gid, "--budget", "5")
    assert code == 2


def test_a_hint_without_budget_searches_what_the_mcts_bot_does(tmp_path: Path) -> None:
    """No --budget: the game's own ``search.playouts`` (the mcts bot's, under
    1 s of CPU a move), and the hint names the bot's move."""
    from core import registry

    db = tmp_path / "h.db"
    gid = json.loads(ok(db, "new", "point-city", "--players", "alice,bob", "--seed", "s2", "--json"))["game_id"]
    got = json.loads(ok(db, "hint", gid, "--as", "alice", "--json"))
    game = registry.get("point-city")
    assert got["playouts"] == game.search.playouts
    explicit = json.loads(ok(db, "hint", gid, "--as", "alice", "--budget", str(game.search.playouts), "--json"))
    assert explicit == got
