"""Issue 23, PL-17: a take paid with the pick's tier-2/3 Ingenuity card.

Rules pc-2 read such a card, known by its face, as two wild symbols that its
payment planner never used, so ``legal`` (and all built on it) missed takes
``decide`` accepted.  From a seeded game, at the first such position, every
path agrees with ``decide``: ``legal``, the play prompt's numbered list,
``citylog legal --json``, the bots, and PL-7's "no legal take" ending; and, as a
law on random games, PL-7 never ends a game while ``decide`` accepts a take.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from core import registry
from core.engine import IllegalCommand, checked_decide
from core.rng import Rng
from tests.cli.clirun import ok
from tests.test_legality_law import _pc_canonical, _pc_space, positions

GAME = registry.get("point-city")
SEED = "ing-2"


def _ingenuity_pick(s: Any, cmd: Any) -> bool:
    """A take paying with the pick's own resource card, a tier-2/3 Ingenuity card."""
    from core.point_city.cards import CARDS, WILD
    from core.point_city.commands import PICKED, Take

    if not isinstance(cmd, Take):
        return False
    picked = [s.market[c].card for c in cmd.cells if not s.market[c].building]
    return bool(picked) and CARDS[picked[0]].resource == WILD and CARDS[picked[0]].tier >= 2 and any(
        PICKED in p.cards for p in cmd.pays)


def _missed_by_pc2(s: Any, seat: int) -> Any | None:
    """A take of today's listing that pc-2's listing had nothing like (its planner left
    the pick's tier-2/3 Ingenuity card out: :func:`core.point_city.older.pc2_unused`)."""
    from core.point_city.older import pc2_unused
    from core.point_city.rules import PAIRS, takes

    for a, b in PAIRS:
        old = {_pc_canonical(s, t) for t in takes(s, seat, a, b, None, pc2_unused)}
        for t in takes(s, seat, a, b):
            if _ingenuity_pick(s, t) and _pc_canonical(s, t) not in old:
                return t
    return None


def _seeded_position(db: Path) -> tuple[str, Any, Any]:
    """alice (greedy moves, seeded) against a greedy bob, up to the first position where
    she has a take pc-2 did not list: (game id, true state, that take)."""
    from core.point_city.bots import greedy_bot
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(db))
    gid = svc.create("point-city", ["alice", "bob"], seed=SEED, bots={1: "greedy"})
    for _ in range(60):
        loaded = svc.load(gid)
        s = loaded.state
        assert GAME.to_act(s) == (0,), "the seeded game ended before such a position"
        missed = _missed_by_pc2(s, 0)
        if missed is not None:
            return gid, s, missed
        svc.submit(gid, 0, greedy_bot(GAME, GAME.view(s, 0), 0, Rng.derive(SEED, loaded.version)))
    raise AssertionError("no such position in 60 decisions")


def test_a_take_paid_with_an_ingenuity_pick_is_listed_everywhere_decide_accepts_it(tmp_path: Path) -> None:
    from core.point_city.bots import _best, after, seat_value
    from core.point_city.older import pc2_has_take
    from core.point_city.rules import has_take, next_auto
    from core.point_city.state import deck_size

    db = tmp_path / "c.db"
    gid, s, take = _seeded_position(db)
    text = GAME.format_command(take)
    assert re.fullmatch(r"take [A-D][1-4] [A-D][1-4] pay [A-D][1-4]=.*", text)
    # decide accepts it, legal lists it (pc-2's listing did not: _missed_by_pc2)
    checked_decide(GAME, s, 0, take)
    listed = [GAME.format_command(c) for c in GAME.legal(s, 0)]
    assert text in listed
    assert {_pc_canonical(s, c) for c in GAME.legal(s, 0)} == {
        _pc_canonical(s, c) for c in _pc_space(s, 0) if GAME.is_legal(s, 0, c)}
    # from alice's view too (what the prompt, a bot and a file's legal use)
    assert text in [GAME.format_command(c) for c in GAME.legal(GAME.view(s, 0), 0)]

    # legal --json
    shown = json.loads(ok(db, "legal", gid, "--as", "alice", "--json"))
    assert text in shown["legal"] and sorted(shown["legal"]) == sorted(listed)

    # the play prompt (issue 26 item 2): the take first, then this payment among its
    # payments in the second step, and its number there plays it
    pick, tail = text.split(" pay ", 1)[0], "pay " + text.split(" pay ", 1)[1]  # "take A1 B1", "pay …"
    out = ok(db, "play", gid, "--as", "alice", input=f"{pick}\nback\nq\n")
    step = out.split("alice (payment)> ")[0].split("alice> ")[-1]
    numbers = {t: n for n, t in re.findall(r"^\s+(\d+)\. (.+)$", step, re.MULTILINE)}
    assert tail in numbers, step
    ok(db, "play", gid, "--as", "alice", input=f"{pick}\n{numbers[tail]}\nq\n")
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    after_play = GameService(SqliteStore(db)).load(gid)
    taken = [e for e in after_play.events if type(e).__name__ == "CardsTaken" and e.seat == 0]
    assert taken and tuple(taken[-1].cells) == tuple(take.cells)

    # the bots: a random command is always a listed one, and the draw reaches this take;
    # greedy weighs every listed command (its best is at least this take's value)
    drawn = {GAME.format_command(GAME.search.random_command(s, 0, Rng.derive("draw", i))) for i in range(3000)}
    assert drawn <= set(listed) and any(_pc_canonical(s, GAME.parse_command(s, 0, d)) == _pc_canonical(s, take)
                                        for d in drawn)
    value, best = _best(GAME, s, 0, deck_size(s), None)
    assert value >= seat_value(after(s, 0, take), deck_size(s)) - 1e-9
    assert {GAME.format_command(c) for c in best} <= set(listed)

    # PL-7 with the deck run out: stuck exactly when decide accepts no take; and with
    # only Ingenuity cards left resource side up, pc-2's test ended the game although
    # this take was still accepted
    for board in (replace(s, hidden=(0, 0, 0), top=0), _ingenuity_market(s, take)):
        accepted = _takes_accepted(board, 0)
        assert has_take(board, 0) == bool(accepted) and (next_auto(board) is None) == bool(accepted)
    board = _ingenuity_market(s, take)
    assert any(_pc_canonical(board, c) == _pc_canonical(board, take) for c in _takes_accepted(board, 0))
    # (every take left there pays with an Ingenuity pick): pc-2 ended the game [PL-7]
    assert all(_ingenuity_pick(board, c) for c in _takes_accepted(board, 0))
    assert not pc2_has_take(board, 0)


def _ingenuity_market(s: Any, take: Any) -> Any:
    """``s`` with the deck run out and every market card building side up but the
    Ingenuity cards (the take's among them)."""
    from core.point_city.cards import CARDS, WILD

    return replace(s, hidden=(0, 0, 0), top=0, market=tuple(
        x if not x.card or x.building or CARDS[x.card].resource == WILD else replace(x, building=True)
        for x in s.market))


def _takes_accepted(s: Any, seat: int) -> list[Any]:
    """The takes of the enumerated space that decide accepts (flips are no take, PL-7)."""
    from core.point_city.commands import Take, TakeDeck

    return [c for c in _pc_space(s, seat) if isinstance(c, Take | TakeDeck) and GAME.is_legal(s, seat, c)]


@given(data=st.data())
def test_pl7_never_ends_a_game_while_decide_accepts_a_take(data: st.DataObject) -> None:
    """The law form: at random positions of random games, with the deck run out (and
    with the market's resource sides other than Ingenuity ones turned over), PL-7's
    test says "stuck" exactly when no command of the take space is accepted."""
    from core.point_city.cards import CARDS, WILD
    from core.point_city.commands import Take, TakeDeck
    from core.point_city.rules import has_take, next_auto
    from tests.options import draw_options

    n = data.draw(st.integers(1, 4), label="players")
    seed = data.draw(st.text("abcdef0123456789", min_size=1, max_size=8), label="seed")
    policies = [data.draw(st.sampled_from(["random", "greedy"])) for _ in range(n)]
    found = positions(GAME, n, seed, policies, draw_options(GAME, data.draw))
    i = data.draw(st.integers(len(found) // 2, len(found) - 1), label="at")
    s = replace(found[i], hidden=(0, 0, 0), top=0)
    turned = replace(s, market=tuple(
        x if not x.card or x.building or CARDS[x.card].resource == WILD else replace(x, building=True)
        for x in s.market))
    for board in (s, turned):
        seat = board.turn
        accepted = False
        for c in _pc_space(board, seat):
            if not isinstance(c, Take | TakeDeck):
                continue  # a flip is no take [PL-7]
            try:
                checked_decide(GAME, board, seat, c)
            except IllegalCommand:
                continue
            accepted = True
            break
        assert has_take(board, seat) == accepted
        assert (next_auto(board) is None) == accepted  # GameEnded("stuck") [PL-7] otherwise


def test_a_pc2_game_is_re_decided_by_pc2s_pl7_test() -> None:
    """A seeded game played under pc-2's rules ends "stuck" [PL-7] while today's decide
    still accepts a take: re-deciding its commands, pc-2's rules (``for_rules("pc-2")``)
    give its events back, today's do not (so a pc-2 log is verified by pc-2's rules)."""
    from core.autoplay import play_game
    from core.point_city import events as ev
    from core.point_city.rules import has_take

    pc2 = GAME.for_rules("pc-2")
    assert pc2 is not None and pc2.spec.rules_version == "pc-2" != GAME.spec.rules_version
    _, events = play_game(pc2, ["p0", "p1"], "stuck-5", ["random", "random"], {})
    assert events[-2] == ev.GameEnded("stuck")

    def redecided(game: Any) -> list[Any]:
        state, out, i = game.apply(None, events[0]), [events[0]], 1
        while i < len(events):
            opened = game.command_of(events[i])
            if opened is None:  # the log goes on with an event these rules did not make
                return out
            produced, state = game.step(state, *opened)
            out += produced
            i += len(produced)
        return out

    assert redecided(pc2) == events
    today = redecided(GAME)
    assert today != events and ev.GameEnded("stuck") not in today
    before = GAME.fold(events[:-2])
    assert has_take(before, before.turn)


def test_a_card_and_its_face_give_and_show_the_same_symbols() -> None:
    """One source for a card's symbols [PL-17]: every card, by id or by its face alone
    [PL-16], gives what ``resource_symbols`` says (an Ingenuity side one wild symbol,
    PL-5), pays the same in the planner and prints the same (``Ing``, never ``Ing×2``)."""
    from core.point_city.cards import CARDS, WILD, face_of, resource_symbols
    from core.point_city.payment import supply
    from core.point_city.names import resource_text

    for c in sorted(k for k in CARDS if k > 0):
        card, face = CARDS[c], CARDS[face_of(c)]
        assert (face.tier, face.resource, face.symbols) == (card.tier, card.resource, card.symbols), c
        assert card.symbols == resource_symbols(card.tier, card.resource)
        assert supply((c,), ()) == supply((face_of(c),), ())
        assert resource_text(face) == resource_text(card)
        if card.resource == WILD:
            assert card.symbols == 1 and resource_text(face) == "Ing"


def test_show_prints_a_market_ingenuity_card_as_one_wild_symbol(tmp_path: Path) -> None:
    """The seeded position's market, as every seat sees it: its tier-2/3 Ingenuity cards
    print as ``Ing`` (rules pc-2 printed them ``Ing×2``)."""
    from core.point_city.cards import CARDS, WILD, face_of

    _, s, take = _seeded_position(tmp_path / "c.db")
    cell = next(c for c in take.cells if not s.market[c].building)
    assert CARDS[s.market[cell].card].resource == WILD and CARDS[s.market[cell].card].tier >= 2
    for seat in (0, 1, None):
        shown = GAME.view(s, seat)
        assert shown.market[cell].card == face_of(s.market[cell].card)
        text = GAME.render(shown, seat)
        assert "Ing×" not in text and "Ing" in text
