"""The command palette's own entries (ctrl+p): go to a seq, open a game, a new game
against bots, enter a chance outcome at a table game, the legend."""

from __future__ import annotations

import asyncio
import re
from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from core import registry
from core.words import plural


def _new_game_entries() -> list[tuple[str, str, int]]:
    """``(text, game name, players)`` for a new game of each available game against bots."""
    out = []
    for name in registry.available():
        game = registry.get(name)
        n = max(2, game.spec.min_players)
        out.append((f"new {game.spec.title} game: you vs {plural(n - 1, 'bot')}", name, n))
    return out


class CitylogCommands(Provider):
    """What a player asks for by name; every entry calls a screen or app action."""

    def _game_screen(self):  # type: ignore[no-untyped-def]
        from cli.tui.replay import GameScreen

        screen = self.screen
        return screen if isinstance(screen, GameScreen) and screen.model is not None else None

    def _store(self) -> bool:
        """The app shows games of the store (not a view received by email: that writes nothing)."""
        return getattr(self.app, "received", None) is None

    async def discover(self) -> Hits:
        game = self._game_screen()
        if game is not None:
            yield DiscoveryHit("go to seq … (type the number)", partial(self.app.notify, "type: go to seq 42"),
                               help="jump the replay cursor to an event")
            yield DiscoveryHit("legend", game.action_legend, help="what the colours, marks and keys mean")
            if game.model.record.table_game:
                yield DiscoveryHit("enter chance", game.action_chance, help="type the draw that happened at the table")
        for text, name, n in _new_game_entries() if self._store() else []:
            yield DiscoveryHit(text, partial(self.app.new_game_vs_bots, name, n), help="you play seat 1")  # type: ignore[attr-defined]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        game = self._game_screen()
        if game is not None:
            number = re.search(r"\d+", query)
            if number:
                seq = int(number.group())
                text = f"go to seq {seq}"
                yield Hit(1.0, matcher.highlight(text), partial(game.go_to_seq, seq),
                          help=f"of {plural(len(game.model.events), 'event')}")
            for text, action, help_text in (
                ("legend", game.action_legend, "what the colours, marks and keys mean"),
                ("enter chance", game.action_chance, "type the draw that happened at the table"),
                ("explain this event", game.action_explain, "who did what and why it was legal"),
            ):
                if text == "enter chance" and not game.model.record.table_game:
                    continue
                score = matcher.match(text)
                if score > 0:
                    yield Hit(score, matcher.highlight(text), action, help=help_text)
        if not self._store():
            return
        for text, name, n in _new_game_entries():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self.app.new_game_vs_bots, name, n),  # type: ignore[attr-defined]
                          help="you play seat 1")
        rows = await asyncio.to_thread(self.app.backend.games)  # type: ignore[attr-defined]
        for row in rows:
            text = f"open game {row.id} ({row.game}: {row.players}, {row.status})"
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self.app.open_game, row.id))  # type: ignore[attr-defined]
