"""One test (or a few) per rule: PC-2…PC-7 and the PL rulings."""

from __future__ import annotations

import msgspec
import pytest

from core.engine import CHANCE, BadCommandSyntax, IllegalCommand, checked_decide
from core.point_city import events as ev
from core.point_city.cards import CARDS, face_of
from core.point_city.commands import Flip, LayOut, Pay, Reveal, Take, TakeDeck
from core.point_city.game import GAME
from core.point_city.rules import default_take
from core.point_city.state import Seat
from tests.helpers.point_city import after, cards, cell, run_to_decision, table

A1, B1, C1, D1, A2, B2, A3, B3, C3 = (cell(x) for x in ("A1", "B1", "C1", "D1", "A2", "B2", "A3", "B3", "C3"))


def res(kind: str, k: int = 1, tier: int = 1, skip: tuple[int, ...] = ()) -> list[int]:
    return cards(lambda c: c.tier == tier and c.resource == kind, k, skip)


def civic(kind: str, tier: int = 1, k: int = 1) -> list[int]:
    return cards(lambda c: c.kind == "civic" and c.tier == tier and c.cost[0][0] == kind, k)


def producer(makes: str, k: int = 1, skip: tuple[int, ...] = ()) -> list[int]:
    return cards(lambda c: c.kind == "producer" and c.produces == makes, k, skip)


def illegal(s, cmd, rule: str, seat: int = 0) -> IllegalCommand:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalCommand) as exc:
        checked_decide(GAME, s, seat, cmd)
    assert exc.value.rule == rule, str(exc.value)
    return exc.value


# -- PC-3: which two cards -----------------------------------------------------
def test_two_market_cards_must_be_orthogonally_adjacent() -> None:
    s = table(top=res("economy")[0], hidden=(5, 0, 0))
    for a, b in [("A1", "B2"), ("A1", "C1"), ("D1", "A2"), ("A1", "A4")]:
        illegal(s, Take((cell(a), cell(b))), "PC-3")
    illegal(s, Take((A1, A1)), "PC-3")
    for a, b in [("A1", "B1"), ("A1", "A2"), ("C3", "C4"), ("D4", "C4")]:
        evs = checked_decide(GAME, s, 0, Take((cell(a), cell(b))))
        assert isinstance(evs[0], ev.CardsTaken)
        assert set(after(s, evs[:1]).seats[0].resources) == {s.market[cell(a)].card, s.market[cell(b)].card}


def test_deck_and_market_cannot_be_mixed() -> None:
    s = table(top=res("economy")[0], hidden=(5, 0, 0))
    with pytest.raises(BadCommandSyntax):
        GAME.parse_command(s, 0, "take A1 deck")
    illegal(s, Take((A1, 16)), "PC-3")
    # a deck take takes exactly the two top cards of the deck and nothing from the market
    evs = checked_decide(GAME, s, 0, TakeDeck())
    assert evs == (ev.DeckTaken(0, s.top),)
    s2, more = run_to_decision(after(s, evs))
    assert s2.market == s.market
    second = [e for e in more if isinstance(e, ev.SecondTaken)]
    assert len(second) == 1 and second[0].card not in (x.card for x in s.market)
    assert set(s2.seats[0].resources) == {s.top, second[0].card}


# -- PC-3: paying --------------------------------------------------------------
def test_an_unaffordable_building_cannot_be_taken() -> None:
    c = civic("energy")[0]
    e1, e2 = res("energy", 2)
    other = res("economy")[0]
    s = table({"A1": (c, True), "A2": (other, False)}, hands=[(e1,)], top=res("industry")[0], hidden=(5, 0, 0))
    assert not any(isinstance(x, Take) and A1 in x.cells for x in GAME.legal(s, 0))
    exc = illegal(s, Take((A1, A2), (Pay(A1, (e1,), token=1),)), "PC-3")
    assert "does not cover" in exc.reason
    illegal(s, Take((A1, A2)), "PC-3")  # no payment at all
    # two in hand and a third energy taken in the same pick pays for it
    s = table({"A1": (c, True), "A2": (e2, False)}, hands=[(e1, res("energy", 1, skip=(e1, e2))[0])],
              top=res("industry")[0], hidden=(5, 0, 0))
    hand = s.seats[0].resources
    evs = checked_decide(GAME, s, 0, Take((A1, A2), (Pay(A1, (*hand, e2), token=1),)))
    s2 = after(s, evs[:1])
    assert s2.seats[0].buildings == (c,) and s2.seats[0].resources == ()
    assert set(s2.discard) == {*hand, e2}


def test_each_permanent_resource_pays_once_per_turn() -> None:
    c1, c2 = civic("energy", k=2)
    p = producer("energy")[0]
    es = res("energy", 5)
    s = table({"A1": (c1, True), "B1": (c2, True)}, hands=[es], builds=[(p,)],
              top=res("industry")[0], hidden=(5, 0, 0))
    twice = Take((A1, B1), (Pay(A1, tuple(es[:2]), (p,), 1), Pay(B1, tuple(es[2:4]), (p,), 2)))
    exc = illegal(s, twice, "PC-3")
    assert "once per turn" in exc.reason
    once = Take((A1, B1), (Pay(A1, tuple(es[:2]), (p,), 1), Pay(B1, tuple(es[2:5]), (), 2)))
    s2 = after(s, checked_decide(GAME, s, 0, once)[:1])
    assert s2.seats[0].buildings == (p, c1, c2) and s2.seats[0].tokens == (1, 2)
    # a permanent resource that is not built cannot pay
    illegal(s, Take((A1, B1), (Pay(A1, tuple(es[:3]), (), 1), Pay(B1, tuple(es[3:5]), (c1,), 2))), "PC-3")


def test_a_new_buildings_resource_is_not_usable_the_turn_it_is_built() -> None:
    prod = next(c for c in CARDS.values() if c.kind == "producer" and c.produces == "energy"
                and c.tier == 1 and all(t != "energy" for t, _ in c.cost))
    civ = civic("energy")[0]
    wild = cards(lambda c: c.resource == "ingenuity", 6)
    s = table({"A1": (prod.id, True), "B1": (civ, True)}, hands=[wild], top=res("industry")[0], hidden=(5, 0, 0))
    need = prod.cost_total
    pay_prod = Pay(A1, tuple(wild[:need]))
    illegal(s, Take((A1, B1), (pay_prod, Pay(B1, tuple(wild[need:need + 2]), (prod.id,), 1))), "PC-3")
    assert need + 3 <= len(wild)
    ok = Take((A1, B1), (pay_prod, Pay(B1, tuple(wild[need:need + 3]), (), 1)))
    assert checked_decide(GAME, s, 0, ok)


def test_pl3_a_card_pays_one_building_and_pl4_no_needless_source() -> None:
    c1, c2 = civic("energy", k=2)
    es = res("energy", 6)
    s = table({"A1": (c1, True), "B1": (c2, True)}, hands=[es], top=res("industry")[0], hidden=(5, 0, 0))
    illegal(s, Take((A1, B1), (Pay(A1, tuple(es[:3]), (), 1), Pay(B1, tuple(es[2:5]), (), 2))), "PL-3")
    illegal(s, Take((A1, A2), (Pay(A1, tuple(es[:4]), (), 1),)), "PL-4")  # one card too many
    # a double card whose second symbol is not needed still cannot pay the other building
    d = res("energy", 1, tier=2)[0]
    s = table({"A1": (c1, True), "B1": (c2, True)}, hands=[(*es[:2], d)], top=res("industry")[0], hidden=(5, 0, 0))
    ok = Take((A1, B1), (Pay(A1, (es[0], d), (), 1), Pay(B1, (es[1], d), (), 2)))
    illegal(s, ok, "PL-3")


# -- PC-3: flip ----------------------------------------------------------------
def test_flip_needs_an_all_resource_row_or_column_once_per_turn() -> None:
    b1, c3 = cards(lambda c: c.kind == "points" and c.tier == 1, 2)
    s = table({"B1": (b1, True), "C3": (c3, True)}, top=res("industry")[0], hidden=(5, 0, 0))
    illegal(s, Flip(B3), "PC-3")  # column B has B1's building, row 3 has C3's
    illegal(s, Flip(B1), "PC-3")  # already a building
    evs = checked_decide(GAME, s, 0, Flip(A1))  # column A shows only resource sides
    assert evs == (ev.Flipped(0, A1, s.market[A1].card),)
    s2 = after(s, evs)
    assert s2.market[A1].building and GAME.to_act(s2) == (0,)
    illegal(s2, Flip(A3), "PC-3")  # one flip per turn
    assert not any(isinstance(c, Flip) for c in GAME.legal(s2, 0))
    assert {c.cell for c in GAME.legal(s, 0) if isinstance(c, Flip)} == {
        i for i in range(16) if i not in (B1, C3, B3) and (i // 4 != 0 or i % 4 not in (1,))
        and not (i // 4 in (0, 2) and i % 4 in (1, 2))
    }


# -- PC-4: refill and the end --------------------------------------------------
def test_refill_sides_and_reading_order() -> None:
    pts = cards(lambda c: c.kind == "points" and c.tier == 1, 1)[0]
    w = cards(lambda c: c.resource == "ingenuity", 4)
    top = res("industry")[0]
    s = table({"B2": (pts, True)}, hands=[w], top=top, hidden=(5, 0, 0))
    take = default_take(s, 0, (B2, A2))
    assert take is not None
    evs = checked_decide(GAME, s, 0, take)
    assert isinstance(evs[0], ev.CardsTaken)
    assert evs[1] == ev.Refilled(A2, top, True)  # A2 first (reading order); it held a resource
    assert GAME.to_act(after(s, evs)) == (CHANCE,)
    s2, more = run_to_decision(after(s, evs))
    refills = [e for e in more if isinstance(e, ev.Refilled)]
    assert len(refills) == 1 and refills[0].cell == B2 and refills[0].building is False
    assert s2.step == "turn" and s2.top and s2.market[B2].card == refills[0].card


def test_the_game_ends_when_the_market_cannot_be_refilled() -> None:
    one = table(hands=[(), ()], top=res("industry")[0], hidden=(0, 0, 0))
    illegal(one, TakeDeck(), "PL-2")
    evs = checked_decide(GAME, one, 0, Take((A1, B1)))
    kinds = [type(e) for e in evs]
    assert kinds == [ev.CardsTaken, ev.GameEnded, ev.Scored] and evs[1].reason == "refill"
    done = after(one, evs)
    assert GAME.to_act(done) == () and GAME.result(done) is not None
    assert set(done.seats[0].resources) == {one.market[A1].card, one.market[B1].card}  # PL-8: kept
    # with two cards in the deck the market is refilled and play goes on
    two = table(hands=[(), ()], top=res("industry")[0], hidden=(1, 0, 0))
    s, _ = run_to_decision(after(two, checked_decide(GAME, two, 0, Take((A1, B1)))))
    assert s.step == "turn" and s.turn == 1 and all(x.card for x in s.market)


def test_pl7_a_player_who_cannot_take_ends_the_game() -> None:
    dear = cards(lambda c: c.tier == 3 and c.kind in ("points", "civic"), 16)
    market = {"ABCD"[i % 4] + str(i // 4 + 1): (dear[i], True) for i in range(16)}
    s = table(market, hands=[(), ()], top=res("industry")[0], hidden=(0, 0, 1))
    evs = checked_decide(GAME, s, 0, TakeDeck())
    s2, more = run_to_decision(after(s, evs))
    assert [type(e) for e in more][-3:] == [ev.TurnStarted, ev.GameEnded, ev.Scored]
    assert more[-2].reason == "stuck" and GAME.to_act(s2) == ()


# -- PC-5: civic tokens --------------------------------------------------------
def test_a_civic_building_takes_a_token_at_once() -> None:
    c = civic("economy")[0]
    eco = res("economy", 3)
    pts = cards(lambda c: c.kind == "points" and c.tier == 1, 1)[0]
    w = cards(lambda c: c.resource == "ingenuity", 2)
    base = dict(market={"A1": (c, True), "B1": (pts, True)}, top=res("industry")[0], hidden=(5, 0, 0))
    s = table(hands=[eco], display=(4, 9, 1), **base)
    illegal(s, Take((A1, A2), (Pay(A1, tuple(eco)),)), "PC-5")  # no token named
    illegal(s, Take((A1, A2), (Pay(A1, tuple(eco), token=2),)), "PC-5")  # not on the table
    s2 = after(s, checked_decide(GAME, s, 0, Take((A1, A2), (Pay(A1, tuple(eco), token=9),)))[:1])
    assert s2.seats[0].tokens == (9,) and s2.display == (4, 1)
    s = table(hands=[w], display=(4, 9), **base)
    illegal(s, Take((B1, C1), (Pay(B1, tuple(w), token=4),)), "PC-5")  # not a civic building
    empty = table(hands=[eco], display=(), **base)  # PL-6: none left, built without one
    s3 = after(empty, checked_decide(GAME, empty, 0, Take((A1, A2), (Pay(A1, tuple(eco)),)))[:1])
    assert s3.seats[0].buildings == (c,) and s3.seats[0].tokens == ()


def test_token_points() -> None:
    from core.point_city.scoring import seat_lines

    com = producer("community", 2)
    ene = producer("energy", 1)
    wild = cards(lambda c: c.resource == "ingenuity", 2)
    ids = {"pair": 10, "two": 19, "missing": 21, "set": 22, "each-community": 3, "ingenuity": 8}
    from core.point_city.tokens import TOKENS

    assert TOKENS[10].types == ("community", "energy") and TOKENS[3].types == ("community",)
    who = Seat(tuple(wild), (*com, *ene), tuple(ids.values()))
    # a token is named t10, as show's civic tokens line and a payment (pay B1=…,t10) name it;
    # #10 would be a card
    lines = {x.detail: x.points for x in seat_lines(who) if x.label.startswith("token: ")}
    assert lines == {"t10": 3, "t19": 2, "t21": 12, "t22": 0, "t3": 4, "t8": 4}
    vp = sum(CARDS[b].vp for b in (*com, *ene))
    assert seat_lines(who)[0].points == vp


# -- PC-6: ties ----------------------------------------------------------------
def test_ties_go_to_most_unspent_resource_cards_then_shared() -> None:
    r = res("economy", 3)
    s = table(hands=[(r[0],), (r[1], r[2])], step="over")
    assert GAME.result(s).winners == (1,)
    s = table(hands=[(r[0],), (r[1],)], step="over")
    assert GAME.result(s).winners == (0, 1)
    pts = cards(lambda c: c.kind == "points", 1)[0]
    s = table(hands=[(), (r[1], r[2])], builds=[(pts,), ()], step="over")
    assert GAME.result(s).winners == (0,) and GAME.result(s).scores == (CARDS[pts].vp, 0)


# -- PC-2: setup ---------------------------------------------------------------
@pytest.mark.parametrize(("n", "removed", "tokens"), [(1, (25, 26, 27), 10), (2, (25, 26, 27), 10),
                                                      (3, (13, 14, 17), 12), (4, (1, 2, 7), 14)])
def test_setup(n: int, removed: tuple[int, int, int], tokens: int) -> None:
    from core.rng import Rng

    s = GAME.apply(None, GAME.create([f"p{i}" for i in range(n)], {}))
    assert GAME.to_act(s) == (CHANCE,)
    illegal(s, LayOut((1, 2, 3)), "PC-2", CHANCE)
    evs = checked_decide(GAME, s, CHANCE, GAME.chance(s, Rng.derive("setup", 1)))
    assert evs[1] == ev.CardsRemoved(removed) and len(evs[0].tokens) == tokens
    s, _ = run_to_decision(after(s, evs))
    assert s.step == "turn" and s.turn == 0 and s.round == 1
    assert all(x.card and not x.building for x in s.market)
    assert all(CARDS[x.card].tier == 1 for x in s.market)
    assert [CARDS[x.resources[0]].resource for x in s.seats] == ["ingenuity"] * n
    assert sum(s.hidden) + 1 == 160 - sum(removed) - 16


def test_a_revealed_card_must_be_possible() -> None:
    s = table(top=0, hidden=(3, 5, 0), step="after", mover=0, hands=[(), ()])
    assert GAME.to_act(s) == (CHANCE,)
    tier2 = cards(lambda c: c.tier == 2, 1)[0]
    illegal(s, Reveal(tier2), "PC-2", CHANCE)  # tier 1 still has cards on top
    illegal(s, Reveal(s.market[A1].card), "PC-2", CHANCE)  # already on the table
    assert checked_decide(GAME, s, CHANCE, Reveal(s.unseen[0][0]))[0] == ev.CardRevealed(s.unseen[0][0])


# -- PC-7: the solo opponent -----------------------------------------------------
def test_solo_opponent_moves_and_wraps() -> None:
    civ = civic("ecology")[0]
    s = table({"D4": (civ, True)}, top=res("industry")[0], hidden=(9, 0, 0), solo_level=2,
              marker_col=3, marker_row=3, display=(7, 3, 5))
    d4, d1 = cell("D4"), cell("D1")
    took_d1 = s.market[d1].card
    evs = checked_decide(GAME, s, 0, TakeDeck())
    s2, more = run_to_decision(after(s, evs))
    opp = [e for e in more if isinstance(e, ev.OpponentTook)]
    assert len(opp) == 1
    assert opp[0].cells == (d4, d1) and opp[0].cards == (civ, took_d1) and opp[0].tokens == (7,)
    assert (s2.marker_col, s2.marker_row) == (0, 0)
    assert s2.opponent.buildings == (civ,) and s2.opponent.resources == (took_d1,)
    assert s2.display == (3, 5) and s2.step == "turn" and s2.round == 2
    # next time it takes A1 and A2
    s3, more = run_to_decision(after(s2, checked_decide(GAME, s2, 0, TakeDeck())))
    opp = [e for e in more if isinstance(e, ev.OpponentTook)]
    assert opp[0].cells == (A1, A2) and (s3.marker_col, s3.marker_row) == (1, 1)


@pytest.mark.parametrize("level", [1, 2, 3])
def test_solo_opponent_score_by_level(level: int) -> None:
    builds = (*producer("community", 3), *producer("energy", 2), *producer("economy", 1))
    builds += tuple(cards(lambda c: c.kind == "points", 1))
    vp = sum(CARDS[b].vp for b in builds)
    wild = cards(lambda c: c.resource == "ingenuity", 2)
    opp = Seat((*wild, res("economy")[0]), builds, (4, 5))
    s = table(step="over", solo_level=level, opponent=opp)
    expected = {1: vp + 6 + 3 * 2, 2: vp + (3 + 2 + 1) + 5 * 2, 3: vp + (6 + 3 + 1) + 7 * 2 + 2}[level]
    from core.point_city.scoring import opponent_score

    assert opponent_score(s) == expected
    res_ = GAME.result(s)
    assert "lost to" in res_.breakdowns[0].title and str(expected) in res_.breakdowns[0].title
    assert res_.winners == ()  # PL-10: the opponent won, no seat did
    strong = table(step="over", solo_level=level, opponent=Seat(), builds=[builds])
    assert "won against" in GAME.result(strong).breakdowns[0].title
    assert GAME.result(strong).winners == (0,)


# -- defaults and text -------------------------------------------------------------
def test_default_payment_is_the_cheapest() -> None:
    c = civic("energy")[0]
    p = producer("energy")[0]
    es = res("energy", 3)
    w = cards(lambda c: c.resource == "ingenuity", 1)
    s = table({"A1": (c, True)}, hands=[(*es, *w)], builds=[(p,)], top=res("industry")[0],
              hidden=(5, 0, 0), display=(1, 2))
    take = default_take(s, 0, (A1, B1))
    assert take is not None
    assert take.pays[0].perms == (p,) and set(take.pays[0].cards) <= set(es)
    assert len(take.pays[0].cards) == 2 and take.pays[0].token == 2  # flat 7 beats flat 5
    assert GAME.parse_command(s, 0, "take A1 B1") == take


def test_text_round_trip_and_syntax_errors() -> None:
    from tests.helpers.point_city import play_point_city as play

    s, events = play("text", 3, ["random"] * 3)
    st = GAME.apply(None, events[0])
    n = 0
    for e in events[1:]:
        opened = GAME.command_of(e)
        if opened is not None:
            seat, cmd = opened
            assert GAME.parse_command(st, seat, GAME.format_command(cmd)) == cmd
            n += 1
        assert GAME.describe(e, st.players)
        st = GAME.apply(st, e)
    assert n > 20
    for bad in ["", "take A1", "take A1 E9", "flip", "pay B1=1", "take A1 A2 pay A1", "take A1 A2 pay A1=x"]:
        with pytest.raises(BadCommandSyntax):
            GAME.parse_command(st, 0, bad)
    out = GAME.render(st, 0)
    assert "p0 (you)" in out and "deck:" in out and "[" in out
    # a resource card may be written as the hand shows it (#12) or by its number
    hashed = GAME.parse_command(None, 0, "take A1 B1 pay B1=#12,15,p40,t7")
    assert hashed == GAME.parse_command(None, 0, "take A1 B1 pay B1=12,15,p40,t7")
    assert hashed.pays[0].cards == (12, 15)


def test_view_hides_the_unseen_cards() -> None:
    mid = table(top=res("industry")[0], hidden=(5, 2, 0), hands=[(), ()])
    v = GAME.view(mid, 1)
    # GN-1: the unseen stock is shown as counted: each card by id where counting names it, else by face
    assert [sorted(map(face_of, u)) for u in v.unseen] == [sorted(map(face_of, u)) for u in mid.unseen]
    assert all(c in u for t, u in zip(v.unseen, mid.unseen) for c in t if c > 0) and v.hidden == mid.hidden
    # PL-16: the deck's top card shows its resource side only, never its id
    assert v.top == face_of(mid.top) < 0 and CARDS[v.top].resource == "industry"
    assert msgspec.structs.replace(v, unseen=mid.unseen, top=mid.top, market=mid.market) == mid
    # the deck take's second card does not exist before the choice is made
    evs = checked_decide(GAME, mid, 0, TakeDeck())
    assert all(not isinstance(e, (ev.SecondTaken, ev.CardRevealed)) for e in evs)
    assert GAME.redact(evs[0], 0) == evs[0]  # the taker holds the card: both sides
    assert GAME.redact(evs[0], 1).card == face_of(evs[0].card)  # the others: its face


# -- options -------------------------------------------------------------------
def test_options_and_player_counts() -> None:
    from core.engine import BadOptions

    from tests.helpers.point_city import play_point_city as play

    created = GAME.create(["a", "b"], {"solo-level": "3"})
    assert created.options == (("solo-level", "3"),) and created.table is False
    assert GAME.apply(None, created).solo_level == 0  # PL-12: only with one player
    assert GAME.apply(None, GAME.create(["a"], {"solo-level": "3"}, table=True)).solo_level == 3
    for bad in ([], ["a", "b", "c", "d", "e"]):
        with pytest.raises(BadOptions):
            GAME.create(bad, {})
    with pytest.raises(BadOptions):
        GAME.create(["a"], {"solo-level": "4"})
    _, events = play("two", 2, ["random", "random"], {"solo-level": "2"})
    assert not any(isinstance(e, ev.OpponentTook) for e in events)
    _, events = play("one", 1, ["random"], {"solo-level": "2"})
    assert any(isinstance(e, ev.OpponentTook) for e in events)


def test_explain_names_the_rules() -> None:
    top = res("industry")[0]
    one = table(hands=[(), ()], top=top, hidden=(0, 0, 0))
    evs = checked_decide(GAME, one, 0, Take((A1, B1)))
    assert "[PC-4" in GAME.explain(one, evs[1], one.players)
    two = table(hands=[(), ()], top=top, hidden=(3, 0, 0))
    evs = checked_decide(GAME, two, 0, Take((A1, B1)))
    line = GAME.explain(after(two, evs[:1]), evs[1], two.players)
    assert "PC-4" in line and "building side" in line


# -- PL-13, PL-14: start player, the solo opponent's starting card ---------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_pl13_the_first_listed_seat_starts(n: int) -> None:
    from core.rng import Rng

    for seed in ("a", "b", "c"):
        s = GAME.apply(None, GAME.create([f"p{i}" for i in range(n)], {}))
        first = checked_decide(GAME, s, CHANCE, GAME.chance(s, Rng.derive(seed, 1)))
        s, more = run_to_decision(after(s, first))
        evs = [*first, *more]
        started = [e for e in evs if isinstance(e, ev.TurnStarted)]
        assert started[0] == ev.TurnStarted(0, 1)  # [PL-13]
        assert GAME.to_act(s) == (0,)


def test_pl14_the_solo_opponent_gets_no_ingenuity_starting_card() -> None:
    from core.rng import Rng
    from core.point_city.cards import START_CARDS
    from core.point_city.scoring import opponent_lines

    s = GAME.apply(None, GAME.create(["p0"], {"solo-level": "3"}))
    first = checked_decide(GAME, s, CHANCE, GAME.chance(s, Rng.derive("solo", 1)))
    s, more = run_to_decision(after(s, first))
    evs = [*first, *more]
    dealt = [e for e in evs if isinstance(e, ev.StartCardsDealt)]
    assert dealt == [ev.StartCardsDealt(START_CARDS[:1])]  # [PL-14] one card: the player's
    assert s.seats[0].resources == (START_CARDS[0],) and s.opponent.resources == ()
    # level 3's "+1 per Ingenuity card" counts only the Ingenuity cards it takes
    wild = cards(lambda c: c.resource == "ingenuity" and c.tier == 2, 2)
    took = table(step="over", solo_level=3, opponent=Seat((wild[0], res("economy")[0]), (), ()))
    line = [x for x in opponent_lines(took) if x.label == "Ingenuity cards"]
    assert line and line[0].points == 1


def test_pl12_options_are_shown_only_where_they_apply() -> None:
    two = GAME.create(["ann", "bob"], {"solo-level": "2"})
    assert GAME.describe(two, two.players) == "Point City for ann, bob"  # [PL-12]
    one = GAME.create(["ann"], {"solo-level": "2"})
    assert GAME.describe(one, one.players) == "Point City for ann (solo-level=2)"


def test_an_unpayable_building_is_refused_as_such_naming_what_is_missing() -> None:
    """PC-3 (the book: you cannot take a building you cannot build): the message says
    the building cannot be paid for and by how much, not that a payment is missing."""
    c = civic("energy")[0]  # costs energy*3
    e1 = res("energy")[0]
    other = res("economy")[0]
    s = table({"B2": (c, True), "C2": (other, False)}, hands=[(e1,)], top=res("industry")[0],
              hidden=(5, 0, 0))
    cmd = GAME.parse_command(s, 0, "take B2 C2")
    exc = illegal(s, cmd, "PC-3")
    assert f"building {c} cannot be paid for" in exc.reason
    assert "energy 1" in exc.reason and "0 Ingenuity" in exc.reason and "2 short" in exc.reason
    assert "exactly one payment" not in exc.reason
    # payable but no payment named: still the payment message
    rich = table({"B2": (c, True), "C2": (other, False)}, hands=[tuple(res("energy", 3))],
                 top=res("industry")[0], hidden=(5, 0, 0))
    exc = illegal(rich, Take((cell("B2"), cell("C2"))), "PC-3")
    assert "exactly one payment" in exc.reason
