"""The honest side of the red team: a game by email played by honest players.

A :class:`Mail` is one play-by-email game between a host and players, each with
a data directory of their own, talking only through the CLI and files
(:class:`tests.helpers.pbem.PbemGame`).  Honest players only ever run ``join``,
``legal``, ``move`` and ``verify`` on what they receive; what they *finally*
receive is their final view.  :func:`honest_start` plays a case once per session
(joined, and ``rounds`` round trips or to the end); attacks copy it.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from tests.helpers.pbem import Party, PbemGame

def _seq_of(path: Path) -> tuple[int, str]:
    part = path.name.split("-")[1] if path.name.count("-") >= 2 else ""
    return (int(part[3:]) if part.startswith("seq") and part[3:].isdigit() else -1, path.name)


@contextlib.contextmanager
def deterministic(label: str) -> Iterator[None]:
    """Every ``secrets.token_hex`` (game id, seed, salt) and every key ``key new``
    makes from a counter, so an attacked game and the same game played honestly
    match up to the cheat.  (The keys matter: a committed join's entropy is derived
    from the player's key and the genesis, which holds the host's key [CL-S7].)"""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    counter = iter(range(10**9))
    keys = iter(range(10**9))

    def token_hex(n: int = 32) -> str:
        return hashlib.sha256(f"{label}-{next(counter)}".encode()).hexdigest()[: 2 * n].ljust(2 * n, "0")

    def new_private_key() -> Ed25519PrivateKey:
        return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"{label}-key-{next(keys)}".encode()).digest())

    with mock.patch.object(secrets, "token_hex", token_hex), mock.patch("cli.keys.new_private_key", new_private_key):
        yield


def pick(options: list[str], *salt: object) -> str:
    """A choice that depends only on the position (not on how we got there)."""
    h = hashlib.sha256(":".join(map(str, salt)).encode()).digest()
    return options[int.from_bytes(h[:8], "big") % len(options)]





@dataclass(frozen=True)
class Case:
    """A game to attack: which, with whom, and how the honest players choose."""

    game: str
    players: tuple[str, ...]
    options: tuple[str, ...] = ()
    seed: str | None = None
    choices: int = 0
    label: str = "adv"

    def __str__(self) -> str:
        return f"{self.game} {','.join(self.players)} {' '.join(self.options)} seed={self.seed} choices={self.choices}"





class Mail(PbemGame):
    """One play-by-email game, host and players in their own directories."""

    def __init__(self, root: Path, case: Case) -> None:
        super().__init__(root, case.game, case.players, case.options, case.seed)
        self.case = case
        self.controller: dict[str, tuple[Party, Path, int]] = {
            p: (party, party.key(), case.choices) for p, party in self.players.items()
        }
        """Who answers each seat's views, with which key and which choices (a hijacker may take one)."""
        self.refusals: list[str] = []
        self.stuck: str | None = None
        """Why an honest player could not go on (could not read a view, no legal move)."""
        self.on_inbox: Callable[[Mail], None] | None = None
        """A host's hook: runs after the players answered and before the host reads its inbox."""

    # -- the host's row and files ------------------------------------------
    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        with contextlib.closing(sqlite3.connect(self.host.db)) as conn, conn:
            return conn.execute(query, params).fetchall()

    def version(self) -> int:
        return int(self.sql("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?", self.gid)[0][0])

    def over(self) -> bool:
        return self.sql("SELECT status FROM games WHERE id = ?", self.gid)[0][0] == "over"

    def dump(self) -> list[str]:
        with contextlib.closing(sqlite3.connect(self.host.db)) as conn:
            return list(conn.iterdump())

    def applied(self, kind: str) -> list[Path]:
        """Files the host applied, oldest first (``join`` or ``move``)."""
        folder = self.inbox / "applied"
        if not folder.is_dir():
            return []
        return sorted(folder.glob(f"{self.gid}-*{kind}*.json"), key=_seq_of)

    # -- joining -------------------------------------------------------------
    def join_file(self, name: str) -> Path:
        """``name`` answers their invitation (into a folder of their own, not yet sent)."""
        party = self.players[name]
        out = party.home / f"{self.gid}-join-{name}.json"
        if not out.exists():
            party.ok("join", str(self.outbox / f"{self.gid}-invite-{name}.json"), "--as", name, "-o", str(out))
        return out

    def read_inbox(self, folder: Path | None = None) -> tuple[int, str, str]:
        code, out, err = self.host.run("inbox", str(folder or self.inbox))
        if code != 0:
            self.refusals.append(out + err)
        return code, out, err

    def join_all(self, skip: tuple[str, ...] = ()) -> None:
        self.invite()
        for name in self.players:
            if name not in skip:
                shutil.copy(self.join_file(name), self.inbox)
        self.read_inbox()

    # -- playing -------------------------------------------------------------
    def legal(self, party: Party, view: Path, name: str) -> list[str] | None:
        """``name``'s legal commands in the file received, as ``citylog legal FILE`` lists
        them (read in-process: a fifth of a game's time otherwise)."""
        from cli.games import legal_commands
        from replay.sources import fold_log, read_path

        try:
            log = read_path(view)
            game, _, states = fold_log(log)
            seat = log.header.definition.players.index(name)
            return list(legal_commands(game, game.view(states[-1], seat), seat))
        except (ValueError, OSError) as exc:
            self.stuck = f"{name} cannot read {view.name}: {' '.join(str(exc).split())[:300]}"
            return None

    def asks_reveal(self, view: Path, name: str) -> bool:
        """The view asks ``name`` to reveal her committed entropy (read in-process) [CL-S7]."""
        from core.seats import must_reveal
        from replay.sources import fold_log, read_path

        try:
            log = read_path(view)
            _, events, _ = fold_log(log)
        except (ValueError, OSError):
            return False  # the move step names why the view cannot be read
        d = log.header.definition
        return name in d.players and d.players.index(name) in must_reveal(events, len(d.players), d.entropy)

    # -- an honest start, played once per case and copied -------------------------
    def start(self, rounds: int | None = None) -> None:
        """Everyone joins, then ``rounds`` honest round trips (None: to the end, with
        the final views written).  Played once per (case, rounds) and copied here."""
        src = honest_start(self.case, rounds)
        shutil.rmtree(self.root)
        shutil.copytree(src.root, self.root)
        self.gid, self.answered, self.stuck = src.gid, set(src.answered), src.stuck
        self.refusals = list(src.refusals)

    def round_trip(self) -> bool:
        """The host sends views; each seat to act answers its newest; the host reads
        the inbox.  False once the game is over (or stuck)."""
        if self.stuck:
            return False
        self.host.ok("outbox", self.gid, str(self.outbox))
        if self.finals_written():
            return False
        latest = self.fresh_views()
        if not latest:
            self.stuck = "the host sent nothing new and the game is not over"
            return False
        for view in latest:
            name = view.stem.split("-")[-1]
            party, key, choices = self.controller[name]
            if self.asks_reveal(view, name):  # the reveal round of a game of committed entropy [CL-S7]
                code, out, err = party.run("reveal", str(view), "--as", name, "--out", str(self.inbox),
                                           "--key", str(key))
                if code != 0:
                    self.stuck = f"{name} cannot reveal from {view.name}: {err.strip() or out.strip()}"
                    return False
                continue
            legal = self.legal(party, view, name)
            if not legal:
                self.stuck = self.stuck or f"{name} was sent {view.name} but has no legal move"
                return False
            seq = int(view.stem.split("-")[1][3:])
            command = pick(legal, choices, name, seq)
            code, out, err = party.run("move", str(view), "--as", name, command, "--out", str(self.inbox),
                                       "--key", str(key))
            if code != 0:
                self.stuck = f"{name} cannot answer {view.name}: {err.strip() or out.strip()}"
                return False
        if self.on_inbox is not None:
            self.on_inbox(self)
        self.read_inbox()
        return True

    def play(self, rounds: int | None = None) -> None:
        """``rounds`` round trips (all of them by default: to the end)."""
        for _ in range(rounds if rounds is not None else 5000):
            if not self.round_trip():
                return

    def finals(self) -> dict[str, Path]:
        """Each player's final view (the host writes them once the game is over)."""
        if not self.stuck:
            self.host.run("outbox", self.gid, str(self.outbox))
        return {p: self.outbox / f"{self.gid}-final-{p}.jsonl" for p in self.players}


_STARTS: dict[tuple[Case, int | None], Mail] = {}


def honest_start(case: Case, rounds: int | None = None) -> Mail:
    """``case`` joined and played honestly for ``rounds`` round trips (None: to the
    end, final views written), once per session; never change it (copy it:
    :meth:`Mail.start`)."""
    key = (case, rounds)
    if key not in _STARTS:
        import atexit
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="citylog-red-team-"))
        atexit.register(shutil.rmtree, root, True)
        with deterministic(case.label):
            m = Mail(root / "game", case)
            m.join_all()
            m.play(rounds)
            if rounds is None:
                m.finals()
        _STARTS[key] = m
    return _STARTS[key]

