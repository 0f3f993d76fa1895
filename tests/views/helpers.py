"""Driving games through the CLI as players would (CliRunner, in-process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from cli.main import app
from core import registry
from core.engine import CHANCE
from core.rng import Rng
from replay import logfile
from replay.sources import fold_log

RUNNER = CliRunner()


def run(db: Path, *args: str) -> tuple[int, str]:
    result = RUNNER.invoke(app, ["--db", str(db), *args])
    return result.exit_code, result.stdout + result.stderr


def ok(db: Path, *args: str) -> str:
    code, out = run(db, *args)
    assert code == 0, f"citylog {' '.join(args)} exited {code}: {out}"
    return out


def new(db: Path, game: str, players: str, seed: str, *extra: str) -> str:
    return json.loads(ok(db, "new", game, "--players", players, "--seed", seed, "--json", *extra))["game_id"]


def read(path: Path) -> logfile.LogFile:
    with path.open(encoding="utf-8") as handle:
        return logfile.read(handle, str(path))


def choose_from_file(path: Path, player: str, seed: str) -> str | None:
    """What a player decides from their exported file alone: the greedy bot on their view."""
    log = read(path)
    game, events, states = fold_log(log)
    seat = log.header.definition.players.index(player)
    state = game.view(states[-1], seat)
    if seat not in game.to_act(state):
        return None
    bot = game.bots["greedy"]
    return game.format_command(bot(game, state, seat, Rng.derive(seed, len(events))))


def actors(db: Path, gid: str) -> list[str]:
    return json.loads(ok(db, "show", gid, "--json"))["to_act"]


def game_of(name: str) -> Any:
    return registry.get(name)


__all__ = ["CHANCE", "actors", "choose_from_file", "game_of", "new", "ok", "read", "run"]
