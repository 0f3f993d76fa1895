"""An independent client of ``citylog engine``, written from docs/engine-protocol.md only.

Nothing here imports citylog: the engine is a subprocess spoken to in JSON lines, exactly
as a bot written in another language would.  Three pieces:

- :class:`Engine` starts ``citylog engine`` (``python -m cli.main`` by default, so that
  a test runs its own checkout), writes requests, and matches answers to requests by
  their ``id``; it also checks the documented promise that answers come in the order
  of the requests.
- :class:`EngineRefused` is a refused request (``"ok": false``): ``kind``, ``exit``,
  ``message`` and ``rule``.
- :class:`SeatBot` plays one seat from its own view (``"as"``), choosing among the
  ``legal`` commands with a seeded RNG, so that a game is reproducible;
  :func:`play_to_end` lets one bot per seat play a game to its end.

    python -m tests.engine_client.doc_bot --db /tmp/x.db card-city
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

PROTOCOL = "citylog-engine/1"


class EngineRefused(Exception):
    """The engine answered ``"ok": false``; the documented ``error`` object, unpacked."""

    def __init__(self, request: dict[str, Any], answer: dict[str, Any]) -> None:
        error = answer.get("error") or {}
        self.request = request
        self.answer = answer
        self.kind: str = error.get("kind", "")
        self.exit: int = error.get("exit", -1)
        self.message: str = error.get("message", "")
        self.rule: str | None = error.get("rule")
        super().__init__(f"{self.kind} (exit {self.exit}): {self.message}")


class ProtocolViolation(AssertionError):
    """The engine broke a promise of the document (order, one line per answer, ...)."""


def engine_command(db: str | os.PathLike[str], python: str = sys.executable) -> list[str]:
    """``citylog --db DB engine`` run as ``python -m cli.main``: this checkout's code."""
    return [python, "-m", "cli.main", "--db", str(db), "engine"]


def child_env(root: str | os.PathLike[str] | None) -> dict[str, str]:
    """The environment for the engine: PYTHONPATH set to ``root`` (the checkout)."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = str(root)
    env.pop("CITYLOG_DB", None)  # --db decides, never the caller's environment
    return env


class Engine:
    """One ``citylog engine`` session.

    ``send`` writes a request without waiting; ``receive`` reads the answer to one
    request (answers are read in request order, which the engine promises);
    ``ask`` does both.  ``call`` returns the answer or raises :class:`EngineRefused`.
    """

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None,
                 cwd: str | os.PathLike[str] | None = None) -> None:
        self.process = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", env=env, cwd=cwd,
        )
        self._ids = itertools.count(1)
        self._pending: list[tuple[Any, dict[str, Any] | str]] = []  # (id, request) in order written
        self.transcript: list[tuple[Any, Any]] = []  # (request, answer) pairs, for failure messages

    @classmethod
    def start(cls, db: str | os.PathLike[str], root: str | os.PathLike[str] | None = None) -> Engine:
        """The engine of the checkout at ``root`` on the database ``db``."""
        return cls(engine_command(db), env=child_env(root), cwd=root)

    # -- the wire ---------------------------------------------------------------------
    def send_line(self, line: str, expect_id: Any = None) -> None:
        """Write one raw line (which need not be JSON); its answer's id is ``expect_id``."""
        assert self.process.stdin is not None
        self.process.stdin.write(line if line.endswith("\n") else line + "\n")
        self.process.stdin.flush()
        self._pending.append((expect_id, line))

    def send(self, op: str, *, id: Any = None, **fields: Any) -> Any:
        """Write a request (``as`` may be passed as ``as_``); return its id."""
        if id is None:
            id = next(self._ids)
        request = {"id": id, "op": op}
        for key, value in fields.items():
            request["as" if key == "as_" else key] = value
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        self._pending.append((id, request))
        return id

    def read_answer(self) -> dict[str, Any]:
        """The next answer line, parsed; a violation if stdout ended or is not one object."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            stderr = self.process.stderr.read() if self.process.stderr else ""
            raise ProtocolViolation(f"engine closed stdout; stderr: {stderr.strip()[-2000:]}")
        try:
            answer = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProtocolViolation(f"answer is not JSON: {line!r}") from exc
        if not isinstance(answer, dict) or "id" not in answer or "ok" not in answer:
            raise ProtocolViolation(f"answer lacks id/ok: {line!r}")
        return answer

    def receive(self, id: Any) -> dict[str, Any]:
        """The answer to request ``id``: the engine must answer the oldest unanswered one first."""
        if not any(pid == id for pid, _ in self._pending):
            raise KeyError(f"no request with id {id!r} is waiting")
        while True:
            answer = self.read_answer()
            expected_id, request = self._pending.pop(0)
            self.transcript.append((request, answer))
            if answer["id"] != expected_id:
                raise ProtocolViolation(
                    f"answer out of order: expected id {expected_id!r}, got {answer['id']!r}")
            if expected_id == id:
                return answer

    def ask(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request and return its answer (``ok`` true or false)."""
        return self.receive(self.send(op, **fields))

    def call(self, op: str, **fields: Any) -> dict[str, Any]:
        """Send one request; its answer if ``ok``, else raise :class:`EngineRefused`."""
        request_id = self.send(op, **fields)
        answer = self.receive(request_id)
        if answer["ok"] is not True:
            raise EngineRefused({"op": op, **fields}, answer)
        return answer

    # -- the end ----------------------------------------------------------------------
    def quit(self, timeout: float = 30) -> tuple[dict[str, Any], int]:
        """``quit``: its answer and the process's exit code."""
        answer = self.ask("quit")
        return answer, self.wait(timeout)

    def close_input(self, timeout: float = 30) -> int:
        """End of input: close stdin and return the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.wait(timeout)

    def wait(self, timeout: float = 30) -> int:
        return self.process.wait(timeout=timeout)

    def stderr_text(self) -> str:
        """Everything the engine wrote to stderr (only after it has ended)."""
        return self.process.stderr.read() if self.process.stderr else ""

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass


# -- the bot ----------------------------------------------------------------------------

@dataclass
class SeatBot:
    """One seat, playing only from its own view.

    Asks ``position`` with ``as`` = its seat; if the view lists legal commands for the
    seat, picks one with its seeded RNG and sends it back unchanged as a ``move``, with
    the ``seq`` the choice was made against.
    """

    engine: Engine
    game_id: str
    seat: str
    seed: int = 0
    moves: list[dict[str, Any]] = field(default_factory=list)  # the move answers, in order

    def __post_init__(self) -> None:
        self.rng = random.Random(f"{self.seed}/{self.seat}")

    def view(self) -> dict[str, Any]:
        return self.engine.call("position", game=self.game_id, as_=self.seat)

    def choose(self, legal: list[str]) -> str:
        return self.rng.choice(sorted(legal))

    def step(self) -> dict[str, Any] | None:
        """Move once if this seat may; the move's answer, or None when it may not act."""
        mine = self.view()
        if mine["over"]:
            return None
        legal = (mine.get("legal") or {}).get(self.seat) or []
        if not legal:
            return None
        answer = self.engine.call("move", game=self.game_id, player=self.seat,
                                  command=self.choose(legal), seq=mine["seq"])
        self.moves.append(answer)
        return answer


def play_to_end(engine: Engine, game_id: str, seats: Iterable[str], seed: int = 0,
                max_moves: int = 5000) -> dict[str, Any]:
    """Each seat's bot takes its turn whenever its own view lists a legal command, until
    the game is over; returns the final host position (with ``result``)."""
    bots = [SeatBot(engine, game_id, seat, seed) for seat in seats]
    made = 0
    while True:
        moved = False
        for bot in bots:
            if bot.step() is not None:
                made += 1
                moved = True
                if made > max_moves:
                    raise RuntimeError(f"game {game_id} did not end in {max_moves} moves")
        final = engine.call("position", game=game_id)
        if final["over"]:
            return final
        if not moved:
            raise RuntimeError(f"game {game_id} is stuck: no seat may act, to_act={final['to_act']}")


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("games", nargs="*")
    args = parser.parse_args(argv)
    with Engine.start(args.db, args.root) as engine:
        hello = engine.call("hello")
        if hello["protocol"] != PROTOCOL:
            print(f"unknown protocol {hello['protocol']!r}", file=sys.stderr)
            return 1
        for game in args.games or [g["name"] for g in hello["games"]]:
            created = engine.call("new", game=game, players=["ann", "bob"], seed=f"doc-bot-{args.seed}")
            final = play_to_end(engine, created["game_id"], created["players"], args.seed)
            print(game, created["game_id"], json.dumps(final["result"]))
        engine.quit()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
