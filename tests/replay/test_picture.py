"""Board pictures: snapshots of the golden games (referee and a player's view),
well-formed XML for every position of random games, and the view law — a
player's picture drawn from the referee's log equals the one drawn from that
player's own exported file (nothing hidden reaches a picture)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core import registry
from core.scene import Cell, Panel, Scene, scene_at, scene_of
from events.service import GameService
from events.sqlite_store import SqliteStore
from replay.logfile import read
from replay.picture import picture
from replay.sources import export, fold_log
from replay.svg import render
from tests.options import draw_options

GOLDEN = Path(__file__).parent.parent / "golden"
SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("CITYLOG_UPDATE_SNAPSHOTS") == "1"
CASES = [
    ("card-city-two-players", 40),
    ("5x5-city-three-players-advanced", 60),
    ("point-city-two-players", 50),
    ("point-city-solo-level-3", None),
]


def _golden(name: str) -> Any:
    with (GOLDEN / f"{name}.jsonl").open() as handle:
        return read(handle, name)


@pytest.mark.parametrize("name, at", CASES)
@pytest.mark.parametrize("view", ["referee", "seat0"])
def test_pictures_match_their_snapshots(name: str, at: int | None, view: str) -> None:
    log = _golden(name)
    player = None if view == "referee" else log.header.definition.players[0]
    svg = picture(log, at, player)
    ET.fromstring(svg)  # well-formed XML
    path = SNAPSHOTS / f"{name}-{at or 'end'}-{view}.svg"
    if UPDATE or not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"missing snapshot {path.name}: run CITYLOG_UPDATE_SNAPSHOTS=1 pytest locally")
        path.parent.mkdir(exist_ok=True)
        path.write_text(svg, encoding="utf-8")
    assert svg == path.read_text(encoding="utf-8"), f"{path.name} changed (CITYLOG_UPDATE_SNAPSHOTS=1 to accept)"
    assert picture(log, at, player) == svg  # stable


def test_the_last_move_and_scores_are_drawn() -> None:
    log = _golden("card-city-two-players")
    svg = picture(log, 40)
    assert 'class="last"' in svg and "scores so far: " in svg and "last: #40 " in svg
    assert "final scores: " in picture(log)


def test_a_player_view_hides_what_the_player_cannot_see() -> None:
    """In Card City's acquisition the divider's face-down cards are hidden from the taker."""
    log = _golden("card-city-two-players")
    game = registry.get("card-city")
    _, events, states = fold_log(log)
    hidden_at = [
        i + 1 for i, s in enumerate(states)
        if s.offer is not None and s.offer.down and game.command_of(events[i]) is not None
    ]
    assert hidden_at, "the golden game has a split with face-down cards"
    seq = hidden_at[0]
    taker = log.header.definition.players[states[seq - 1].offer.to]
    divider = log.header.definition.players[states[seq - 1].offer.divider]
    assert "url(#hatch)" in picture(log, seq, taker)
    assert "url(#hatch)" not in picture(log, seq, divider)
    assert "url(#hatch)" not in picture(log, seq)


@pytest.mark.parametrize("name", registry.available())
@given(seed=st.text("abc012", min_size=1, max_size=5), data=st.data())
def test_every_position_is_well_formed_and_a_view_is_computable_from_its_file(
    name: str, seed: str, data: st.DataObject, tmp_path_factory: Any
) -> None:
    game = registry.get(name)
    n = data.draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
    players = [f"p{i}" for i in range(n)]
    svc = GameService(SqliteStore(tmp_path_factory.mktemp("pic") / "p.db"))
    options = draw_options(game, data.draw)
    gid = svc.create(name, players, seed=seed, options=options, bots=dict.fromkeys(range(n), "random"))
    full = export(svc, gid)
    game, events, states = fold_log(full)
    count = len(events)
    seat = data.draw(st.integers(0, n - 1), label="seat")
    _, mine_events, mine_states = fold_log(export(svc, gid, players[seat]))
    for at in sorted({1, count // 3, count // 2, count, data.draw(st.integers(1, count), label="at")}):
        ET.fromstring(render(scene_at(game, events, states, at, None, players)))
        drawn = render(scene_at(game, events, states, at, seat, players))
        from_file = render(scene_at(game, mine_events, mine_states, at, seat, players))
        assert drawn == from_file, f"seq {at}, seat {seat}"


def test_text_from_the_game_is_escaped() -> None:
    scene = Scene(
        "A <b> & \"c\"",
        status=("x\x01y",),
        panels=(Panel("p<", 1, 1, (Cell(0, 0, "k", "#fff", "<&>", (), "d\"'"),)),),
        scores=(("<me>", 3),),
        caption="]]> <!--",
    )
    root = ET.fromstring(render(scene))
    texts = "".join(root.itertext())
    assert "A <b> & \"c\"" in texts and "<&>" in texts and "x\ufffdy" in texts


def test_scene_of_a_player_is_built_from_the_view() -> None:
    log = _golden("card-city-two-players")
    game, _, states = fold_log(log)
    state = next(s for s in states if s.offer is not None and s.offer.down)
    taker = state.offer.to
    seen = scene_of(game, state, taker)
    labels = [c.label for p in seen.panels for c in p.cells]
    assert "?" in labels and "?" not in [c.label for p in scene_of(game, state, None).panels for c in p.cells]
