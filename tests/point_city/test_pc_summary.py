"""The one-line summary of a tableau (what the TUI's play panel shows on a short screen,
where the tableau is scrolled off; issue 26, item 3).

The law, on random games: every source a legal payment of the seat names is in the
summary of the seat's own tableau, as the command names it — each resource card by its
id and type, each permanent by its type — so a player who reads only the summary can
tell every payment offered apart.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from core.point_city.cards import CARDS
from core.point_city.commands import PICKED, Take
from core.point_city.game import GAME
from core.point_city.names import ABBR
from core.point_city.scene import scene
from core.point_city.state import State
from tests.helpers.point_city import play_point_city as play


def _own(s: State, seat: int) -> str:
    return next(p.summary for p in scene(s, seat).panels if p.owner == seat)


@settings(max_examples=max(5, settings().max_examples // 10), deadline=None)
@given(seed=st.text("abcdef0123456789", min_size=1, max_size=6), n=st.integers(1, 3))
def test_every_source_a_payment_names_is_in_the_seats_summary(seed: str, n: int) -> None:
    def hook(before: State, seat: int, cmd: Any, evs: Any) -> None:
        if seat < 0:
            return
        summary = _own(before, seat)
        held, _, perms = summary.partition(" · permanent ")
        assert held.startswith("holds "), summary
        for command in GAME.legal(GAME.view(before, seat), seat):
            if not isinstance(command, Take):
                continue
            for pay in command.pays:
                for card in (c for c in pay.cards if c != PICKED):
                    name = f"{card} {ABBR[CARDS[card].resource]}"
                    assert re.search(rf"(^holds |, ){re.escape(name)}(×\d)?(,|$)", held), (name, summary)
                for building in pay.perms:
                    kind = ABBR[CARDS[building].produces]
                    assert any(w.split("×")[0] == kind for w in perms.split()), (building, summary)

    play(seed, n, ["random"] * n, {"solo-level": "1"}, hook)


def test_the_summary_reads_as_the_commands_name_the_cards() -> None:
    from core.point_city.scene import _summary

    ing = next(c.id for c in CARDS.values() if c.id > 0 and c.resource == "ingenuity")
    two = next(c.id for c in CARDS.values() if c.id > 0 and c.symbols == 2)
    producer = next(c.id for c in CARDS.values() if c.produces)
    text = _summary((ing, two), (producer,))
    assert text.startswith(f"holds {ing} {ABBR['ingenuity']}, {two} {ABBR[CARDS[two].resource]}×2 · permanent ")
    assert text.endswith(ABBR[CARDS[producer].produces])
    assert _summary((), ()) == "holds nothing · permanent none"
