"""The card data file (PC-1) and its validator, good and broken files."""

from __future__ import annotations

from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from core.point_city.cards import CARDS, Card, CardDataError, load_cards, parse_cards
from core.point_city.tokens import TOKEN_COUNT, TOKENS

TYPES5 = {"community", "economy", "energy", "ecology", "industry"}
TEXT = resources.files("core.point_city").joinpath("cards.txt").read_text("utf-8")
LINES = TEXT.splitlines()


def _line_of(card_id: int) -> int:
    """1-based line number of a card in the packaged file."""
    for i, line in enumerate(LINES, start=1):
        if line.split("#")[0].split()[:1] == [str(card_id)]:
            return i
    raise AssertionError(card_id)


def _with_line(card_id: int, new: str | None) -> str:
    n = _line_of(card_id)
    lines = list(LINES)
    if new is None:
        del lines[n - 1]
    else:
        lines[n - 1] = new
    return "\n".join(lines) + "\n"


def test_packaged_file_has_the_pc1_figures() -> None:
    by_tier = Counter(c.tier for c in CARDS.values())
    assert by_tier == {1: 65, 2: 50, 3: 45, 0: 4}
    kinds = Counter((c.tier, c.kind) for c in CARDS.values() if c.tier)
    assert kinds == {(1, "producer"): 50, (1, "points"): 5, (1, "civic"): 10,
                     (2, "producer"): 30, (2, "points"): 10, (2, "civic"): 10,
                     (3, "producer"): 20, (3, "points"): 15, (3, "civic"): 10}
    res = Counter((c.tier, c.resource, c.symbols) for c in CARDS.values() if c.tier)
    for t in TYPES5:
        assert res[(1, t, 1)] == 13 and res[(2, t, 2)] == 6 and res[(3, t, 2)] == 5
    assert res[(2, "ingenuity", 1)] == 20 and res[(3, "ingenuity", 1)] == 20
    for c in CARDS.values():
        total = sum(n for _, n in c.cost)
        if c.kind == "civic":
            assert len(c.cost) == 1 and total == {1: 3, 2: 4, 3: 5}[c.tier] and c.vp == 0
        if c.kind == "producer":
            assert c.produces in TYPES5
            lo, hi = {1: (2, 3), 2: (3, 5), 3: (4, 6)}[c.tier]
            assert lo <= total <= hi
    assert all(c.resource == "ingenuity" and not c.kind for c in CARDS.values() if c.tier == 0)


def test_tokens_are_the_pc5_set() -> None:
    assert len(TOKENS) == 26
    kinds = Counter(t.kind for t in TOKENS.values())
    assert kinds == {"flat": 4, "each": 5, "ingenuity": 1, "pair": 10, "two": 1,
                     "three": 1, "missing": 2, "set": 2}
    assert len({t.key for t in TOKENS.values()}) == 22
    assert TOKEN_COUNT == {1: 10, 2: 10, 3: 12, 4: 14}


def test_path_override_loads_another_file(tmp_path: Path) -> None:
    f = tmp_path / "mine.txt"
    f.write_text(TEXT)
    assert load_cards(f) == CARDS
    (tmp_path / "bad.txt").write_text(_with_line(5, None))
    with pytest.raises(CardDataError) as exc:
        load_cards(tmp_path / "bad.txt")
    assert "bad.txt" in str(exc.value)


@pytest.mark.parametrize(
    ("card", "edit", "words"),
    [
        (7, lambda f: f[:4] + ["energy*9"] + f[5:], "cost 9"),  # tier-1 producer cost out of range
        (7, lambda f: f[:4] + ["coal*2"] + f[5:], "unknown resource"),
        (7, lambda f: f[:6], "expected 7 fields"),
        (7, lambda f: f[:3] + ["factory"] + f[4:], "building kind"),
        (7, lambda f: f[:5] + ["9"] + f[6:], "VP 9"),
        (7, lambda f: f[:6] + ["-"], "producer makes"),
        (120, lambda f: f[:1] + ["7"] + f[2:], "tier '7'"),
        (155, lambda f: f[:4] + ["industry*4+energy"] + f[5:], "one type"),
        (8, lambda f: ["7"] + f[1:], "already used on line"),
    ],
)
def test_broken_line_is_named(card: int, edit, words: str) -> None:  # type: ignore[no-untyped-def]
    n = _line_of(card)
    fields = LINES[n - 1].split()
    with pytest.raises(CardDataError) as exc:
        parse_cards(_with_line(card, "\t".join(edit(fields))), "x.txt")
    assert exc.value.line == n
    assert words in str(exc.value) and str(exc.value).startswith(f"x.txt:{n}:")


def test_wrong_counts_are_reported() -> None:
    # one tier-2 card fewer
    with pytest.raises(CardDataError) as exc:
        parse_cards(_with_line(70, None))
    assert "tier 2 has 49 cards" in str(exc.value) and exc.value.line > 0
    # a tier-1 energy resource side turned economy: type counts are off
    energy = next(c.id for c in CARDS.values() if c.tier == 1 and c.resource == "energy")
    f = LINES[_line_of(energy) - 1].split()
    with pytest.raises(CardDataError) as exc:
        parse_cards(_with_line(energy, "\t".join(f[:2] + ["economy"] + f[3:])))
    assert "resource cards; [PC-1] needs 13" in str(exc.value)
    # a producer turned into a points building: kind counts are off (cost/VP kept legal)
    producer = next(c.id for c in CARDS.values() if c.tier == 1 and c.kind == "producer")
    f = LINES[_line_of(producer) - 1].split()
    with pytest.raises(CardDataError) as exc:
        parse_cards(_with_line(producer, "\t".join(f[:3] + ["points", "energy*2", "4", "-"])))
    assert "tier 1 has 49 producer buildings; [PC-1] needs 50" in str(exc.value)
    # a starting card missing
    with pytest.raises(CardDataError) as exc:
        parse_cards(_with_line(164, None))
    assert "starting cards" in str(exc.value)


def test_comments_and_blank_lines_are_ignored() -> None:
    assert parse_cards("# hello\n\n" + TEXT + "\n# bye\n") == {
        k: v.__class__(**{**{f: getattr(v, f) for f in v.__struct_fields__}, "line": v.line + 2})
        for k, v in CARDS.items()
    }


# ---- the list's pricing (PL-15): what the rules audits asked of our own card list ----

OLD_LIST = Path(__file__).parent / "cards_pc1.txt"
"""The list as rules version pc-1 shipped it (kept to show each check catches its faults)."""


def _cost(card: Card) -> Counter[str]:
    return Counter(dict(card.cost))


def dominated(cards: dict[int, Card]) -> list[tuple[int, int]]:
    """(worse, better) pairs of the same tier and kind: ``better`` gives as much VP or
    more for no more of any type, and is not the same building."""
    buildings = [c for c in cards.values() if c.kind]
    return [
        (a.id, b.id)
        for a in buildings for b in buildings
        if a.id != b.id and (a.tier, a.kind) == (b.tier, b.kind)
        and b.vp >= a.vp and _cost(b) <= _cost(a) and (b.vp, _cost(b)) != (a.vp, _cost(a))
    ]


def curve_breaks(cards: dict[int, Card]) -> list[tuple[int, int]]:
    """(cheaper, dearer) points-only pairs of one tier where the dearer does not score more."""
    points = [c for c in cards.values() if c.kind == "points"]
    return [
        (a.id, b.id) for a in points for b in points
        if a.tier == b.tier and a.cost_total < b.cost_total and a.vp >= b.vp
    ]


def demand(cards: dict[int, Card], tier: int | None = None, kind: str | None = None) -> Counter[str]:
    out: Counter[str] = Counter(dict.fromkeys(TYPES5, 0))
    for c in cards.values():
        if c.kind and tier in (None, c.tier) and kind in (None, c.kind):
            out.update(_cost(c))
    return out


def test_the_checks_catch_the_faults_of_the_pc1_list() -> None:
    old = load_cards(OLD_LIST)
    # economy*2 for 0 VP beside economy*2 for 1 VP; economy*5 for 2 VP beside economy*4 for 2
    assert {(4, 1), (121, 118)} <= set(dominated(old))
    assert {(138, 139), (137, 139)} <= set(curve_breaks(old))
    spread = demand(old)
    assert spread["economy"] == 147 and spread["industry"] == 96
    tier3 = demand(old, 3, "producer")
    assert tier3["community"] == 27 and tier3["industry"] == 8


def test_no_building_is_strictly_dominated_in_its_tier_and_kind() -> None:
    """[PL-15] Same or more VP for the same or less of every type: never."""
    assert dominated(CARDS) == []


def test_points_only_cards_score_more_the_more_they_cost() -> None:
    """[PL-15] A monotone value curve, still within PC-1's figures."""
    assert curve_breaks(CARDS) == []
    tier3 = [c for c in CARDS.values() if c.tier == 3 and c.kind == "points"]
    assert {c.vp for c in tier3} == {4, 5, 7}  # PC-1's tier-3 VP values, all used
    assert min(c.cost_total for c in tier3) == 4 and max(c.cost_total for c in tier3) == 7


def test_resource_demand_is_neutral_like_the_supply() -> None:
    """[PL-15] Every tier and kind asks the five types alike (within one symbol), as
    the resource sides supply them alike (PC-1); and so does the whole list."""
    groups = [(None, None)] + [(t, k) for t in (1, 2, 3) for k in ("producer", "points", "civic")]
    for tier, kind in groups:
        counts = demand(CARDS, tier, kind)
        assert max(counts.values()) - min(counts.values()) <= 1, (tier, kind, counts)
    for tier in (1, 2, 3):
        made = Counter(c.produces for c in CARDS.values() if c.tier == tier and c.kind == "producer")
        assert len(set(made.values())) == 1 and set(made) == TYPES5, (tier, made)


def test_a_producer_never_costs_what_it_makes() -> None:
    """[PL-15]"""
    assert [c.id for c in CARDS.values() if c.kind == "producer" and c.produces in dict(c.cost)] == []
