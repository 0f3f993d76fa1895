"""The project's own Card City rulings (docs/rulings.md, CL-1 … CL-6)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from core.autoplay import play_game
from core.card_city import events as ev
from core.card_city.boardfile import parse_board, where
from core.card_city.commands import Build, Discard
from core.card_city.game import GAME
from core.card_city.rules import advance
from core.card_city.state import Hand, State
from core.engine import BoardFileError, IllegalCommand, checked_decide


def construction(n: int, hands: list[tuple[str, ...]], coins: int = 3) -> State:
    s = GAME.apply(None, GAME.create([f"p{i}" for i in range(n)], {}))
    players = tuple(replace(p, hand=Hand(h), coins=coins) for p, h in zip(s.players, hands, strict=True))
    return replace(s, phase="construction", need_draw=0, players=players)


def test_cl1_development_starts_with_the_last_seat_and_runs_counter_clockwise() -> None:
    from core.card_city.rules import can_develop

    _, events = play_game(GAME, ["a", "b", "c", "d"], "cl1", ["greedy"] * 4)
    state = None
    turns = 0
    for e in events:
        if isinstance(e, ev.DevelopTurn):
            # every seat passed over on the way (counter-clockwise) had nothing to develop
            seat = state.dev_next
            while seat != e.seat:
                assert not can_develop(state, seat)
                seat = (seat - 1) % 4
            turns += 1
        state = GAME.apply(state, e)
        if isinstance(e, ev.PhaseStarted) and e.phase == "development":
            assert state.dev_next == (state.first - 1) % 4  # the last seat in turn order
    assert turns > 0, "no development happened in this game"


def test_cl2_unbuildable_cards_are_discarded_automatically_naming_the_rule() -> None:
    s = construction(2, [("L",), ("R", "L")], coins=3)
    auto = advance(s)
    assert auto == (ev.Discarded(seat=0, card="L", rule="CC-2", reason=auto[0].reason),)
    assert "Leisure costs 5 coins" in auto[0].reason


def test_cl2_a_player_may_discard_an_unbuildable_card_but_not_a_buildable_one() -> None:
    s = construction(2, [("P", "L"), ("R", "C")], coins=3)
    events = checked_decide(GAME, s, 0, Discard("L"))
    assert events[0] == ev.Discarded(seat=0, card="L", rule="CC-2", reason=events[0].reason, chosen=True)
    with pytest.raises(IllegalCommand) as exc:
        checked_decide(GAME, s, 0, Discard("P"))
    assert exc.value.rule == "CC-2"
    checked_decide(GAME, s, 0, Build("P", 0, 1))


def test_cl3_the_pawn_passes_nine_times_in_ten_rounds() -> None:
    _, events = play_game(GAME, ["a", "b", "c"], "cl3", ["random"] * 3)
    passes = [e.to for e in events if isinstance(e, ev.PawnPassed)]
    assert passes == [(i + 1) % 3 for i in range(9)]
    last_round = max(i for i, e in enumerate(events) if isinstance(e, ev.RoundStarted))
    assert not any(isinstance(e, ev.PawnPassed) for e in events[last_round:])


def test_cl4_offers_go_clockwise_from_the_current_divider() -> None:
    from core.card_city.commands import Draw, SplitCards, Take

    s = replace(GAME.apply(None, GAME.create(["a", "b", "c", "d"], {})), round=2)
    for seat, cmd in [(-1, Draw(tuple("RRCCIIPP")))]:
        s = GAME.fold(checked_decide(GAME, s, seat, cmd), s)
    split = checked_decide(GAME, s, 0, SplitCards(("R", "R"), ("C", "C", "I"), ("I", "P", "P")))
    assert split[0].to == 1
    s = GAME.fold(split, s)
    s = GAME.fold(checked_decide(GAME, s, 1, Take("rest")), s)
    assert GAME.to_act(s) == (1,)  # b divides now
    again = checked_decide(GAME, s, 1, SplitCards(("C", "C"), ("I", "P"), ("I", "P")))
    assert again[0].to == 2  # clockwise from b, skipping a who holds cards


def test_cl5_a_card_not_connected_to_the_city_is_a_malformed_board() -> None:
    with pytest.raises(BoardFileError) as exc:
        parse_board("H R . . .\n. . . . .\n. . . P .\n. . . . .\n. . . . .\n", "b.txt")
    assert str(exc.value).startswith("b.txt:3:7:") and "CL-5" in str(exc.value)


def test_cl6_where_without_coins_does_not_hold_leisure_cost_against_a_square() -> None:
    board = "H . . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .\n"
    free = where(board, "b", "L", {})
    poor = where(board, "b", "L", {"coins": "4"})
    assert free.data["legal"] == ["F5", "E6"] and poor.data["legal"] == []  # [CL-10]: City Hall E5
    assert {x["rule"] for x in poor.data["illegal"]} == {"CC-2"}


def test_cl7_where_answers_for_the_squares_of_the_typed_board_only() -> None:
    """City Hall in the top-left corner: the squares above and left of it are not on
    the typed 5 × 5, so they are neither listed as legal nor as illegal."""
    board = "H R . . .\nC . . . .\n. . . . .\n. . . . .\n. . . . .\n"
    for card, coins in (("R", {}), ("L", {"coins": "3"}), ("P", {})):
        got = where(board, "b", card, coins)
        squares = got.data["legal"] + [x["square"] for x in got.data["illegal"]]
        # [CL-10]: City Hall is E5, so the typed 5 × 5 is columns E–I, rows 5–9
        assert squares and all(s[0] in "EFGHI" and s[1] in "56789" for s in squares), squares
        assert not any(f" {x}" in got.text for x in ("D5", "E4"))
    # the corner is the whole answer: the city may grow right and down
    got = where(board, "b", "R", {})
    answered = got.data["legal"] + [x["square"] for x in got.data["illegal"]]
    assert sorted(answered) == ["E7", "F6", "G5"]
    # a full-width row still gets every free square of the typed board answered
    wide = ". . . . .\nR R H C C\n. . . . .\n. . . . .\n. . . . .\n"
    got = where(wide, "b", "I", {})
    answered = got.data["legal"] + [x["square"] for x in got.data["illegal"]]
    assert sorted(answered) == sorted(f"{c}{r}" for c in "CDEFG" for r in (4, 6))


@pytest.mark.parametrize(
    ("kind", "box", "grid"),
    [
        ("L", 12, ["L L L L L", "L L H L L", "L L L L .", ". . . . .", ". . . . ."]),
        ("P", 16, ["P P P P P", "P P H P P", "P P P P P", "P P P . .", ". . . . ."]),
        ("I", 20, ["I I I I I", "I I H I I", "I I I I I", "I I I I I", "I I . . ."]),
    ],
)
def test_a_city_with_more_cards_of_a_kind_than_the_box_holds_is_refused(
    kind: str, box: int, grid: list[str]
) -> None:
    from core.card_city.boardfile import score_board

    text = "\n".join(grid) + "\n"
    with pytest.raises(BoardFileError) as exc:
        score_board(text, "b.txt", {"coins": "0"})
    # the first card over the count, in reading order, is named
    cells = [(r, c) for r, row in enumerate(grid) for c, t in enumerate(row.split()) if t == kind]
    r, c = cells[box]
    assert str(exc.value).startswith(f"b.txt:{r + 1}:{2 * c + 1}:")
    assert f"{box + 1} " in str(exc.value) and f"the box holds {box}" in str(exc.value)
    # one card fewer is a board the box allows
    fewer = text[: text.rindex(kind)] + "." + text[text.rindex(kind) + 1:]
    assert parse_board(fewer, "b.txt")
