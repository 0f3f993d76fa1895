"""``citylog tui``: the Textual app on the same database and GameService as the CLI."""

from __future__ import annotations

from pathlib import Path

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from typing import TYPE_CHECKING

from cli.tui.backend import Backend
from cli.tui.diff import DiffScreen
from cli.tui.library import LibraryScreen
from cli.tui.palette import CitylogCommands
from cli.tui.replay import GameScreen

if TYPE_CHECKING:
    from cli.tui.received import Received


class CitylogApp(App[None]):
    CSS_PATH = Path(__file__).with_name("tui.tcss")
    TITLE = "citylog"
    BINDINGS = [Binding("ctrl+q", "quit", "quit", show=False)]
    COMMANDS = App.COMMANDS | {CitylogCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-normal"), (160, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

    def __init__(self, db: str, game_id: str | None = None, durability: str = "full",
                 received: Received | None = None, viewer: int | None = None) -> None:
        super().__init__()
        self.backend = Backend(db, durability)
        self.start_game = game_id
        self.start_viewer = viewer
        self.received = received
        """A view received by email (``tui GAME --as P``): its screen alone, no store (issue 24)."""

    def get_default_screen(self) -> Screen[None]:
        if self.received is not None:
            from cli.tui.received import ViewScreen

            return ViewScreen(self.received)
        return LibraryScreen()

    def on_mount(self) -> None:
        if self.start_game and self.received is None:
            self.push_screen(GameScreen(self.start_game, viewer=self.start_viewer))

    # -- navigation (screens call these) ----------------------------------------
    def open_game(self, game_id: str) -> None:
        self.push_screen(GameScreen(game_id))

    def new_game_vs_bots(self, name: str, players: int) -> None:
        """A new game of ``name``: you in seat 1, bots in the others; opened at your first decision."""
        self.run_worker(lambda: self._create(name, players), thread=True, group="new-game")

    def _create(self, name: str, players: int) -> None:
        names = ["you", *(f"bot{i}" for i in range(1, players))]
        game_id = self.backend.new(name, names, {i: "random" for i in range(1, players)})
        self.call_from_thread(self.open_game, game_id)

    def pick_diff(self, game_id: str) -> None:
        """Choose the other side of a diff with ``game_id`` from the library."""
        self.push_screen(LibraryScreen(mark=game_id))

    def open_diff(self, a: str, b: str) -> None:
        if isinstance(self.screen, LibraryScreen) and self.screen is not self.screen_stack[0]:
            self.pop_screen()
        self.push_screen(DiffScreen(a, b))
