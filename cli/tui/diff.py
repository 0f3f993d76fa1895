"""Two games side by side: one cursor, the first divergence, the state differences."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from events.service import ServiceError
from events.store import StoreError
from core.words import plural
from cli.tui.model import DiffModel
from cli.tui.sceneview import SceneView

MAX_SHOWN = 200


class DiffScreen(Screen[None]):
    BINDINGS = [
        Binding("left", "step(-1)", "◀ event"),
        Binding("right", "step(1)", "event ▶"),
        Binding("home", "home", "start"),
        Binding("end", "end", "end"),
        Binding("j", "first", "first divergence"),
        Binding("escape", "back", "back"),
    ]

    def __init__(self, a: str, b: str) -> None:
        super().__init__()
        self.ids = (a, b)
        self.model: DiffModel | None = None

    def compose(self) -> ComposeResult:
        a, b = self.ids
        yield Static(Text(f"citylog — diff {a} ↔ {b}", style="bold"), id="title")
        yield Static("loading…", id="summary")
        with Horizontal(id="sides"):
            yield SceneView(id="board-a")
            yield SceneView(id="board-b")
        yield Static("", id="diff-status")
        with VerticalScroll(id="differences", can_focus=False):  # the footer keeps the diff's keys
            yield Static("", id="differences-text")
        yield Footer()

    def on_mount(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="diff-io")
    def load(self) -> None:
        try:
            model = self.app.backend.diff(*self.ids)  # type: ignore[attr-defined]
        except (ServiceError, StoreError) as exc:
            self.app.call_from_thread(self.query_one("#summary", Static).update, Text(str(exc), style="bold red"))
            return
        self.app.call_from_thread(self.loaded, model)

    def loaded(self, model: DiffModel) -> None:
        self.model = model
        s = model.summary
        if s["identical"]:
            text = Text(f"identical: {plural(s['events'][0], 'event')} each", style="bold green")
        elif s.get("different_games"):
            text = Text("different games (they differ from the first event)", style="bold yellow")
            text.append(f"\n  A: {s['a']['event']}\n  B: {s['b']['event']}", style="")
        else:
            text = Text(f"first divergence at seq {s['first_divergence']}", style="bold yellow")
            for key in ("a", "b"):
                side = s.get(key)
                if side:
                    text.append(f"\n  {key.upper()}: {side['event']}", style="")
            if "note" in s:
                text.append(f"\n  {s['note']}", style="")
        text.append(f"\n  A {model.a.game_id}: {plural(s['events'][0], 'event')} · B {model.b.game_id}: {plural(s['events'][1], 'event')}",
                    style="dim")
        self.query_one("#summary", Static).update(text)
        self.refresh_view()

    def refresh_view(self) -> None:
        model = self.model
        if model is None:
            return
        self.query_one("#board-a", SceneView).show(model.a.scene())
        self.query_one("#board-b", SceneView).show(model.b.scene())
        unrelated = bool(model.summary.get("different_games"))
        diffs = [] if unrelated else model.differences()
        # unrelated games are not compared square by square: saying "0 differences" or
        # "the same" would be false (issue 26, item 8)
        counted = "different games: not compared" if unrelated else f"{plural(len(diffs), 'difference')} (A → B)"
        status = Text(f"seq {model.cursor + 1}/{model.last + 1} · {counted}", style="bold")
        status.append(f"\n A {model.side_line(model.a)}", style="red")
        status.append(f"\n B {model.side_line(model.b)}", style="green")
        status.no_wrap, status.overflow = True, "ellipsis"
        self.query_one("#diff-status", Static).update(status)
        lines = Text()
        for d in diffs[:MAX_SHOWN]:
            where, _, what = d.partition(": ")
            a_side, _, b_side = what.partition(" → ")
            lines.append(f"{where}: ", style="bold")
            lines.append(a_side, style="red")
            if b_side:
                lines.append("  →  ")
                lines.append(b_side, style="green")
            lines.append("\n")
        if len(diffs) > MAX_SHOWN:
            lines.append(f"… and {len(diffs) - MAX_SHOWN} more", style="dim")
        if unrelated:
            lines.append("different games (they differ from the first event): each is shown as it is, "
                         "nothing is compared", style="dim")
        elif not diffs:
            lines.append("the positions are the same here", style="dim")
        self.query_one("#differences-text", Static).update(lines)

    def _move(self, index: int) -> None:
        if self.model is not None:
            self.model.go(index)
            self.refresh_view()

    def action_step(self, delta: int) -> None:
        if self.model is not None:
            self._move(self.model.cursor + delta)

    def action_home(self) -> None:
        self._move(0)

    def action_end(self) -> None:
        if self.model is not None:
            self._move(self.model.last)

    def action_first(self) -> None:
        if self.model is not None:
            self.model.jump_to_divergence()
            self.refresh_view()

    def action_back(self) -> None:
        self.app.pop_screen()
