"""Issue 9: every player's view folds, shows exactly what that player knows, and
nothing printed for ``--as P`` shows more than P's exported file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import registry
from core.autoplay import play_game
from core.card_city import events as cc
from core.engine import CHANCE, IllegalCommand, checked_decide, decide_as
from core.five_by_five import events as fc
from core.five_by_five.state import HIDDEN_PARK
from core.point_city import events as pc
from core.point_city.cards import CARDS, face_of
from replay.explain import explain_at
from replay.sources import fold_log, view_of
from replay.verify import verify
from tests.views.helpers import new, ok, read, run

GOLDEN = Path(__file__).parent.parent / "golden"


# -- the crash reproductions ------------------------------------------------------
def test_card_city_player_view_file_reads(tmp_path: Path) -> None:
    """`export --as b` of a new game, then show/log/move --out on the file (issue 9)."""
    db = tmp_path / "h.db"
    gid = new(db, "card-city", "a,b", "s1")
    ok(db, "move", gid, "--as", "a", "split RC PL IC") if False else None  # a's split is a's to choose
    f = tmp_path / "b.jsonl"
    ok(db, "export", gid, "--as", "b", "-o", str(f))
    assert "a draws ? ? ? ?" in ok(db, "log", str(f))
    assert "to act: a" in ok(db, "show", str(f))
    code, out = run(db, "move", str(f), "--as", "b", "take pair", "--out", str(tmp_path / "m.json"))
    assert code == 2 and "not b's turn" in out  # refused as a rule, not an internal error


def _park_b_game() -> tuple[Any, list[Any]]:
    game = registry.get("5x5-city")
    for seed in range(200):
        _, events = play_game(game, ["a", "b"], f"park-{seed}", ["greedy", "random"], {"sides": "B"})
        if any(isinstance(e, fc.ParkTilesDrawn) for e in events):
            return game, events
    raise AssertionError("no Park action B in 200 seeded games")


def test_5x5_views_fold_after_park_action_b() -> None:
    game, events = _park_b_game()
    drawer = next(e.seat for e in events if isinstance(e, fc.ParkTilesDrawn))
    other = 1 - drawer
    state = None
    for e in events:
        state = game.apply(state, game.redact(e, other))  # raised list.remove(x) before
        game.render(game.view(state, other), other)
    # FL-10: a tile Park action B put down Park side up shows the others its Park side only
    placed = [e for e in events if isinstance(e, fc.ParkReplaced)]
    if placed and placed[0].park:
        real = game.fold(events)
        square = placed[0].square
        assert game.view(real, other).boards[drawer].tiles[square] == HIDDEN_PARK
        assert game.view(real, drawer).boards[drawer].tiles[square] == real.boards[drawer].tiles[square]


# -- the knowledge models -------------------------------------------------------------
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4]))
def test_the_drawer_knows_every_face_down_card_of_the_round_cl8(seed: int, n: int) -> None:
    game = registry.get("card-city")
    _, events = play_game(game, [f"p{i}" for i in range(n)], str(seed), ["greedy"] * n)
    state, drawer, splits = None, -1, 0
    for e in events:
        state = game.apply(state, e)
        if isinstance(e, cc.CardsDrawn):
            drawer = e.seat
        if isinstance(e, cc.Split):
            # every seat that held these cards before sees them; the others do not
            knows = {e.seat, drawer, *e.known_to}
            assert drawer in knows
            for seat in range(n):
                seen = game.view(state, seat).offer.down
                if seat in knows:
                    assert seen == state.offer.down, (seat, e)
                else:  # GN-1: the others see only what counting gives (tests/card_city/test_knowledge_law.py)
                    shown = [c for c in seen if c != "?"]
                    assert not Counter(shown) - Counter(state.offer.down), (seat, e)
                    assert len(seen) == len(state.offer.down)
            splits += 1
    assert splits >= 10


def test_point_city_cards_show_their_resource_side_only_pl16() -> None:
    game = registry.get("point-city")
    _, events = play_game(game, ["a", "b"], "pl13", ["greedy", "greedy"])
    state = game.fold(events[:40])
    for seat in (0, 1):
        v = game.view(state, seat)
        assert all(x.card < 0 for x in v.market if x.card and not x.building)
        assert all(x.card > 0 for x in v.market if x.building)
        assert v.top <= 0
        other = v.seats[1 - seat].resources
        assert all(c < 0 or CARDS[c].tier == 0 for c in other)
        assert v.seats[seat] == state.seats[seat]  # a player knows both sides of their own cards
    for e in events:
        if isinstance(e, (pc.MarketDealt, pc.CardRevealed)):
            assert game.redact(e, 0).card == face_of(e.card) and game.redact(e, None).card < 0


def test_explain_try_flip_does_not_name_the_building(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    gid = new(db, "point-city", "a,b", "flip")
    to_act = json.loads(ok(db, "show", gid, "--json"))["to_act"][0]
    seq = json.loads(ok(db, "show", gid, "--json"))["seq"]
    seen = ok(db, "show", gid, "--as", to_act)
    assert "#?" in seen
    for cell in ("A1", "B2", "C3", "D4"):
        code, out = run(db, "explain", gid, "--at", str(seq + 1), "--as", to_act, "--try", f"flip {cell}")
        assert code in (0, 1), out
        if code == 0:
            assert "#?" in out and "VP" not in out  # the building side stays unknown


# -- the output law: --as P from the store == from P's exported file -----------------
def _outputs(db: Path, ref: str, player: str | None, seqs: list[int], tries: list[str]) -> list[str]:
    who = ["--as", player] if player else []
    out = [ok(db, "log", ref, *who), ok(db, "show", ref, *who)]
    for s in seqs:
        out.append(ok(db, "show", ref, "--at", str(s), *who))
        out.append(ok(db, "explain", ref, "--at", str(s), *who))
        for t in tries:
            out.append(run(db, "explain", ref, "--at", str(s + 1), *who, "--try", t)[1])
    return out


@pytest.mark.parametrize(
    ("game", "players", "tries"),
    [
        ("card-city", "a,b,c", ["take rest", "take pair", "build R 1,0"]),
        ("5x5-city", "a,b", ["place 1 A1", "decline"]),
        ("point-city", "a,b", ["flip A1", "deck", "take A1 A2"]),
    ],
)
@settings(max_examples=3)
@given(seed=st.integers(0, 10**6), data=st.data())
def test_as_player_from_the_store_equals_from_their_file(
    tmp_path_factory: Any, game: str, players: str, tries: list[str], seed: int, data: st.DataObject
) -> None:
    tmp = tmp_path_factory.mktemp("law")
    db = tmp / "h.db"
    names = players.split(",")
    extra = ["--option", "sides=B"] if game == "5x5-city" else []
    gid = new(db, game, players, str(seed), "--bots", ",".join(f"{n}=greedy" for n in names), *extra)
    total = json.loads(ok(db, "show", gid, "--json"))["seq"]
    seqs = sorted(data.draw(st.lists(st.integers(2, total - 1), min_size=2, max_size=3, unique=True)))
    for player in names:
        f = tmp / f"{player}.jsonl"
        ok(db, "export", gid, "--as", player, "-o", str(f))
        from_store = _outputs(db, gid, player, seqs, tries)
        from_file = _outputs(db, str(f), None, seqs, tries)
        assert from_store == from_file
        assert from_store == _outputs(db, str(f), player, seqs, tries)


# -- what a move prints, and what a refusal says ------------------------------------
def test_move_prints_only_what_the_mover_may_see(tmp_path: Path) -> None:
    db = tmp_path / "h.db"
    gid = new(db, "card-city", "a,b,c", "s3", "--bots", "a=greedy,b=greedy")
    game = registry.get("card-city")
    for _ in range(30):
        shown = json.loads(ok(db, "show", gid, "--json"))
        if "c" not in shown["to_act"]:
            break
        log = view_of(read_full(db, gid, tmp_path), "c")
        g, events, states = fold_log(log)
        command = game.format_command(next(iter(game.legal(game.view(states[-1], 2), 2))))
        before = shown["seq"]
        out = ok(db, "move", gid, "--as", "c", command)
        after = view_of(read_full(db, gid, tmp_path), "c")
        _, seen, _ = fold_log(after)
        expected = [f"{i + 1:>5}  {game.describe(seen[i], ('a', 'b', 'c'))}" for i in range(before, len(seen))]
        assert out.splitlines() == expected


def read_full(db: Path, gid: str, tmp: Path) -> Any:
    f = tmp / "full.jsonl"
    ok(db, "export", gid, "-o", str(f), "--force")  # -o never overwrites without it (issue 10)
    return read(f)


@pytest.mark.parametrize("name", registry.available())
@given(seed=st.integers(0, 10**6), data=st.data())
def test_refusals_name_only_what_the_seat_can_see(name: str, seed: int, data: st.DataObject) -> None:
    game = registry.get(name)
    n = game.spec.max_players
    _, events = play_game(game, [f"p{i}" for i in range(n)], str(seed), ["random"] * n)
    commands = [c for _, c in filter(None, map(game.command_of, events)) if c is not None]
    points = [i for i in range(1, len(events)) if game.command_of(events[i]) is not None]
    state = game.fold(events[: data.draw(st.sampled_from(points))])
    for _ in range(10):
        seat = data.draw(st.integers(0, n - 1))
        command = data.draw(st.sampled_from(commands))
        try:
            decide_as(game, state, seat, command)
            continue
        except IllegalCommand as exc:
            refusal = str(exc)
        with pytest.raises(IllegalCommand) as seen:
            checked_decide(game, game.view(state, seat), seat, command)
        assert refusal == str(seen.value)


# -- every golden log, from every seat's view ----------------------------------------
@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_golden_log_reads_from_every_seat(path: Path) -> None:
    full = read(path)
    for player in full.header.definition.players:
        log = view_of(full, player)
        assert verify(log).ok, verify(log).reason
        game, events, states = fold_log(log)
        seat = log.header.definition.players.index(player)
        for i, state in enumerate(states):
            game.render(game.view(state, seat), seat)
            game.describe(events[i], log.header.definition.players)
            explain_at(game, events, log.header.definition.players, i + 1, False, seat)
    assert CHANCE == -1
