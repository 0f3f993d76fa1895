"""A play-by-email game for tests: a host and players, each with a data directory
of their own, talking only through the CLI and files.

The one signed-game helper of the suite: ``tests/pbem/pbem_mail.py`` (the
``Table`` of the play-by-email tests) and the red team (``tests/pbem/adversary``)
both build on :class:`Party` and :class:`PbemGame`.

* :class:`Party` runs ``citylog`` against its own database, in-process, with the
  click command built once (typer rebuilds it on every invoke: most of a call);
  a traceback or exit 3 is a :class:`Bug`, never an answer;
* :class:`PbemGame` makes the keys and the game (``new --pbem``) and sends the
  invitations (``outbox``);
* :func:`dump` is everything in a database, to check a refused request changed
  nothing.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import click.testing
import typer

from cli.main import app

_COMMAND: Any = None


def cli_command() -> Any:
    """The click command of ``citylog``, built once."""
    global _COMMAND
    if _COMMAND is None:
        _COMMAND = typer.main.get_command(app)
    return _COMMAND


class Bug(AssertionError):
    """A command exited 3 or raised: never an acceptable answer to anyone."""


class Party:
    """One data directory (host or player) and the CLI run against it."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.home = root / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.db = self.home / "citylog.db"

    def run(self, *args: str) -> tuple[int, str, str]:
        """``citylog --db DB ARGS``: (exit code, stdout, stderr)."""
        r = click.testing.CliRunner().invoke(cli_command(), ["--db", str(self.db), *args])
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise Bug(f"{self.name}: {args[:2]} raised {type(r.exception).__name__}: {r.exception}") from r.exception
        if r.exit_code == 3:
            raise Bug(f"{self.name}: {args[:2]} exited 3 (a bug): {r.stderr}{r.stdout}")
        return r.exit_code, r.stdout, r.stderr

    def ok(self, *args: str) -> str:
        code, out, err = self.run(*args)
        assert code == 0, f"{self.name}: {args} exited {code}: {err}{out}"
        return out

    def key(self, name: str | None = None) -> Path:
        """The key file ``key new NAME`` wrote in this party's key store."""
        return self.home / "keys" / f"{name or self.name}.key"


class PbemGame:
    """A host and players with keys of their own, and a game by email between them.
    ``outbox`` is where the host writes, ``inbox`` what it reads."""

    def __init__(self, root: Path, game: str, players: tuple[str, ...] | list[str],
                 options: tuple[str, ...] = (), seed: str | None = None) -> None:
        self.root = root
        self.host = Party(root, "host")
        self.players = {p: Party(root, p) for p in players}
        self.outbox = root / "outbox"
        self.inbox = root / "inbox"
        self.inbox.mkdir(parents=True)
        self.host.ok("key", "new", "host")
        for name, party in self.players.items():
            party.ok("key", "new", name)
        seeded = ("--seed", seed) if seed else ()
        out = self.host.ok("new", game, "--players", ",".join(players), "--pbem", "--json", *options, *seeded)
        self.gid: str = json.loads(out)["game_id"]
        self.answered: set[str] = set()
        """The views the players have answered (by file name)."""

    def invite(self) -> dict[str, Path]:
        """The host sends the invitations; each player's file."""
        self.host.ok("outbox", self.gid, str(self.outbox))
        return {p: self.outbox / f"{self.gid}-invite-{p}.json" for p in self.players}

    def fresh_views(self) -> list[Path]:
        """Each player's newest view not answered yet (a player answers only her
        newest); all of them are marked answered."""
        fresh = [p for p in sorted(self.outbox.glob(f"{self.gid}-seq*.jsonl")) if p.name not in self.answered]
        latest: dict[str, Path] = {}
        for v in sorted(fresh, key=lambda v: int(v.stem.split("-")[1][3:])):
            latest[v.stem.split("-")[-1]] = v
        self.answered.update(v.name for v in fresh)
        return list(latest.values())

    def finals_written(self) -> bool:
        return any(self.outbox.glob(f"{self.gid}-final-*.jsonl"))


def dump(db: Path) -> list[str]:
    """Everything in a database, to check a refused request changed nothing."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return list(conn.iterdump())


def join_seats(svc: Any, gid: str, seats: list[tuple[Any, str, str, str]]) -> list[Any]:
    """Every seat of a game by email joins through the service API, in order:
    ``seats`` is (private key, player, entropy, seat secret) each; in a game of
    committed entropy (ruling CL-S7) each join carries the commitment to that
    entropy (salted with a salt derived from it), and once every seat has joined
    each reveals it.  The join statements, in seat order."""
    import hashlib

    from core.chance import COMMITTED_ENTROPY
    from core.seats import last_join_seq
    from events.statements import signed_committed_join, signed_join, signed_reveal

    rec = svc.store.get_game(gid)
    committed = rec.entropy == COMMITTED_ENTROPY

    def salted(entropy: str) -> tuple[str, str]:
        return entropy, hashlib.sha256(f"salt-{entropy}".encode()).hexdigest()[:32]

    out = []
    for key, player, entropy, secret in seats:
        if committed:
            jf: Any = signed_committed_join(key, gid, rec.genesis, player, secret, salted(entropy))
        else:
            jf = signed_join(key, gid, rec.genesis, player, entropy, secret)
        svc.join(jf)
        out.append(jf)
    if committed and len(seats) == len(rec.players):
        loaded = svc.load(gid)
        at = last_join_seq(loaded.events)
        head = loaded.records[at - 1].hash
        for key, player, entropy, _ in seats:
            svc.reveal(signed_reveal(key, gid, rec.genesis, player, at, head, salted(entropy)))
    return out


def join_for(definition_entropy: int, key: Any, gid: str, genesis: str, player: str, entropy: str, secret: str) -> Any:
    """The join a game of ``definition_entropy`` takes (ruling CL-S7): a
    ``citylog-join/3`` committing to ``entropy`` for a game of committed entropy,
    a ``citylog-join/2`` carrying it otherwise."""
    import hashlib

    from core.chance import COMMITTED_ENTROPY
    from events.statements import signed_committed_join, signed_join

    if definition_entropy == COMMITTED_ENTROPY:
        salt = hashlib.sha256(f"salt-{entropy}".encode()).hexdigest()[:32]
        return signed_committed_join(key, gid, genesis, player, secret, (entropy, salt))
    return signed_join(key, gid, genesis, player, entropy, secret)


def with_a_choice(build: Any, moves: Any, tries: int = 20) -> Any:
    """The first table ``build(n)`` (n = 0, 1, …) whose decision under test offers
    two different moves (``moves(table)``: its legal commands).  Keys are made fresh
    for every game, so players' entropy and the deal are too; a Card City split of
    four alike cards offers one move only, and a test of *two different* moves at
    one position [CL-S17] needs two.  Such a deal is dealt again, never assumed."""
    for n in range(tries):
        table = build(n)
        if len(moves(table)) >= 2:
            return table
    raise AssertionError(f"{tries} deals in a row offered one move only")
