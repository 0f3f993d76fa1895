"""The contract every game implements, and the errors shared by all games.

A game is a set of pure functions over frozen msgspec Structs:

* ``create(players, options, table)`` -> the creation event (no randomness);
* ``apply(state | None, event) -> state``: the fold.  It never validates, never
  draws chance and does no I/O (docs/architecture.md, property 2);
* ``to_act(state)``: the seats that may decide now, ``(CHANCE,)`` when the game
  waits for a chance outcome, ``()`` when it is over;
* ``legal(state, seat)``: the legal commands of a seat (lazy);
* ``decide(state, seat, command)``: the events a command produces (its own event
  first, then every automatic step up to the next decision), or
  ``IllegalCommand`` naming the rule;
* ``step(state, seat, command)``: those events and the state after them (the
  default folds them; a game that folds them while deciding returns that
  state, so the service and the search apply each event once);
* ``chance(state, rng)``: the outcome of the pending chance node, as a command of
  the ``CHANCE`` seat; ``decide(state, CHANCE, outcome)`` checks it is possible
  (that is all a game played with real cards can be checked for);
* ``command_of(event)``: the (seat, command) that produced a decision's first
  event, so that a log can be re-decided event by event (``verify``);
* ``decision_key(state, seat)``: what a seat's pending decision depends on, when
  seats act at once and their moves commute (``None``: they do not);
* ``square_of(command)``: the board grid position ``(row, col)`` a command places
  something on, or ``None`` (the default); the TUI's clickable squares;
* ``result``, ``view``, ``redact``, ``describe``, ``render``, ``parse_command`` /
  ``format_command`` and ``bots``.

The guards run in a fixed order (boardgame.io's reducer): game over, then whose
turn, then legality (:func:`checked_decide`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

from core.chance import Reseeded
from core.rng import Rng
from core.upgrade import Upgraded

_OWN_LINES = (Reseeded, Upgraded)
"""Table events that are a line of their own, in no decision's span (a fork's reseed,
a rules upgrade)."""

CHANCE = -1
"""The pseudo-seat that decides chance outcomes (draws, shuffles, bag pulls)."""

S = TypeVar("S")
E = TypeVar("E")
C = TypeVar("C")


class RulesError(ValueError):
    """Base of every error a game raises about a request."""


class IllegalCommand(RulesError):
    """A command the rules forbid here.  ``rule`` is a ruling id or book section."""

    def __init__(self, rule: str, reason: str) -> None:
        from core.ruletags import rule_id

        self.rule = rule_id(rule)  # [GL-2]: a section name said by its id
        self.reason = reason
        super().__init__(f"[{self.rule}] {reason}")


class NotYourTurn(IllegalCommand):
    """The seat is not among those who may act now."""


class GameOver(IllegalCommand):
    """The game has ended; nothing more may be decided."""


class BadOptions(RulesError):
    """Unknown option, bad value, or a player count the game does not allow."""


class BadCommandSyntax(RulesError):
    """A command's text could not be parsed."""


class BoardFileError(RulesError):
    """A malformed board file; the message names the file, line and column."""

    def __init__(self, source: str, line: int, column: int, problem: str) -> None:
        self.source, self.line, self.column = source, line, column
        super().__init__(f"{source}:{line}:{column}: {problem}")


class BoardScore(msgspec.Struct, frozen=True):
    """The score of a board typed in from the table (``citylog score``)."""

    data: dict[str, Any]
    """JSON-ready breakdown; has at least ``total``."""
    text: str
    """The human breakdown (rich markup allowed)."""


class OptionSpec(msgspec.Struct, frozen=True):
    key: str
    default: str
    choices: tuple[str, ...] = ()
    help: str = ""


class GameSpec(msgspec.Struct, frozen=True):
    """What a game declares about itself, read by the CLI and the tools (as
    OpenSpiel's ``GameType``): nothing outside the game's package branches on
    its name (issue 27; tests/cli/test_fake_game.py)."""

    name: str
    title: str
    min_players: int
    max_players: int
    rules_version: str
    options: tuple[OptionSpec, ...] = ()
    tiebreak_rule: str = ""
    """The rule ids that break a tie on points (``CC-11``), cited by the verdict."""
    tiebreaks: tuple[str, ...] = ()
    """What each key of :attr:`Breakdown.tiebreak` counts, in order (``coins left
    after the exchange``): the verdict names the one that broke a tie."""
    solo_title: str = ""
    """How a solo seat's :attr:`Breakdown.title` is read out, ``{title}`` standing
    for it (``solo level {title} [CC-9]``); empty: the title is not read out."""
    opponent_rule: str = ""
    """The rule a solo game against :meth:`Game.solo_opponent` is decided by (``PL-10``)."""
    timeouts: tuple[str, ...] = ()
    """The timeout policies of play by email the game honours (:mod:`core.deadlines`:
    ``bot``, ``skip``, ``forfeit``); ``new --on-timeout`` refuses any other."""
    no_timeouts: tuple[tuple[str, str], ...] = ()
    """(policy, why the rules cannot honour it): the one-line reason ``new`` gives."""


class CommandForm(msgspec.Struct, frozen=True):
    """One way to write a command, for the play prompt's help: the ``verb`` it starts
    with, its ``form`` (``build CARD SQUARE``) and what it does."""

    verb: str
    form: str
    what: str
    chance: bool = False
    """A chance outcome, entered at the table (``--table`` games)."""


class Syntax(msgspec.Struct, frozen=True):
    """How a game's commands are written and chosen (each game's ``forms.py``), read by
    the play prompt and the TUI: no game's syntax lives in the CLI (issue 27)."""

    forms: tuple[CommandForm, ...] = ()
    notation: tuple[tuple[str, str], ...] = ()
    """(word, meaning): a word of a listed command that needs explaining where it appears."""
    second_step: str = ""
    """What the second step of a two-step choice chooses (Point City: ``payment``;
    :meth:`Game.first_step`); its default is named by ``default``."""
    default: str = ""
    """The default of the second step (``the cheapest``)."""


class ScoreLine(msgspec.Struct, frozen=True):
    label: str
    points: int
    detail: str = ""


class Breakdown(msgspec.Struct, frozen=True):
    """One seat's final score, line by line, as a referee would read it out."""

    seat: int
    lines: tuple[ScoreLine, ...]
    total: int
    tiebreak: tuple[int, ...] = ()
    title: str = ""


class Result(msgspec.Struct, frozen=True):
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    breakdowns: tuple[Breakdown, ...]


Bot = Callable[[Any, Any, int, Rng], Any]
"""``bot(game, state, seat, rng) -> command``."""


def random_bot(game: Game[Any, Any, Any], state: Any, seat: int, rng: Rng) -> Any:
    """Uniform over the legal commands, seeded."""
    options = list(game.legal(state, seat))
    if not options:
        raise IllegalCommand("GL-1", f"seat {seat} has no legal command")
    return options[rng.below(len(options))]


def normalize_options(spec: GameSpec, options: Mapping[str, str]) -> dict[str, str]:
    """Defaults filled in, values checked, keys sorted (deterministic)."""
    known = {o.key: o for o in spec.options}
    for key in options:
        if key not in known:
            names = ", ".join(sorted(known)) or "none"
            raise BadOptions(f"{spec.name} has no option {key!r} (options: {names})")
    out: dict[str, str] = {}
    for key in sorted(known):
        o = known[key]
        value = str(options.get(key, o.default))
        if o.choices and value not in o.choices:
            raise BadOptions(f"option {key}={value!r}: choose one of {', '.join(o.choices)}")
        out[key] = value
    return out


def check_players(spec: GameSpec, players: Sequence[str]) -> tuple[str, ...]:
    names = tuple(players)
    if not spec.min_players <= len(names) <= spec.max_players:
        raise BadOptions(
            f"{spec.title} takes {spec.min_players}–{spec.max_players} players, not {len(names)}"
        )
    if len(set(names)) != len(names):
        raise BadOptions("player names must be distinct")
    for n in names:
        if not n or not n.replace("-", "").replace("_", "").isalnum():
            raise BadOptions(f"player name {n!r}: use letters, digits, - and _")
    return names


class SearchModel(Generic[S, C]):
    """The search's model of a game (``core.mcts``, the ``mcts`` bots, hints): its
    budget, how it plays out, where it stops to estimate and what it expands.

    Apart from the rules, as OpenSpiel's ``Evaluator`` is apart from its games:
    each game declares its model in its ``search`` module (``Game.search_model``)
    and the search reads it through ``game.search``.  Every hook is a pure
    function of its arguments, seeded by the ``rng`` it is given alone, so a
    search is as deterministic as the rules.  The defaults: 1000 playouts, the
    tree search, uniform random playouts, no estimate, every legal command.
    """

    playouts: ClassVar[int] = 1000
    """The playouts a move of plain ``mcts`` (and a hint) searches: each game's
    figure keeps a move under 1 s of CPU on average on the bench machine
    (``bench/bench_bots.py``); ``mcts:N`` asks for N."""
    flat: ClassVar[bool] = False
    """Search every root option in the same sampled worlds (common random
    numbers) with :meth:`playout_command`, instead of growing a tree: for games
    whose informative playouts are costly and few (5x5 City: greedy rollouts;
    Card City: a quick greedy's).
    False: the tree search."""
    halving: ClassVar[bool] = False
    """A flat search (:attr:`flat`) spends its playouts by sequential halving
    (Karnin, Koren & Somekh 2013): in rounds, every option still in is played
    out in the same fresh worlds, and the worse half is dropped after each round,
    so the best few options get most of the worlds.  False: every option gets
    ``playouts // options`` worlds (the others' behaviour)."""

    def __init__(self, game: Game[Any, Any, C]) -> None:
        self.game = game
        """The rules this model searches (a game's older rules get their own model)."""

    def random_command(self, state: S, seat: int, rng: Rng) -> C:
        """A random command for ``seat`` (a legal one): what random playouts play.
        The default is uniform over :meth:`Game.legal`; a game whose legal moves are
        costly to list may sample another way (Point City: a move uniformly, then
        one of its payments), as long as it is seeded by ``rng`` alone."""
        options = list(self.game.legal(state, seat))
        return options[rng.below(len(options))]

    def random_step(self, state: S, seat: int, rng: Rng) -> tuple[tuple[Any, ...], S]:
        """:meth:`random_command` played: its events and the state after them, what
        a random playout does at each decision (:func:`core.mcts.playout`).  The
        default steps the rules (``game.step``) with the command drawn; a game may
        instead make the event of the command it draws at once, without the
        referee's checks of a command it knows is legal (Point City), as long as
        the draws, the events and the state are those of the default (each
        game's fast-path test).  The referee's path never comes here."""
        return self.game.step(state, seat, self.random_command(state, seat, rng))

    def chance_step(self, state: S, rng: Rng) -> tuple[tuple[Any, ...], S]:
        """The pending chance outcome drawn and played: its events and the state after
        them, as a playout plays chance.  The default steps the rules with
        ``game.chance``'s outcome; a game may make the event it draws at once (as
        :meth:`random_step`)."""
        return self.game.step(state, CHANCE, self.game.chance(state, rng))

    def playout_command(self, state: S, seat: int, searcher: int, rng: Rng) -> C:
        """The command ``seat`` plays in a playout of ``searcher``'s flat search
        (:attr:`flat`): a model of how the game goes on, seeded by ``rng`` alone.
        The default: :meth:`random_command`."""
        return self.random_command(state, seat, rng)

    def estimate(self, state: S) -> tuple[float, ...] | None:
        """Each seat's expected final score from an unfinished position, or None.

        The search stops a simulation where this gives an answer instead of
        playing the game out at random; a game whose random playouts say little
        (a board where placement is everything) gives its heuristic here.  The
        default, None: play it out.
        """
        return None

    def leaf_estimate(self, state: S, rng: Rng) -> tuple[float, ...] | None:
        """The estimate the search reads at a new leaf, given the search's ``rng``
        (a game may play a few cheap plies first).  The default: :meth:`estimate`."""
        return self.estimate(state)

    def reward(self, result: Result, seat: int) -> float | None:
        """A flat search's reward (0–1) for ``seat`` from a played-out ``result``, or
        None (the default): ``core.mcts``'s win share with a little for the margin.
        A game that wants its search to play for points too says how much here."""
        return None

    flat_leaf: ClassVar[bool] = False
    """A flat search scores each option by :meth:`leaf_estimate` (the game's few
    plies and its measure) instead of playing it out to the end (False, the
    default): for a game whose informative playouts are too costly for enough
    worlds (Point City).  :meth:`playout_command` still plays the analysis's
    playouts to the end."""

    def candidates(self, state: S, seat: int) -> list[C] | None:
        """The commands worth searching for ``seat`` (a non-empty subset of
        :meth:`Game.legal`, best first), or None (the default): all of them.

        The search expands only these, so a game with wide decisions (5x5 City's
        placements and park swaps) can prune them to its heuristic's best few and
        search deeper; a pure function of ``state``.
        """
        return None


class Game(ABC, Generic[S, E, C]):
    """A game's rules.  Subclasses are stateless singletons."""

    spec: ClassVar[GameSpec]
    event_type: ClassVar[Any]
    """The tagged union of the game's events (for msgspec decoding)."""
    command_type: ClassVar[Any]
    """The tagged union of the game's commands, chance outcomes included."""
    bots: ClassVar[Mapping[str, Bot]]
    syntax: ClassVar[Syntax] = Syntax()
    """The command forms and notation (the game's ``forms.py``)."""
    search_model: ClassVar[type[SearchModel[Any, Any]]] = SearchModel
    """The search's model of this game (:class:`SearchModel`, declared in the
    game's ``search`` module); :attr:`search` is it, bound to this game."""

    @cached_property
    def search(self) -> SearchModel[S, C]:
        """The search's model of this game, bound to it (:class:`SearchModel`)."""
        return self.search_model(self)

    # -- lifecycle -----------------------------------------------------------
    @abstractmethod
    def create(self, players: Sequence[str], options: Mapping[str, str], table: bool = False) -> E:
        """The creation event: players, normalized options, table flag."""

    @abstractmethod
    def apply(self, state: S | None, event: E) -> S:
        """The pure fold step."""

    def fold(self, events: Iterable[E], state: S | None = None) -> S:
        for event in events:
            state = self.apply(state, event)
        if state is None:
            raise ValueError("no events to fold")
        return state

    # -- decisions -----------------------------------------------------------
    @abstractmethod
    def to_act(self, state: S) -> tuple[int, ...]: ...

    @abstractmethod
    def legal(self, state: S, seat: int) -> Iterator[C]: ...

    @abstractmethod
    def decide(self, state: S, seat: int, command: C) -> tuple[E, ...]:
        """Events for ``command`` by ``seat``; assumes :func:`checked_decide`'s guards."""

    def step(self, state: S, seat: int, command: C) -> tuple[tuple[E, ...], S]:
        """``decide``'s events and the state after them: ``fold(events, state)``.

        Games whose ``decide`` already folds its automatic steps override this to
        return that state instead of applying every event a second time."""
        events = self.decide(state, seat, command)
        for e in events:
            state = self.apply(state, e)
        return events, state

    @abstractmethod
    def chance(self, state: S, rng: Rng) -> C:
        """The outcome of the pending chance node."""

    @abstractmethod
    def command_of(self, event: E) -> tuple[int, C] | None:
        """The decision that produced ``event``, if it opens a decision."""

    def square_of(self, command: C) -> tuple[int, int] | None:
        """The board grid position ``(row, col)`` ``command`` places something on, if any.

        Rows grow downwards, columns rightwards; games choose their own origin
        (negative values are allowed).  The default: no square.
        """
        return None

    def first_step(self, command: C) -> str | None:
        """The first step of ``command`` when the play prompt and the TUI choose it in two
        (Point City: the take ``take A1 B1``, then its payment), else None (the default).

        Law (tests/cli/test_choice_law.py): the first step's text is itself a command
        ``parse_command`` reads as one of the commands sharing that first step, the
        default of the second step (:attr:`Syntax.default`)."""
        return None

    def unseen(self, state: S, seat: int) -> str | None:
        """What ``seat``'s decision in ``state`` depends on that ``state`` does not show it,
        as words for "you will see … in the next view" — or None (the default: nothing).

        ``state`` is a seat's view played on by its own commands (the play prompt on a
        view received by email): a command whose outcome the view cannot know (a
        face-down card taken, a building side turned up) leaves placeholders there,
        and the prompt stops at that information boundary instead of listing
        commands on them.  Law: None on every view a host sends, and None after the
        seat's own commands only where the state is the seat's true next view."""
        return None

    def decision_key(self, state: S, seat: int) -> bytes | None:
        """What ``seat``'s pending decision depends on, when it commutes with other
        seats' moves (several seats acting at once); ``None`` (the default): it does
        not, so any move by anyone makes a move made before it stale.

        A move made at an older position is still good when the seat's key then
        and now are equal (play by email, issue 10).
        """
        return None

    def for_rules(self, version: str) -> Game[S, E, C] | None:
        """The rules a log recorded under ``version`` is verified by: this game for the
        current version, an older version's rules where the game keeps them (its
        decisions re-made as they were then, e.g. Point City's pc-2, PL-17), None for
        a version it can only replay (the fold never validates)."""
        return self if version == self.spec.rules_version else None

    def is_legal(self, state: S, seat: int, command: C) -> bool:
        try:
            checked_decide(self, state, seat, command)
        except IllegalCommand:
            return False
        return True

    def determinize(self, view: S, seat: int, rng: Rng) -> S:
        """A true state consistent with ``view`` (``seat``'s view), its hidden parts sampled.

        Information-set search (``core.mcts``) plays on such samples, so a bot
        never looks at the true state.  Law: ``view(determinize(v, seat, rng),
        seat) == v`` for every ``v = view(state, seat)``.  The default suits a
        game without hidden information.
        """
        return view

    # -- results and presentation -------------------------------------------
    @abstractmethod
    def result(self, state: S) -> Result | None: ...

    def solo_opponent(self, state: S) -> Breakdown | None:
        """The score of the opponent the rules play in a solo game (Point City's
        [PC-7]), as a breakdown of seat -1 whose title names it; None (the
        default): no such opponent.  The results read it beside the seats'."""
        return None

    def score_now(self, state: S) -> tuple[Breakdown, ...]:
        """Each seat's score if the game ended now, line by line (the play prompt's
        ``score``); from a view, only what that seat may see.  The default: the
        final breakdowns once the game is over, else none."""
        result = self.result(state)
        return result.breakdowns if result is not None else ()

    @abstractmethod
    def view(self, state: S, seat: int | None) -> S:
        """``state`` as ``seat`` may see it (None: a spectator)."""

    @abstractmethod
    def redact(self, event: E, seat: int | None) -> E:
        """``event`` as ``seat`` may see it."""

    @abstractmethod
    def players(self, state: S) -> tuple[str, ...]: ...

    @abstractmethod
    def describe(self, event: E, players: Sequence[str]) -> str:
        """One readable line for the log."""

    @abstractmethod
    def render(self, state: S, seat: int | None) -> str:
        """The table as text with rich markup (colours), from ``seat``'s view."""

    @abstractmethod
    def parse_command(self, state: S, seat: int, text: str) -> C:
        """Inverse of :meth:`format_command`; raises ``BadCommandSyntax``."""

    @abstractmethod
    def format_command(self, command: C) -> str: ...

    def scene(self, state: S, seat: int | None) -> Any:
        """The position as a :class:`core.scene.Scene` for pictures and boards.

        ``state`` is already what ``seat`` may see (:func:`core.scene.scene_of`
        applies the view first); ``seat`` only says whose panel is "you".
        """
        raise NotImplementedError(f"{self.spec.title} has no scene")

    def state_data(self, state: S) -> Any:
        """``state`` as plain data for ``show --json``: the fold's fields, with any
        square named as commands and boards name it (a game whose state keeps
        another form of a square overrides this) [GL-5]."""
        import msgspec

        return msgspec.to_builtins(state)

    def round_of(self, state: S) -> int:
        return int(getattr(state, "round", 0))

    def score_board(self, text: str, source: str, params: Mapping[str, str]) -> BoardScore:
        """Score a finished board typed in from the table; ``BoardFileError`` if malformed.

        ``params`` holds the CLI's game-specific flags (``coins``, ``variant``,
        ``sides``, ``planning``) that were given, as strings.
        """
        raise BadOptions(f"{self.spec.title} has no board scoring")

    def where_board(self, text: str, source: str, card: str, params: Mapping[str, str]) -> BoardScore:
        """Where ``card`` may be placed on a board typed in from the table (``citylog where``)."""
        raise BadOptions(f"'where' has nothing to say for {self.spec.title}")

    def explain(self, before: S, event: E, players: Sequence[str]) -> str:
        """Why ``event`` happened; games add rule ids where they can."""
        return self.describe(event, players)

    def witnesses(self, before: S, event: E) -> tuple[int, tuple[tuple[int, int], ...]] | None:
        """The seat and the squares (in the scene's coordinates) that :meth:`explain`
        names as the evidence for ``event``, for a picture to outline [GL-4]; None:
        it names no square."""
        return None


def checked_decide(game: Game[S, E, C], state: S, seat: int, command: C) -> tuple[E, ...]:
    """Guards in a fixed order — game over, whose turn, then the rules."""
    _guard(game, state, seat, command)
    return game.decide(state, seat, command)


def checked_step(game: Game[S, E, C], state: S, seat: int, command: C) -> tuple[tuple[E, ...], S]:
    """:func:`checked_decide`'s events and the state after them (:meth:`Game.step`)."""
    _guard(game, state, seat, command)
    return game.step(state, seat, command)


def _guard(game: Game[S, E, C], state: S, seat: int, command: C) -> None:
    """The engine's guards: game over, whose turn, the command's type."""
    actors = game.to_act(state)
    if not actors:
        raise GameOver("GL-1", "the game is over")
    if seat not in actors:
        if seat == CHANCE:
            raise NotYourTurn("GL-1", "no chance outcome is pending; a player must act")
        if actors == (CHANCE,):
            raise NotYourTurn("GL-1", "a chance outcome (draw) is pending, not a player's move")
        names = game.players(state)
        who = ", ".join(names[a] for a in actors if 0 <= a < len(names))
        me = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
        raise NotYourTurn("GL-1", f"it is not {me}'s turn (waiting for {who})")
    if not isinstance(command, game.command_type):
        raise IllegalCommand("GL-1", f"not a {game.spec.title} command: {command!r}")


def decide_as(game: Game[S, E, C], state: S, seat: int, command: C) -> tuple[E, ...]:
    """A player's command; a refusal is the one the player's view gives.

    A refusal then names only what the seat knows (the divider's face-down
    cards, another player's draw, a card's hidden building side never appear
    in it).  The view and the true state accept the same commands (the view
    law, tests/test_view_law.py); should they ever disagree, the refusal says
    so without naming the reason.  Chance is decided on the true state.
    """
    return step_as(game, state, seat, command)[0]


def step_as(game: Game[S, E, C], state: S, seat: int, command: C) -> tuple[tuple[E, ...], S]:
    """:func:`decide_as`'s events and the state after them.

    The true state is decided first: by the view law a command it accepts the
    view accepts too, so the view is decided only to word a refusal."""
    try:
        return checked_step(game, state, seat, command)
    except IllegalCommand:
        if seat == CHANCE:
            raise
    try:
        checked_decide(game, game.view(state, seat), seat, command)
    except RulesError:
        raise
    except Exception:  # noqa: BLE001 - an automatic step needed a hidden card
        pass
    raise IllegalCommand("GL-1", "not legal here, for a reason hidden from you")  # pragma: no cover


def decision_start(game: Game[Any, Any, Any], events: Sequence[Any], seq: int) -> int:
    """The seq of the first event of the decision holding event ``seq`` (an
    automatic step belongs to the decision it follows)."""
    i = seq - 1
    while i > 0 and game.command_of(events[i]) is None:
        i -= 1
    return i + 1


class Decision(msgspec.Struct, frozen=True):
    """One decision of a log: ``events[start:end]`` (0-based), its first event the
    command's own, the rest the automatic steps that followed it."""

    start: int
    end: int
    seat: int
    command: Any


def opens(game: Game[Any, Any, Any], event: Any) -> bool:
    """Whether a decision's span ends before ``event``: it opens a decision
    (``command_of`` is not None) or is a fork's reseed or a rules upgrade (a line of
    its own, CL-V7, CL-U1)."""
    return type(event) in _OWN_LINES or game.command_of(event) is not None


def decisions(game: Game[Any, Any, Any], events: Sequence[Any]) -> Iterator[Decision]:
    """The decisions of a log, in order, found from the log alone (never
    re-decided): each runs from an event that opens one (``command_of`` is not
    None) up to the next event that opens one, a fork's reseed or a rules upgrade (which belong
    to no decision).  The creation event and anything before the first decision
    belong to none.  The one loop over ``command_of`` that the CLI's ``undo``,
    ``fork`` (:func:`decision_cut`) and the text record walk (issue 27)."""
    starts: list[tuple[int, tuple[int, Any] | None]] = []
    for i, e in enumerate(events):
        if i == 0:
            continue
        if type(e) in _OWN_LINES:
            starts.append((i, None))
            continue
        opened = game.command_of(e)
        if opened is not None:
            starts.append((i, opened))
    for k, (i, who) in enumerate(starts):
        if who is None:
            continue
        end = starts[k + 1][0] if k + 1 < len(starts) else len(events)
        yield Decision(i, end, who[0], who[1])


def decision_cut(game: Game[Any, Any, Any], events: Sequence[Any], at: int) -> tuple[int, int] | None:
    """The seqs ``(first, last)`` of the span that keeping ``events[:at]`` alone
    would cut (a decision, or the events before the first one), or None when
    ``at`` ends the log or ``events[at]`` starts a span (:func:`opens`)."""
    if at >= len(events) or opens(game, events[at]):
        return None
    last = len(events)
    for d in decisions(game, events):
        if d.start < at < d.end:
            return d.start + 1, d.end
        if d.start > at:
            last = d.start
            break
    return 1, last
