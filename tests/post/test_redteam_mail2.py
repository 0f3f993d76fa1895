"""Red team, round 5, by mail: the held invitation [CL-S10] and the view a player
moves from [CL-S11].

1. [CL-S14] After ``citylog mail accept GAME --host-key HEX`` replaced the host key
   a forged invitation had made the agent trust, the views that forger had sealed
   stayed in the ledger, and ``move``/``play``/``tui``/``reveal`` GAME ``--as P``
   opened "the newest view her agent received" among them: a forged view of a
   higher seq (or a forged final) than the genuine host's was the one she played
   and signed, not the game she chose.
2. [CL-S12] by mail: the agent revealed a player's entropy of one genesis at a
   second position (a twin of the game under a new id, the same definition, its
   carol seat the host's puppet with another commitment), which the host knew
   already from the first game's reveal.
"""

from __future__ import annotations

import email
import email.policy
import io
import json
import random
from email.message import EmailMessage
from pathlib import Path

import msgspec

from cli.keys import load_key
from cli.post.config import home_of
from cli.post.ledger import received_view
from events import statements
from events.signing import sign
from events.statements import Invite
from replay import logfile
from replay.trust import seal
from tests.helpers.mail_parties import MailParty, MailTable


def _mail(frm: str, to: str, gid: str, kind: str, name: str, data: bytes, mid: str) -> bytes:
    out = EmailMessage()
    out["From"] = frm
    out["To"] = to
    out["Message-ID"] = mid
    out["Subject"] = f"citylog {gid}: {kind}"
    out["X-Citylog-Game"] = gid
    out["X-Citylog-Kind"] = kind
    out.set_content(f"{kind}\n")
    out.add_attachment(data, maintype="application", subtype="json", filename=name)
    return bytes(out)


def _invitation_in(party: MailParty, player: str) -> Invite:
    for path in sorted(party.outmail.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["X-Citylog-Kind"] == "invite" and msg["X-Citylog-Seat"] == player:
            [part] = list(msg.iter_attachments())
            return msgspec.json.decode(part.get_payload(decode=True), type=Invite)
    raise AssertionError(f"no invitation for {player}")


def _forged(root: Path, gid: str) -> tuple[bytes, bytes]:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pbem"))
    from pbem_mail import Table

    m = Table(root / "mallory", "card-city", ["alice", "bob"])
    invites = m.invite()
    inv = msgspec.json.decode(invites["alice"].read_bytes(), type=Invite)
    host = load_key(m.host.key("host"))
    inv = msgspec.structs.replace(inv, game_id=gid, signature="")
    inv = msgspec.structs.replace(inv, signature=sign(host, "invite", statements.body(inv)))
    for name, path in invites.items():
        m.players[name].ok("join", str(path), "--as", name, "-o", str(m.inbox / f"{name}-join.json"))
    m.host.ok("inbox", str(m.inbox))
    m.reveal_all()
    rng = random.Random(1)
    for _ in range(6):
        if not m.round_trip(rng):
            break
    out = root / "mallory-view.jsonl"
    m.host.ok("export", m.gid, "--as", "alice", "-o", str(out), "--key", str(m.host.key("host")))
    log = logfile.read(io.StringIO(out.read_text()), out.name)
    log = msgspec.structs.replace(log, header=msgspec.structs.replace(log.header, game_id=gid, seal=None))
    log = msgspec.structs.replace(log, header=seal(log, lambda body: sign(host, "export", body)))
    buffer = io.StringIO()
    logfile.write(log, buffer)
    return statements.encode(inv), buffer.getvalue().encode()


def test_after_accepting_the_genuine_host_key_no_forged_view_is_the_one_she_plays(tmp_path: Path) -> None:
    """Law [CL-S14]: the view a player's commands open for a game received by mail
    (``received_view``) is always one sealed by the host key she trusts for that
    game now; once ``mail accept`` replaces the key, the other key's views are no
    longer hers to play."""
    t = MailTable(tmp_path)
    alice = t.players["alice"]
    real = _invitation_in(t.host, "alice").definition.host_key
    inv, view = _forged(tmp_path, t.gid)
    alice.deliver(_mail("mallory@example.test", alice.address, t.gid, "invite", f"{t.gid}-invite-alice.json",
                        inv, f"<forged-inv-{t.gid}@example.test>"), "forged-invite")
    alice.sync()  # the first invitation of the game: answered, mallory's key trusted
    alice.deliver(_mail("mallory@example.test", alice.address, t.gid, "view", f"{t.gid}-seq99-alice.jsonl",
                        view, f"<forged-view-{t.gid}@example.test>"), "forged-view")
    alice.sync()
    forged = received_view(home_of(str(alice.db)), t.gid, "alice")
    assert forged is not None  # mallory's view, while her key was the one trusted
    t.carry()
    alice.run("mail", "sync")  # the genuine invitation: held
    alice.ok("mail", "accept", t.gid, "--host-key", real)
    for i in range(3):
        t.round(random.Random(i))
    found = received_view(home_of(str(alice.db)), t.gid, "alice")
    assert found is not None, "alice has no genuine view of her game"
    header = json.loads(found[0].read_text().splitlines()[0])
    assert header["definition"]["host_key"] == real, \
        "alice's commands open a view sealed by the forged host key she no longer trusts"


def _same_definition_under_a_new_id(db: Path, gid: str, new: str) -> None:
    """The host's own SQL: game ``gid`` at its creation, again under the id ``new``
    (the same definition, seed and salt: the same genesis)."""
    import contextlib
    import sqlite3

    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        for table, where in (("games", "id = ?"), ("events", "game_id = ? AND seq = 1")):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            key = "id" if table == "games" else "game_id"
            picked = ", ".join("?" if c == key else c for c in cols)
            conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {picked} FROM {table} WHERE {where}",
                         (new, gid))
        conn.execute("UPDATE games SET head_seq = 1, head_hash = (SELECT hash FROM events WHERE game_id = ? "
                     "AND seq = 1) WHERE id = ?", (new, new))


def test_the_agent_never_reveals_one_genesis_at_two_positions(tmp_path: Path) -> None:
    """[CL-S12] by mail: the host keeps its game's definition aside (the same seed and
    salt under a new id: the same genesis, so the same entropy for every key), lets
    the first game run to the reveals, then invites the players to the second, where
    its puppet holds carol's seat (it knows every seat secret) with another
    commitment.  Alice's agent joins it (a new game id) but refuses to reveal the
    entropy she already revealed at another position; nothing goes out."""
    from events.sqlite_store import SqliteStore

    t = MailTable(tmp_path, players=("alice", "bob", "carol"))
    twin = t.gid[:4] + "beef"
    _same_definition_under_a_new_id(t.host.db, t.gid, twin)
    for i in range(3):
        t.round(random.Random(i))
    shown = [json.loads(x) for x in t.host.ok("log", t.gid, "--json").splitlines()]
    assert len([e for e in shown if e["type"] == "seat.revealed"]) == 3  # alice's entropy is known
    t.host.ok("mail", "invite", twin, f"--to=alice={t.players['alice'].address}",
              f"--to=bob={t.players['bob'].address}", "--to=carol=puppet@example.test")
    rec = SqliteStore(t.host.db).get_game(twin)
    from events.signing import new_private_key

    puppet = new_private_key()
    secret = statements.seat_secret(rec.seed or "", rec.salt, rec.genesis, 2)
    join = statements.signed_committed_join(puppet, twin, rec.genesis, "carol", secret, ("ab" * 16, "cd" * 16))
    folder = tmp_path / "puppet"
    folder.mkdir()
    (folder / "carol.json").write_bytes(statements.encode(join))
    t.carry()
    for name in ("alice", "bob"):
        t.players[name].sync()  # they join the twin: their joins commit to what they revealed
    t.carry()
    t.host.sync()
    t.host.ok("inbox", str(folder))
    t.host.sync()  # the views asking for the reveals
    t.carry()
    before = set(t.players["alice"].outmail.glob("*.eml"))
    code, out, err = t.players["alice"].run("mail", "sync")
    assert "[CL-S12]" in out + err, out + err
    sent = [email.message_from_bytes(p.read_bytes(), policy=email.policy.default)
            for p in set(t.players["alice"].outmail.glob("*.eml")) - before]
    assert not [m for m in sent if m["X-Citylog-Kind"] == "reveal"], "alice revealed a known entropy again"
