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

from core.engine import CHANCE, RulesError
from events.service import ServiceError, StaleMove
from events.store import StoreError
from cli.tui.board import StatusLine, Timeline
from cli.tui.modals import InputModal, SeedModal, TextModal, TreeModal
from cli.tui.model import GameModel
from cli.tui.play import PlayPanel
from cli.tui.sceneview import PanelView, SceneView
from core.scene_text import LEGEND

FAILURES = (RulesError, ServiceError, StoreError)


class GameScreen(Screen[None]):
    BINDINGS = [
        Binding("left", "step(-1)", "back"),
        Binding("right", "step(1)", "next"),
        Binding("pageup", "round(-1)", "◀ round", show=False),
        Binding("pagedown", "round(1)", "round ▶", show=False),
        Binding("home", "home", "start", show=False),
        Binding("end", "end", "end", show=False),
        Binding("m", "next_mark", "mark"),  # shown once the game is analysed (check_action)
        Binding("v", "cycle_view", "view"),
        Binding("f", "fork", "fork"),
        Binding("F", "fork_as", "fork as", show=False),  # take over a seat [GL-3]
        Binding("x", "explain", "explain"),
        Binding("d", "diff", "diff"),
        Binding("b", "board", "board", show=False),
        Binding("h", "hint", "hint", show=False),  # kept off the footer: its snapshots stay put
        Binding("w", "live", "live"),
        Binding("t", "tree", "forks", show=False),
        Binding("question_mark", "legend", "legend"),
        Binding("escape", "back", "back", show=False),
        Binding("q", "close", "close"),
        Binding("c", "chance", "chance", show=False),
    ]

    def __init__(self, game_id: str, cursor: int | None = None, viewer: int | None = None) -> None:
        super().__init__()
        self.game_id = game_id
        self.start_cursor = cursor
        self.start_viewer = viewer
        """``tui GAME --as P``: P's view at first (None: the seat to act, else the referee's)."""
        self.model: GameModel | None = None
        self.live = False
        """Live mode (``w``): events appended by other processes show up as they land."""
        self._analysed: tuple[bool, bool] = (False, False)
        """(the game has judgements, it is over): what the footer showed last."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"citylog — game {self.game_id}", style="bold"), id="title")
        yield StatusLine("loading…", id="status")
        with Horizontal(id="game-body"):
            yield SceneView(id="board")
            with Vertical(id="side"):
                yield Timeline(id="timeline")
                yield PlayPanel(id="play")
        yield Footer()

    def on_mount(self) -> None:
        timeline = self.query_one(Timeline)
        timeline.border_title = "events"
        timeline.focus()
        panel = self.query_one(PlayPanel)
        panel.border_title = "your move"
        panel.display = False
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
    def fork(self, at: int, seed: str | None, take_over: str | None = None) -> None:
        try:
            child = self.app.backend.fork(self.game_id, at, seed, take_over)  # type: ignore[attr-defined]
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
        elif self.start_viewer is not None:
            model.viewer = self.start_viewer
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
        self.place_focus()

    def place_focus(self) -> None:
        """After a load or a move: the command list when a seat of yours is to act, else the
        events; never a hidden widget, so the footer always names the keys that work now."""
        model = self.model
        if model is not None and model.acting_seat() is not None and model.at_end:
            self.query_one("#legal").focus()
            return
        focused = self.focused
        if focused is None or not focused.display or self.query_one(PlayPanel) in focused.ancestors_with_self:
            self.query_one(Timeline).focus()

    def failed(self, message: str) -> None:
        self.query_one("#status", StatusLine).update(Text(message, style="bold red"))
        self.notify(message, severity="error")

    def refresh_view(self) -> None:
        model = self.model
        if model is None:
            return
        panel = self.query_one(PlayPanel)
        panel.show(model)
        scene = model.scene(panel.play if panel.display else None)
        self.query_one(SceneView).show(scene)
        seat = panel.seat if panel.display and panel.play is not None else None
        own = [p.summary for p in scene.panels if seat is not None and p.owner == seat]
        panel.holds(own[0] if own and self.has_class("-short") else "")
        self.query_one(StatusLine).show(model, model.game.spec.title if self.has_class("-short") else None)
        analysed = (bool(model.judged), not model.game.to_act(model.states[-1]))
        if analysed != self._analysed:  # the footer's m and w depend on it (check_action)
            self._analysed = analysed
            self.refresh_bindings()
        self.query_one(Timeline).show(model)

    # -- actions -----------------------------------------------------------------
    def _move(self, fn: str, *args: int) -> None:
        if self.model is not None:
            getattr(self.model, fn)(*args)
            self.refresh_view()

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_view)  # the breakpoints may have changed the layout

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

    def action_next_mark(self) -> None:
        """``m``: the next decision ``citylog analyse`` marked (?!, ?, ??), in the viewer's judgements."""
        model = self.model
        if model is None or model.next_mark() is None:
            self.notify("no marked decision in this view (citylog analyse marks them)", severity="warning")
            return
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``m`` is in the footer once the game is analysed; then a finished game's ``w``
        (nothing to follow live) leaves it the room at 80 columns."""
        model = self.model
        analysed = model is not None and bool(model.judged)
        if action == "next_mark":
            return analysed
        if action == "live" and analysed and model is not None and not model.game.to_act(model.states[-1]):
            return False
        return True

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

    def action_fork_as(self) -> None:
        """Fork at the shown event taking over a seat: its bot stops, the others play on [GL-3]."""
        model = self.model
        if model is None:
            return
        at = model.seq
        default = model.players[model.viewer if model.viewer is not None else 0]

        def chosen(player: str | None) -> None:
            if player is not None:
                self.fork(at, None, player or default)

        self.app.push_screen(InputModal(f"Fork after seq {at}, taking over the seat of (blank = {default}):",
                                        ", ".join(model.players)), chosen)

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
        """Escape: cancel a pending move, then leave the board or the play panel, then the game."""
        panel = self.query_one(PlayPanel)
        if panel.cancel():
            return
        if panel.play is not None and panel.play.square_filter is not None:
            panel.action_all_squares()
            self.refresh_view()
            return
        focused = self.focused
        if focused is not None and (panel in focused.ancestors_with_self or isinstance(focused, PanelView)):
            self.query_one(Timeline).focus()
            return
        self.leave()

    def action_close(self) -> None:
        """``q``: back to the library."""
        self.leave()

    def leave(self) -> None:
        self.app.pop_screen()

    def action_board(self) -> None:
        """Focus the board where the seat to act may place something (arrows move, Enter picks)."""
        for view in self.query_one(SceneView).panels():
            if view.can_focus:
                view.focus()
                return

    def action_legend(self) -> None:
        model = self.model
        if model is None:
            return
        scene = model.scene()
        colours = "\n".join(f"  {text}" for _, text in scene.legend)
        body = (
            f"{model.game.spec.title}: what the board shows\n{colours}\n"
            + (f"  {scene.notation}\n" if scene.notation else "")
            + f"\nmarks: {LEGEND}\n\n"
            + "keys: ←/→ one event · PgUp/PgDn one round · Home/End · v view as · f fork · x explain · t forks · "
            "d diff · b the board (arrows, Enter picks a square) · y send a chosen move · c enter chance · "
            "Escape cancel/back · q close · ctrl+p commands (go to seq, open game, new game vs bots)\n"
            "in the play panel letters are text (a command typed), never shortcuts: Escape leaves it\n"
            "rulings: citylog rules ID (e.g. citylog rules CC-10)"
        )
        self.app.push_screen(TextModal("legend", body))

    def action_chance(self) -> None:
        """A table game: type the chance outcome that happened (checked for possibility)."""
        model = self.model
        if model is None or not model.record.table_game:
            self.notify("chance comes from the seed in this game", severity="warning")
            return
        if CHANCE not in model.game.to_act(model.states[-1]):
            self.notify("no chance outcome is due now", severity="warning")
            return

        def entered(text: str | None) -> None:
            if not text or self.model is None:
                return
            try:
                command = self.model.parse(CHANCE, text)
            except RulesError as exc:
                self.notify(f"refused: {exc}", severity="error")
                return
            self.submit(CHANCE, command, self.model.version)

        self.app.push_screen(InputModal("chance outcome (e.g. draw R I L P)", "what happened at the table"), entered)

    def go_to_seq(self, seq: int) -> None:
        self._move("go", seq - 1)

    def on_panel_view_picked(self, event: PanelView.Picked) -> None:
        model = self.model
        panel = self.query_one(PlayPanel)
        if model is None or panel.play is None or not panel.display or not model.at_end:
            return
        scene = model.scene(panel.play)
        if model.target_panel(scene, panel.play) != event.index:
            panel.say("that board is not where you place", error=True)
            return
        panel.pick_square(event.square)
        self.query_one(SceneView).show(model.scene(panel.play))

    def on_play_panel_chosen(self, event: PlayPanel.Chosen) -> None:
        self.decide(event.seat, event.command)

    def decide(self, seat: int, command: Any) -> None:
        """A command chosen in the play panel: submitted to the store."""
        if self.model is not None:
            self.query_one(PlayPanel).say("submitting…")
            self.submit(seat, command, self.model.version)
