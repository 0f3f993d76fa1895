"""Screens at a fixed 120×40 size: fixed game ids and seeds, so they are deterministic.

Regenerate with ``python -m pytest tests/tui/test_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from cli.tui.app import CitylogApp
from tests.tui.conftest import HAS_5X5
from tests.tui.helpers import settle

SIZE = (120, 40)
SIZES = [(80, 24), (120, 40), (200, 60)]


def keys(*press: str):
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press(*press)
        await settle(pilot)

    return run_before


def test_library(snap_compare, db: str) -> None:
    assert snap_compare(CitylogApp(db), terminal_size=SIZE, run_before=keys())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_card_city_board(snap_compare, db: str, size: tuple[int, int]) -> None:
    app = CitylogApp(db, "cc-demo")
    assert snap_compare(app, terminal_size=size, run_before=keys("home", "pagedown", "pagedown", "pagedown", "right"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_card_city_board_as_a_player(snap_compare, db: str, size: tuple[int, int]) -> None:
    app = CitylogApp(db, "cc-demo")
    assert snap_compare(app, terminal_size=size, run_before=keys("home", "pagedown", "pagedown", "right", "right", "v"))


@pytest.mark.skipif(not HAS_5X5, reason="5x5-city is not available in this build")
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_5x5_city_board(snap_compare, db: str, size: tuple[int, int]) -> None:
    app = CitylogApp(db, "55-demo")
    assert snap_compare(app, terminal_size=size, run_before=keys("home", *["pagedown"] * 6))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_point_city_tableau(snap_compare, db: str, size: tuple[int, int]) -> None:
    app = CitylogApp(db, "pc-demo")
    assert snap_compare(app, terminal_size=size, run_before=keys("home", *["pagedown"] * 8))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_play_panel(snap_compare, db: str, size: tuple[int, int]) -> None:
    assert snap_compare(CitylogApp(db, "cc-play"), terminal_size=size, run_before=keys())


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_diff_view(snap_compare, db: str, size: tuple[int, int]) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        pilot.app.open_diff("cc-demo", "cc-other")
        await settle(pilot)
        await pilot.press("end")  # both games ended: their final positions compared
        await settle(pilot)

    assert snap_compare(CitylogApp(db), terminal_size=size, run_before=run_before)


def test_card_city_answering_a_split_at_80x24(snap_compare, db: str, service) -> None:
    """The split to answer and both cities on one 80x24 screen (issue 26, item 3)."""
    from tests.tui.test_layout import decision_game

    gid = decision_game(service, "card-city", "take")
    assert snap_compare(CitylogApp(db, gid), terminal_size=(80, 24), run_before=keys())


def test_play_panel_typing_at_80x24(snap_compare, db: str) -> None:
    """Letters typed on the command list land in the input, focus and footer show it (item 4)."""
    assert snap_compare(CitylogApp(db, "cc-play"), terminal_size=(80, 24), run_before=keys(*"split"))


def test_a_received_view_at_80x24(snap_compare, db: str, service, tmp_path) -> None:
    """``tui FILE --as bob`` (issue 24): bob's view by email, his panel, his events only."""
    from cli.tui.received import Received
    from replay.sources import read_path
    from tests.tui.test_received import _bob_offered_a_face_down_half

    view = _bob_offered_a_face_down_half(service, tmp_path)
    received = Received(read_path(view), str(view), "bob", str(tmp_path), tmp_path / "keys")
    assert snap_compare(CitylogApp(db, received=received), terminal_size=(80, 24), run_before=keys())
