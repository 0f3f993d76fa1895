"""Text: ``describe``/``explain`` events, ``render`` the table, ``parse``/``format`` commands.

Market cells are named by column letter and row number: ``A1`` is the top
left, ``D4`` the bottom right.  Command syntax (case-insensitive)::

    flip B3                      turn B3 to its building side [PC-3]
    deck                         take the top two cards of the deck
    take A1 A2                   take two adjacent market cards; buildings
                                 are paid the cheapest way (best token first)
    take A1 B1 pay B1=12,15,p40,t7
                                 …paying building B1 with resource cards 12
                                 and 15 and the permanent resource of
                                 building 40, taking civic token 7; give one
                                 ``pay CELL=…`` per building taken
    reveal 37                    chance: card 37 turns up on top of the deck
    tokens 3 14 1 …              chance: the civic tokens laid out, leftmost first

>>> format_command(parse_command(None, 0, "take a1 a2"))
'take A1 A2'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from core.dispatch import handler
from core.engine import BadCommandSyntax
from core.markup import escape
from core.point_city import events as ev
from core.point_city.cards import CARDS, TYPES, Card
from core.point_city.commands import PICKED, Command, Flip, LayOut, Pay, Reveal, Take, TakeDeck
from core.point_city.names import cell_name, cost_text, resource_text, symbol_text
from core.point_city.rules import adjacent, default_take
from core.point_city.scoring import opponent_score, seat_score
from core.point_city.state import State, deck_size, permanents
from core.point_city.tokens import TOKENS
from core.words import plural


def parse_cell(word: str) -> int:
    w = word.strip().upper()
    if len(w) != 2 or w[0] not in "ABCD" or w[1] not in "1234":
        raise BadCommandSyntax(f"{word!r} is not a market cell (A1–D4)")
    return (int(w[1]) - 1) * 4 + "ABCD".index(w[0])


def building_text(card: Card, markup: bool = False) -> str:
    if card.kind not in ("producer", "points", "civic"):  # a card known by its face only (PL-16)
        return "building side unknown"
    what = {"producer": f"makes {symbol_text(card.produces, 1, markup)}" if card.produces else "",
            "points": "points", "civic": "civic"}[card.kind]
    return f"{what} {card.vp}VP [{cost_text(card, markup)}]"


def card_id(cid: int) -> str:
    """``#36``; ``#?`` for a card known by its resource side only [PL-16]."""
    return f"#{cid}" if cid > 0 else "#?"


@lru_cache(maxsize=None)
def card_text(cid: int, building: bool, markup: bool = False) -> str:
    """A card's id and the side named (memoised: a pure function of a card id
    — ``CARDS`` and ``FACES`` never change — and two flags, a few hundred values)."""
    card = CARDS[cid]
    side = building_text(card, markup) if building else resource_text(card, markup)
    return f"{card_id(cid)} {side}"


def _who(seat: int, players: Sequence[str]) -> str:
    return players[seat] if 0 <= seat < len(players) else f"seat {seat}"


def _pay_text(p: Pay) -> str:
    parts = [f"card {card_id(c)}" for c in p.cards] + [f"#{b}'s {CARDS[b].produces}" for b in p.perms]
    tok = f", token {TOKENS[p.token].name}" if p.token else ""
    return f"{cell_name(p.cell)} paid with {', '.join(parts)}{tok}"


def _created(e: ev.Created, players: Sequence[str]) -> str:
    # PL-12: solo-level is used only with one player, so it is shown only then.
    opts = " ".join(f"{k}={v}" for k, v in e.options if k != "solo-level" or len(e.players) == 1)
    return (f"Point City for {', '.join(e.players)}{f' ({opts})' if opts else ''}"
            f"{' at the table' if e.table else ''}")


def _laid_out(e: ev.TokensLaidOut, players: Sequence[str]) -> str:
    return "civic tokens laid out: " + "; ".join(TOKENS[t].name for t in e.tokens)


def _removed(e: ev.CardsRemoved, players: Sequence[str]) -> str:
    return "removed unseen: tier 1/2/3 " + "/".join(str(n) for n in e.counts)


def _start_dealt(e: ev.StartCardsDealt, players: Sequence[str]) -> str:
    return "each player gets an Ingenuity starting card"


def _revealed(e: ev.CardRevealed, players: Sequence[str]) -> str:
    return f"deck top: {card_text(e.card, False)}"


def _dealt(e: ev.MarketDealt, players: Sequence[str]) -> str:
    return f"{cell_name(e.cell)} dealt {card_text(e.card, False)}"


def _turn(e: ev.TurnStarted, players: Sequence[str]) -> str:
    return f"round {e.round}: {_who(e.seat, players)} to play"


def _flipped(e: ev.Flipped, players: Sequence[str]) -> str:
    return f"{_who(e.seat, players)} flips {cell_name(e.cell)}: {card_text(e.card, True)}"


def _cards_taken(e: ev.CardsTaken, players: Sequence[str]) -> str:
    got = " and ".join([f"{cell_name(c)} {card_text(k, b)}"
                        for c, k, b in zip(e.cells, e.cards, e.buildings)])
    pays = "; ".join(map(_pay_text, e.pays))
    return f"{_who(e.seat, players)} takes {got}" + (f" ({pays})" if pays else "")


def _deck_taken(e: ev.DeckTaken, players: Sequence[str]) -> str:
    return f"{_who(e.seat, players)} takes the top two of the deck: {card_text(e.card, False)}"


def _second_taken(e: ev.SecondTaken, players: Sequence[str]) -> str:
    return f"{_who(e.seat, players)}'s second deck card: {card_text(e.card, False)}"


def _refilled(e: ev.Refilled, players: Sequence[str]) -> str:
    side = "building" if e.building else "resource"
    return f"{cell_name(e.cell)} refilled, {side} side up: {card_text(e.card, e.building)}"


def _opponent_took(e: ev.OpponentTook, players: Sequence[str]) -> str:
    got = " and ".join([f"{cell_name(c)} {card_text(k, b)}"
                        for c, k, b in zip(e.cells, e.cards, e.buildings)])
    toks = f", token {', '.join(TOKENS[t].name for t in e.tokens)}" if e.tokens else ""
    return f"the solo opponent takes {got}{toks}"


def _ended(e: ev.GameEnded, players: Sequence[str]) -> str:
    return "game over: " + ("the market cannot be refilled" if e.reason == "refill"
                            else "the player to act cannot take two cards")


def _scored(e: ev.Scored, players: Sequence[str]) -> str:
    parts = [f"{_who(i, players)} {n}" for i, n in enumerate(e.scores)]
    if e.opponent:
        parts.append(f"opponent {e.opponent}")
    win = "the solo opponent" if e.opponent_won else ", ".join(_who(i, players) for i in e.winners)
    return f"final scores: {', '.join(parts)}; winner: {win}"


_DESCRIBE: dict[type, Callable[[Any, Sequence[str]], str]] = {
    ev.Created: _created, ev.TokensLaidOut: _laid_out, ev.CardsRemoved: _removed,
    ev.StartCardsDealt: _start_dealt, ev.CardRevealed: _revealed, ev.MarketDealt: _dealt, ev.TurnStarted: _turn,
    ev.Flipped: _flipped, ev.CardsTaken: _cards_taken, ev.DeckTaken: _deck_taken, ev.SecondTaken: _second_taken,
    ev.Refilled: _refilled, ev.OpponentTook: _opponent_took, ev.GameEnded: _ended, ev.Scored: _scored,
}  # fmt: skip
"""Each event class's describer: one look-up a line, not a chain of ``isinstance`` (:mod:`core.dispatch`)."""


def describe(e: object, players: Sequence[str]) -> str:
    f = _DESCRIBE.get(type(e)) or handler(_DESCRIBE, e)
    return f(e, players) if f is not None else repr(e)


# -- rendering ----------------------------------------------------------------
def _cell(s: State, i: int) -> str:
    x = s.market[i]
    if not x.card:
        return "[dim]—[/]"
    return card_text(x.card, x.building, True) if x.building else \
        f"[dim]{card_id(x.card)}[/] {resource_text(CARDS[x.card], True)}"


def _tableau(name: str, who: object, score: int) -> list[str]:
    from core.point_city.state import Seat

    assert isinstance(who, Seat)
    perms = permanents(who.buildings)
    lines = [f"[bold]{name}[/] — {score} point{'' if score == 1 else 's'}"]
    lines.append("  permanent: " + (" ".join(symbol_text(t, n) for t, n in zip(TYPES, perms) if n) or "none"))
    lines.append("  buildings: " + (", ".join(card_text(b, True, True) for b in who.buildings) or "none"))
    lines.append("  resource cards: " + (" ".join(f"{card_id(c)} {resource_text(CARDS[c], True)}"
                                                  for c in who.resources) or "none"))
    lines.append("  tokens: " + (", ".join(TOKENS[t].name for t in who.tokens) or "none"))
    return lines


def render(s: State, seat: int | None) -> str:
    out = [f"[bold]Point City[/] — round {s.round}, step {s.step}"]
    from core.point_city.scene import market_panel  # the scene imports this module's names
    from core.scene_text import panel_markup

    out += panel_markup(market_panel(s))
    top = card_text(s.top, False, True) if s.top else "—"
    out.append(f"deck: {plural(deck_size(s), 'card')}, top {top}")
    out.append("civic tokens: " + ("; ".join(f"t{t} {TOKENS[t].name}" for t in s.display) or "none"))
    for i, who in enumerate(s.seats):
        me = " (you)" if seat == i else ""
        turn = " [reverse]to play[/]" if s.step == "turn" and s.turn == i else ""
        out += _tableau(f"{escape(s.players[i])}{me}{turn}", who, seat_score(who))
    if s.solo_level:
        out += _tableau(f"solo opponent (level {s.solo_level})", s.opponent, opponent_score(s))
    return "\n".join(out)


# -- commands -----------------------------------------------------------------
def format_command(c: Command) -> str:
    if isinstance(c, Flip):
        return f"flip {cell_name(c.cell)}"
    if isinstance(c, TakeDeck):
        return "deck"
    if isinstance(c, Take):
        words = ["take", *(cell_name(x) for x in c.cells)]
        picked = [x for x in c.cells if x not in {p.cell for p in c.pays}]
        for p in c.pays:
            items = [cell_name(picked[0]) if x == PICKED and picked else str(x) for x in p.cards]
            items += [f"p{x}" for x in p.perms]
            items += [f"t{p.token}"] if p.token else []
            words.append(f"pay {cell_name(p.cell)}={','.join(items)}")
        return " ".join(words)
    if isinstance(c, Reveal):
        return f"reveal {c.card}"
    if isinstance(c, LayOut):
        return "tokens " + " ".join(str(t) for t in c.tokens)
    raise BadCommandSyntax(f"not a Point City command: {c!r}")


def _int(word: str, what: str) -> int:
    if not word.isdigit():
        raise BadCommandSyntax(f"{word!r} is not a {what} number")
    return int(word)


def _parse_pay(spec: str) -> Pay:
    cell_s, eq, items_s = spec.partition("=")
    if not eq or not items_s:
        raise BadCommandSyntax(f"write pay CELL=item,item… (got {spec!r})")
    cards: list[int] = []
    perms: list[int] = []
    token = 0
    for item in items_s.split(","):
        item = item.strip().lower()
        if item.startswith("#"):  # a card as the hand shows it: #12
            item = item[1:]
        if item.startswith("p"):
            perms.append(_int(item[1:], "building"))
        elif item.startswith("t"):
            if token:
                raise BadCommandSyntax("one civic token per building")
            token = _int(item[1:], "token")
        elif item[:1].isalpha():  # a cell of the pick: its resource card (PL-16)
            parse_cell(item)
            cards.append(PICKED)
        else:
            cards.append(_int(item, "card"))
    return Pay(parse_cell(cell_s), tuple(cards), tuple(perms), token)


def parse_command(s: State | None, seat: int, text: str) -> Command:
    words = text.strip().split()
    if not words:
        raise BadCommandSyntax("empty command (try: take A1 A2, deck, flip B3)")
    head, rest = words[0].lower(), words[1:]
    if head == "deck" and not rest:
        return TakeDeck()
    if head == "flip" and len(rest) == 1:
        return Flip(parse_cell(rest[0]))
    if head == "reveal" and len(rest) == 1:
        return Reveal(_int(rest[0], "card"))
    if head == "tokens" and rest:
        return LayOut(tuple(_int(w, "token") for w in rest))
    if head == "take" and len(rest) >= 2:
        cells = (parse_cell(rest[0]), parse_cell(rest[1]))
        pays: list[Pay] = []
        tail = rest[2:]
        while tail:
            if tail[0].lower() != "pay" or len(tail) < 2:
                raise BadCommandSyntax(f"expected 'pay CELL=…', got {' '.join(tail)!r}")
            pays.append(_parse_pay(tail[1]))
            tail = tail[2:]
        if pays or s is None:
            return Take(cells, tuple(pays))
        if adjacent(*cells) and any(s.market[c].building for c in cells) and s.step == "turn":
            best = default_take(s, seat, cells)
            if best is not None:
                return Take(cells, best.pays)
        return Take(cells)
    raise BadCommandSyntax(f"cannot read {text!r} (try: take A1 A2, deck, flip B3, reveal 12)")
