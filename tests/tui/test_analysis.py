"""An analysed game in the TUI (issue 25): each seat's win chance as a sparkline in
the status bar, the marks (``?!``, ``?``, ``??``) in the event list, ``m`` to the
next mark (in the footer, at 80 columns too), the better move starred on the board
at a marked decision.  A player's view shows their own judgements only [CL-X2];
judgements that do not fit the game are not shown [CL-X1].

Regenerate the snapshots with ``python -m pytest tests/tui/test_analysis.py --snapshot-update``
and look at them as pictures (chromium --headless --screenshot of the SVG).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from cli.tui.app import CitylogApp
from cli.tui.board import StatusLine, Timeline
from cli.tui.replay import GameScreen
from events.service import GameService
from replay.sources import export
from tests.tui.conftest import fresh_copy
from tests.tui.helpers import settle

GAME = "cc-an"


@pytest.fixture(scope="module")
def analysed_template(template_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The TUI's template database and a two-player Card City bot game judged at a
    small budget, made once a module (the judging is most of these tests' time): ada
    plays at random and ben greedy, so both seats have marks to show whatever the search."""
    from cli.analyse import analyse_views
    from events.sqlite_store import SqliteStore

    path = tmp_path_factory.mktemp("tui-analysed") / "citylog.db"
    shutil.copy(template_db, path)
    store = SqliteStore(path)
    try:
        service = GameService(store)
        service.create("card-city", ["ada", "ben"], seed="x1", bots={0: "random", 1: "greedy"}, game_id=GAME)
        analyse_views(service, [export(service, GAME, p) for p in ("ada", "ben")], GAME, 4, 1)
    finally:
        store.close()
    return path


@pytest.fixture
def db(analysed_template: Path, tmp_path: Path) -> str:
    """A fresh copy of the analysed template for each test (this module's ``db``)."""
    return fresh_copy(analysed_template, tmp_path)


def analysed(service: GameService) -> str:
    """The analysed game's id (judged once a module: ``analysed_template``)."""
    assert service.store.analyses(GAME), "the template's game is analysed"
    return GAME


def keys(*press: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot)
        await pilot.press(*press)
        await settle(pilot)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_marked_decision(snap_compare, db: str, service: GameService, size: tuple[int, int]) -> None:
    gid = analysed(service)
    assert snap_compare(CitylogApp(db, gid), terminal_size=size, run_before=keys("home", "m"))


async def test_m_jumps_from_mark_to_mark_and_a_view_shows_its_own(db: str, service: GameService) -> None:
    gid = analysed(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, GameScreen) and screen.model is not None
        model = screen.model
        marked = sorted({j.seq for j in model.judged if j.mark})
        assert marked
        # the footer names m, drawn whole within 80 columns (the lost build's footer cut it)
        drawn = {k.key: k.region for k in screen.query_one(Footer).query(FooterKey)}
        assert "m" in drawn and drawn["m"].width > 0 and drawn["m"].right <= 80, drawn
        await pilot.press("home")
        for seq in marked[:3]:
            await pilot.press("m")
            await settle(pilot)
            assert model.seq == seq
            assert model.mark_at(model.cursor) is not None
            timeline = screen.query_one(Timeline)
            assert any(sign in timeline.render().plain for sign in ("?!", "??", "? "))
        status = screen.query_one(StatusLine)
        assert status.has_class("-analysed") and "win ada" in str(status.render()).replace("\n", " ")
        # ben's view: ben's own judgements only [CL-X2]
        while model.viewer != 1:
            await pilot.press("v")
            await settle(pilot)
        assert {j.player for j in model.shown_judgements()} == {"ben"}
        text = str(screen.query_one(StatusLine).render())
        assert "ben" in text.split("\n")[-1] and "ada " not in text.split("\n")[-1]
        bens = sorted({j.seq for j in model.judged if j.mark and j.player == "ben"})
        if bens:
            await pilot.press("home", "m")
            await settle(pilot)
            assert model.seq == bens[0]


async def test_a_better_move_is_starred_on_the_board(db: str, service: GameService) -> None:
    gid = analysed(service)
    app = CitylogApp(db, gid)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        model = app.screen.model  # type: ignore[attr-defined]
        starred = [j.seq for j in model.judged if j.mark and j.judged.best != j.judged.played]
        found = False
        for seq in starred:
            model.go(seq - 1)
            if model.better_square() is not None:
                scene = model.scene()
                assert sum("best" in c.marks for p in scene.panels for c in p.cells) == 1
                found = True
        assert found
        model.go(0)
        assert all("best" not in c.marks for p in model.scene().panels for c in p.cells)


async def test_judgements_that_do_not_fit_are_not_shown(db: str, service: GameService) -> None:
    gid = analysed(service)
    items = service.store.analyses(gid)
    key = next(k for k in items if "|decision|" in k)
    service.writer.put_analyses(gid, [(key, items[key].replace(b'"played":"', b'"played":"x'))])
    app = CitylogApp(db, gid)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        model = app.screen.model  # type: ignore[attr-defined]
        assert model.judged == [] and "CL-X1" in model.status()


def test_a_players_file_shows_their_own_judgements(db: str, service: GameService) -> None:
    """``tui FILE`` (a view received by email): the judgements the file carries, its player's [CL-X2]."""
    from cli.tui.model import GameModel

    gid = analysed(service)
    view = export(service, gid, "ben")
    model = GameModel.of_view(view, "ben.jsonl")
    stored = GameModel.from_loaded(service.load(gid, history=True), None, (), service.store.analyses(gid))
    stored.viewer = 1
    assert model.judged and {j.player for j in model.judged} == {"ben"}
    assert model.shown_judgements() == stored.shown_judgements()
    assert model.win_series() == stored.win_series() and set(model.win_series()) == {"ben"}
