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
