"""Play by real email without servers, for tests (issue 24): each party's data
directory has a Maildir it reads (``inbound = maildir:Maildir``) and a folder
of ``.eml`` files it writes (``outbound = eml:outmail``); :func:`postman` moves
each written mail into the Maildir of its addressee, as a mail system would.
(``tests/helpers/mail_servers.py`` does the same over real SMTP and IMAP.)"""

from __future__ import annotations

import email
import email.policy
import json
import os
from pathlib import Path

from tests.helpers.pbem import Party

DOMAIN = "example.test"


class MailParty(Party):
    """A data directory with a key, a Maildir and an outbound .eml folder."""

    def __init__(self, root: Path, name: str, key: str | None = None) -> None:
        super().__init__(root, name)
        self.address = f"{name}@{DOMAIN}"
        self.maildir = self.home / "Maildir"
        self.outmail = self.home / "outmail"
        self.ok("key", "new", key or name)
        self.ok("mail", "setup", "--address", self.address, "--inbound", "maildir:Maildir",
                "--outbound", "eml:outmail")

    def sync(self) -> dict:
        """One pass of ``citylog mail sync --json`` (its summary)."""
        out = self.ok("mail", "sync", "--json")
        return json.loads(out.strip().splitlines()[-1])

    def status(self) -> dict:
        return json.loads(self.ok("mail", "status", "--json"))

    def deliver(self, raw: bytes, name: str) -> Path:
        """Put one message into this party's Maildir (new/), as a delivery agent does."""
        for sub in ("tmp", "new", "cur"):
            (self.maildir / sub).mkdir(parents=True, exist_ok=True)
        tmp = self.maildir / "tmp" / name
        tmp.write_bytes(raw)
        final = self.maildir / "new" / name
        os.replace(tmp, final)
        return final


def postman(parties: list[MailParty], lost: list[bytes] | None = None) -> int:
    """Move every mail a party wrote to the Maildir of each addressee; how many
    were delivered.  A mail to an unknown address goes to ``lost``."""
    by_address = {p.address: p for p in parties}
    delivered = 0
    for party in parties:
        if not party.outmail.is_dir():
            continue
        for path in sorted(party.outmail.glob("*.eml")):
            raw = path.read_bytes()
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            for _, addr in email.utils.getaddresses([str(msg.get("To", ""))]):
                if addr in by_address:
                    by_address[addr].deliver(raw, f"{party.name}-{path.stem}")
                    delivered += 1
                elif lost is not None:
                    lost.append(raw)
            done = party.outmail / "delivered"
            done.mkdir(exist_ok=True)
            os.replace(path, done / path.name)
    return delivered


class MailTable:
    """A host and players by mail: each runs only ``mail sync`` and
    ``move``/``play`` on a game id; :func:`postman` carries the mail."""

    def __init__(self, root: Path, game: str = "card-city", players: tuple[str, ...] = ("alice", "bob"),
                 options: tuple[str, ...] = ()) -> None:
        self.root = root
        self.host = MailParty(root, "host")
        self.players = {p: MailParty(root, p) for p in players}
        out = self.host.ok("new", game, "--players", ",".join(players), "--pbem", "--json", *options)
        self.gid: str = json.loads(out)["game_id"]
        self.host.ok("mail", "invite", self.gid, *[f"--to={p}={q.address}" for p, q in self.players.items()])

    @property
    def parties(self) -> list[MailParty]:
        return [self.host, *self.players.values()]

    def carry(self) -> int:
        return postman(self.parties)

    def view_of(self, name: str) -> dict | None:
        views = [v for v in self.players[name].status()["views"] if v["game_id"] == self.gid]
        return views[0] if views else None

    def players_turn(self, rng, choose=None) -> int:  # type: ignore[no-untyped-def]
        """Every player syncs, moves where it is her turn (a random legal command,
        by game id), syncs again to send; how many moved."""
        moved = 0
        for name, party in self.players.items():
            for turn in party.sync()["turns"]:
                view = self.view_of(name)
                assert view is not None and view["seq"] == turn["seq"]
                legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
                assert legal, f"{name} was told it is her turn but has no legal move"
                if choose is not None:
                    choose(party, name, legal)
                else:
                    party.ok("move", self.gid, "--as", name, rng.choice(legal))
                moved += 1
            party.sync()
        return moved

    def round(self, rng, choose=None) -> dict:  # type: ignore[no-untyped-def]
        """Mail to the players, their moves, mail to the host, the host's pass."""
        self.carry()
        self.players_turn(rng, choose)
        self.carry()
        return self.host.sync()

    def over(self) -> bool:
        return all((v := self.view_of(n)) is not None and v["kind"] == "final" for n in self.players)

    def play_out(self, rng, limit: int = 1000) -> None:  # type: ignore[no-untyped-def]
        for _ in range(limit):
            self.round(rng)
            if self.over():
                return
        raise AssertionError("the game did not end")
