"""Scenario tests: setup, chance checks, placement, park actions, round flow, FL rulings."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from tests.helpers.five_by_five import play_5x5
from core.engine import CHANCE, BadOptions, GameOver, IllegalCommand, NotYourTurn, checked_decide
from core.five_by_five import commands as cm
from core.five_by_five import events as ev
from core.five_by_five.game import GAME
from core.five_by_five.plans import square_index
from core.five_by_five.state import HIDDEN, PARK_OFFER, Board, State
from core.five_by_five.tiles import tile_code, tile_label
from core.five_by_five.view import knowledge

# plan 1: section 3 is A5 B5 C5 (3 squares), section 6 is C4 (1), section 1 is E1 E2 (2)
A5, B5, C5, C4 = (square_index(x) for x in ("A5", "B5", "C5", "C4"))
FACTORIES = (0, 1, 2, 3, 4, 5)
HOUSES = (18, 19, 20, 21, 22, 23)


def run(s: State, seat: int, c: cm.Command) -> tuple[State, tuple[ev.Event, ...]]:
    evs = checked_decide(GAME, s, seat, c)
    return GAME.fold(evs, s), evs


def setup(players: tuple[str, ...] = ("ann", "bob"), **options: str) -> State:
    s = GAME.apply(None, GAME.create(players, options))
    if not s.sides:
        s, _ = run(s, CHANCE, cm.DrawSides("A" * 10))
    s, _ = run(s, CHANCE, cm.DrawPlan(1))
    if s.advanced:
        s, _ = run(s, CHANCE, cm.DrawPlanning(2))
    return s


def with_parks(s: State, seat: int, squares: tuple[int, ...]) -> State:
    """Seat's board with Parks (houses face down) on ``squares`` taken out of the bag."""
    tiles, parks = list(s.boards[seat].tiles), list(s.boards[seat].parks)
    used = []
    for q, t in zip(squares, (30, 31, 32, 33)):
        tiles[q], parks[q] = t, True
        used.append(t)
    boards = list(s.boards)
    boards[seat] = Board(tuple(tiles), tuple(parks), True)
    return replace(s, boards=tuple(boards), bag=tuple(t for t in s.bag if t not in used))


def round_with_sets(s: State, plot: int, tiles: tuple[int, ...]) -> State:
    s, _ = run(s, CHANCE, cm.DrawPlot(plot))
    s, _ = run(s, CHANCE, cm.DrawTiles(tiles))
    return s


# -- creation and options --------------------------------------------------------------
def test_create_normalizes_options() -> None:
    e = GAME.create(["ann"], {})
    assert isinstance(e, ev.GameCreated)
    assert dict(e.options) == {"advanced": "no", "sides": "A"} and e.sides == "A" * 10
    assert GAME.create(["ann", "bob"], {"sides": "abababab" + "ab"}).sides == "ABABABABAB"
    assert GAME.create(["ann"], {"sides": "random"}, table=True).table is True


@pytest.mark.parametrize(
    ("players", "options"),
    [([], {}), (["a", "b", "c", "d", "e"], {}), (["a", "a"], {}), (["a"], {"sides": "C"}),
     (["a"], {"advanced": "maybe"}), (["a"], {"colour": "red"})],
)
def test_bad_creation(players: list[str], options: dict[str, str]) -> None:
    with pytest.raises(BadOptions):
        GAME.create(players, options)


def test_setup_chances_in_order_fl7_fl2() -> None:
    s = GAME.apply(None, GAME.create(["ann", "bob"], {"sides": "random", "advanced": "yes"}))
    assert GAME.to_act(s) == (CHANCE,)
    with pytest.raises(IllegalCommand):
        run(s, CHANCE, cm.DrawPlan(3))  # sides first (FL-7)
    with pytest.raises(IllegalCommand):
        run(s, CHANCE, cm.DrawSides("ABC" + "A" * 7))
    s, evs = run(s, CHANCE, cm.DrawSides("BBBBBAAAAA"))
    assert evs == (ev.SidesDrawn("BBBBBAAAAA"),)
    with pytest.raises(IllegalCommand, match="FC-1"):
        run(s, CHANCE, cm.DrawPlan(13))
    s, evs = run(s, CHANCE, cm.DrawPlan(7))
    assert evs == (ev.PlanDrawn(7),) and GAME.to_act(s) == (CHANCE,)
    s, evs = run(s, CHANCE, cm.DrawPlanning(4))
    assert evs == (ev.PlanningDrawn(4), ev.RoundStarted(1))
    # FL-2: the plan card goes back, all 12 plot cards are in the deck
    assert s.plots == tuple(range(1, 13)) and s.plan == 7


def test_basic_setup_starts_round_one() -> None:
    s = GAME.apply(None, GAME.create(["ann"], {}))
    s, evs = run(s, CHANCE, cm.DrawPlan(2))
    assert evs == (ev.PlanDrawn(2), ev.RoundStarted(1))
    assert len(s.bag) == 108 and s.round == 1


# -- chance outcomes must be possible ----------------------------------------------------
def test_tile_draw_checks_fc3() -> None:
    s = setup()
    with pytest.raises(IllegalCommand):
        run(s, CHANCE, cm.DrawPlot(13))
    s, _ = run(s, CHANCE, cm.DrawPlot(3))
    with pytest.raises(IllegalCommand, match="exactly 9"):
        run(s, CHANCE, cm.DrawTiles(tuple(range(8))))
    with pytest.raises(IllegalCommand, match="FC-3"):
        run(s, CHANCE, cm.DrawTiles((0,) * 9))  # one tile twice
    with pytest.raises(IllegalCommand, match="no such tile"):
        run(s, CHANCE, cm.DrawTiles(tuple(range(100, 109))))
    s2, evs = run(s, CHANCE, cm.DrawTiles(tuple(range(9))))
    assert evs == (ev.SetsDrawn(((0, 1, 2), (3, 4, 5), (6, 7, 8))),)
    assert len(s2.bag) == 99
    with pytest.raises(NotYourTurn):
        checked_decide(GAME, s2, CHANCE, cm.DrawTiles((9,)))


def test_plot_cannot_be_drawn_twice() -> None:
    s = setup(("ann",))
    s = round_with_sets(s, 6, (0, 18))
    s, _ = run(s, 0, cm.Choose(1))
    s, evs = run(s, 0, cm.Place(0, C4))
    assert [type(e) for e in evs] == [ev.TilePlaced, ev.SetReturned, ev.BagPassed, ev.RoundStarted]
    assert evs[1] == ev.SetReturned(2, (18,)) and evs[2] == ev.BagPassed(0)
    with pytest.raises(IllegalCommand, match="already drawn"):
        run(s, CHANCE, cm.DrawPlot(6))


# -- choosing and placing --------------------------------------------------------------------
def test_turn_order_and_placement_rules_fl1() -> None:
    s = round_with_sets(setup(), 3, FACTORIES + HOUSES[:3])
    assert GAME.to_act(s) == (0,)
    with pytest.raises(NotYourTurn):
        checked_decide(GAME, s, 1, cm.Choose(1))
    with pytest.raises(IllegalCommand, match="FC-3"):
        run(s, 0, cm.Choose(4))
    s, _ = run(s, 0, cm.Choose(2))
    assert s.hand == (3, 4, 5) and GAME.to_act(s) == (0,)
    with pytest.raises(IllegalCommand, match=r"\[FB-4\]"):
        run(s, 0, cm.Place(3, C4))  # not in plot 3
    with pytest.raises(IllegalCommand, match=r"\[FB-4\]"):
        run(s, 0, cm.Place(0, A5))  # not in the set
    with pytest.raises(IllegalCommand, match=r"\[FB-4\]"):
        run(s, 0, cm.Choose(1))
    s, _ = run(s, 0, cm.Place(5, C5, True))
    with pytest.raises(IllegalCommand, match="already built"):
        run(s, 0, cm.Place(4, C5))
    s, _ = run(s, 0, cm.Place(4, A5))
    s, _ = run(s, 0, cm.Place(3, B5))
    assert GAME.to_act(s) == (1,)
    with pytest.raises(IllegalCommand, match="FC-3"):
        run(s, 1, cm.Choose(2))  # already taken
    s, _ = run(s, 1, cm.Choose(3))
    s, _ = run(s, 1, cm.Place(18, A5))
    s, _ = run(s, 1, cm.Place(19, B5))
    s, evs = run(s, 1, cm.Place(20, C5))
    assert evs[1:] == (ev.SetReturned(1, (0, 1, 2)), ev.BagPassed(1), ev.RoundStarted(2))
    assert s.start == 1 and 0 in s.bag
    s = round_with_sets(s, 6, (6, 7, 8))
    assert GAME.to_act(s) == (1,)  # FL-1: the new start player chooses first


# -- park actions ----------------------------------------------------------------------------
def test_park_action_a_swap_fc7_fl3_fl4() -> None:
    s = with_parks(setup(("ann",)), 0, (0, 1))  # A1, B1 hold Parks
    s = round_with_sets(s, 3, FACTORIES)
    s, _ = run(s, 0, cm.Choose(1))
    s, evs = run(s, 0, cm.Place(0, A5, True))
    assert evs == (ev.TilePlaced(0, 0, A5, True), ev.ParkTokenSpent(0))
    assert s.park == PARK_OFFER and not s.boards[0].token and s.hand == (1, 2)
    with pytest.raises(IllegalCommand, match="FC-7"):
        run(s, 0, cm.Place(1, B5))  # FL-4: resolve the park action first
    with pytest.raises(IllegalCommand, match="FC-7"):
        run(s, 0, cm.UsePark())  # that is side B's action
    with pytest.raises(IllegalCommand, match="FL-3"):
        run(s, 0, cm.Swap(0, 12))  # C3 is empty
    with pytest.raises(IllegalCommand, match="FL-3"):
        run(s, 0, cm.Swap(0, 0))
    assert cm.Swap(0, A5) in set(GAME.legal(s, 0))
    s, evs = run(s, 0, cm.Swap(0, A5))
    assert evs == (ev.ParkSwapped(0, 0, A5),)
    assert s.boards[0].tiles[0] == 0 and s.boards[0].parks[0] and s.boards[0].tiles[A5] == 30
    s, evs = run(s, 0, cm.Place(1, B5, True))  # a fourth Park: the token is gone
    assert evs == (ev.TilePlaced(0, 1, B5, True),)


def test_park_action_decline_spends_token() -> None:
    s = with_parks(setup(("ann",)), 0, (0, 1))
    s = round_with_sets(s, 6, (0, 18))
    s, _ = run(s, 0, cm.Choose(1))
    s, evs = run(s, 0, cm.Place(0, C4, True))
    assert isinstance(evs[-1], ev.ParkTokenSpent)
    s, evs = run(s, 0, cm.Decline())
    assert evs[0] == ev.ParkDeclined(0) and isinstance(evs[-1], ev.RoundStarted)
    assert not s.boards[0].token


def test_park_action_b_replace_fc7_fl5() -> None:
    s = with_parks(setup(("ann", "bob"), sides="B"), 1, (0, 1))
    s = round_with_sets(s, 6, (0, 18, 54))
    s, _ = run(s, 0, cm.Choose(1))
    s, _ = run(s, 0, cm.Place(0, C4))
    s, _ = run(s, 1, cm.Choose(2))
    s, evs = run(s, 1, cm.Place(18, C4, True))
    assert evs[-1] == ev.ParkTokenSpent(1)
    with pytest.raises(IllegalCommand, match="FC-7"):
        run(s, 1, cm.Swap(0, 1))
    s, evs = run(s, 1, cm.UsePark())
    assert evs == (ev.ParkUsed(1),) and GAME.to_act(s) == (CHANCE,)
    with pytest.raises(IllegalCommand, match="FL-5"):
        run(s, CHANCE, cm.DrawTiles((72, 73, 74)))
    with pytest.raises(IllegalCommand, match="not in the bag"):
        run(s, CHANCE, cm.DrawTiles((0, 72)))  # tile 0 is on ann's board
    bag_before = len(s.bag)
    s, evs = run(s, CHANCE, cm.DrawTiles((72, 104)))
    assert evs == (ev.ParkTilesDrawn(1, (72, 104)),) and GAME.to_act(s) == (1,)
    # FL-5: only the drawer sees them; the bag is what each can count [GN-1] [FL-10]
    assert GAME.view(s, 1).park_drawn == (72, 104)
    assert GAME.view(s, 0).park_drawn == (HIDDEN, HIDDEN) == GAME.view(s, None).park_drawn
    assert GAME.redact(evs[0], 0) == ev.ParkTilesDrawn(1, (HIDDEN, HIDDEN)) and GAME.redact(evs[0], 1) == evs[0]
    assert GAME.view(s, 1).bag == s.bag  # the drawer knows every tile out of the bag
    other = knowledge(GAME.view(s, 0), 0)
    assert len(GAME.view(s, 0).bag) == len(s.bag) and HIDDEN in GAME.view(s, 0).bag
    assert [u.owner for u in other.unknown] == [1, 1] and all({72, 104} <= set(u.can_be) for u in other.unknown)
    with pytest.raises(IllegalCommand, match="FC-7"):
        run(s, 1, cm.Replace(73, 0))
    with pytest.raises(IllegalCommand, match="FL-5"):
        run(s, 1, cm.Replace(72, 12))  # C3 is empty
    s, evs = run(s, 1, cm.Replace(104, 0))  # a Fountain where a Park was
    assert evs[:2] == (ev.ParkReplaced(1, 104, 0, False, 30), ev.ParkTilesReturned(1, (72,), 30))
    assert s.boards[1].tiles[0] == 104 and not s.boards[1].parks[0]
    assert 72 in s.bag and 30 in s.bag and 104 not in s.bag
    assert isinstance(evs[-1], ev.RoundStarted) and len(s.bag) == bag_before + 1  # one swapped for one, set 3 back


def test_park_action_b_keep_returns_both() -> None:
    s = with_parks(setup(("ann",), sides="B"), 0, (0, 1))
    s = round_with_sets(s, 1, (0, 1, 2, 3))
    s, _ = run(s, 0, cm.Choose(1))
    s, _ = run(s, 0, cm.Place(0, 4, True))
    s, _ = run(s, 0, cm.UsePark())
    s, _ = run(s, CHANCE, cm.DrawTiles((40, 41)))
    assert GAME.to_act(s) == (0,) and s.hand == (1,)
    s, evs = run(s, 0, cm.Keep())
    assert evs == (ev.ParkKept(0), ev.ParkTilesReturned(0, (40, 41)))
    assert 40 in s.bag and 41 in s.bag and s.hand == (1,)


def test_last_round_leftover_stays_out_fl6() -> None:
    s, events = play_5x5("fl6", ("ann", "bob"))
    last_round = events[max(i for i, e in enumerate(events) if isinstance(e, ev.RoundStarted)) :]
    assert not any(isinstance(e, (ev.SetReturned, ev.BagPassed)) for e in last_round)
    assert [len(st) > 0 for st in s.sets].count(True) == 1
    assert isinstance(events[-2], ev.FinalScores) and isinstance(events[-1], ev.GameEnded)
    with pytest.raises(GameOver):
        checked_decide(GAME, s, 0, cm.Choose(1))


# -- results and ties -------------------------------------------------------------------------
def _final(cells: list[str]) -> State:
    """A finished 2-player state whose boards are given as codes (tile ids picked to match)."""
    from core.five_by_five.tiles import TILES

    pool = list(range(108))
    grids = [text.split() for text in cells]
    picked = [[-1] * 25 for _ in grids]
    for park_pass in (False, True):  # buildings first, then any tile left goes face down
        for g, codes in enumerate(grids):
            for q, code in enumerate(codes):
                if (code == "P") != park_pass:
                    continue
                t = pool[0] if park_pass else next(t for t in pool if code in (TILES[t].code, TILES[t].kind))
                pool.remove(t)
                picked[g][q] = t
    boards = [
        Board(tuple(picked[g]), tuple(c == "P" for c in codes), False) for g, codes in enumerate(grids)
    ]
    s = replace(setup(("ann", "bob")), boards=tuple(boards), round=12)
    from core.five_by_five.rules import final_scores, winners

    return GAME.fold([ev.FinalScores(final_scores(s)), ev.GameEnded(winners(s))], s)


def test_tie_broken_by_factories_fc9() -> None:
    # ann: 2 factories (A: 8 VP), parks outnumber them -> 8
    # bob: 1 factory (3) + a house by parks, away from the factory (5) -> 8
    ann = "F F " + "P " * 23
    bob = "F " + "P " * 23 + "H"
    s = _final([ann, bob])
    res = GAME.result(s)
    assert res is not None
    a, b = res.breakdowns
    assert a.total == b.total == 8
    assert a.tiebreak[:2] == (8, 0) and b.tiebreak[:2] == (3, 5)
    assert res.winners == (0,) and s.winners == (0,)


def test_full_tie_is_shared_fl9() -> None:
    board = "F S H O T W G E N P " + "P " * 15
    s = _final([board.strip(), board.strip()])
    res = GAME.result(s)
    assert res is not None and res.winners == (0, 1) and res.scores[0] == res.scores[1]


def test_no_result_before_the_end() -> None:
    assert GAME.result(setup()) is None


def test_park_action_b_messages_fl5() -> None:
    """The log line reads as a sentence; explain cites FL-5 (not the swap's FL-3) for
    every park action B event; the referee's board shows the draws its log prints."""
    s = with_parks(setup(("ann", "bob"), sides="B"), 1, (0, 1))
    s = round_with_sets(s, 6, (0, 18, 54))
    s, _ = run(s, 0, cm.Choose(1))
    s, _ = run(s, 0, cm.Place(0, C4))
    s, _ = run(s, 1, cm.Choose(2))
    s, _ = run(s, 1, cm.Place(18, C4, True))
    before_use = s
    s, used = run(s, 1, cm.UsePark())
    before_draw = s
    s, drawn = run(s, CHANCE, cm.DrawTiles((72, 104)))
    # the referee's show and log agree: both name the drawn tiles
    line = GAME.describe(drawn[0], s.players)
    board = GAME.render(s, None)
    for t in (72, 104):
        assert tile_label(t) in board and tile_code(t) in line
    assert "a hidden tile" not in board
    assert "a hidden tile" in GAME.render(GAME.view(s, 0), 0)  # bob's draw, seen by ann
    before_replace = s
    s, replaced = run(s, 1, cm.Replace(104, 0, park=True))
    text = GAME.describe(replaced[0], s.players)
    removed = before_replace.boards[1].tiles[0]
    assert text == f"bob replaces tile H #{removed} on A1 with a Park (tile N #104)", text
    s2, kept = run(before_replace, 1, cm.Replace(104, 0))
    assert GAME.describe(kept[0], s2.players) == f"bob replaces tile H #{removed} on A1 with a Fountain (tile N #104)"
    for before, e in ((before_use, used[0]), (before_draw, drawn[0]), (before_replace, replaced[0]),
                      (before_replace, replaced[1])):
        why = GAME.explain(before, e, s.players)
        assert "[FL-5]" in why and "FL-3" not in why, why
