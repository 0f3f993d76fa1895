"""``citylog engine``: one long-running process speaking JSON lines (issue 26).

Bots and tournament software talk to citylog the way UCI engines and lichess's
bot API are talked to: a request per line on stdin, an answer per line on
stdout, in order, for as long as the process lives — no process and no
database opening per move.  The protocol is documented, with an example bot, in
``docs/engine-protocol.md``; this module is its one implementation.

Every request goes through the same paths as the commands: games are created
and moved through :class:`events.service.GameService` (the one writer), and a
seat's position, legal commands and events are read through
:func:`replay.sources.open_log` (``--as P`` reads exactly what P's exported file
holds).  A request never ends the session: a refusal or even a bug is an answer
(``"ok": false``) with the exit code the same command would have had.

>>> s = Session(lambda: None)
>>> s.handle({"id": 1, "op": "hello"})["protocol"]
'citylog-engine/1'
>>> s.handle({"id": 2, "op": "fly"})["error"]["kind"]
'bad-request'
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import msgspec
import typer

from cli.arguments import seat_names
from core.engine import CHANCE

PROTOCOL = "citylog-engine/1"
MAX_LINE = 1 << 20
"""A request line longer than this (1 MiB) is refused; the longest real request is
a few hundred bytes."""

_enc = msgspec.json.Encoder()


class EngineError(Exception):
    """A request the engine refuses: ``kind`` names the class of problem, ``exit``
    the exit code the same command would have had (2 bad input, 1 a failed check,
    3 a bug, 4 the environment)."""

    def __init__(self, kind: str, message: str, exit: int = 2, rule: str | None = None) -> None:
        super().__init__(message)
        self.kind, self.exit, self.rule = kind, exit, rule

    def answer(self, rid: Any) -> dict[str, Any]:
        error: dict[str, Any] = {"kind": self.kind, "exit": self.exit, "message": _one_line(str(self))}
        if self.rule is not None:
            error["rule"] = self.rule
        return {"id": rid, "ok": False, "error": error}


def _one_line(text: str) -> str:
    from cli.output import one_line

    return one_line(" ".join(text.split()))


class Session:
    """One engine session: requests in, answers out.  ``service`` opens the store
    on first use (``hello`` needs none)."""

    def __init__(self, service: Callable[[], Any]) -> None:
        self._open = service
        self._service: Any = None
        self.done = False
        self._resolved: dict[str, str] = {}
        """Exact game ids already resolved (a move names its game every time)."""
        self._ops: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self.hello,
            "new": self.new,
            "position": self.position,
            "legal": self.legal,
            "move": self.move,
            "events": self.events,
            "quit": self.quit,
        }

    @property
    def service(self) -> Any:
        if self._service is None:
            self._service = self._open()
        return self._service

    # -- the loop ------------------------------------------------------------------
    def handle(self, request: Any) -> dict[str, Any]:
        """The answer to one decoded request (never raises)."""
        rid = request.get("id") if isinstance(request, dict) else None
        try:
            if not isinstance(request, dict):
                raise EngineError("bad-request", "a request is a JSON object")
            op = request.get("op")
            handler = self._ops.get(op) if isinstance(op, str) else None
            if handler is None:
                said = f"unknown op {op!r}" if op is not None else 'no "op" field (a request is {"op": …, "id": …})'
                raise EngineError("bad-request", f"{said} (ops: {', '.join(self._ops)})")
            answer = handler(request)
        except EngineError as exc:
            return exc.answer(rid)
        except Exception as exc:  # noqa: BLE001 - every failure is an answer, the session goes on
            return _classify(exc).answer(rid)
        return {"id": rid, "ok": True, **answer}

    def handle_line(self, line: bytes) -> dict[str, Any]:
        try:
            request = msgspec.json.decode(line)
        except (msgspec.DecodeError, RecursionError) as exc:
            why = "nested too deeply" if isinstance(exc, RecursionError) else " ".join(str(exc).split())[:200]
            return EngineError("bad-request", f"not a JSON object ({why})").answer(None)
        return self.handle(request)

    # -- ops -----------------------------------------------------------------------
    def hello(self, request: dict[str, Any]) -> dict[str, Any]:
        from core import registry

        games = []
        for name in registry.available():
            game = registry.get(name)
            spec = game.spec
            games.append({
                "name": spec.name, "title": spec.title, "min_players": spec.min_players,
                "max_players": spec.max_players, "rules_version": spec.rules_version,
                "options": [{"key": o.key, "default": o.default, "choices": list(o.choices), "help": o.help}
                            for o in spec.options],
                "bots": sorted(game.bots),
            })  # fmt: skip
        return {"protocol": PROTOCOL, "version": _version(), "games": games}

    def new(self, request: dict[str, Any]) -> dict[str, Any]:
        from cli.games import parse_players
        from core import registry
        from core.engine import normalize_options
        from events.service import ServiceError

        name = _field(request, "game", str)
        game = registry.get(name)  # an unknown game: bad-input
        players = request.get("players")
        if isinstance(players, bool) or not isinstance(players, (int, list)):
            raise EngineError("bad-request", "'players' is a count or a list of names")
        if isinstance(players, list) and not all(isinstance(p, str) for p in players):
            raise EngineError("bad-request", "'players' is a count or a list of names")
        try:
            names = parse_players(str(players) if isinstance(players, int) else ",".join(players), name)
        except ServiceError as exc:
            raise EngineError("bad-input", str(exc)) from None
        seed = _optional(request, "seed", str)
        options = _optional(request, "options", dict) or {}
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items()):
            raise EngineError("bad-request", "'options' maps option names to string values")
        normalize_options(game.spec, options)  # BadOptions: bad-input, before anything is written
        bots: dict[int, str] = {}
        for who, policy in (_optional(request, "bots", dict) or {}).items():
            if who not in names:
                raise EngineError("bad-input", f"'bots' names no player {who!r} (players: {', '.join(names)})")
            if policy not in game.bots:
                raise EngineError("bad-input", f"no bot policy {policy!r} (bots: {', '.join(game.bots)})")
            bots[names.index(who)] = policy
        gid = self.service.create(name, names, seed=seed, options=options, bots=bots)
        return self._position(gid, None, board=bool(_optional(request, "board", bool)))

    def position(self, request: dict[str, Any]) -> dict[str, Any]:
        return self._position(
            _field(request, "game", str), _optional(request, "as", str), board=bool(_optional(request, "board", bool))
        )

    def legal(self, request: dict[str, Any]) -> dict[str, Any]:
        ref = _field(request, "game", str)
        player = _field(request, "player", str)
        as_ = _optional(request, "as", str)
        if as_ is not None and as_ != player:
            raise EngineError("bad-request", f"{as_}'s view cannot list {player}'s commands")
        pos = self._read(ref, as_)
        seat = pos.seat(player)
        return {"game_id": pos.game_id, "seq": pos.seq, "player": player, "legal": pos.legal(seat)}

    def move(self, request: dict[str, Any]) -> dict[str, Any]:
        ref = request.get("game")
        player = request.get("player")
        text = request.get("command")
        if type(ref) is not str or type(player) is not str or type(text) is not str:  # the checks' own words
            ref, player, text = _field(request, "game", str), _field(request, "player", str), _field(request, "command", str)
        expected = _optional(request, "seq", int) if "seq" in request else None
        svc = self.service
        gid = self._resolved.get(ref)
        if gid is None:
            if Path(ref).is_file():
                raise EngineError("refused", "a file is read-only here; a play-by-email move is a signed move "
                                  "file ('citylog move FILE --as PLAYER COMMAND --out DIR')")
            gid = svc.resolve(ref)
            if gid == ref:  # an exact id names the same game for ever ('last' and prefixes may not)
                self._resolved[ref] = gid
        cache = svc.repository.cache
        known = cache.get(gid)  # a game's players, from the last fold (checked again below)
        players = known.players if known is not None else svc.load(gid).players
        if player not in players:
            _check_player(players, player)
        seat = players.index(player)
        # one load: parsed where it is decided, in the submit's transaction (BadCommandSyntax kept),
        # the seat checked to be the player's there
        written = svc.submit(gid, seat, text, expected_version=expected, text=True, player=player)
        # the answer, in one pass over the fold the submit moved on (no second load, nothing re-derived)
        loaded = cache.get(gid)
        if loaded is None or loaded.version != written[-1].seq:
            loaded = svc.load(gid)
        game = loaded.game
        describe = game.describe
        players = loaded.players
        new = loaded.events[len(loaded.events) - len(written):]
        if seat == CHANCE:
            events = [{"seq": w.seq, "type": w.type, "text": describe(e, players)}
                      for w, e in zip(written, new, strict=True)]
        else:
            redact = game.redact
            events = [{"seq": w.seq, "type": w.type, "text": describe(redact(e, seat), players)}
                      for w, e in zip(written, new, strict=True)]
        actors = game.to_act(loaded.state)
        return {
            "game_id": gid, "seq": loaded.version, "head": loaded.head_hash, "events": events,
            "to_act": seat_names(players, actors), "over": not actors,
        }  # fmt: skip

    def events(self, request: dict[str, Any]) -> dict[str, Any]:
        since = _optional(request, "since", int) or 0
        pos = self._read(_field(request, "game", str), _optional(request, "as", str))
        out = []
        for line, e in zip(pos.log.lines, pos.events, strict=True):
            if line.seq > since:
                out.append({"seq": line.seq, "type": line.type, "redacted": line.redacted,
                            "text": pos.game.describe(e, pos.players)})
        return {"game_id": pos.game_id, "seq": pos.seq, "events": out}

    def quit(self, request: dict[str, Any]) -> dict[str, Any]:
        self.done = True
        return {"bye": True}

    # -- reading a position ----------------------------------------------------------
    def _read(self, ref: str, player: str | None) -> _Position:
        """A stored game or a file, as ``player`` sees it (None: all of it), read
        through the one path every ``--as`` command reads."""
        from replay.sources import fold_log, open_log, read_path, view_of

        svc = self.service
        if Path(ref).is_file():
            log = read_path(Path(ref))
            _check_player(log.header.definition.players, player)
            if player is not None:
                log = view_of(log, player, ref)
        else:
            ref = svc.resolve(ref)
            _check_player(svc.store.get_game(ref).players, player)
            log = open_log(svc, ref, player)
        game, events, states = fold_log(log, ref)
        return _Position(log, game, events, states[-1])

    def _position(self, ref: str, player: str | None, board: bool = False) -> dict[str, Any]:
        pos = self._read(ref, player)
        game, state = pos.game, pos.shown
        actors = game.to_act(state)
        seats = [a for a in actors if a >= 0 and (pos.viewer is None or a == pos.viewer)]
        result = game.result(state) if not actors else None
        answer: dict[str, Any] = {
            "game_id": pos.game_id, "game": game.spec.name, "players": list(pos.players), "seq": pos.seq,
            "head": pos.log.lines[-1].hash if pos.log.lines else "", "view": pos.log.header.view,
            "to_act": _names(pos.players, actors), "over": not actors,
            "legal": {pos.players[s]: pos.legal(s) for s in seats},
            "result": None if result is None else {
                "scores": dict(zip(pos.players, result.scores, strict=True)),
                "winners": [pos.players[w] for w in result.winners],
            },
        }  # fmt: skip
        if board:
            from core.markup import plain

            answer["board"] = plain(game.render(state, pos.viewer))
        return answer


class _Position:
    """A game or file read as someone sees it: the log, its fold, the state shown."""

    def __init__(self, log: Any, game: Any, events: list[Any], state: Any) -> None:
        from replay.sources import view_seat

        self.log, self.game, self.events = log, game, events
        self.players: tuple[str, ...] = log.header.definition.players
        self.viewer = view_seat(log)
        self.shown = state if self.viewer is None else game.view(state, self.viewer)
        self.game_id: str = log.header.game_id or ""
        self.seq = log.lines[-1].seq if log.lines else 0

    def seat(self, player: str) -> int:
        _check_player(self.players, player)
        return self.players.index(player)

    def legal(self, seat: int) -> list[str]:
        from cli.games import legal_commands

        return legal_commands(self.game, self.shown, seat)


def _check_player(players: tuple[str, ...], player: str | None) -> None:
    if player is not None and player not in players:
        raise EngineError("bad-input", f"no player {player!r} (players: {', '.join(players)})")


def _names(players: tuple[str, ...], seats: tuple[int, ...]) -> list[str]:
    return seat_names(players, seats)


def _field(request: dict[str, Any], name: str, kind: type) -> Any:
    value = request.get(name)
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise EngineError("bad-request", f"'{name}' must be given, as a {_KIND_NAMES.get(kind, kind.__name__)}")
    return value


def _optional(request: dict[str, Any], name: str, kind: type) -> Any:
    if request.get(name) is None:
        return None
    return _field(request, name, kind)


_KIND_NAMES = {str: "string", int: "whole number", dict: "JSON object", list: "list"}


def _classify(exc: Exception) -> EngineError:
    """The engine's answer for an error the commands would have turned into an exit code."""
    from core.engine import BadCommandSyntax, BadOptions, GameOver, IllegalCommand, NotYourTurn, RulesError
    from core.registry import UnknownGame
    from events.service import ServiceError, StaleMove
    from events.store import Conflict, EnvironmentFailure, GameNotFound, StoreError
    from replay.logfile import LogFileError

    message = str(exc)
    if isinstance(exc, GameOver):
        return EngineError("game-over", message, rule=exc.rule)
    if isinstance(exc, NotYourTurn):
        return EngineError("not-your-turn", message, rule=exc.rule)
    if isinstance(exc, IllegalCommand):
        return EngineError("illegal", message, rule=exc.rule)
    if isinstance(exc, BadCommandSyntax):
        return EngineError("bad-command", message)
    if isinstance(exc, (BadOptions, UnknownGame)):
        return EngineError("bad-input", message)
    if isinstance(exc, StaleMove):
        return EngineError("stale", message)
    if isinstance(exc, GameNotFound):
        return EngineError("not-found", message)
    if isinstance(exc, EnvironmentFailure):
        return EngineError("environment", f"environment: {message}", exit=4)
    if isinstance(exc, Conflict):
        return EngineError("conflict", f"conflict: {message}; another writer moved first, nothing was written")
    if isinstance(exc, ServiceError):
        return EngineError("refused", message, exit=exc.exit_code)
    if isinstance(exc, (RulesError, StoreError, LogFileError)):
        return EngineError("bad-input", message)
    if isinstance(exc, OSError):
        return EngineError("environment", f"{type(exc).__name__}: {message}", exit=4)
    return EngineError("bug", f"internal error: {type(exc).__name__}: {message}", exit=3)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("citylog")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


def serve(session: Session, inp: IO[bytes], out: IO[bytes]) -> None:
    """Answer every request line of ``inp`` on ``out`` until ``quit`` or end of input.

    The modules a request needs are imported before the first one is read: a
    long-running process pays for them once, at its start, not in its first move."""
    import cli.games  # noqa: F401
    import core.markup  # noqa: F401
    import replay.sources  # noqa: F401

    gc.freeze()  # what is loaded now lives as long as the process: the collector need not walk it
    buf = bytearray()  # one output buffer for every answer
    encode_into, handle_line, readline, write, flush = _enc.encode_into, session.handle_line, inp.readline, out.write, out.flush
    while not session.done:
        line = readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while True:  # skip the rest of the over-long line
                rest = readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
            answer = EngineError("bad-request", f"a request line is at most {MAX_LINE} bytes").answer(None)
        elif not line.strip():
            continue
        else:
            answer = handle_line(line)
        encode_into(answer, buf)
        buf += b"\n"
        write(buf)
        flush()


def engine(ctx: typer.Context) -> None:
    """A JSON-lines protocol on stdin/stdout, for bots and tournaments.

    One request a line ({"id": 1, "op": "position", "game": "GAME"}), one
    answer a line, until 'quit' or the end of input.  Ops: hello, new,
    position, legal, move, events, quit (docs/engine-protocol.md).

    \b
    Example:
      echo '{"id": 1, "op": "hello"}' | citylog engine
    """
    from cli.context import service

    serve(Session(lambda: service(ctx)), sys.stdin.buffer, sys.stdout.buffer)


def register(app: typer.Typer) -> None:
    app.command("engine")(engine)
