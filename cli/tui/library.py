"""The library: every game in the database, filterable; Enter opens, d diffs two."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from cli.tui.model import GameRow, LibraryModel

COLUMNS = ("game id", "game", "players", "status", "events", "fork of")


class LibraryScreen(Screen[None]):
    BINDINGS = [
        Binding("slash", "filter", "filter"),
        Binding("d", "mark_diff", "diff with…"),
        Binding("r", "reload", "reload"),
        Binding("escape", "back", "back"),
        Binding("q", "quit", "quit"),
    ]

    def __init__(self, mark: str | None = None) -> None:
        super().__init__()
        self.model = LibraryModel()
        self.mark = mark
        """A game chosen as the first side of a diff."""

    def compose(self) -> ComposeResult:
        yield Static(Text("citylog — games", style="bold"), id="title")
        yield Input(placeholder="filter: game, player, status, id…  (/ to focus)", id="filter")
        yield DataTable(id="games", cursor_type="row", zebra_stripes=True)
        yield Static("", id="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.query_one(DataTable).focus()
        self.show_hint()

    def on_screen_resume(self) -> None:
        self.reload()

    @work(thread=True, exclusive=True, group="library-io")
    def reload(self) -> None:
        rows = self.app.backend.games()  # type: ignore[attr-defined]
        self.app.call_from_thread(self.loaded, rows)

    def loaded(self, rows: list[GameRow]) -> None:
        self.model.rows = rows
        self.fill()

    def fill(self) -> None:
        table = self.query_one(DataTable)
        current = self.selected()
        table.clear()
        for row in self.model.visible():
            table.add_row(*row.cells(), key=row.id)
        if current is not None and current in {r.id for r in self.model.visible()}:
            table.move_cursor(row=table.get_row_index(current))

    def selected(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return key.value

    def show_hint(self) -> None:
        if self.mark is None:
            text = "Enter opens a game · d marks one for a diff · / filters"
        else:
            text = f"diff: {self.mark} against… choose a game and press Enter (Escape cancels)"
        self.query_one("#hint", Static).update(Text(text, style="dim"))

    # -- events ------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        self.model.query = event.value
        self.fill()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        gid = event.row_key.value
        if gid is None:
            return
        if self.mark is not None and self.mark != gid:
            first, self.mark = self.mark, None
            self.show_hint()
            self.app.open_diff(first, gid)  # type: ignore[attr-defined]
        else:
            self.app.open_game(gid)  # type: ignore[attr-defined]

    # -- actions -----------------------------------------------------------------
    def action_filter(self) -> None:
        self.query_one("#filter", Input).focus()

    def action_mark_diff(self) -> None:
        self.mark = self.selected()
        self.show_hint()

    def action_reload(self) -> None:
        self.reload()

    def action_back(self) -> None:
        if self.focused is self.query_one("#filter"):
            self.query_one(DataTable).focus()
        elif self is not self.app.screen_stack[0]:
            self.app.pop_screen()
        elif self.mark is not None:
            self.mark = None
            self.show_hint()

    async def action_quit(self) -> None:
        self.app.exit()
