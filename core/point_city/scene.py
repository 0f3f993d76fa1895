"""Point City as a scene (core/scene.py): the 4×4 market (building side or
resource side up), the deck with its known top card, the civic tokens, and each
tableau with its score so far."""

from __future__ import annotations

from core.point_city.cards import CARDS, TYPES, WILD
from core.point_city.rules import to_act
from core.point_city.scoring import opponent_score, seat_score
from core.point_city.names import ABBR, LEGEND
from core.point_city.state import Seat, State, deck_size, permanents
from core.point_city.tokens import TOKENS
from core.scene import Cell, Panel, Scene
from core.words import plural

COLOUR = {  # the terminal's colours (text.py), as fills
    "community": "#35b8c9",
    "economy": "#f2c531",
    "energy": "#e0443e",
    "ecology": "#4caf50",
    "industry": "#8d939b",
    WILD: "#c05fc4",
}
INK = {"energy": "#ffffff", "ecology": "#ffffff", "industry": "#ffffff", WILD: "#ffffff"}
EMPTY = "#f4f1ea"


def _name(cid: int) -> str:
    """``#12``; a card known by its resource side only (a negative face id, PL-13): its tier."""
    return f"#{cid}" if cid >= 0 else f"tier {CARDS[cid].tier}"


def _resource(cid: int, row: int, col: int) -> Cell:
    card = CARDS[cid]
    n = f"×{card.symbols}" if card.symbols > 1 else ""
    hidden = " (its building side is hidden [PL-16])" if cid < 0 else ""
    return Cell(
        row, col, f"resource:{card.resource}", COLOUR[card.resource], f"{_name(cid)}\n{ABBR[card.resource]}{n}",
        (), f"{_name(cid)} resource side: {card.symbols} {card.resource}{hidden}", INK.get(card.resource, "#111111"),
    )


def _building(cid: int, row: int, col: int) -> Cell:
    card = CARDS[cid]
    cost = " ".join(f"{n if n > 1 else ''}{ABBR[t]}" for t, n in card.cost) or "free"
    what = (f"→{ABBR[card.produces]}" + (f" {card.vp}VP" if card.vp else "")) if card.produces else f"{card.vp}VP"
    return Cell(
        row, col, f"building:{card.kind}", "#fbf6e9",
        f"#{cid} {what}\n{cost}", ("building",),
        f"#{cid} building ({card.kind}): costs {cost}, {what}", "#3b2a10",
    )


PER_ROW = 8
"""Cards per tableau row (a long tableau wraps)."""


def _kind_order(cid: int) -> tuple[int, int, int]:
    """Cards of a kind together: producers by what they make, then points, then civic."""
    card = CARDS[cid]
    kinds = ("producer", "points", "civic")
    made = card.produces or card.resource
    return (kinds.index(card.kind) if card.kind in kinds else 3, (*TYPES, WILD).index(made), cid)


def _tableau(name: str, who: Seat, score: int, marks: tuple[str, ...], owner: int | None) -> Panel:
    """A seat's buildings (row B) and resource cards (row R), each grouped by kind."""
    cells: list[Cell] = []
    labels: list[str] = []
    buildings = tuple(sorted(who.buildings, key=_kind_order))
    resources = tuple(sorted(who.resources, key=lambda c: ((*TYPES, WILD).index(CARDS[c].resource), c)))
    for tag, cards, make in (("B", buildings, _building), ("R", resources, _resource)):
        first = len(labels)
        for i, cid in enumerate(cards):
            cells.append(make(cid, first + i // PER_ROW, i % PER_ROW))
        rows = max(1, -(-len(cards) // PER_ROW))
        labels += [tag] + [""] * (rows - 1)
    perms = permanents(who.buildings)
    notes = (
        "permanent: " + (" ".join(f"{ABBR[t]}×{n}" for t, n in zip(TYPES, perms) if n) or "none"),
        "tokens: " + (", ".join(TOKENS[t].name for t in who.tokens) or "none") + f" · {score} point{'' if score == 1 else 's'}",
    )
    cols = min(PER_ROW, max(len(who.buildings), len(who.resources), 1))
    return Panel(name, len(labels), cols, tuple(cells), row_labels=tuple(labels), notes=notes,
                 marks=(*marks, "flow"), cell_width=2, owner=owner,
                 summary=_summary(resources, who.buildings))


def _summary(resources: tuple[int, ...], buildings: tuple[int, ...]) -> str:
    """What a payment can use, short: the resource cards as the commands name them and
    the permanent resources by type (``holds 148 Eco×2, 12 Ing · permanent Ene×2 Com``)."""
    held = ", ".join(f"{_name(c).lstrip('#')} {ABBR[CARDS[c].resource]}"
                     + (f"×{CARDS[c].symbols}" if CARDS[c].symbols > 1 else "") for c in resources)
    perms = " ".join(f"{ABBR[t]}×{n}" if n > 1 else ABBR[t] for t, n in zip(TYPES, permanents(buildings)) if n)
    return f"holds {held or 'nothing'} · permanent {perms or 'none'}"


def market_panel(s: State) -> Panel:
    """The 4×4 market: A–D across, 1–4 down (the commands' cell names)."""
    market = []
    for i, slot in enumerate(s.market):
        r, c = divmod(i, 4)
        if not slot.card:
            market.append(Cell(r, c, "empty", EMPTY, "—", (), "a gap", "#9a9a9a"))
        else:
            market.append(_building(slot.card, r, c) if slot.building else _resource(slot.card, r, c))
    marker: tuple[str, ...] = ()
    notes = [
        f"deck: {plural(deck_size(s), 'card')}" + (f", top {_name(s.top)} {ABBR[CARDS[s.top].resource]}" if s.top else ""),
        "civic tokens: " + (", ".join(TOKENS[t].name for t in s.display) or "none"),
    ]
    if s.solo_level:
        marker = (f"solo marker at {'ABCD'[s.marker_col]}{s.marker_row + 1}",)
    return Panel("market", 4, 4, tuple(market), row_labels=tuple("1234"), col_labels=tuple("ABCD"),
                 notes=tuple(notes) + marker, cell_width=2, marks=("board",))


def scene(s: State, seat: int | None) -> Scene:
    actors = to_act(s)
    panels = [market_panel(s)]
    scores = []
    for i, who in enumerate(s.seats):
        marks = tuple(m for m, on in (("active", i in actors), ("you", i == seat)) if on)
        score = seat_score(who)
        panels.append(_tableau(s.players[i], who, score, marks, i))
        scores.append((s.players[i], score))
    if s.final and not actors:  # the final scores as the game recorded them
        scores = [(name, v) for (name, _), v in zip(scores, s.final)]
    if s.solo_level:
        score = opponent_score(s)
        panels.append(_tableau(f"solo opponent (level {s.solo_level})", s.opponent, score, (), None))
        scores.append(("opponent", score))
    # between the events of one decision nobody acts, yet the game goes on
    status = [f"round {s.round} · {s.step}" if actors or s.step != "over" else "game over"]
    if actors:
        status.append("to act: " + ("the draw" if actors == (-1,) else ", ".join(s.players[a] for a in actors)))
    legend = tuple((COLOUR[t], f"{ABBR[t]} {'Ingenuity (wild: any type)' if t == WILD else t}")
                   for t in (*TYPES, WILD)) + (
        ("#fbf6e9", "building side: →what it produces and its VP (or its VP alone), then its cost"),
    )
    return Scene("Point City", tuple(status), tuple(panels), tuple(scores), legend=legend, notation=LEGEND)
