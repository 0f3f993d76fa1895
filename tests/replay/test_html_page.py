"""The one-file replay page, in a real headless Chromium (Debian's ``chromium``,
installed by .ci/setup): open the file, step by decision (←/→), by round
(Shift+←/→) and by event (↑/↓), buttons and clicks, ``#seq=`` links (and the
address following the stepping), the final score table at the end, the legal
squares of a decision, views, notes, and no network at all.

The data the page embeds is tested without a browser, as laws over a game of
each game: decisions and rounds are the log's, every decision's own square is
among its marked legal squares, the score table adds up to the result, and a
player's page is exactly the referee page's view of that player (nothing more
is known to it; the view law, for the page).

Locally the browser tests skip when no Chromium is installed; under CI=true they
never skip.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from tests.helpers.cdp_browser import Browser, find_chromium

from core.engine import CHANCE
from events.service import GameService
from events.sqlite_store import SqliteStore
from replay.html import DECISION, export_html, unpack
from replay.sources import export

CHROMIUM = find_chromium()
GAMES = ("card-city", "5x5-city", "point-city")


@pytest.fixture(scope="module")
def service(tmp_path_factory: Any) -> GameService:
    return GameService(SqliteStore(tmp_path_factory.mktemp("html") / "h.db"))


class Games:
    """Games and pages made on first use and kept for the module: a finished 2-player
    bot game of each game, one Card City game still going, and their pages."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self._ids: dict[str, str] = {}
        self._html: dict[tuple[str, str | None], str] = {}

    def id(self, name: str) -> str:
        if name not in self._ids:
            svc = self.service
            if name == "analysed":  # a short Card City game, judged at a small budget (issue 25)
                from cli.analyse import analyse_views

                gid = svc.create("card-city", ["alice", "bob"], seed="s3", bots={0: "greedy", 1: "greedy"})
                views = [export(svc, gid, p) for p in ("alice", "bob")]
                analyse_views(svc, views, gid, 4, 1)
            elif name == "going":
                gid = svc.create("card-city", ["alice", "bob"], seed="s2")
                for _ in range(6):  # a few human moves: the game goes on
                    loaded = svc.load(gid)
                    seat = next(s for s in loaded.game.to_act(loaded.state) if s != CHANCE)
                    svc.submit(gid, seat, next(iter(loaded.game.legal(loaded.state, seat))))
            else:
                gid = svc.create(name, ["alice", "bob"], seed="s1", bots={0: "greedy", 1: "greedy"})
                if name == "card-city":
                    svc.note(gid, 2, "a note <script>alert(1)</script> & more")
            self._ids[name] = gid
        return self._ids[name]

    def html(self, name: str, who: str | None = None) -> str:
        if (name, who) not in self._html:
            self._html[(name, who)] = export_html(self.service, self.id(name), who)
        return self._html[(name, who)]

    def data(self, name: str, who: str | None = None) -> dict[str, Any]:
        return unpack(self.html(name, who))


@pytest.fixture(scope="module")
def games(service: GameService) -> Games:
    return Games(service)


SLOW = pytest.mark.slow
EVERY_GAME = [pytest.param("card-city"), pytest.param("5x5-city", marks=SLOW), pytest.param("point-city", marks=SLOW)]
"""Card City always; the other two (each a bot game and pages, seconds) under the slow marker."""


def test_page_is_self_contained_and_deterministic(service: GameService, games: Games) -> None:
    html = games.html("card-city")
    assert games.html("going") == export_html(service, games.id("going"))  # a short game: cheap to redo
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "<script src" not in html and "<link" not in html
    assert "alert(1)" not in html  # notes travel inside the packed bundle, never as markup
    assert unpack(html)["notes"] == {"2": ["a note <script>alert(1)</script> & more"]}
    mine = games.html("card-city", "alice")
    assert "alice&#x27;s view" in mine or "alice's view" in mine
    assert unpack(mine)["notes"] == {}  # notes are the host's: referee pages only


# -- the data the page embeds (no browser) -----------------------------------------
@pytest.mark.parametrize("name", EVERY_GAME)
def test_decisions_rounds_and_start_are_the_logs(
    service: GameService, games: Games, name: str
) -> None:
    loaded = service.load(games.id(name), history=True)
    game, events = loaded.game, loaded.events
    data = games.data(name)
    opened = [game.command_of(e) for e in events]
    players_decisions = [i + 1 for i, c in enumerate(opened) if i > 0 and c is not None and c[0] != CHANCE]
    assert [i + 1 for i, k in enumerate(data["kinds"]) if k == DECISION] == players_decisions
    assert data["actors"] == {str(s): opened[s - 1][0] for s in players_decisions}  # type: ignore[index]
    assert data["rounds"] == [game.round_of(s) for s in loaded.history]
    assert len(set(data["rounds"])) > 2 and len(players_decisions) < len(events) / 1.5  # steps that matter
    assert data["over"] and data["start"] == players_decisions[0]  # a finished game opens at its first decision
    for view in data["views"]:
        assert len(view["steps"]) == len(view["events"]) == len(events)
        assert sorted(view["moves"]) == sorted(str(s) for s in players_decisions)


@pytest.mark.parametrize("name", EVERY_GAME)
def test_each_decisions_square_is_among_its_legal_squares(
    service: GameService, games: Games, name: str
) -> None:
    loaded = service.load(games.id(name))
    data = games.data(name)
    placed = 0
    for seq_text, squares in data["targets"].items():
        opened = loaded.game.command_of(loaded.events[int(seq_text) - 1])
        assert opened is not None and opened[0] == data["actors"][seq_text]
        square = loaded.game.square_of(opened[1])
        if square is not None:
            placed += 1
            assert list(square) in squares, f"#{seq_text}: {square} not among {squares}"
        assert squares == sorted(squares) and len({tuple(s) for s in squares}) == len(squares)
    assert placed > 0


@pytest.mark.parametrize("name", EVERY_GAME)
def test_the_score_table_adds_up_to_the_result(
    service: GameService, games: Games, name: str
) -> None:
    loaded = service.load(games.id(name))
    result = loaded.game.result(loaded.state)
    assert result is not None
    for view in games.data(name)["views"]:
        table = view["scores"]
        assert table["totals"] == list(result.scores)
        assert table["winners"] == [loaded.players[w] for w in result.winners]
        for seat in range(len(loaded.players)):
            assert sum(row[1][seat] or 0 for row in table["rows"]) == result.scores[seat]
            assert all(all(d for _, d in row[2][seat]) for row in table["rows"])  # no empty detail lines


def test_a_game_going_on_opens_at_its_end_without_scores(games: Games) -> None:
    for who in (None, "alice"):
        data = games.data("going", who)
        assert not data["over"] and data["start"] == len(data["kinds"])
        assert all(v["scores"] is None for v in data["views"])


def test_a_log_of_rules_only_replayed_has_no_legal_squares(service: GameService, games: Games) -> None:
    from msgspec.structs import replace

    from replay.html import page_data

    log = export(service, games.id("going"))
    assert games.data("going")["targets"]  # under today's rules: marked
    d = log.header.definition
    log.header = replace(log.header, definition=replace(d, rules_version=d.rules_version + "-old"))
    data = page_data(log)
    assert data["targets"] == {} and data["kinds"] == games.data("going")["kinds"]


@pytest.mark.parametrize("name", EVERY_GAME)
@pytest.mark.parametrize("player", ["alice", "bob"])
def test_a_players_page_is_the_referee_pages_view_of_them(games: Games, name: str, player: str) -> None:
    """What a player's page shows is what the referee page shows in that player's view:
    pictures, lines, decisions, legal squares and scores, all computed from the view."""
    ref, mine = games.data(name), games.data(name, player)
    seat = ["alice", "bob"].index(player)
    theirs, own = ref["views"][1 + seat], mine["views"][0]
    assert [ref["svgs"][i] for i in theirs["steps"]] == [mine["svgs"][i] for i in own["steps"]]
    for key in ("events", "moves", "scores"):
        assert theirs[key] == own[key]
    for key in ("kinds", "rounds", "actors", "start"):
        assert ref[key] == mine[key]
    assert mine["targets"] == {s: t for s, t in ref["targets"].items() if ref["actors"][s] == seat}


# -- the browser ------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser() -> Any:
    if CHROMIUM is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and no chromium: .ci/setup must install it")
        pytest.skip("no chromium installed (bash .ci/setup installs it)")
    with Browser(CHROMIUM) as b:
        b.call("Page.enable")
        yield b


SHIFT = 8


def _key(b: Browser, key: str, code: int, modifiers: int = 0) -> None:
    for kind in ("keyDown", "keyUp"):
        b.call("Input.dispatchKeyEvent",
               {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code, "modifiers": modifiers})


def _open(b: Browser, page: Path, fragment: str = "") -> None:
    b.call("Page.navigate", {"url": "about:blank"})  # a real load, not a jump within the page
    b.wait_for("document.readyState === 'complete' && location.href === 'about:blank'")
    b.call("Page.navigate", {"url": page.as_uri() + fragment})
    b.wait_for("document.body && document.body.dataset.ready === '1'")


def _state(b: Browser) -> dict[str, Any]:
    return json.loads(
        b.evaluate(
            "JSON.stringify({seq: Number(document.body.dataset.seq), view: document.body.dataset.view,"
            " decision: Number(document.body.dataset.decision),"
            " current: document.querySelector('#events li.current').textContent,"
            " currentSeq: Number(document.querySelector('#events li.current').dataset.seq),"
            " picture: document.querySelector('#picture svg').textContent,"
            " hatched: document.querySelectorAll('#picture rect[fill=\"url(#hatch)\"]').length,"
            " dashed: document.querySelectorAll('#picture rect[stroke-dasharray]').length,"
            " marks: document.getElementById('marks').textContent,"
            " scores: document.getElementById('scores').hidden ? null :"
            "   Array.from(document.querySelectorAll('#scores tbody tr')).map(r => r.lastChild.textContent),"
            " hash: location.hash, slider: Number(document.getElementById('slider').value)})"
        )
    )


@SLOW  # a real browser loading whole pages (seconds)
def test_the_page_steps_by_decision_round_and_event_in_a_real_browser(
    browser: Browser, service: GameService, games: Games, tmp_path: Path
) -> None:
    gid = games.id("card-city")
    page = tmp_path / "game.html"
    page.write_text(games.html("card-city"), encoding="utf-8")
    loaded = service.load(gid, history=True)
    lines = [loaded.game.describe(e, loaded.players) for e in loaded.events]
    data = games.data("card-city")
    decisions = [i + 1 for i, k in enumerate(data["kinds"]) if k == DECISION]
    rounds = data["rounds"]
    round_starts = [i + 1 for i in range(len(rounds)) if i == 0 or rounds[i] != rounds[i - 1]]
    n = len(lines)
    b = browser
    _open(b, page)
    first = _state(b)  # a finished game opens at its first decision, and says so in the address
    assert first["seq"] == first["currentSeq"] == decisions[0] and first["decision"] == 1
    assert first["hash"] == f"#seq={decisions[0]}" and first["scores"] is None
    assert lines[decisions[0] - 1] in first["current"] and f"last: #{decisions[0]} " in first["picture"]
    _key(b, "ArrowRight", 39)
    step = _state(b)
    assert step["seq"] == decisions[1] and step["decision"] == 2 and step["hash"] == f"#seq={decisions[1]}"
    assert step["slider"] == decisions[1] and step["picture"] != first["picture"]
    _key(b, "ArrowDown", 40)
    assert _state(b)["seq"] == decisions[1] + 1  # one raw event
    _key(b, "ArrowUp", 38)
    _key(b, "ArrowUp", 38)
    assert _state(b)["seq"] == decisions[1] - 1
    _key(b, "ArrowRight", 39, SHIFT)
    assert _state(b)["seq"] == round_starts[1]  # the next round's first event
    _key(b, "ArrowRight", 39, SHIFT)
    assert _state(b)["seq"] == round_starts[2]
    _key(b, "ArrowLeft", 37, SHIFT)
    assert _state(b)["seq"] == round_starts[1]
    _key(b, "ArrowLeft", 37)
    assert _state(b)["seq"] == max(d for d in decisions if d < round_starts[1])
    b.evaluate("document.getElementById('next-round').click()")
    assert _state(b)["seq"] == round_starts[1]
    b.evaluate("document.getElementById('next-decision').click()")
    assert _state(b)["seq"] == min(d for d in decisions if d > round_starts[1])
    b.evaluate("document.getElementById('prev-event').click()")
    assert _state(b)["seq"] == min(d for d in decisions if d > round_starts[1]) - 1
    b.evaluate("document.getElementById('prev-round').click()")
    assert _state(b)["seq"] == round_starts[1]
    # the move list: one heading per round, a line per event, the decisions marked
    headings = b.evaluate("Array.from(document.querySelectorAll('#events h3')).map(h => h.textContent)")
    assert headings == [f"Round {r}" if r else "Setup" for r in dict.fromkeys(rounds)]
    assert b.evaluate("document.querySelectorAll('#events li').length") == n
    assert b.evaluate("Array.from(document.querySelectorAll('#events li.decision')).map(li => Number(li.dataset.seq))") \
        == decisions
    b.evaluate("document.querySelectorAll('#events li')[1].click()")
    second = _state(b)
    assert second["seq"] == 2 and "a note <script>alert(1)</script> & more" in second["current"]  # the note, as text
    # a decision that places: its legal squares dashed, in the referee's and the actor's view only
    build = next(int(s) for s, t in data["targets"].items() if len(t) > 1)
    b.evaluate(f"document.querySelectorAll('#events li')[{build - 1}].click()")
    marked = _state(b)
    assert marked["dashed"] >= len(data["targets"][str(build)]) - 1  # the chosen one is filled, the others dashed
    assert f"{len(data['targets'][str(build)])} squares {loaded.players[data['actors'][str(build)]]}" in marked["marks"]
    other = 2 if data["actors"][str(build)] == 0 else 1  # the view of the player who did not decide
    b.evaluate(f"(() => {{ const s = document.getElementById('view'); s.value = '{other}';"
               " s.dispatchEvent(new Event('change')); })()")
    watching = _state(b)
    assert watching["seq"] == build and watching["marks"] == ""
    assert watching["hash"] == f"#seq={build}&view={loaded.players[other - 1]}"
    b.evaluate("(() => { const s = document.getElementById('view'); s.value = '0';"
               " s.dispatchEvent(new Event('change')); })()")
    # End: the final score table, a row per player, totals as the result
    _key(b, "End", 35)
    end = _state(b)
    result = loaded.game.result(loaded.state)
    assert result is not None
    assert end["seq"] == n and end["current"] == lines[-1] and "final scores" in end["picture"]
    assert end["scores"] == [str(s) for s in result.scores]
    assert b.evaluate("document.querySelector('#scores thead').textContent").count("Residential") == 1
    _key(b, "ArrowLeft", 37)
    assert _state(b)["scores"] is None
    _key(b, "ArrowRight", 39)
    assert _state(b)["seq"] == n  # past the last decision: the end
    # a player's view: the taker of a split sees its face-down cards hatched
    split = next(i + 1 for i, s in enumerate(loaded.history) if s.offer is not None and s.offer.down)
    taker = loaded.players[loaded.history[split - 1].offer.to]
    b.evaluate(f"document.querySelectorAll('#events li')[{split - 1}].click()")
    assert _state(b)["hatched"] == 0  # the referee sees every card
    index = 1 + loaded.players.index(taker)
    b.evaluate(f"(() => {{ const s = document.getElementById('view'); s.value = '{index}';"
               " s.dispatchEvent(new Event('change')); })()")
    seen = _state(b)
    assert seen["view"] == taker and seen["seq"] == split and seen["hatched"] > 0
    assert b.evaluate("performance.getEntriesByType('resource').length") == 0  # no network


@SLOW  # a real browser loading whole pages (seconds)
def test_a_link_opens_at_its_position_and_a_bad_one_is_ignored(
    browser: Browser, service: GameService, games: Games, tmp_path: Path
) -> None:
    page = tmp_path / "game.html"
    page.write_text(games.html("card-city"), encoding="utf-8")
    b = browser
    _open(b, page, "#seq=120")
    assert _state(b)["seq"] == 120 and _state(b)["currentSeq"] == 120
    b.evaluate("location.hash = '#seq=50&view=bob'")  # edited in the address bar: the page follows
    b.wait_for("document.body.dataset.seq === '50'")
    linked = _state(b)
    assert linked["view"] == "bob" and linked["hash"] == "#seq=50&view=bob"
    # bad links, on a short game (each a whole load): opened where the page opens anyway
    page = tmp_path / "going.html"
    page.write_text(games.html("going"), encoding="utf-8")
    data = games.data("going")
    n, start = len(data["kinds"]), data["start"]
    _open(b, page, "#seq=3&view=bob")
    assert _state(b)["seq"] == 3 and _state(b)["view"] == "bob"
    for bad in ("#seq=0", f"#seq={n + 1}", "#seq=99999999999", "#seq=-3", "#seq=1e2", "#seq=12&view=nobody",
                "#seq=12&view=%E0%A4%A", "#seq=<script>", "#seq=12;alert(1)", "#view=bob", "#"):
        _open(b, page, bad)
        state = _state(b)
        assert state["seq"] == start and state["view"] == "referee", bad
        assert state["hash"] == f"#seq={start}", bad  # the address rewritten to where it opened


@SLOW
@pytest.mark.parametrize("name", GAMES)
def test_every_game_and_a_players_page_work_in_the_browser(
    browser: Browser, games: Games, tmp_path: Path, name: str
) -> None:
    for who in (None, "bob"):
        page = tmp_path / f"{name}-{who}.html"
        page.write_text(games.html(name, who), encoding="utf-8")
        data = games.data(name, who)
        decisions = [i + 1 for i, k in enumerate(data["kinds"]) if k == DECISION]
        b = browser
        _open(b, page)
        assert _state(b)["seq"] == decisions[0]
        _key(b, "ArrowRight", 39)
        assert _state(b)["seq"] == decisions[1]
        _key(b, "End", 35)
        end = _state(b)
        assert end["scores"] == [str(s) for s in data["views"][0]["scores"]["totals"]]
        if who is not None:
            assert end["view"] == who and b.evaluate("document.getElementById('view').disabled")
            assert "as bob sees them" in b.evaluate("document.querySelector('#scores h2').textContent")
        placed = next(int(s) for s, t in data["targets"].items() if t)
        _open(b, page, f"#seq={placed}")
        assert "could have chosen" in _state(b)["marks"]
        assert b.evaluate("performance.getEntriesByType('resource').length") == 0


# -- an analysed game (issue 25) ---------------------------------------------------
def test_an_analysed_pages_graph_marks_and_better_moves(games: Games) -> None:
    from replay import analyses

    data = games.data("analysed")
    ref = data["views"][0]["analysis"]
    assert set(ref["series"]) == {"alice", "bob"} and ref["marks"]
    stored = analyses.shown(games.service.store.analyses(games.id("analysed")))
    assert ref["notes"] == {str(s.seq): [analyses.note(x) for x in stored if x.seq == s.seq] for s in stored}
    assert set(ref["marks"]) == {str(s.seq) for s in stored if s.mark}
    # the better move, starred on the board at a marked decision: a legal square of it
    assert ref["squares"] and all(sq in data["targets"][q] for q, sq in ref["squares"].items())
    for q in ref["squares"]:
        assert 'class="best"' in data["svgs"][data["views"][0]["steps"][int(q) - 1]]
    for k, player in enumerate(("alice", "bob"), start=1):
        theirs = data["views"][k]["analysis"]
        assert set(theirs["series"]) == {player} and {m[2] for m in theirs["marks"].values()} <= {player}
        mine = games.data("analysed", player)
        assert mine["views"][0]["analysis"] == theirs  # a player's page: their own judgements only [CL-X2]
        assert [mine["svgs"][i] for i in mine["views"][0]["steps"]] == [data["svgs"][i] for i in data["views"][k]["steps"]]
    assert "analysis" not in games.data("card-city")["views"][0]  # a game nobody analysed: no graph


@SLOW  # a real browser loading a whole page (seconds)
def test_the_graph_jumps_where_it_is_clicked_and_the_marks_show(browser: Browser, games: Games, tmp_path: Path) -> None:
    page = tmp_path / "analysed.html"
    page.write_text(games.html("analysed"), encoding="utf-8")
    ref = games.data("analysed")["views"][0]["analysis"]
    b = browser
    # wide enough that a pixel is less than an event (a click names one step)
    b.call("Emulation.setDeviceMetricsOverride", {"width": 1600, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    try:
        _graph_clicks(b, page, ref)
    finally:
        b.call("Emulation.clearDeviceMetricsOverride")
    # a player's page: the graph holds their own line only [CL-X2]
    mine = tmp_path / "alice.html"
    mine.write_text(games.html("analysed", "alice"), encoding="utf-8")
    _open(b, mine)
    assert b.evaluate("Array.from(document.querySelectorAll('#graph polyline.series')).map(p => p.dataset.player)") == ["alice"]
    assert b.evaluate("performance.getEntriesByType('resource').length") == 0


def _graph_clicks(b: Browser, page: Path, ref: dict[str, Any]) -> None:
    _open(b, page)
    assert not b.evaluate("document.getElementById('graph').hidden")
    assert b.evaluate("document.querySelectorAll('#graph polyline.series').length") == 2
    assert b.evaluate("document.querySelectorAll('#events .mark').length") == len(ref["marks"])
    signs = b.evaluate("Array.from(document.querySelectorAll('#events .mark')).map(m => [m.closest('li').dataset.seq, m.textContent])")
    assert {q: t for q, t in signs} == {q: m[1] for q, m in ref["marks"].items()}
    for q in sorted(ref["squares"], key=int)[:3]:
        _key(b, "End", 35)  # away from it; then a real click on the marked point of the graph jumps there
        box = b.evaluate(f"(() => {{ const c = document.querySelector('#graph circle[data-seq=\"{q}\"]');"
                         " c.scrollIntoView({block: 'center'}); const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        for kind in ("mousePressed", "mouseReleased"):
            b.call("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
        b.wait_for(f"document.body.dataset.seq === '{q}'")
        assert _state(b)["currentSeq"] == int(q)
        assert b.evaluate("document.querySelectorAll('#picture rect.best').length") == 1
        assert b.evaluate("document.querySelector('#graph .better').textContent") == "★ better: " + ref["best"][q]
        cursor = b.evaluate("Number(document.querySelector('#graph line.cursor').getAttribute('x1'))")
        assert abs(cursor - float(b.evaluate(f"document.querySelector('#graph circle[data-seq=\"{q}\"]').getAttribute('cx')"))) < 1e-6
