"""A play-by-email table for tests: a host and players, each with a data
directory of their own, talking only through the CLI and files."""

from __future__ import annotations

import json
import random
from pathlib import Path

from tests.helpers.pbem import Party, PbemGame, dump

__all__ = ["Party", "Table", "dump", "legal_of", "move_file", "to_act"]


class Table(PbemGame):
    """Host and players; ``outbox`` is what the host sends, ``inbox`` what it reads."""

    def __init__(self, root: Path, game: str, players: list[str], *options: str) -> None:
        super().__init__(root, game, players, options)

    def join_all(self, reveal: bool = True) -> None:
        """Every player joins; then (a game of committed entropy, ruling CL-S7) the
        host sends the views asking for reveals and every player reveals, unless
        ``reveal`` is false (the game then waits in its reveal phase)."""
        for name, invite in self.invite().items():
            self.players[name].ok("join", str(invite), "--as", name, "-o",
                                  str(self.inbox / f"{self.gid}-join-{name}.json"))
        self.host.ok("inbox", str(self.inbox))
        if reveal:
            self.reveal_all()

    def reveal_all(self) -> None:
        """The reveal round: the host's outbox asks every seat that must reveal; each
        reveals from the view it received; the host reads them (nothing when the
        game takes no reveals)."""
        self.host.ok("outbox", self.gid, str(self.outbox))
        asked = [v for v in self.fresh_views() if self.asks_reveal(v)]
        for view in asked:
            name = view.stem.split("-")[-1]
            self.players[name].ok("reveal", str(view), "--as", name, "-o",
                                  str(self.inbox / f"{self.gid}-reveal-{name}.json"))
        if asked:
            self.host.ok("inbox", str(self.inbox))

    def asks_reveal(self, view: Path) -> bool:
        """The view asks its player to reveal her committed entropy [CL-S7]."""
        name = view.stem.split("-")[-1]
        shown = json.loads(self.players[name].ok("show", str(view), "--json"))
        return name in shown.get("to_reveal", [])

    def round_trip(self, rng: random.Random) -> bool:
        """Host sends views; every player to act answers one; host reads the inbox.
        False once the game is over."""
        self.host.ok("outbox", self.gid, str(self.outbox))
        if self.finals_written():
            return False
        fresh = self.fresh_views()
        assert fresh, "the host sent nothing new and the game is not over"
        for view in fresh:
            name = view.stem.split("-")[-1]
            party = self.players[name]
            party.ok("verify", str(view))
            if self.asks_reveal(view):  # the reveal round of a game of committed entropy [CL-S7]
                party.ok("reveal", str(view), "--as", name, "-o", str(self.inbox / f"{self.gid}-reveal-{name}.json"))
                continue
            legal = json.loads(party.ok("legal", str(view), "--as", name, "--json"))["legal"]
            assert legal, f"{name} was sent {view.name} but has no legal move"
            party.ok("move", str(view), "--as", name, rng.choice(legal), "--out", str(self.inbox))
        code, out, err = self.host.run("inbox", str(self.inbox))
        assert code == 0, f"inbox: {err}{out}"
        return True

    def play_out(self, rng: random.Random, limit: int = 2000) -> None:
        for _ in range(limit):
            if not self.round_trip(rng):
                return
        raise AssertionError("the game did not end")


def to_act(table: Table) -> list[str]:
    return json.loads(table.host.ok("show", table.gid, "--json"))["to_act"]


def move_file(table: Table, name: str, commands: list[str], out: Path, key: str | None = None,
              replace: bool = False) -> Path:
    """``name``'s move against the host's latest position, signed with ``key``'s
    key file (default: ``name``'s own); ``replace``: a second, different move at a
    position signed before, made on purpose (``--replace-answered``, CL-S17)."""
    signer = key or name
    party = table.players.get(signer)
    key_path = (party.home if party else table.host.home) / "keys" / f"{signer}.key"
    table.host.ok("move", table.gid, "--as", name, *commands, "--out", str(out), "--key", str(key_path),
                  *(["--replace-answered"] if replace else []))
    return out


def legal_of(table: Table, name: str) -> list[str]:
    return json.loads(table.host.ok("legal", table.gid, "--as", name, "--json"))["legal"]
