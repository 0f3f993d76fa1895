"""Where two logs part: the first diverging seq, the two events, and how the states differ."""

from __future__ import annotations

from typing import Any

import msgspec

from core.scene import scene_differences, scene_of
from replay.logfile import LogFile
from replay.sources import fold_log, view_seat


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A nested structure as ``path -> leaf`` (``players[0].coins``)."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    elif isinstance(value, (list, tuple)) and value and all(
        isinstance(v, (dict, list, tuple)) for v in value
    ):
        for i, v in enumerate(value):
            out.update(flatten(v, f"{prefix}[{i}]"))
    else:
        out[prefix] = value
    return out


def state_differences(a: Any, b: Any) -> list[dict[str, Any]]:
    fa, fb = flatten(msgspec.to_builtins(a)), flatten(msgspec.to_builtins(b))
    return [
        {"path": path, "a": fa.get(path), "b": fb.get(path)}
        for path in sorted(set(fa) | set(fb))
        if fa.get(path) != fb.get(path)
    ]


def diff(a: LogFile, b: LogFile) -> dict[str, Any]:
    ga, ea, sa = fold_log(a)
    gb, eb, sb = fold_log(b)
    pa = [(x.type, bytes(x.payload)) for x in a.lines]
    pb = [(x.type, bytes(x.payload)) for x in b.lines]
    first = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), None)
    if first is None and len(pa) != len(pb):
        first = min(len(pa), len(pb))
    out: dict[str, Any] = {
        "identical": first is None,
        "first_divergence": None if first is None else first + 1,
        "events": [len(pa), len(pb)],
        "same_definition": a.header.definition == b.header.definition,
    }
    if first is None:
        return out
    players_a, players_b = a.header.definition.players, b.header.definition.players

    def side(game: Any, events: list[Any], players: Any, i: int) -> dict[str, Any] | None:
        if i >= len(events):
            return None
        return {"type": type(events[i]).__struct_config__.tag, "event": game.describe(events[i], players)}

    if first == 0 or ga.spec.name != gb.spec.name or players_a != players_b:
        out["different_games"] = True
        out["a"] = {"type": "game", "event": describe_game(a)}
        out["b"] = {"type": "game", "event": describe_game(b)}
        out["differences"] = []
        out["final_differences"] = []
        out["state_differences"] = []
        return out
    out["a"] = side(ga, ea, players_a, first)
    out["b"] = side(gb, eb, players_b, first)
    if first < len(sa) and first < len(sb):
        # a player's view compares what that player sees, nothing more
        va, vb = view_seat(a), view_seat(b)
        xa = sa[first] if va is None else ga.view(sa[first], va)
        xb = sb[first] if vb is None else gb.view(sb[first], vb)
        out["state_differences"] = state_differences(xa, xb)
        out["differences"] = scene_differences(scene_of(ga, xa, va), scene_of(gb, xb, vb))
    else:
        shorter = "a" if len(sa) < len(sb) else "b"
        out["state_differences"] = []
        out["differences"] = []
        out["note"] = f"{shorter} ends at seq {first}; the other goes on"
    # the final positions, even when one game ended first
    va, vb = view_seat(a), view_seat(b)
    out["final_differences"] = scene_differences(scene_of(ga, sa[-1], va), scene_of(gb, sb[-1], vb))
    return out


def describe_game(log: LogFile) -> str:
    d = log.header.definition
    return f"{d.game} for {', '.join(d.players)}, {len(log.lines)} events"
