"""Final scores [PC-6], civic tokens [PC-5] and the solo opponent's score [PC-7]."""

from __future__ import annotations

from core.engine import Breakdown, Result, ScoreLine
from core.point_city.cards import CARDS
from core.point_city.state import Seat, State, ingenuity_cards, permanents
from core.point_city.tokens import TOKENS, points

OPPONENT_TOKEN = {1: 3, 2: 5, 3: 7}
OPPONENT_TYPE = {1: (0, 1, 1, 1), 2: (0, 1, 2, 3), 3: (0, 1, 3, 6)}
"""Points per type held 0/1/2/3+ (level 1 scores each permanent resource instead)."""


def seat_lines(who: Seat) -> tuple[ScoreLine, ...]:
    perms = permanents(who.buildings)
    wild = ingenuity_cards(who.resources)
    vp = sum(CARDS[b].vp for b in who.buildings)
    lines = [ScoreLine("buildings", vp, f"{len(who.buildings)} built")]
    for t in who.tokens:
        tok = TOKENS[t]
        # t18, as show's civic tokens line and a payment (pay B1=…,t18) name it; #18 is a card
        lines.append(ScoreLine(f"token: {tok.name}", points(tok, perms, wild), f"t{t}"))
    return tuple(lines)


def seat_score(who: Seat) -> int:
    return sum(x.points for x in seat_lines(who))


def opponent_lines(s: State) -> tuple[ScoreLine, ...]:
    """PC-7: the solo opponent's score at the game's level."""
    level = s.solo_level
    who = s.opponent
    perms = permanents(who.buildings)
    vp = sum(CARDS[b].vp for b in who.buildings)
    lines = [ScoreLine("buildings", vp, f"{len(who.buildings)} built")]
    if level == 1:
        lines.append(ScoreLine("permanent resources", sum(perms), "1 each"))
    else:
        table = OPPONENT_TYPE[level]
        held = sum(table[min(n, 3)] for n in perms)
        per = "/".join(str(x) for x in table[1:])
        lines.append(ScoreLine("types held", held, f"{per} per type held 1/2/3+"))
    lines.append(ScoreLine("tokens", OPPONENT_TOKEN[level] * len(who.tokens),
                           f"{len(who.tokens)} × {OPPONENT_TOKEN[level]}"))
    if level == 3:
        lines.append(ScoreLine("Ingenuity cards", ingenuity_cards(who.resources), "1 each"))
    return tuple(lines)


def opponent_score(s: State) -> int:
    return sum(x.points for x in opponent_lines(s))


def winners(s: State) -> tuple[int, ...]:
    """PC-6: most points, then most unspent resource cards; still tied shares the win.

    Solo: the opponent takes part in the comparison like a seat [PL-10];
    an empty tuple means the opponent won (the breakdown's title says so).
    """
    keys = [(seat_score(x), len(x.resources)) for x in s.seats]
    best = max(keys)
    if s.solo_level:
        bot = (opponent_score(s), len(s.opponent.resources))
        return (0,) if keys[0] >= bot else ()
    return tuple(i for i, k in enumerate(keys) if k == best)


def result(s: State) -> Result | None:
    """The recorded result (the log is the truth), with breakdowns by the card list.

    A game scored under an older card list [PL-15] keeps its recorded scores and
    winners; a breakdown that today's list prices differently says so in its title.
    """
    if s.step != "over":
        return None
    wins = winners(s)
    recorded = s.final if len(s.final) == len(s.seats) else None
    breakdowns = []
    for i, who in enumerate(s.seats):
        lines = seat_lines(who)
        total = sum(x.points for x in lines)
        title = ""
        if s.solo_level:
            bot = opponent_score(s)
            detail = ", ".join(f"{x.label} {x.points}" for x in opponent_lines(s))
            tied = total == bot and len(who.resources) == len(s.opponent.resources)
            verdict = "shared the win with" if tied else ("won against" if wins else "lost to")
            title = f"{verdict} the level {s.solo_level} opponent: {total} vs {bot} ({detail})"
        if recorded is not None and recorded[i] != total:
            title = (f"{title}; " if title else "") + (
                f"recorded {recorded[i]} under an older card list; today's list prices it {total}")
        breakdowns.append(Breakdown(i, lines, total, (len(who.resources),), title))
    # Solo: no winner among the seats when the opponent won (PL-10); the title
    # gives the verdict and both scores.
    if recorded is not None:
        return Result(recorded, s.final_winners, tuple(breakdowns))
    return Result(tuple(b.total for b in breakdowns), wins, tuple(breakdowns))


