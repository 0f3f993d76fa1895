"""Stored analyses, read for every surface (issue 25): never recomputed here.

``citylog analyse`` (:mod:`cli.analyse`) judges decisions and keeps each
judgement beside the chain under a key ``seat|kind|seq|budget|rules|engine``
(:func:`store_key`).  Everything that shows them (``show``, ``log
--analysis``, the TUI, the HTML page, the text record) reads them through this
module, from one of three places:

* the store's ``analyses`` table (:func:`from_store`);
* an exported JSON Lines file, whose header carries the judgements its reader
  may see (:func:`from_log`: a player's view carries that player's own only);
* a text record's ``{[%an …]}`` annotations (:mod:`replay.record`, which
  writes and reads them with :func:`annotation` and :func:`parse_annotation`).

What a file says is checked against the game before it is shown or imported
(:func:`check`) and refused in one line if it does not fit [CL-X1]; an
analysis of a view stays a view: with ``--as P`` or in P's file only P's own
judgements appear, since the others' were made from what they saw [CL-X2].

Pure apart from :func:`from_store`, which only reads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from core import analysis as an
from core.engine import CHANCE, Game, RulesError, checked_decide, decisions

Judged = an.DecisionJudgement | an.ChanceJudgement
_DECODE = msgspec.json.Decoder(Judged)
_ENCODE = msgspec.json.Encoder()
MARK_SIGNS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
"""The marks as chess annotators write them (lichess's, PGN's NAGs 6, 2 and 4)."""


class AnalysisError(ValueError):
    """Judgements that do not fit the game they are said to be of [CL-X1]."""


class Key(msgspec.Struct, frozen=True):
    """A stored judgement's key, parsed."""

    player: str
    kind: str
    first: int
    last: int
    budget: int
    rules: str
    engine: str

    @property
    def text(self) -> str:
        at = str(self.first) if self.kind == "decision" else f"{self.first}-{self.last}"
        return f"{self.player}|{self.kind}|{at}|{self.budget}|{self.rules}|{self.engine}"


def store_key(player: str, task: an.Task, budget: int, rules: str) -> str:
    """A stored judgement's key: the seat, the kind and seq, the budget, the rules
    and the engine version (a game's chain only grows, so (game, seq) names a prefix;
    a chance run is named by its first and last seq, since a run at the head of an
    unfinished game may grow)."""
    last = task.first if task.kind == "decision" else task.last
    return Key(player, task.kind, task.first, last, budget, rules, an.ENGINE_VERSION).text


_KEY = re.compile(r"^([^|\s]+)\|(decision|chance)\|(\d{1,9})(?:-(\d{1,9}))?\|(\d{1,9})\|([^|\s]+)\|([^|\s]+)$")


def parse_key(text: str) -> Key:
    """``text`` as a key; ``AnalysisError`` if it is not one."""
    m = _KEY.match(text)
    if m is None or (m.group(2) == "decision") != (m.group(4) is None):
        raise AnalysisError(f"{text[:80]!r} is not a judgement's key (PLAYER|KIND|SEQ|BUDGET|RULES|ENGINE)")
    first = int(m.group(3))
    return Key(m.group(1), m.group(2), first, int(m.group(4) or first), int(m.group(5)), m.group(6), m.group(7))


def decode(data: bytes) -> Judged:
    try:
        return _DECODE.decode(data)
    except msgspec.DecodeError as exc:
        raise AnalysisError(f"a judgement that cannot be read ({exc})") from None


def encode(judged: Judged) -> bytes:
    return _ENCODE.encode(judged)


# -- where they come from -----------------------------------------------------------
def from_store(store: Any, game_id: str, player: str | None = None) -> dict[str, bytes]:
    """The stored judgements of a game (``player``: that player's own only [CL-X2])."""
    found: dict[str, bytes] = store.analyses(game_id)
    return {k: v for k, v in sorted(found.items()) if player is None or k.split("|", 1)[0] == player}


def from_log(log: Any) -> dict[str, bytes]:
    """The judgements an exported file's header carries (a view: its player's own)."""
    carried = log.header.analyses
    if carried is msgspec.UNSET:
        return {}
    return {k: bytes(v) for k, v in sorted(carried.items())}


def only(items: Mapping[str, bytes], player: str | None) -> dict[str, bytes]:
    """``items`` of ``player``'s own judgements (None: all) [CL-X2]."""
    return {k: v for k, v in items.items() if player is None or k.split("|", 1)[0] == player}


# -- checked against the game [CL-X1] --------------------------------------------
_EPS = 1e-9


def _chances(values: Sequence[float], n: int, what: str) -> None:
    if len(values) != n:
        raise AnalysisError(f"{what}: {len(values)} values for {n} seats")
    if not all(isinstance(x, float) and math.isfinite(x) and -_EPS <= x <= 1 + _EPS for x in values):
        raise AnalysisError(f"{what}: a win chance outside 0–1")


def _margins(values: Sequence[float], n: int, what: str) -> None:
    if len(values) != n or not all(math.isfinite(x) for x in values):
        raise AnalysisError(f"{what}: {len(values)} finite margins expected, {n} seats")


def _command(game: Game[Any, Any, Any], state: Any, seat: int, text: str, what: str) -> None:
    """``text`` must be a legal command of ``seat`` at ``state``, in its own spelling."""
    try:
        command = game.parse_command(state, seat, text)
        checked_decide(game, state, seat, command)  # the guards in their order, then legality
    except RulesError as exc:  # the parse and legality errors only: anything else is a bug
        raise AnalysisError(f"{what} {text!r} is not a legal command here ({exc})") from None
    if game.format_command(command) != text:
        raise AnalysisError(f"{what} {text!r} is not written as the game writes it ({game.format_command(command)!r})")


def check(game: Game[Any, Any, Any], events: Sequence[Any], states: Sequence[Any], players: Sequence[str],
          rules: str, items: Mapping[str, bytes], view: str | None = None) -> None:
    """Every judgement of ``items`` fits the game [CL-X1]: its key names a player
    and a decision of that player (or a run of chance events) in ``events``,
    the command played is the one recorded, the best ones are legal there, the
    win chances, loss, mark and worlds agree with each other and with the
    budget (a decision's worlds are the budget's, or :data:`core.analysis.CONFIRM`
    times as many); in a view, only the viewer's own [CL-X2].  ``AnalysisError`` names
    the first that does not."""
    n = len(players)
    ds = list(decisions(game, events))
    mine = {d.start + 1: d for d in ds if d.seat != CHANCE}
    chance_starts = {d.start + 1 for d in ds if d.seat == CHANCE}
    chance_ends = {d.end for d in ds if d.seat == CHANCE}
    for text, data in items.items():
        key = parse_key(text)
        where = f"the judgement {text}"
        try:
            _check_one(game, states, players, rules, key, decode(data), mine, chance_starts, chance_ends, n, view, ds)
        except AnalysisError as exc:
            raise AnalysisError(f"{where}: {exc}") from None


def _check_one(game: Game[Any, Any, Any], states: Sequence[Any], players: Sequence[str], rules: str, key: Key,
               j: Judged, mine: Mapping[int, Any], chance_starts: set[int], chance_ends: set[int], n: int,
               view: str | None, ds: Sequence[Any]) -> None:
    if key.player not in players:
        raise AnalysisError(f"no player {key.player!r}")
    if view is not None and key.player != view:
        raise AnalysisError(f"this is {view}'s view; {key.player}'s judgements are not theirs to see [CL-X2]")
    if key.rules != rules:
        raise AnalysisError(f"made under rules {key.rules}, the game is under {rules}")
    seat = players.index(key.player)
    allowed = an.worlds(key.budget), an.CONFIRM * an.worlds(key.budget)  # a decision's may be confirmed
    if j.seat != seat or j.worlds not in (allowed if isinstance(j, an.DecisionJudgement) else allowed[:1]):
        raise AnalysisError("its seat or its worlds do not match its key")
    _chances(j.before, n, "before")
    _chances(j.after, n, "after")
    if isinstance(j, an.DecisionJudgement):
        d = mine.get(key.first)
        if key.kind != "decision" or j.seq != key.first or d is None or d.seat != seat:
            raise AnalysisError(f"seq {key.first} is no decision of {key.player}")
        state = states[d.start - 1]
        if j.played != game.format_command(d.command):
            raise AnalysisError(f"played {j.played!r}, the game has {game.format_command(d.command)!r}")
        _command(game, state, seat, j.best, "best")
        _command(game, state, seat, j.search_best, "the search's best")
        _margins(j.margin_before, n, "margin_before")
        _margins(j.margin_after, n, "margin_after")
        if j.forced and j.best != j.played:
            raise AnalysisError("a forced decision with another best command")
        if not (j.loss >= 0 and abs(j.loss - (j.before[seat] - j.after[seat])) <= _EPS and j.lcb <= j.loss + _EPS):
            raise AnalysisError("its loss is not its win chance before less after (or its bound exceeds it)")
        if (j.best == j.played) != (j.loss == 0):
            raise AnalysisError("a loss where the best command is the one played, or none where it is not")
        if j.mark != an.mark_of(j.loss, j.lcb):
            raise AnalysisError(f"marked {j.mark}, its loss and bound earn {an.mark_of(j.loss, j.lcb)}")
    else:
        if key.kind != "chance" or j.first != key.first or j.last != key.last:
            raise AnalysisError("its seqs do not match its key")
        if key.first not in chance_starts or key.last not in chance_ends or not all(
            d.seat == CHANCE for d in ds if key.first <= d.start + 1 <= key.last
        ):
            raise AnalysisError(f"seqs {key.first}-{key.last} are no run of chance events")
        if abs(j.luck - (j.after[seat] - j.before[seat])) > _EPS:
            raise AnalysisError("its luck is not its win chance after less before")


# -- what the surfaces show -------------------------------------------------------
class Shown(msgspec.Struct, frozen=True):
    """One judgement as the surfaces show it: whose, from what budget."""

    player: str
    budget: int
    judged: Judged

    @property
    def seq(self) -> int:
        return self.judged.seq if isinstance(self.judged, an.DecisionJudgement) else self.judged.first

    @property
    def mark(self) -> str | None:
        return self.judged.mark if isinstance(self.judged, an.DecisionJudgement) else None

    @property
    def win(self) -> float:
        """The judged seat's win chance after it (from its own view)."""
        return self.judged.after[self.judged.seat]


def shown(items: Mapping[str, bytes], player: str | None = None) -> list[Shown]:
    """The judgements to show, in seq order: for each decision or chance run and
    seat, the largest budget stored by this engine (the longest run at a growing
    head); ``player``: that player's own only [CL-X2]."""
    best: dict[tuple[int, str, str], tuple[tuple[int, int], Shown]] = {}
    for text, data in items.items():
        key = parse_key(text)
        if key.engine != an.ENGINE_VERSION or (player is not None and key.player != player):
            continue
        rank = (key.last, key.budget)
        slot = (key.first, key.kind, key.player)
        if slot not in best or rank > best[slot][0]:
            best[slot] = (rank, Shown(key.player, key.budget, decode(data)))
    order = sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][1] != "decision", kv[0][2]))
    return [s for _, (_, s) in order]


def sign(mark: str | None) -> str:
    """``?!``, ``?``, ``??`` or ``""``."""
    return MARK_SIGNS.get(mark or "", "")


def note(s: Shown) -> str:
    """A judgement in a few words: ``[alice win 52% → 40%, best take pair, mistake ?]``."""
    j = s.judged
    if isinstance(j, an.DecisionJudgement):
        text = f"[{s.player} win {j.before[j.seat]:.0%} → {j.after[j.seat]:.0%}"
        if j.best != j.played:
            text += f", best {j.best}"
        return text + (f", {j.mark} {sign(j.mark)}]" if j.mark else "]")
    return f"[{s.player} luck {j.luck:+.0%}: win {j.before[j.seat]:.0%} → {j.after[j.seat]:.0%}]"


def by_seq(items: Sequence[Shown]) -> dict[int, str]:
    """seq -> the notes of its judgements (``log --analysis``)."""
    out: dict[int, list[str]] = {}
    for s in items:
        out.setdefault(s.seq, []).append(note(s))
    return {seq: " ".join(texts) for seq, texts in out.items()}


def row(s: Shown, players: Sequence[str]) -> dict[str, Any]:
    """A judgement as ``--json`` prints it (as ``analyse --json`` does)."""
    out: dict[str, Any] = msgspec.to_builtins(s.judged)
    out["player"] = s.player
    out["budget"] = s.budget
    for field in ("before", "after", "margin_before", "margin_after"):
        if field in out:
            out[field] = dict(zip(players, out[field]))
    return out


def series(items: Sequence[Shown], players: Sequence[str]) -> dict[str, list[tuple[int, float]]]:
    """Each player's win chance over the game, from their own view: (seq, chance)
    at each judged decision (before it, then after it) and chance run (after it)."""
    out: dict[str, list[tuple[int, float]]] = {p: [] for p in players}
    for s in items:
        j = s.judged
        points = out.setdefault(s.player, [])
        if isinstance(j, an.DecisionJudgement):
            if not points:
                points.append((j.seq - 1, j.before[j.seat]))
            points.append((j.seq, j.after[j.seat]))
        else:
            if not points:
                points.append((j.first - 1, j.before[j.seat]))
            points.append((j.last, j.after[j.seat]))
    return {p: v for p, v in out.items() if v}


def latest(items: Sequence[Shown], seq: int) -> list[Shown]:
    """Each player's last judgement at or before ``seq`` (what ``show --at`` shows)."""
    last: dict[str, Shown] = {}
    for s in items:
        if s.seq <= seq:
            last[s.player] = s
    return sorted(last.values(), key=lambda s: (s.seq, s.player))


def at_decision(items: Sequence[Shown], seq: int) -> Shown | None:
    """The judged decision opening at ``seq`` (the first shown), if any."""
    return next((s for s in items if isinstance(s.judged, an.DecisionJudgement) and s.seq == seq), None)


def marked(items: Sequence[Shown]) -> list[Shown]:
    return [s for s in items if s.mark]


# -- the text record's annotations -----------------------------------------------
ANNOTATION = "[%an "
"""How an annotation comment opens (PGN's ``[%eval …]`` shape): ``{[%an KEY JSON]}``."""


def annotation(key: str, data: bytes) -> str:
    """A judgement as a record comment's text: ``[%an KEY {…}]`` (its JSON, exact)."""
    return f"{ANNOTATION}{key} {encode(decode(data)).decode()}]"


def parse_annotation(text: str) -> tuple[str, bytes]:
    """(key, data) of an annotation comment's text; ``AnalysisError`` if malformed."""
    if not text.startswith(ANNOTATION) or not text.endswith("]"):
        raise AnalysisError("an annotation is '[%an KEY {JSON}]'")
    key, _, body = text[len(ANNOTATION) : -1].partition(" ")
    parse_key(key)
    return key, encode(decode(body.encode()))


__all__ = [
    "ANNOTATION", "AnalysisError", "Key", "Shown", "annotation", "by_seq", "check", "from_log", "from_store",
    "latest", "marked", "note", "only", "parse_annotation", "parse_key", "row", "series", "shown", "sign",
    "store_key",
]
