"""The game screen: board, timeline with a cursor, fork, explain, diff, play."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from core.engine import RulesError
from events.service import ServiceError, StaleMove
from events.store import StoreError
from cli.tui.board import Board, StatusLine, Timeline, markup
from cli.tui.modals import SeedModal, TextModal, TreeModal
from cli.tui.model import GameModel
from cli.tui.play import PlayPanel

FAILURES = (RulesError, ServiceError, StoreError)


class GameScreen(Screen[None]):
    BINDINGS = [
        Binding("left", "step(-1)", "◀ event"),
        Binding("right", "step(1)", "event ▶"),
        Binding("pageup", "round(-1)", "◀ round"),
        Binding("pagedown", "round(1)", "round ▶"),
        Binding("home", "home", "start"),
        Binding("end", "end", "end"),
        Binding("v", "cycle_view", "view as"),
        Binding("f", "fork", "fork"),
        Binding("x", "explain", "explain"),
        Binding("d", "diff", "diff"),
        Binding("h", "hint", "hint", show=False),  # kept off the footer: its snapshots stay put
        Binding("w", "live", "live"),
        Binding("t", "tree", "forks", show=False),
        Binding("escape", "back", "library"),
    ]

    def __init__(self, game_id: str, cursor: int | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        self.start_cursor = cursor
        self.model: GameModel | None = None
        self.live = False
        """Live mode (``w``): events appended by other processes show up as they land."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"citylog — game {self.game_id}", style="bold"), id="title")
        yield StatusLine("loading…", id="status")
        with Horizontal():
            yield Board(id="board")
            with Vertical(id="side"):
                yield Timeline(id="timeline")
                yield PlayPanel(id="play")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Timeline).focus()
        self.query_one(PlayPanel).display = False
        self.load()

    # -- I/O in workers --------------------------------------------------------
    @work(thread=True, exclusive=True, group="game-io")
    def load(self) -> None:
        try:
            model = self.app.backend.load(self.game_id, self.start_cursor)  # type: ignore[attr-defined]
        except FAILURES as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return
        self.app.call_from_thread(self.loaded, model)

    @work(thread=True, exclusive=True, group="game-io")
    def submit(self, seat: int, command: Any, version: int) -> None:
        try:
            model = self.app.backend.submit(self.game_id, seat, command, version)  # type: ignore[attr-defined]
        except FAILURES as exc:
            self.app.call_from_thread(self.query_one(PlayPanel).say, f"refused: {exc}", True)
            if isinstance(exc, StaleMove):  # someone else moved: show the game as it is now
                self.app.call_from_thread(self.load)
            return
        self.app.call_from_thread(self.loaded, model)

    @work(thread=True, exclusive=True, group="live")
    def follow(self) -> None:
        def deliver(model: GameModel) -> None:
            self.app.call_from_thread(self.extended, model)

        try:
            self.app.backend.follow(  # type: ignore[attr-defined]
                self.game_id, lambda: self.model, deliver, lambda: not self.live
            )
        except FAILURES as exc:
            self.app.call_from_thread(self.failed, str(exc))
        self.live = False

    def extended(self, model: GameModel) -> None:
        """New events from elsewhere (live mode); ignored if the screen moved on."""
        current = self.model
        if current is None or model.version <= current.version or not self.live:
            return
        if model.records[current.version - 1].hash != current.records[-1].hash:
            return
        model.viewer = current.viewer
        if not current.at_end:
            model.cursor = current.cursor
        self.model = model
        self.refresh_view()

    def action_live(self) -> None:
        self.live = not self.live
        if self.live:
            self.notify("live: following the game as it is played")
            self.follow()
        else:
            self.notify("live: off")

    def on_unmount(self) -> None:
        self.live = False

    @work(thread=True, exclusive=True, group="game-io")
    def fork(self, at: int, seed: str | None) -> None:
        try:
            child = self.app.backend.fork(self.game_id, at, seed)  # type: ignore[attr-defined]
        except FAILURES as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return
        self.app.call_from_thread(self.app.open_game, child)  # type: ignore[attr-defined]

    @work(thread=True, exclusive=True, group="hint")
    def hint(self, player: str) -> None:
        try:
            lines = self.app.backend.hint(self.game_id, player)  # type: ignore[attr-defined]
        except FAILURES as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        self.app.call_from_thread(self.app.push_screen, TextModal(f"hint for {player}", "\n".join(lines)))

    # -- model -> widgets ------------------------------------------------------
    def loaded(self, model: GameModel) -> None:
        if self.model is not None:
            model.viewer = self.model.viewer
        elif model.acting_seat() is not None:
            model.viewer = model.acting_seat()  # a player at the table sees their own view
        self.model = model
        self.query_one("#typed", Input).value = ""
        rec = model.record
        title = f"citylog — {model.game.spec.title} — game {rec.id} ({rec.status})"
        if rec.parent:
            title += f" — fork of {rec.parent} at seq {rec.fork_at}"
        self.query_one("#title", Static).update(Text(title, style="bold"))
        self.refresh_view()
        if model.acting_seat() is not None and model.at_end:
            self.query_one("#legal").focus()

    def failed(self, message: str) -> None:
        self.query_one("#status", StatusLine).update(Text(message, style="bold red"))
        self.notify(message, severity="error")

    def refresh_view(self) -> None:
        model = self.model
        if model is None:
            return
        self.query_one(Board).show(markup(model.board()))
        self.query_one(StatusLine).show(model)
        self.query_one(Timeline).show(model)
        self.query_one(PlayPanel).show(model)

    # -- actions -----------------------------------------------------------------
    def _move(self, fn: str, *args: int) -> None:
        if self.model is not None:
            getattr(self.model, fn)(*args)
            self.refresh_view()

    def action_step(self, delta: int) -> None:
        self._move("step", delta)

    def action_round(self, direction: int) -> None:
        self._move("next_round" if direction > 0 else "prev_round")

    def action_home(self) -> None:
        self._move("home")

    def action_end(self) -> None:
        self._move("end")

    def action_cycle_view(self) -> None:
        self._move("cycle_viewer")

    def on_timeline_picked(self, event: Timeline.Picked) -> None:
        self._move("go", event.index)

    def action_explain(self) -> None:
        if self.model is not None:
            self.app.push_screen(TextModal(f"explain seq {self.model.seq}", self.model.explain()))

    def action_fork(self) -> None:
        model = self.model
        if model is None:
            return
        at = model.seq

        def chosen(seed: str | None) -> None:
            if seed is not None:
                self.fork(at, seed or None)

        self.app.push_screen(SeedModal(at), chosen)

    def action_hint(self) -> None:
        """The search's choice for the player at the table, from that player's view only."""
        model = self.model
        seat = model.acting_seat() if model is not None else None
        if model is None or seat is None:
            self.notify("no player of yours is to act", severity="warning")
            return
        self.notify(f"searching for {model.players[seat]}…")
        self.hint(model.players[seat])

    @work(thread=True, exclusive=True, group="game-io")
    def action_tree(self) -> None:
        """The game's fork tree; choosing another game opens it."""
        try:
            rows = self.app.backend.tree(self.game_id)  # type: ignore[attr-defined]
        except FAILURES as exc:
            self.app.call_from_thread(self.failed, str(exc))
            return

        def chosen(game_id: str | None) -> None:
            if game_id is not None and game_id != self.game_id:
                self.app.open_game(game_id)  # type: ignore[attr-defined]

        self.app.call_from_thread(self.app.push_screen, TreeModal(rows, self.game_id), chosen)

    def action_diff(self) -> None:
        self.app.pick_diff(self.game_id)  # type: ignore[attr-defined]

    def action_back(self) -> None:
        focused = self.focused
        if focused is not None and self.query_one(PlayPanel) in focused.ancestors_with_self:
            self.query_one(Timeline).focus()
            return
        self.app.pop_screen()

    def on_play_panel_chosen(self, event: PlayPanel.Chosen) -> None:
        if self.model is not None:
            self.query_one(PlayPanel).say("submitting…")
            self.submit(event.seat, event.command, self.model.version)
