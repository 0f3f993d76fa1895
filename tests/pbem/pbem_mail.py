"""A play-by-email table for tests: a host and players, each with a data
directory of their own, talking only through the CLI and files."""

from __future__ import annotations

import json
import random
from pathlib import Path

from typer.testing import CliRunner

from cli.main import app


class Party:
    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.home = root / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.db = self.home / "citylog.db"

    def run(self, *args: str) -> tuple[int, str, str]:
        r = CliRunner().invoke(app, ["--db", str(self.db), *args])
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise r.exception  # a traceback is a bug: let the test show it
        return r.exit_code, r.stdout, r.stderr

    def ok(self, *args: str) -> str:
        code, out, err = self.run(*args)
        assert code == 0, f"{self.name}: {args} exited {code}: {err}{out}"
        return out


class Table:
    """Host and players; ``mail`` is the host's outbox, ``inbox`` the host's inbox."""

    def __init__(self, root: Path, game: str, players: list[str], *options: str) -> None:
        self.host = Party(root, "host")
        self.players = {p: Party(root, p) for p in players}
        self.outbox = root / "outbox"
        self.inbox = root / "inbox"
        self.inbox.mkdir()
        self.host.ok("key", "new", "host")
        for name, party in self.players.items():
            party.ok("key", "new", name)
        out = self.host.ok("new", game, "--players", ",".join(players), "--pbem", "--json", *options)
        self.gid: str = json.loads(out)["game_id"]
        self.answered: set[str] = set()

    def join_all(self) -> None:
        self.host.ok("outbox", self.gid, str(self.outbox))
        for name, party in self.players.items():
            invite = self.outbox / f"{self.gid}-invite-{name}.json"
            party.ok("join", str(invite), "--as", name, "-o", str(self.inbox / f"{self.gid}-join-{name}.json"))
        self.host.ok("inbox", str(self.inbox))

    def round_trip(self, rng: random.Random) -> bool:
        """Host sends views; every player to act answers one; host reads the inbox.
        False once the game is over."""
        self.host.ok("outbox", self.gid, str(self.outbox))
        finals = sorted(self.outbox.glob(f"{self.gid}-final-*.jsonl"))
        if finals:
            return False
        fresh = [p for p in sorted(self.outbox.glob(f"{self.gid}-seq*.jsonl")) if p.name not in self.answered]
        latest: dict[str, Path] = {}
        for v in sorted(fresh, key=lambda v: int(v.stem.split("-")[1][3:])):
            latest[v.stem.split("-")[-1]] = v  # a player answers only their newest view
        self.answered.update(v.name for v in fresh)
        fresh = list(latest.values())
        assert fresh, "the host sent nothing new and the game is not over"
        for view in fresh:
            self.answered.add(view.name)
            name = view.stem.split("-")[-1]
            party = self.players[name]
            party.ok("verify", str(view))
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


def dump(db: Path) -> list[str]:
    """Everything in a database, to check a refused request changed nothing."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        return list(conn.iterdump())


def to_act(table: Table) -> list[str]:
    return json.loads(table.host.ok("show", table.gid, "--json"))["to_act"]


def move_file(table: Table, name: str, commands: list[str], out: Path, key: str | None = None) -> Path:
    """``name``'s move against the host's latest position, signed with ``key``'s
    key file (default: ``name``'s own)."""
    signer = key or name
    party = table.players.get(signer)
    key_path = (party.home if party else table.host.home) / "keys" / f"{signer}.key"
    table.host.ok("move", table.gid, "--as", name, *commands, "--out", str(out), "--key", str(key_path))
    return out


def legal_of(table: Table, name: str) -> list[str]:
    return json.loads(table.host.ok("legal", table.gid, "--as", name, "--json"))["legal"]
