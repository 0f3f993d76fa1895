"""The cheating host's tools: its key, its rows, re-chaining and re-sealing files,
and applying what its own citylog would refuse (every proof check answering yes).
"""

from __future__ import annotations

import contextlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec

from adversary.honest import Mail

def host_key(mail: Mail) -> Any:
    from events.signing import load_private_pem

    return load_private_pem(mail.host.key().read_bytes(), "host.key")


def read_log(path: Path) -> Any:
    from replay.sources import read_path

    return read_path(path)


def rechain(log: Any, start: int = 0) -> Any:
    """Recompute prev_hash/hash of every line from ``start`` on, from each line's
    digest (a redacted line's, or its payload's with its own nonce)."""
    from events.envelope import chain_hash, genesis_hash

    prev = genesis_hash(log.header.definition) if start == 0 else log.lines[start - 1].hash
    for i in range(start, len(log.lines)):
        line = log.lines[i]
        h = chain_hash(prev, line.seq, line.type, log.digest_of(line))
        log.lines[i] = msgspec.structs.replace(line, prev_hash=prev, hash=h)
        prev = h
    return log


def reseal_write(mail: Mail, log: Any, path: Path) -> None:
    """Seal ``log`` with the host's key (as an honest export would) and write it."""
    from events.signing import sign
    from replay import logfile
    from replay.trust import seal

    key = host_key(mail)
    log.header = seal(log, lambda body: sign(key, "export", body))
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)


@contextlib.contextmanager
def trusting() -> Iterator[None]:
    """The host's own citylog with every proof check answering yes: signature checks
    (``verify_signature``, wherever it was imported to) and any ``proves_*`` check
    (an invitation's seat secret, say) of citylog's own modules."""
    import sys

    from events import signing

    real = signing.verify_signature
    yes = lambda *a, **k: True
    with contextlib.ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            if module is None or name.split(".")[0] not in ("events", "replay", "cli", "core"):
                continue
            for attr in list(vars(module)):
                value = getattr(module, attr, None)
                if value is real or (attr.startswith("proves_") and callable(value)):
                    stack.enter_context(mock.patch.object(module, attr, yes))
        yield


def force_move(mail: Mail, player: str, commands: list[str], stored: bytes) -> list[int]:
    """The host plays ``commands`` for ``player`` at the current position without any
    signed file, then records ``stored`` as the signed file behind the line(s).
    The seqs the commands opened."""
    from events.service import GameService
    from events.statements import MoveFile
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(mail.gid)
        body = dict(json.loads(stored))
        body.update(seq=loaded.version, hash=loaded.head_hash, commands=list(commands),
                    signature="00" * 64, player=player, game_id=mail.gid)
        if "command" in body:  # a citylog-move/1 field
            body["command"] = ""
        mv = msgspec.convert(body, MoveFile)
        with trusting():
            written = svc.submit_move(mv)
    game = loaded.game
    opened = [r.seq for r, e in zip(written, _decode(game, written), strict=True)
              if (c := game.command_of(e)) is not None and c[0] >= 0]
    for seq in opened:
        mail.sql("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", stored, mail.gid, seq)
    return opened


def _decode(game: Any, records: list[Any]) -> list[Any]:
    from events.codec import decoder_for

    dec = decoder_for(game.event_type)
    return [dec.decode(r.payload) for r in records]


def force_join(mail: Mail, original: bytes) -> None:
    """The host records a join file in its game although it was made for another
    definition, and keeps the original (signed) bytes on the line."""
    from events.service import GameService
    from events.statements import CommittedJoin, JoinFile
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        body = dict(json.loads(original))
        body["genesis"] = svc.store.get_game(mail.gid).genesis
        jf = msgspec.convert(body, CommittedJoin if "entropy_commitment" in body else JoinFile)
        with trusting():
            written = svc.join(jf)
    mail.sql("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", original, mail.gid, written[0].seq)


def force_reveal(mail: Mail, original: bytes) -> None:
    """The host records a reveal file made for another definition at the position
    after its own game's last join, keeping the original (signed) bytes on the line."""
    from core.seats import last_join_seq
    from events.service import GameService
    from events.statements import Reveal
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(mail.gid)
        at = last_join_seq(loaded.events)
        body = dict(json.loads(original))
        body.update(genesis=loaded.record.genesis, seq=at, hash=loaded.records[at - 1].hash)
        with trusting():
            written = svc.reveal(msgspec.convert(body, Reveal))
    mail.sql("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", original, mail.gid, written[0].seq)


def delete_game(mail: Mail, gid: str | None = None) -> None:
    gid = gid or mail.gid
    for table in ("signed", "events", "notes", "tags"):
        mail.sql(f"DELETE FROM {table} WHERE game_id = ?", gid)
    mail.sql("DELETE FROM games WHERE id = ?", gid)


def resign(body: dict[str, Any], key_path: Path, domain: str) -> dict[str, Any]:
    """A statement signed again (by whoever holds ``key_path``) after an edit."""
    from events.signing import load_private_pem, public_hex, sign

    key = load_private_pem(key_path.read_bytes(), key_path.name)
    out = dict(body)
    out.pop("signature", None)
    out["public_key"] = public_hex(key)
    out["signature"] = sign(key, domain, out)
    return out


def write_json(path: Path, data: dict[str, Any]) -> Path:
    """``data`` written in the one canonical spelling citylog accepts (sorted keys,
    no spaces, UTF-8): a cheat is then refused, or not, for what it says, never
    for how it is spelled."""
    path.write_bytes(json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
    return path


def unsalted_nonce(seed: str, seq: int) -> bytes:
    """What a line nonce was before issue 22: a function of the seed and seq alone."""
    return hmac.digest(b"citylog-line-v1:" + seed.encode(), str(seq).encode(), "sha256")[:16]


def host_plays(mail: Mail, player: str) -> None:
    """The host makes one decision of ``player``'s seat itself (a choice of its own)
    and keeps no signed file behind it (it has none)."""
    from adversary.honest import pick

    code, out, _ = mail.host.run("legal", mail.gid, "--as", player, "--json")
    legal = json.loads(out)["legal"] if code == 0 else []
    if not legal:
        return
    command = pick(legal, mail.case.choices + 7, player, mail.version())
    template = json.dumps({
        "format": "citylog-move/3", "game_id": mail.gid, "player": player, "seq": 0, "hash": "0" * 64,
        "commands": [command], "public_key": json.loads(mail.join_file(player).read_bytes())["public_key"],
        "signature": "",
    }).encode()
    for seq in force_move(mail, player, [command], template):
        mail.sql("DELETE FROM signed WHERE game_id = ? AND seq = ?", mail.gid, seq)


def to_act(mail: Mail) -> list[str]:
    """Who is to act in the host's game (names)."""
    return list(json.loads(mail.host.ok("show", mail.gid, "--json"))["to_act"])
