"""Shared Pilot helpers."""

from __future__ import annotations

from textual.pilot import Pilot


async def settle(pilot: Pilot, rounds: int = 3) -> None:
    """Let workers finish and their results reach the screen (a worker may start another)."""
    for _ in range(rounds):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
