"""A forged invitation sent first cannot lock a player out of her game [CL-S10].

Anyone who knows a game id (a co-player does) can sign an invitation to it with a
key of their own and have it arrive first.  The player's mail agent answers the
first invitation of a game by itself and trusts its host key for that game; a
later one from another key used to be refused and dropped, so the genuine
host's invitation, and every view it sealed, was refused for ever.  Law: no
letter anyone can send decides which host a player trusts — an invitation from
another key is held, never dropped, and ``citylog mail accept GAME --host-key
HEX`` (the key her host gave her another way) trusts that key and answers it;
given before any invitation comes, it pins the key in advance.
"""

from __future__ import annotations

import email
import email.policy
import json
import random
from email.message import EmailMessage
from pathlib import Path

import msgspec
import pytest

from cli.keys import load_key
from events import statements
from events.signing import sign
from events.statements import Invite
from tests.helpers.mail_parties import MailParty, MailTable


def _invitation_in(party: MailParty, player: str) -> tuple[bytes, Invite]:
    """The invitation mail ``party`` wrote for ``player`` (still in its outbound folder)."""
    for path in sorted(party.outmail.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["X-Citylog-Kind"] == "invite" and msg["X-Citylog-Seat"] == player:
            [part] = list(msg.iter_attachments())
            return path.read_bytes(), msgspec.json.decode(part.get_payload(decode=True), type=Invite)
    raise AssertionError(f"no invitation for {player} in {party.name}'s outbound mail")


def _forged_invitation(t: MailTable, mallory: MailParty, player: str) -> bytes:
    """Mallory's invitation to ``t``'s game id, signed with her own host key: her own
    game's invitation with the game id changed and signed again (a valid signature)."""
    gid = json.loads(mallory.ok("new", "card-city", "--players", ",".join(t.players), "--pbem", "--json"))["game_id"]
    mallory.ok("mail", "invite", gid, *[f"--to={p}={q.address}" for p, q in t.players.items()])
    _, inv = _invitation_in(mallory, player)
    inv = msgspec.structs.replace(inv, game_id=t.gid, signature="")
    inv = msgspec.structs.replace(inv, signature=sign(load_key(mallory.key("host")), "invite", statements.body(inv)))
    for path in mallory.outmail.glob("*.eml"):
        path.unlink()  # nothing else of hers goes out
    out = EmailMessage()
    out["From"] = mallory.address
    out["To"] = t.players[player].address
    out["Message-ID"] = f"<forged-{t.gid}@example.test>"
    out["Subject"] = f"citylog {t.gid}: invitation"
    out["X-Citylog-Game"] = t.gid
    out["X-Citylog-Kind"] = "invite"
    out.set_content("you are invited\n")
    out.add_attachment(statements.encode(inv), maintype="application", subtype="json",
                       filename=f"{t.gid}-invite-{player}.json")
    return bytes(out)


def _alice_joined(t: MailTable) -> bool:
    """Mail carried until the host waits for no join of alice's (a few rounds at most)."""
    for i in range(4):
        waiting = t.round(random.Random(i))["waiting"].get(t.gid, [])
        if "alice (to join)" not in waiting:
            return True
    return False


def _host_key(t: MailTable) -> str:
    return _invitation_in(t.host, "alice")[1].definition.host_key or ""


@pytest.mark.slow
def test_a_forged_invitation_sent_first_is_followed_by_the_genuine_one_once_accepted(tmp_path: Path) -> None:
    t = MailTable(tmp_path)
    mallory = MailParty(tmp_path, "mallory", key="host")
    alice = t.players["alice"]
    real = _host_key(t)
    alice.deliver(_forged_invitation(t, mallory, "alice"), "forged")
    alice.sync()  # the first invitation of the game: answered, its key trusted
    t.carry()  # the genuine invitations, after it
    code, out, err = alice.run("mail", "sync")
    assert "held for 'citylog mail accept' [CL-S10]" in out + err and f"--host-key {real}" in out + err, out + err
    said = alice.ok("mail", "accept", t.gid, "--host-key", real)
    assert "the invitation it sent is answered" in said, said
    said = alice.ok("mail", "accept", t.gid, "--host-key", real)
    assert "trusted already" in said, said
    t.play_out(random.Random(3))
    view = t.view_of("alice")
    assert view is not None and view["kind"] == "final"
    assert "deal proven" in alice.ok("verify", view["file"])


def test_a_key_pinned_in_advance_holds_a_forged_invitation_and_answers_the_genuine_one(tmp_path: Path) -> None:
    t = MailTable(tmp_path)
    mallory = MailParty(tmp_path, "mallory", key="host")
    alice = t.players["alice"]
    real = _host_key(t)
    said = alice.ok("mail", "accept", t.gid, "--host-key", real)
    assert "answered when it comes" in said, said
    alice.deliver(_forged_invitation(t, mallory, "alice"), "forged")
    code, out, err = alice.run("mail", "sync")
    assert "from another host key" in out + err and "[CL-S10]" in out + err, out + err
    assert not list(alice.outmail.glob("*.eml")) or all(
        email.message_from_bytes(p.read_bytes(), policy=email.policy.default)["X-Citylog-Kind"] != "join"
        for p in alice.outmail.glob("*.eml")), "alice joined the forged game"
    assert _alice_joined(t)


def test_accept_refuses_what_is_not_a_key_and_leaves_the_trust_as_it_was(tmp_path: Path) -> None:
    t = MailTable(tmp_path)
    alice = t.players["alice"]
    for bad in ("xyz", "ab" * 31, "00" * 32, "g" * 64):  # (upper case is the same key typed: accepted)
        code, out, err = alice.run("mail", "accept", t.gid, "--host-key", bad)
        assert code == 2 and "[CL-S10]" in err and len(err.strip().splitlines()) == 1, (bad, code, out, err)
    assert _alice_joined(t)  # the genuine invitation is still answered by itself
