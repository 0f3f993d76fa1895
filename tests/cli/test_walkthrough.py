"""What a new user walking the README runs, held as found in the walkthrough
(issue 26): a command that prints "→ game id" prints the id alone on stdout, so
``G=$(citylog new …)`` and ``F=$(citylog fork …)`` hold just the id."""

from __future__ import annotations

from pathlib import Path

from tests.cli.clirun import run


def test_new_and_fork_print_the_id_alone_on_stdout_and_the_rest_on_stderr(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    code, out, err = run(db, "new", "card-city", "--players", "alice,bob", "--seed", "s1", "--bots", "bob=greedy")
    assert code == 0 and out.count("\n") == 1, (out, err)
    gid = out.strip()
    assert gid and " " not in gid and "waiting for alice" in err
    code, out, err = run(db, "fork", gid, "--at", "5", "--as", "bob")
    assert code == 0 and out.count("\n") == 1, (out, err)
    child = out.strip()
    assert " " not in child and child != gid and f"fork of {gid} at seq 5" in err
    code, out, _ = run(db, "show", child)  # the captured id names the game
    assert code == 0 and "Card City" in out


def test_a_new_table_game_says_how_to_enter_its_chance(tmp_path: Path) -> None:
    code, out, err = run(tmp_path / "c.db", "new", "card-city", "--players", "a,b", "--table")
    assert code == 0 and f"citylog move {out.strip()} --chance" in err, err
    assert "1 event," in err  # one event: not '1 events'
