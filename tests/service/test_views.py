"""A player's exported view hides what it must: the seed, face-down cards, and
cannot be brute-forced back through the digests of its redacted lines."""

from __future__ import annotations

import itertools
from pathlib import Path

import msgspec

from core.card_city import events as ev
from events.envelope import line_nonce, payload_digest
from events.service import GameService
from events.sqlite_store import SqliteStore
from replay.logfile import first_bad_line
from replay.sources import export


def _guess(line_digest: str, seat: int, n: int, nonce: bytes) -> tuple[str, ...] | None:
    """Try every draw of ``n`` cards: the hidden payload's digest is small-entropy."""
    for cards in itertools.product("RCLIP", repeat=n):
        payload = msgspec.json.encode(ev.CardsDrawn(seat=seat, cards=cards))
        if payload_digest(payload, nonce) == line_digest:
            return cards
    return None


def test_redacted_lines_chain_but_cannot_be_brute_forced(tmp_path: Path) -> None:
    svc = GameService(SqliteStore(tmp_path / "v.db"))
    gid = svc.create("card-city", ["ann", "bob"])  # a random seed, as for play by email
    view = export(svc, gid, "bob")
    assert view.header.seed is None and first_bad_line(view) is None
    hidden = [x for x in view.lines if x.redacted and x.type == "cc.drawn"]
    assert hidden, "ann's draw must be redacted for bob"
    line = hidden[0]
    drawn = msgspec.json.decode(bytes(line.payload), type=ev.CardsDrawn)
    assert set(drawn.cards) == {"?"} and line.nonce is None
    assert _guess(line.digest, drawn.seat, len(drawn.cards), b"") is None  # no bare digest
    # whoever holds the seed can check it: the guess succeeds with the real nonce
    secret = svc.store.get_game(gid).line_secret  # the seed and its salt [CL-V6]
    real = _guess(line.digest, drawn.seat, len(drawn.cards), line_nonce(secret, line.seq))
    assert real is not None and real == svc.load(gid).events[line.seq - 1].cards
