"""The play screen on a received view stops where the prompt does (issue 26 item 1):
at a card taken face down, even when the view's counting [GN-1] names it."""

from __future__ import annotations

from pathlib import Path

from cli.tui.model import GameModel
from replay import logfile

TAKE_REST_INTO_CONSTRUCTION = Path(__file__).parents[1] / "cli" / "data" / "card-city-take-rest-into-construction.jsonl"
"""carol's view at seq 178 (tests/cli/test_play_prompt.py says what it shows)."""


def test_a_card_taken_face_down_into_construction_ends_the_choosing() -> None:
    """carol's 'take rest' (P + a face-down card, into construction): the counting of her
    view after it names the card (a hand not discarded holds a buildable card), but no
    discard was decided on the view; the card was another, so her turn is done here."""
    source = str(TAKE_REST_INTO_CONSTRUCTION)
    with open(source, encoding="utf-8") as f:
        model = GameModel.of_view(logfile.read(f, source), source)
    seat = model.viewer
    assert seat is not None and model.boundary(seat) is None
    after = model.decided(seat, model.game.parse_command(model.game.view(model.states[-1], seat), seat, "take rest"))
    assert after.boundary(seat) == "the face-down card you took"
    assert after.turn_done(seat)
