"""README's play-by-email walkthrough, end to end: a host and two players, each
with a database of their own, exchanging only files (issue 9's "done when").

Each player decides from their exported view alone (the greedy bot on the view),
writes a move file against it, and the host applies it; the game runs to the end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.helpers import actors, choose_from_file, new, ok, read


@pytest.mark.slow  # a whole game by email, every turn through the CLI
@pytest.mark.parametrize(
    ("game", "extra"), [("card-city", ()), ("5x5-city", ("--option", "sides=B"))]
)
def test_a_whole_game_by_email(tmp_path: Path, game: str, extra: tuple[str, ...]) -> None:
    host = tmp_path / "host.db"
    dbs = {"alice": tmp_path / "alice.db", "bob": tmp_path / "bob.db"}
    gid = new(host, game, "alice,bob", "pbem-1", *extra)
    moves = 0
    while True:
        waiting = actors(host, gid)
        if not waiting:
            break
        player = waiting[0]
        view = tmp_path / f"{player}.jsonl"
        ok(host, "export", gid, "--as", player, "-o", str(view), "--force")  # a fresh view each turn
        # the player, on their own machine: look, verify, decide, answer
        mine = dbs[player]
        assert "to act" in ok(mine, "show", str(view))
        assert "valid" in ok(mine, "verify", str(view))
        ok(mine, "log", str(view))
        command = choose_from_file(view, player, f"{gid}-{moves}")
        assert command is not None, f"{player} is to act but sees no decision in their file"
        move = tmp_path / f"{player}-move-{moves}.json"
        ok(mine, "move", str(view), "--as", player, command, "--out", str(move))
        ok(host, "apply", str(move))
        moves += 1
        assert moves < 2000
    assert moves > 20
    shown = ok(host, "show", gid)
    assert "game over" in shown
    for player, mine in dbs.items():
        final = tmp_path / f"{player}-final.jsonl"
        ok(host, "export", gid, "--as", player, "-o", str(final))
        assert read(final).header.view == player
        assert "game over" in ok(mine, "show", str(final))
        assert "valid" in ok(mine, "verify", str(final))
