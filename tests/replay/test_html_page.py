"""The one-file replay page, in a real headless Chromium (Debian's ``chromium``,
installed by .ci/setup): open the file, press →, the picture and the
highlighted event change; views, End, clicks, notes, and no network at all.

Locally the browser test skips when no Chromium is installed; under CI=true it
never skips.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.cdp_browser import Browser, find_chromium

from events.service import GameService
from events.sqlite_store import SqliteStore
from replay.html import export_html

CHROMIUM = find_chromium()


@pytest.fixture(scope="module")
def game(tmp_path_factory: Any) -> tuple[GameService, str]:
    svc = GameService(SqliteStore(tmp_path_factory.mktemp("html") / "h.db"))
    gid = svc.create("card-city", ["alice", "bob"], seed="s1", bots={0: "greedy", 1: "greedy"})
    svc.note(gid, 2, "a note <script>alert(1)</script> & more")
    return svc, gid


def test_page_is_self_contained_and_deterministic(game: tuple[GameService, str]) -> None:
    svc, gid = game
    html = export_html(svc, gid)
    assert html == export_html(svc, gid)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "<script src" not in html and "<link" not in html
    assert "alert(1)" not in html  # notes travel inside the packed bundle, never as markup
    mine = export_html(svc, gid, "alice")
    assert "alice&#x27;s view" in mine or "alice's view" in mine


@pytest.fixture(scope="module")
def browser() -> Any:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and no chromium: .ci/setup must install it")
        pytest.skip("no chromium installed (bash .ci/setup installs it)")
    with Browser(CHROMIUM) as b:
        yield b


def _state(b: Browser) -> dict[str, Any]:
    return json.loads(
        b.evaluate(
            "JSON.stringify({seq: document.body.dataset.seq, view: document.body.dataset.view,"
            " current: document.querySelector('#events li.current').textContent,"
            " currentSeq: document.querySelector('#events li.current').dataset.seq,"
            " picture: document.querySelector('#picture svg').textContent,"
            " hatched: document.querySelectorAll('#picture rect[fill=\"url(#hatch)\"]').length,"
            " last: document.querySelectorAll('#picture rect.last').length,"
            " slider: document.getElementById('slider').value})"
        )
    )


def test_the_page_steps_through_the_game_in_a_real_browser(
    browser: Browser, game: tuple[GameService, str], tmp_path: Path
) -> None:
    svc, gid = game
    page = tmp_path / "game.html"
    page.write_text(export_html(svc, gid), encoding="utf-8")
    loaded = svc.load(gid)
    lines = [loaded.game.describe(e, loaded.players) for e in loaded.events]
    b = browser
    b.call("Page.enable")
    b.call("Page.navigate", {"url": page.as_uri()})
    b.wait_for("document.body && document.body.dataset.ready === '1'")
    first = _state(b)
    assert first["seq"] == "1" and first["currentSeq"] == "1" and first["current"] == lines[0]
    assert "last: #1 " in first["picture"]
    b.key("ArrowRight", 39)
    second = _state(b)
    assert second["seq"] == "2" and second["slider"] == "2"
    assert second["current"].startswith(lines[1]) and second["current"] != first["current"]
    assert "last: #2 " in second["picture"] and second["picture"] != first["picture"]
    assert "a note <script>alert(1)</script> & more" in second["current"]  # the note, as text
    b.key("End", 35)
    end = _state(b)
    assert end["seq"] == str(len(lines)) and end["current"] == lines[-1] and "final scores" in end["picture"]
    b.key("ArrowLeft", 37)
    assert _state(b)["seq"] == str(len(lines) - 1)
    b.evaluate("document.querySelectorAll('#events li')[5].click()")
    assert _state(b)["seq"] == "6"
    # a player's view: the taker of a split sees its face-down cards hatched
    split = next(
        i + 1 for i, s in enumerate(loaded.history or svc.load(gid, history=True).history)
        if s.offer is not None and s.offer.down
    )
    taker = loaded.players[svc.load(gid, history=True).history[split - 1].offer.to]
    b.evaluate(f"document.querySelectorAll('#events li')[{split - 1}].click()")
    assert _state(b)["hatched"] == 0  # the referee sees every card
    index = 1 + loaded.players.index(taker)
    b.evaluate(
        f"(() => {{ const s = document.getElementById('view'); s.value = '{index}';"
        " s.dispatchEvent(new Event('change')); })()"
    )
    seen = _state(b)
    assert seen["view"] == taker and seen["seq"] == str(split) and seen["hatched"] > 0
    assert b.evaluate("performance.getEntriesByType('resource').length") == 0  # no network
