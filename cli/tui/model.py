"""The TUI's state: plain objects folded from the store; widgets only render them.

Nothing here touches the store or Textual.  A :class:`GameModel` holds the
whole folded game (records, events, the state after every event) and a
cursor; stepping is list indexing, so only the cursor's state is rendered.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cli.choices import Choice, choices
from core.engine import CHANCE, checked_decide, decide_as
from events.service import Loaded, ServiceError
from events.store import GameRecord, Note
from core.scene import Scene, board_panel, decision_start, mark_best, mark_targets, scene_at, scene_differences
from replay.explain import explain_at
from replay.logfile import LogFile

LEGAL_LIMIT = 500
"""At most this many legal commands are listed; the typed input takes any."""

Square = tuple[int, int]
"""A board grid position ``(row, col)``, as ``Game.square_of`` gives it."""


@dataclass
class PlayModel:
    """The legal commands of the seat to act, and the square the list is narrowed to.

    ``squares[i]`` is where ``commands[i]`` places something (``Game.square_of``),
    None for a command that names no square.
    """

    seat: int
    commands: list[tuple[str, Any]]
    squares: list[Square | None]
    square_filter: Square | None = None
    """None: every command is listed; else only those on this square."""
    steps: dict[str, Choice] = field(default_factory=dict)
    """A listed text -> its two-step choice (Point City's take: the payment follows,
    the cheapest by default; cli/choices.py); ``commands`` holds its default."""

    @classmethod
    def of(cls, game: Any, seat: int, commands: list[tuple[str, Any]],
           steps: dict[str, Choice] | None = None) -> PlayModel:
        return cls(seat, commands, [_square(game, c) for _, c in commands], steps=steps or {})

    def grid_squares(self) -> list[Square]:
        """The distinct squares of the legal commands, in reading order."""
        return sorted({s for s in self.squares if s is not None})

    def bounds(self) -> tuple[range, range] | None:
        """The rows and columns of the squares' bounding box (None: no command names a square)."""
        squares = self.grid_squares()
        if not squares:
            return None
        rows = [r for r, _ in squares]
        cols = [c for _, c in squares]
        return range(min(rows), max(rows) + 1), range(min(cols), max(cols) + 1)

    def on(self, square: Square) -> list[tuple[str, Any]]:
        return [tc for tc, s in zip(self.commands, self.squares) if s == square]

    def visible(self) -> list[tuple[str, Any]]:
        """The commands the list shows: all, or those on the filtered square."""
        return self.commands if self.square_filter is None else self.on(self.square_filter)

    def pick_square(self, square: Square) -> Any | None:
        """Narrow the list to ``square``; the command itself when it is the only one there."""
        self.square_filter = square
        here = self.on(square)
        return here[0][1] if len(here) == 1 else None

    def clear_filter(self) -> None:
        self.square_filter = None


def _square(game: Any, command: Any) -> Square | None:
    square = game.square_of(command)
    return None if square is None else (int(square[0]), int(square[1]))


@dataclass
class GameModel:
    record: GameRecord
    game: Any
    records: list[Any]
    events: list[Any]
    states: list[Any]
    cursor: int = 0
    """Index into ``events``/``states``: the board shows the state after event ``cursor + 1``."""
    viewer: int | None = None
    """None: the referee (the full state); else the seat whose view is shown."""
    rounds: list[int] = field(default_factory=list)
    round_starts: list[int] = field(default_factory=list)
    notes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """seq -> the notes on that event (``citylog note``), shown with the timeline."""
    own_view: bool = False
    """A player's own view, from a file (a view received by email, issue 24): the
    viewer is fixed and only that seat acts; its choices are played out on the view
    (``decided``), never in a store, then written as one move file."""
    chosen: tuple[str, ...] = ()
    """A view's choices so far (formatted); their events follow the view's records."""
    closed: bool = False
    """A view whose move file is written: nothing more is decided on it."""
    judged: list[Any] = field(default_factory=list)
    """``citylog analyse``'s judgements of the game (``replay.analyses.Shown``, every
    seat's; checked against the game [CL-X1]); a player's view shows its own [CL-X2]."""
    analysis_problem: str = ""
    """Why the stored or carried judgements are not shown (they do not fit the game) [CL-X1]."""
    crossed: str | None = None
    """What a choice left unseen, read before the view's counting [GN-1] fills it in (that
    counting assumes the host's automatic steps ran on the real cards, which a choice
    decided on the view could not do): the choosing stops there (cli/play.py does the same)."""
    _lines: dict[int | None, dict[int, str]] = field(default_factory=dict, repr=False)
    _play: dict[int, PlayModel] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if not self.rounds:
            self.rounds = [self.game.round_of(s) for s in self.states]
        if not self.round_starts:
            self.round_starts = [
                i for i, r in enumerate(self.rounds) if i == 0 or r != self.rounds[i - 1]
            ]

    def extended(self, new: Sequence[Any]) -> GameModel:
        """This model with ``new`` records (appended since, by anyone) on top:
        only the new events are decoded and applied — no fold of the whole log.
        The cursor stays, or follows the end if it was there."""
        from msgspec.structs import replace as _replace

        from events.codec import decoder_for

        decoder = decoder_for(self.game.event_type)
        events = [decoder.decode(r.payload) for r in new]
        states = list(self.states)
        state = states[-1]
        for e in events:
            state = self.game.apply(state, e)
            states.append(state)
        record = self.record
        if not self.game.to_act(state) and record.status != "over":
            record = _replace(record, status="over")
        model = GameModel(
            record, self.game, self.records + list(new), self.events + events, states,
            viewer=self.viewer,
            rounds=self.rounds + [self.game.round_of(s) for s in states[len(self.states):]],
        )
        model.cursor = model.last if self.at_end else self.cursor
        return model

    @classmethod
    def from_loaded(cls, loaded: Loaded, cursor: int | None = None, notes: Sequence[Note] = (),
                    judged: dict[str, bytes] | None = None) -> GameModel:
        states = loaded.history or [loaded.state]
        model = cls(loaded.record, loaded.game, loaded.records, loaded.events, list(states))
        for n in notes:
            model.notes[n.seq] = (*model.notes.get(n.seq, ()), n.text)
        model.take_judgements(judged or {})
        model.cursor = model.last if cursor is None else max(0, min(cursor, model.last))
        return model

    @classmethod
    def of_view(cls, log: LogFile, source: str) -> GameModel:
        """A player's view file, folded (read-only: no store holds it); the cursor at its end."""
        from replay.sources import fold_log, view_seat

        seat = view_seat(log)
        if seat is None:
            raise ServiceError(f"{source}: not a player's view [CL-V3]")
        game, events, states = fold_log(log, source)
        h = log.header
        record = GameRecord.of(h.game_id or source, h.definition, bots=dict(h.bots), parent=h.parent,
                               fork_at=h.fork_at, status=h.status if h.status in ("active", "over") else "active")
        model = cls(record, game, log.records(), events, states, viewer=seat, own_view=True)
        model.cursor = model.last
        from replay.analyses import from_log

        model.take_judgements(from_log(log), h.view)
        return model

    def take_judgements(self, items: dict[str, bytes], view: str | None = None) -> None:
        """Keep ``items`` (stored or carried judgements) if they fit the game [CL-X1];
        ones that do not are dropped, said on the status line (the game still shows)."""
        from replay import analyses

        if not items:
            return
        try:
            analyses.check(self.game, self.events, self.states, self.players, self.record.definition.rules_version,
                           items, view)
        except analyses.AnalysisError as exc:
            self.analysis_problem = f"analysis not shown: {exc} [CL-X1]"
            return
        self.judged = analyses.shown(items)

    def decided(self, seat: int, command: Any) -> GameModel:
        """This view with ``seat``'s ``command`` played out on it (its own events, as the
        seat sees them: cli/play.py's ``_play_file`` does the same); raises RulesError."""
        state = self.game.view(self.states[-1], seat)
        new = checked_decide(self.game, state, seat, command)
        states = list(self.states)
        crossed = self.crossed
        for e in new:
            applied = self.game.apply(state, e)
            crossed = crossed or self.game.unseen(applied, seat)
            state = self.game.view(applied, seat)
            states.append(state)
        model = GameModel(self.record, self.game, self.records, self.events + list(new), states,
                          viewer=seat, own_view=True, chosen=(*self.chosen, self.game.format_command(command)),
                          crossed=crossed)
        model.cursor = model.last
        return model

    def boundary(self, seat: int) -> str | None:
        """Once a view's seat has chosen: what its next decision would need that the view
        does not show (issue 26 item 1), None if there is nothing such."""
        if not self.chosen:
            return None
        return self.crossed or self.game.unseen(self.game.view(self.states[-1], seat), seat)

    def turn_done(self, seat: int) -> bool:
        """A view's seat has chosen all it can from this view: its move file is due."""
        if not self.chosen:
            return False
        return seat not in self.game.to_act(self.states[-1]) or self.boundary(seat) is not None

    # -- facts ---------------------------------------------------------------
    @property
    def game_id(self) -> str:
        return self.record.id

    @property
    def players(self) -> tuple[str, ...]:
        return self.record.players

    @property
    def last(self) -> int:
        return len(self.events) - 1

    @property
    def version(self) -> int:
        return self.records[-1].seq if self.records else 0

    @property
    def seq(self) -> int:
        """The seq of the event at the cursor (1-based)."""
        return self.cursor + 1

    @property
    def at_end(self) -> bool:
        return self.cursor == self.last

    @property
    def state(self) -> Any:
        return self.states[self.cursor]

    # -- moving the cursor ---------------------------------------------------
    def go(self, index: int) -> int:
        self.cursor = max(0, min(index, self.last))
        return self.cursor

    def step(self, delta: int) -> int:
        return self.go(self.cursor + delta)

    def home(self) -> int:
        return self.go(0)

    def end(self) -> int:
        return self.go(self.last)

    def next_round(self) -> int:
        """The first event of the next round (the end if there is none)."""
        i = bisect.bisect_right(self.round_starts, self.cursor)
        return self.go(self.round_starts[i] if i < len(self.round_starts) else self.last)

    def prev_round(self) -> int:
        """The start of this round, or of the previous one when already at a start."""
        i = bisect.bisect_left(self.round_starts, self.cursor)
        return self.go(self.round_starts[i - 1] if i > 0 else 0)

    # -- analysis (issue 25) ---------------------------------------------------
    def shown_judgements(self) -> list[Any]:
        """The judgements the viewer may see: the referee every seat's, a player their own [CL-X2]."""
        if self.viewer is None:
            return self.judged
        me = self.players[self.viewer]
        return [j for j in self.judged if j.player == me]

    def judged_at(self, index: int) -> Any | None:
        """The marked judgement of the decision opening at event ``index`` the viewer may see."""
        seq = index + 1
        return next((j for j in self.shown_judgements() if j.seq == seq and j.mark), None)

    def mark_at(self, index: int) -> str | None:
        """The mark (inaccuracy, mistake, blunder) of the decision opening at event ``index``."""
        judged = self.judged_at(index)
        return None if judged is None else judged.mark

    def next_mark(self) -> int | None:
        """Move to the next marked decision after the cursor (wrapping to the first); None: no mark."""
        seqs = sorted({j.seq for j in self.shown_judgements() if j.mark})
        if not seqs:
            return None
        later = [q for q in seqs if q > self.seq]
        return self.go((later[0] if later else seqs[0]) - 1)

    def judgement_here(self) -> Any | None:
        """The judgement of the decision opening at the cursor, if the viewer may see one."""
        from replay.analyses import at_decision

        return at_decision(self.shown_judgements(), self.seq)

    def win_series(self) -> dict[str, list[tuple[int, float]]]:
        from replay.analyses import series

        return series(self.shown_judgements(), self.players)

    def better_square(self) -> tuple[int, Square] | None:
        """(seat, square) of the better move at a marked decision at the cursor, from the mover's view."""
        from core.engine import RulesError

        j = self.judgement_here()
        if j is None or not j.mark or j.judged.best == j.judged.played or self.cursor < 1:
            return None
        seat = j.judged.seat
        try:
            command = self.game.parse_command(self.game.view(self.states[self.cursor - 1], seat), seat, j.judged.best)
        except RulesError:  # checked when read [CL-X1]: only a parse error is caught here
            return None
        square = _square(self.game, command)
        return None if square is None else (seat, square)

    # -- views ---------------------------------------------------------------
    def cycle_viewer(self) -> int | None:
        if self.own_view:  # a view file shows its own player only
            return self.viewer
        order: list[int | None] = [None, *range(len(self.players))]
        self.viewer = order[(order.index(self.viewer) + 1) % len(order)]
        return self.viewer

    @property
    def viewer_label(self) -> str:
        return "referee" if self.viewer is None else self.players[self.viewer]

    def view_state(self, index: int | None = None) -> Any:
        state = self.states[self.cursor if index is None else index]
        return state if self.viewer is None else self.game.view(state, self.viewer)

    def board(self, index: int | None = None) -> str:
        """The game's own rendering (rich markup) of the cursor's state, as the viewer sees it."""
        return self.game.render(self.view_state(index), self.viewer)

    def scene(self, play: PlayModel | None = None) -> Scene:
        """The cursor's position as the viewer sees it, the last decision marked; with ``play``
        (at the end of the log, seen by the referee or the seat to act) its legal squares marked."""
        scene = scene_at(self.game, self.events, self.states, self.seq, self.viewer, self.players)
        better = self.better_square() if self.judged else None
        if better is not None:  # the better move found at a marked decision, starred (issue 25)
            index = board_panel(scene, better[0])
            if index is not None:
                scene = mark_best(scene, index, better[1])
        if play is None or not self.at_end or self.viewer not in (None, play.seat):
            return scene
        squares = play.grid_squares()
        index = board_panel(scene, play.seat)
        if index is None or not squares:
            return scene
        return mark_targets(scene, index, squares, play.square_filter)

    def target_panel(self, scene: Scene, play: PlayModel | None) -> int | None:
        return None if play is None else board_panel(scene, play.seat)

    def line(self, index: int) -> str:
        """The readable line of event ``index``; redacted for a player's view."""
        cache = self._lines.setdefault(self.viewer, {})
        text = cache.get(index)
        if text is None:
            event = self.events[index]
            if self.viewer is not None:
                event = self.game.redact(event, self.viewer)
            text = cache[index] = self.game.describe(event, self.players)
        return text

    def names(self, seats: Sequence[int]) -> str:
        return ", ".join("chance" if s == CHANCE else self.players[s] for s in seats)

    def status(self) -> str:
        """Where the cursor is: seq, round, whose turn or the result."""
        state = self.state
        parts = [f"seq {self.seq}/{len(self.events)}", f"round {self.rounds[self.cursor]}"]
        actors = self.game.to_act(state)
        if actors:
            parts.append(f"to act: {self.names(actors)}")
        else:
            result = self.game.result(state)
            if result is not None:
                # the result first, the round left out: at 80 columns the line keeps who won
                if len(self.players) == 1:  # solo: the score and the book's verdict [CC-9]
                    from cli.results import verdict

                    over = f"game over — {verdict(self.game, self.players, state, result)}"
                else:
                    won = len(result.winners)
                    who = f"{self.names(result.winners)} {'wins' if won == 1 else 'tie'}" if won else "nobody wins"
                    over = f"game over — {who} ({', '.join(str(s) for s in result.scores)})"
                parts = [over, parts[0]]
            else:  # an automatic step: income, development, a pawn passed, the final count…
                start = decision_start(self.game, self.events, self.seq)
                after = f"after seq {start}" if start > 1 else "at the start"
                parts.append(f"automatic step {after}")
        parts.append(f"view: {self.viewer_label}")
        if self.analysis_problem:
            parts.append(self.analysis_problem)
        for text in self.notes.get(self.seq, ()):
            parts.append("✎ " + " ".join(text.split()))
        return " · ".join(parts)

    def explain(self) -> str:
        """The event at the cursor explained; in a player's view, from what that player sees."""
        events = self.events
        if self.viewer is not None:
            events = [self.game.redact(e, self.viewer) for e in events[: self.seq]]
        return explain_at(
            self.game, events, self.players, self.seq, self.record.seed is not None, self.viewer
        )

    # -- playing -------------------------------------------------------------
    def humans_to_act(self) -> list[int]:
        """Human seats that may decide at the end of the log."""
        actors = self.game.to_act(self.states[-1])
        return [s for s in actors if s != CHANCE and s not in self.record.bots]

    def acting_seat(self) -> int | None:
        """The seat the play panel acts for: the viewer if it may act, else the first human."""
        humans = self.humans_to_act()
        if self.own_view:  # only the view's own seat, until its move file is due
            own = self.viewer
            if self.closed or own not in humans or own is None or self.turn_done(own):
                return None
            return own
        if not humans:
            return None
        return self.viewer if self.viewer in humans else humans[0]

    def offered(self, seat: int, limit: int = LEGAL_LIMIT) -> list[Choice]:
        """What the play panel lists for ``seat``: its legal commands from its view (the
        view law), a two-step choice once by its first step (cli/choices.py)."""
        state = self.game.view(self.states[-1], seat)
        return choices(self.game, state, seat)[:limit]

    def legal(self, seat: int, limit: int = LEGAL_LIMIT) -> list[tuple[str, Any]]:
        """The listed texts and their commands (a two-step choice's default)."""
        return [(c.text, c.default) for c in self.offered(seat, limit)]

    def play(self, seat: int) -> PlayModel:
        """The play panel's state for ``seat`` at the end of the log (kept while this model lives)."""
        play = self._play.get(seat)
        if play is None:
            offered = self.offered(seat)
            play = self._play[seat] = PlayModel.of(
                self.game, seat, [(c.text, c.default) for c in offered], {c.text: c for c in offered if c.two_step}
            )
        return play

    def parse(self, seat: int, text: str) -> Any:
        """``text`` as a command; raises ``RulesError`` (bad syntax or illegal) with the rule id."""
        state = self.states[-1]
        command = self.game.parse_command(self.game.view(state, seat), seat, text)
        decide_as(self.game, state, seat, command)  # a refusal names only what the seat sees
        return command


@dataclass(frozen=True)
class GameRow:
    id: str
    game: str
    players: str
    status: str
    events: int
    parent: str

    @classmethod
    def of(cls, record: GameRecord, count: int) -> GameRow:
        parent = f"{record.parent}@{record.fork_at}" if record.parent else ""
        return cls(record.id, record.game, ", ".join(record.players), record.status, count, parent)

    def cells(self) -> tuple[str, ...]:
        return (self.id, self.game, self.players, self.status, str(self.events), self.parent)

    def matches(self, query: str) -> bool:
        hay = " ".join(self.cells()).lower()
        return all(term in hay for term in query.lower().split())


@dataclass
class LibraryModel:
    rows: list[GameRow] = field(default_factory=list)
    query: str = ""

    def visible(self) -> list[GameRow]:
        return [r for r in self.rows if r.matches(self.query)]


@dataclass
class DiffModel:
    """Two games and one cursor over both."""

    a: GameModel
    b: GameModel
    summary: dict[str, Any]
    """``replay.diff.diff`` of the two logs."""
    cursor: int = 0

    @property
    def first_divergence(self) -> int | None:
        return self.summary.get("first_divergence")

    @property
    def last(self) -> int:
        return max(self.a.last, self.b.last)

    def go(self, index: int) -> int:
        self.cursor = max(0, min(index, self.last))
        for side in (self.a, self.b):
            side.go(self.cursor)
        return self.cursor

    def jump_to_divergence(self) -> int:
        first = self.first_divergence
        return self.go(self.cursor if first is None else first - 1)

    def differences(self) -> list[str]:
        """How the two positions at the cursor differ, in the games' words; past one game's
        end its final position is compared."""
        if self.summary.get("different_games"):
            return []
        return scene_differences(self.a.scene(), self.b.scene())

    def side_line(self, side: GameModel) -> str:
        if self.cursor > side.last:
            return f"{side.game_id}: ended at seq {side.last + 1} (its final position is shown)"
        return f"{side.game_id}: {side.seq} {side.line(side.cursor)}"
