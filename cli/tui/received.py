"""A view received by email in the TUI (issue 24): ``citylog tui GAME|FILE --as P``.

The view file is folded read-only into a :class:`GameModel` (no store holds it,
none is written); the play panel lists what P may decide from her view, each
choice is played out on the view itself, and once her turn is done — or her
next decision hangs on a card the view does not show (issue 26 item 1) — her
choices go into ONE signed move file (cli/movefile.py, as ``play`` writes it)
in the mail agent's queue or ``--out DIR``; the screen then says so and
decides nothing more [CL-S11].
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.widgets import Static

from cli.movefile import WrittenMove, move_file_path, write_move_file
from cli.tui.model import GameModel
from cli.tui.play import PlayPanel
from cli.tui.replay import GameScreen
from core.engine import RulesError
from events.service import ServiceError
from replay.logfile import LogFile

STORE_ACTIONS = frozenset({"fork", "fork_as", "diff", "tree", "live", "chance", "cycle_view"})
"""What a view file cannot do: these act on a game of the store (or show other seats)."""


@dataclass(frozen=True)
class Received:
    log: LogFile
    """The player's view."""
    source: str
    """The view file."""
    player: str
    out: str
    """Where the move file goes: the agent's queue, or --out."""
    keys: Path
    """The key store (the player's key signs the move file)."""
    key: Path | None = None
    """--key: a key file instead."""
    queue: bool = False
    """``out`` is the mail agent's queue."""
    agent: bool = False
    """The data directory has a mail set-up (``citylog mail setup``)."""

    def model(self) -> GameModel:
        return GameModel.of_view(self.log, self.source)

    def write(self, commands: list[str]) -> WrittenMove:
        from cli.keys import key_in

        return write_move_file(self.log, self.source, self.player, commands, self.out,
                               lambda: key_in(self.keys, self.player, self.key), answered=self.keys)  # [CL-S17]

    def written_before(self) -> Path | None:
        """This position's move file, if one was written already (still queued, or sent:
        the agent keeps what it sent in the queue's ``sent``)."""
        path = move_file_path(self.log, self.player, self.out)
        for where in (path, path.parent / "sent" / path.name) if self.queue else (path,):
            if where.exists():
                return where
        return self.signed_before()

    def signed_before(self) -> Path | None:
        """[CL-S17] Where the record of her moves says she signed one at this position
        (by any command, to any folder), or one not applied in this view that still
        answers its decision: the record itself, else None."""
        from cli import answered
        from cli.keys import key_in
        from events.signing import public_hex
        from replay.sources import fold_log

        if not self.log.header.definition.host_key:
            return None
        seq = self.log.lines[-1].seq if self.log.lines else 0
        gid = self.log.header.game_id or ""
        try:
            public = public_hex(key_in(self.keys, self.player, self.key))
            found = answered.answers_at(self.keys, gid, self.player, public, seq, answered.view_genesis(self.log))
            if not found:
                game, _, states = fold_log(self.log, self.source)
                seat = self.log.header.definition.players.index(self.player)
                found = [a for a in [answered.still_pending(self.keys, gid, self.player, public, self.log, game,
                                                            states, seat)] if a is not None]
        except ServiceError:
            return None  # no key, or an unreadable record: the write says why
        return self.keys / answered.RECORD if found else None

    def sent_note(self, written: WrittenMove) -> str:
        """Where the move file is and how it reaches the host."""
        if not self.queue:
            return f"{written.path}: send it to the host"
        if self.agent:
            return f"{written.path.name} is in the mail queue: it is sent on the next mail sync"
        return f"{written.path.name} is in the mail queue: `citylog mail sync` sends it"


class ViewScreen(GameScreen):
    """A received view: its board and events, P's play panel, and one move file."""

    def __init__(self, received: Received) -> None:
        super().__init__(received.source)
        self.received = received

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in STORE_ACTIONS

    @work(thread=True, exclusive=True, group="game-io")
    def load(self) -> None:
        try:
            model = self.received.model()
        except ServiceError as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return
        self.app.call_from_thread(self.loaded, model)

    def loaded(self, model: GameModel) -> None:
        super().loaded(model)
        r = self.received
        title = (f"citylog — {model.game.spec.title} — {r.player}'s view of game {model.game_id} "
                 f"(seq {model.version}, received)")
        self.query_one("#title", Static).update(Text(title, style="bold"))
        before = r.written_before() if not model.chosen else None
        if before is not None and not model.closed:  # one move file per position
            model.closed = True
            if before.parent == r.keys:  # the record of her moves, not a file here [CL-S17]
                self.noted("move already signed", f"{r.player} signed a move for this decision already "
                           f"(by another command; {before}): a second lets a dishonest host apply either [CL-S17]; "
                           "nothing more to decide on this view")
                return
            sent = "sent" if before.parent.name == "sent" else "waiting for the next mail sync"
            self.noted("move already written", f"{before.name} ({sent}); nothing more to decide on this view")

    def leave(self) -> None:
        self.app.exit()

    def decide(self, seat: int, command: Any) -> None:
        """A command chosen in the play panel: played out on the view, never submitted."""
        model = self.model
        panel = self.query_one(PlayPanel)
        if model is None or model.closed:
            return
        try:
            decided = model.decided(seat, command)
        except (RulesError, ServiceError) as exc:
            panel.say(f"refused: {exc}", True)
            return
        if decided.turn_done(seat):
            decided.closed = True  # nothing more is decided on this view, written or not
            panel.note = ("writing the move file…", "; ".join(decided.chosen))
            self.write(list(decided.chosen), decided.boundary(seat))
        self.loaded(decided)

    @work(thread=True, exclusive=True, group="game-io")
    def write(self, commands: list[str], boundary: str | None) -> None:
        try:
            written = self.received.write(commands)
        except (ServiceError, RulesError, OSError) as exc:
            self.app.call_from_thread(self.noted, "no move file written",
                                      f"{exc}; nothing sent: q leaves, then open the view again", True)
            return
        after = f"; that is all you can decide now: you will see {boundary} in the next view" if boundary else ""
        shown = "; ".join(written.commands)
        self.app.call_from_thread(self.noted, f"move written: {shown}", self.received.sent_note(written) + after)

    def noted(self, title: str, message: str, error: bool = False) -> None:
        panel = self.query_one(PlayPanel)
        panel.note = (title, message)
        self.refresh_view()
        self.place_focus()
        if error:
            panel.say(message, True)
        self.notify(f"{title}: {message}", severity="error" if error else "information")

