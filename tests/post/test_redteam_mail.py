"""Red team, round 22b, by mail: a forged letter cannot shadow a real one [CL-S8].

citylog's Message-IDs are deterministic (anyone can guess a player's next one).
The host's agent saved a letter's attachments into its inbox folder under names
made from the Message-ID alone, and took a file of that name already in the
folder — or already applied or refused — for a rewrite after a crash.  So a
forger who sent first, under the genuine mail's Message-ID, a move file of the
same name (a forged signature: refused by the inbox) made the genuine move
"already there": never applied.  Law: what a handled letter leaves is keyed by
what it carries (the sha256 of its bytes) as well, so a forged letter under a
guessed Message-ID never stops the genuine one from being applied.
"""

from __future__ import annotations

import email
import email.policy
import json
from email.message import EmailMessage
from pathlib import Path

import msgspec
import pytest

from events import statements
from events.statements import MoveFile
from tests.helpers.mail_parties import MailTable


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> MailTable:
    """A 2-seat Card City game by mail, joined, the seat to act holding her view."""
    t = MailTable(tmp_path_factory.mktemp("r22b-mail"))
    for _ in range(4):
        t.carry()
        for p in t.players.values():
            p.sync()
        t.carry()
        t.host.sync()
    t.carry()
    for p in t.players.values():
        p.sync()
    return t


def _forged(genuine: bytes, sender: str) -> bytes:
    """A mail from ``sender`` under the genuine mail's Message-ID, carrying a move file
    of the same name with the same move but a forged signature."""
    msg = email.message_from_bytes(genuine, policy=email.policy.default)
    [part] = list(msg.iter_attachments())
    name, data = part.get_filename(), part.get_payload(decode=True)
    mv = msgspec.json.decode(data, type=MoveFile)
    fake = statements.encode(msgspec.structs.replace(mv, signature="11" * 64))
    out = EmailMessage()
    out["From"] = sender
    out["To"] = msg["To"]
    out["Message-ID"] = msg["Message-ID"]
    out["Subject"] = msg["Subject"]
    for header in ("X-Citylog-Game", "X-Citylog-Kind", "X-Citylog-Seq", "X-Citylog-Seat"):
        if msg[header] is not None:
            out[header] = msg[header]
    out.set_content("my move")
    out.add_attachment(fake, maintype="application", subtype="json", filename=name)
    return out.as_bytes()


def test_a_forged_letter_under_a_guessed_message_id_does_not_shadow_the_real_one(started: MailTable) -> None:
    t = started
    name = json.loads(t.host.ok("show", t.gid, "--json"))["to_act"][0]
    party = t.players[name]
    view = t.view_of(name)
    assert view is not None
    legal = json.loads(party.ok("legal", view["file"], "--as", name, "--json"))["legal"]
    party.ok("move", t.gid, "--as", name, legal[0])
    party.sync()
    [eml] = sorted(party.outmail.glob("*.eml"))
    genuine = eml.read_bytes()
    eml.unlink()
    before = json.loads(t.host.ok("show", t.gid, "--json"))["seq"]
    # the forger's letter arrives first: read, its file refused by the inbox
    t.host.deliver(_forged(genuine, "eve@example.test"), "forged")
    s = t.host.sync()
    assert s["applied"] == 0, s
    assert json.loads(t.host.ok("show", t.gid, "--json"))["seq"] == before
    refused = list((Path(t.host.home) / "mail" / "inbox" / "refused").glob("*.json"))
    assert refused, "the forged file was not even saved: the test proves nothing"
    # then the genuine one: applied
    t.host.deliver(genuine, "genuine")
    s = t.host.sync()
    assert s["applied"] == 1, s
    assert json.loads(t.host.ok("show", t.gid, "--json"))["seq"] > before
