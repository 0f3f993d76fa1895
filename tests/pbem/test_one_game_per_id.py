"""[CL-S18] One game under one id: her tools never join two games (two geneses)
under one game id with one key unless she says so (``--replace-joined``).

ATTACK (cheating host, red team stop 36): the host signs a second invitation under
the game's id with another definition (another seed commitment).  Joined by hand as
well, both games are genuine under one id: the host can play both and show her either
as "the game", its deal proven."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from pbem_mail import Table
from tests.helpers.pbem import dump


def _second_invitation(table: Table, name: str, where: Path) -> Path:
    """The host's invitation of ``name`` under the same id, with another definition, signed by the host key."""
    from cli.keys import load_key
    from events import statements
    from events.signing import sign

    invitation = table.invite()[name]
    inv = statements.decode(invitation.read_bytes(), invitation.name)
    assert isinstance(inv, statements.Invite)
    other = msgspec.structs.replace(inv.definition, seed_commitment="5e" * 32)
    forged = msgspec.structs.replace(inv, definition=other, signature="")
    forged = msgspec.structs.replace(forged, signature=sign(load_key(table.host.key("host")), "invite",
                                                              statements.body(forged)))
    where.write_bytes(statements.encode(forged))
    return invitation


def test_a_second_game_under_one_id_is_not_joined_by_hand(tmp_path: Path) -> None:
    table = Table(tmp_path / "t", "card-city", ["alice", "bob"])
    alice = table.players["alice"]
    second = tmp_path / "second-invitation.json"
    first = _second_invitation(table, "alice", second)
    alice.ok("join", str(first), "--as", "alice", "-o", str(tmp_path / "join1.json"))
    alice.ok("join", str(first), "--as", "alice", "-o", str(tmp_path / "join1-again.json"))  # the same game: fine
    assert (tmp_path / "join1.json").read_bytes() == (tmp_path / "join1-again.json").read_bytes()
    record = alice.home / "keys" / "joined.jsonl"
    before = (record.read_bytes(), dump(alice.db))
    code, out, err = alice.run("join", str(second), "--as", "alice", "-o", str(tmp_path / "join2.json"))
    assert code == 2 and not out and "[CL-S18]" in err and "--replace-joined" in err, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not (tmp_path / "join2.json").exists() and (record.read_bytes(), dump(alice.db)) == before
    # her choice (a host that restarted the game), recorded as a replacement
    alice.ok("join", str(second), "--as", "alice", "-o", str(tmp_path / "join2.json"), "--replace-joined")
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert [x["replaces"] for x in lines] == [False, True] and lines[0]["genesis"] != lines[1]["genesis"]


def test_the_agent_never_joins_a_second_game_under_one_id(tmp_path: Path) -> None:
    """She joined another game under this id by hand (her record says so); the game's
    invitation reaching her agent by mail is refused, not answered: one record for
    every tool.  ``mail accept`` (her choice of host key) may replace it [CL-S10]."""
    from cli.keys import load_key
    from events.signing import public_hex
    from tests.helpers.mail_parties import MailTable

    table = MailTable(tmp_path / "m")
    alice = table.players["alice"]
    public = public_hex(load_key(alice.home / "keys" / "alice.key"))
    record = alice.home / "keys" / "joined.jsonl"
    record.write_text(json.dumps({"game_id": table.gid, "player": "alice", "public_key": public,
                                  "genesis": "ef" * 32, "replaces": False}) + "\n")
    table.carry()
    s = alice.sync()
    said = "\n".join(s["lines"])
    assert "[CL-S18]" in said and "accepts the invitation" not in said, said
    assert not [p for p in alice.outmail.glob("*.eml") if b"X-Citylog-Kind: join" in p.read_bytes()]
    assert len(record.read_text().splitlines()) == 1
