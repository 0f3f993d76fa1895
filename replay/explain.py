"""``explain``: who did what at a seq and why it was legal; ``--try``: would this be?"""

from __future__ import annotations

from typing import Any

from core.engine import CHANCE, IllegalCommand, RulesError, checked_decide, decision_start
from core.chance import Reseeded, describe_reseeded
from core import deadlines
from core.deadlines import Handed, TimedOut
from core.seats import Joined, Revealed, describe_joined, describe_revealed
from core.table_events import PLACED
from core.upgrade import Upgraded, describe_upgraded, rules_at


def explain_at(
    game: Any, events: list[Any], players: tuple[str, ...], seq: int, seeded: bool,
    viewer: int | None = None,
) -> str:
    """``viewer``: the events are that seat's view (its exported file), and the
    explanation uses only what the seat can see."""
    if not 1 <= seq <= len(events):
        raise ValueError(f"--at must be between 1 and {len(events)}, not {seq}")
    before = game.fold(events[: seq - 1]) if seq > 1 else None
    if before is not None and viewer is not None:
        before = game.view(before, viewer)
    event = events[seq - 1]
    if before is None:
        return f"seq 1: {game.describe(event, players)}\nThe game's creation: players, options and setup."
    if type(event) is Joined:
        if event.commitment:
            return (
                f"seq {seq}: {describe_joined(event, players)}\n"
                "A play-by-email seat joined: its moves must be signed with this key, and it committed "
                "to its entropy (salted); every seat reveals once all have joined, and chance starts "
                "once every seat has revealed [CL-S7]."
            )
        return (
            f"seq {seq}: {describe_joined(event, players)}\n"
            "A play-by-email seat joined: its moves must be signed with this key, and its "
            "entropy goes into the deal (chance starts once every seat has joined)."
        )
    if type(event) is Revealed:
        return (
            f"seq {seq}: {describe_revealed(event, players)}\n"
            "The seat's signed reveal: the entropy and salt open the commitment its join chained "
            "before any entropy was shown, so nobody chose an entropy after seeing another's [CL-S7]."
        )
    if type(event) is Reseeded:
        return (
            f"seq {seq}: {describe_reseeded(event)}\n"
            "A fork with a new seed: this line commits to it (salted) before it deals "
            "anything; chance from here on comes from it, revealed with the game's seed [CL-V7]."
        )
    if type(event) in (TimedOut, Handed):
        why = (
            "The host's signed timeout [CL-T1]: by its own clock the seat's decision stood past the "
            "game's deadline; the bot plays it from the seat's own view (the next line), which every "
            "verify re-derives [CL-T2]."
            if type(event) is TimedOut
            else "The player's signed hand-over [CL-T5]: while the bot has the seat it plays each of its "
            "decisions from the seat's own view [CL-T2]."
        )
        return f"seq {seq}: {deadlines.describe(event, players)}\n{why}"
    if type(event) is Upgraded:
        return (
            f"seq {seq}: {describe_upgraded(event)}\n"
            f"Every recorded command before this line, re-decided under {event.to_version}, gives "
            f"byte-identical events; every line after it is decided by {event.to_version} "
            "(verify re-checks both) [CL-U1, CL-U4]."
        )
    lines = [f"seq {seq}: {game.explain(before, event, players)}"]
    opened = game.command_of(event)
    if opened is not None:
        seat, command = opened
        if seat == CHANCE:
            placed = sum(type(e) in PLACED for e in events[: seq - 1])
            index = f"seq {seq}" if not placed else f"draw index {seq - placed} (seq {seq} less the {placed} placed line{'s' if placed > 1 else ''} before it) [CL-V9]"
            lines.append(
                f"Chance outcome: derived from the game's seed and {index} "
                "(core.chance.ChanceSource.rng), recorded so replay never re-rolls"
                if seeded
                else "Chance outcome: entered at the table and checked for possibility"
            )
        else:
            lines.append(f"Decision by {players[seat]}: '{game.format_command(command)}'")
    else:
        start = decision_start(game, events, seq)
        lines.append(f"An automatic step, following the decision at seq {start}.")
    after = game.apply(before, event)
    result = game.result(after)
    if result is not None and game.result(before) is None:
        lines.append(breakdown_text(result, players))
    return "\n".join(lines)


def breakdown_text(result: Any, players: tuple[str, ...]) -> str:
    """Every seat's final score, line by line, as a referee reads it out."""
    out = []
    for b in result.breakdowns:
        title = f" — {b.title}" if b.title else ""
        out.append(f"{players[b.seat]}: {b.total}{title}")
        for line in b.lines:
            detail = f"  {line.detail}" if line.detail else ""
            out.append(f"  {line.label:<24} {line.points:>5}{detail}")
    winners = " and ".join(players[w] for w in result.winners) or "nobody among the seats"
    out.append(f"winner: {winners}")
    return "\n".join(out)


def try_at(
    game: Any, events: list[Any], players: tuple[str, ...], seq: int, player: str | None, text: str,
    viewer: int | None = None,
) -> tuple[bool, str]:
    """Would ``text`` have been legal just before the event at ``seq``?

    ``player`` tries it; by default whoever was to act there.  ``viewer``: the
    events are that seat's view, and the try is decided from what it can see
    (the view law makes that the same verdict), so the answer never shows it a
    hidden card — not even one the command would have revealed.
    """
    if not 2 <= seq <= len(events) + 1:
        raise ValueError(f"--at must be between 2 and {len(events) + 1}, not {seq}")
    game = rules_at(game, events, seq - 1)  # the rules in effect there [CL-U1]
    before = game.fold(events[: seq - 1])
    if viewer is not None:
        before = game.view(before, viewer)
        if player is not None and player != players[viewer]:
            raise ValueError(f"this is {players[viewer]}'s view; {player} cannot try a move in it")
        player = players[viewer]
    if player is not None:
        if player not in players:
            raise ValueError(f"no player {player!r} (players: {', '.join(players)})")
        seat = players.index(player)
    else:
        actors = game.to_act(before)
        if not actors:
            if game.result(before) is not None:
                raise ValueError("nobody was to act there; the game was over")
            start = decision_start(game, events, seq - 1) if seq > 2 else 1
            follows = game.describe(events[start - 1], players) if start >= 1 else ""
            raise ValueError(
                f"seq {seq} is an automatic step; nobody decided there. It follows the decision at "
                f"seq {start} ({follows}): try --at {start} to ask about that decision"
            )
        seat = actors[0]
    try:
        command = game.parse_command(before, seat, text)
        produced = checked_decide(game, before, seat, command)
    except IllegalCommand as exc:
        return False, f"illegal at seq {seq}: {exc}"
    except RulesError as exc:  # bad syntax is bad input (exit 2), not a failed check
        raise ValueError(f"not a command: {exc}") from None
    if viewer is not None:
        produced = tuple(game.redact(e, viewer) for e in produced)
    shown = "; ".join(game.describe(e, players) for e in produced[:3])
    return True, f"legal at seq {seq}: {shown}"
