"""Issue 10's done-when: whole games by email, host and players in separate data
directories, only through the CLI, then every player's final view proves the deal."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pbem_mail import Table


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("card-city", ["alice", "bob"], ()),
        ("5x5-city", ["alice", "bob", "carol"], ("--option", "sides=BBBBBBBBBB")),
    ],
)
def test_a_whole_game_by_email_ends_with_the_deal_proven(
    tmp_path: Path, game: str, players: list[str], options: tuple[str, ...]
) -> None:
    table = Table(tmp_path, game, players, *options)
    table.join_all()
    table.play_out(random.Random(7))
    for name, party in table.players.items():
        final = tmp_path / "outbox" / f"{table.gid}-final-{name}.jsonl"
        out = party.ok("verify", str(final))
        assert "deal proven" in out and "signed by their players" in out, out
    assert not list((tmp_path / "inbox").glob("*.json")), "every file was handled"
    assert not (tmp_path / "inbox" / "refused").exists()
