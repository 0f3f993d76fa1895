"""``citylog engine`` as a stranger sees it: a client written from docs/engine-protocol.md only.

Every assertion here is a sentence of the document (quoted in the comments), checked
against the engine of this checkout started as ``python -m cli.main`` with PYTHONPATH
set to the checkout.  Nothing of citylog is imported: the engine is a subprocess.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.engine_client.doc_bot import (
    PROTOCOL,
    Engine,
    EngineRefused,
    SeatBot,
    child_env,
    play_to_end,
)

ROOT = Path(__file__).resolve().parents[2]
ONE_MIB = 1024 * 1024


def citylog(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``citylog --db DB ARGS`` from this checkout."""
    return subprocess.run([sys.executable, "-m", "cli.main", "--db", str(db), *args],
                          capture_output=True, text=True, env=child_env(ROOT), cwd=ROOT, timeout=120, check=False)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "engine.db"


@pytest.fixture
def engine(db: Path) -> Iterator[Engine]:
    with Engine.start(db, ROOT) as session:
        yield session


def refusal(engine: Engine, op: str, **fields: Any) -> EngineRefused:
    """The request must be refused; the documented error object, checked for shape."""
    with pytest.raises(EngineRefused) as caught:
        engine.call(op, **fields)
    refused = caught.value
    answer = refused.answer
    assert answer["ok"] is False and set(answer) == {"id", "ok", "error"}, answer
    error = answer["error"]
    assert isinstance(error["kind"], str) and isinstance(error["exit"], int), error
    # "message: one line for a person"
    assert isinstance(error["message"], str) and error["message"].strip(), error
    assert "\n" not in error["message"] and "Traceback" not in error["message"], error
    if "rule" in error:
        assert isinstance(error["rule"], str) and error["rule"], error
    return refused


# -- shapes of the answers, as the document's tables give them ---------------------------

def check_hello(hello: dict[str, Any]) -> None:
    assert hello["ok"] is True
    assert hello["protocol"] == PROTOCOL  # "a client should check it"
    assert isinstance(hello["version"], str) and hello["version"]
    assert isinstance(hello["games"], list) and hello["games"]
    for game in hello["games"]:
        for key in ("name", "title", "rules_version"):
            assert isinstance(game[key], str) and game[key], (key, game)
        assert isinstance(game["min_players"], int) and isinstance(game["max_players"], int)
        assert 1 <= game["min_players"] <= game["max_players"], game
        assert isinstance(game["options"], list)
        for option in game["options"]:
            assert isinstance(option["key"], str) and isinstance(option["default"], str), option
            assert isinstance(option["choices"], list), option
            assert all(isinstance(c, str) for c in option["choices"]), option
            if option["choices"]:
                assert option["default"] in option["choices"], option
        assert isinstance(game["bots"], list) and all(isinstance(b, str) for b in game["bots"])


def check_position(answer: dict[str, Any], players: list[str] | None = None, view: str | None = None,
                   board: bool = False) -> None:
    """The `position` table: game_id, game, players, seq, head, view, to_act, over, legal,
    result (once over), board (with "board": true)."""
    assert answer["ok"] is True
    assert isinstance(answer["game_id"], str) and answer["game_id"]
    assert isinstance(answer["game"], str)
    assert isinstance(answer["players"], list) and all(isinstance(p, str) for p in answer["players"])
    if players is not None:
        assert answer["players"] == players
    assert isinstance(answer["seq"], int) and answer["seq"] >= 1
    assert isinstance(answer["head"], str) and answer["head"]
    assert answer["view"] == view  # "the player whose view this is, or null"
    assert isinstance(answer["to_act"], list)
    assert set(answer["to_act"]) <= set(answer["players"]) | {"chance"}, answer["to_act"]
    assert isinstance(answer["over"], bool)
    legal = answer["legal"]
    assert isinstance(legal, dict)
    # "for each player who may act now (with `as`: only that player)"
    assert set(legal) <= set(answer["to_act"]), (legal.keys(), answer["to_act"])
    if view is not None:
        assert set(legal) <= {view}, legal.keys()
    for commands in legal.values():
        assert isinstance(commands, list) and all(isinstance(c, str) and c for c in commands)
    if answer["over"]:
        # "result: once the game is over: scores (player to points) and winners"
        result = answer["result"]
        assert set(result["scores"]) == set(answer["players"]), result
        assert all(isinstance(points, int) for points in result["scores"].values()), result
        assert isinstance(result["winners"], list) and set(result["winners"]) <= set(answer["players"])
        assert not any(legal.values()), legal  # nobody may act in a finished game
    if board:
        assert isinstance(answer["board"], str) and answer["board"].strip()
    else:
        assert "board" not in answer


def check_events(answer: dict[str, Any], since: int = 0) -> list[dict[str, Any]]:
    """`events`: each with seq, type, redacted and text; only those after `since`, in order."""
    assert answer["ok"] is True
    events = answer["events"]
    assert isinstance(events, list)
    for event in events:
        assert isinstance(event["seq"], int) and event["seq"] > since, event
        assert isinstance(event["type"], str) and event["type"], event
        assert isinstance(event["redacted"], bool), event
        assert isinstance(event["text"], str), event
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    return events


def check_move(answer: dict[str, Any], before: int) -> None:
    """`move`: game_id, seq, head after the move, events (seq, type, text: every event the
    move wrote), to_act and over."""
    assert answer["ok"] is True
    assert isinstance(answer["game_id"], str)
    assert isinstance(answer["seq"], int) and answer["seq"] > before
    assert isinstance(answer["head"], str) and answer["head"]
    assert isinstance(answer["to_act"], list) and isinstance(answer["over"], bool)
    # "every event the move wrote": exactly the seqs before+1 .. seq
    assert [e["seq"] for e in answer["events"]] == list(range(before + 1, answer["seq"] + 1))
    for event in answer["events"]:
        assert isinstance(event["type"], str) and isinstance(event["text"], str), event
    # "Makes the move, then plays whatever chance and bot seats do next"
    assert "chance" not in answer["to_act"], answer["to_act"]


# -- whole games ----------------------------------------------------------------------------

def play_checked(engine: Engine, game_id: str, players: list[str], seed: int) -> dict[str, Any]:
    """Every seat moves from its own view until the game ends; every answer is checked."""
    bots = {seat: SeatBot(engine, game_id, seat, seed) for seat in players}
    host = engine.call("position", game=game_id)
    for _ in range(5000):
        check_position(host, players)
        if host["over"]:
            return host
        assert "chance" not in host["to_act"]  # chance plays at once: never pending here
        moved = False
        for seat, bot in bots.items():
            mine = engine.call("position", game=game_id, as_=seat)
            check_position(mine, players, view=seat)
            assert (mine["seq"], mine["head"], mine["to_act"], mine["over"]) == (
                host["seq"], host["head"], host["to_act"], host["over"])
            commands = mine["legal"].get(seat, [])
            # `legal` says the same as the seat's view; "empty when it is not their turn"
            listed = engine.call("legal", game=game_id, player=seat, as_=seat)
            assert listed["player"] == seat and listed["seq"] == mine["seq"]
            assert sorted(listed["legal"]) == sorted(commands)
            if seat not in host["to_act"]:
                assert commands == []
            if commands:
                assert sorted(commands) == sorted(host["legal"][seat])
                answer = engine.call("move", game=game_id, player=seat, command=bot.choose(commands),
                                     seq=mine["seq"])
                check_move(answer, mine["seq"])
                moved = True
                break  # the position has changed: everyone looks again
        assert moved, f"no seat may act in a running game: {host['to_act']}"
        host = engine.call("position", game=game_id)
    raise AssertionError(f"{game_id} did not end")


def check_views_of_events(engine: Engine, game_id: str, players: list[str]) -> None:
    """The host's log hides nothing; each seat's log has the same events, some redacted."""
    host = check_events(engine.call("events", game=game_id))
    assert not any(e["redacted"] for e in host)
    last = engine.call("position", game=game_id)["seq"]
    assert [e["seq"] for e in host] == list(range(1, last + 1))
    for seat in players:
        mine = check_events(engine.call("events", game=game_id, as_=seat))
        assert [(e["seq"], e["type"]) for e in mine] == [(e["seq"], e["type"]) for e in host]
        for theirs, ours in zip(host, mine, strict=True):
            if not ours["redacted"]:
                assert ours["text"] == theirs["text"], (seat, ours, theirs)
        half = last // 2
        tail = check_events(engine.call("events", game=game_id, since=half, as_=seat), since=half)
        assert tail == mine[half:]


def test_every_listed_game_is_played_to_its_end_by_seats_from_their_own_views(db: Path) -> None:
    finished = []
    with Engine.start(db, ROOT) as engine:
        hello = engine.call("hello")
        check_hello(hello)
        for number, game in enumerate(hello["games"]):
            created = engine.call("new", game=game["name"], players=["ann", "bob"], seed=f"doc-{number}")
            check_position(created, ["ann", "bob"])  # "Answers like position"
            assert created["game"] == game["name"]
            final = play_checked(engine, created["game_id"], ["ann", "bob"], seed=number)
            check_views_of_events(engine, created["game_id"], ["ann", "bob"])
            for seat in ("ann", "bob"):
                assert engine.call("position", game=created["game_id"], as_=seat)["result"] == final["result"]
            finished.append(created["game_id"])
        bye, code = engine.quit()
        assert bye["bye"] is True and code == 0
        assert engine.stderr_text() == ""
    assert len(finished) == len(hello["games"])
    for game_id in finished:
        verified = citylog(db, "verify", game_id)
        assert verified.returncode == 0, (game_id, verified.stdout, verified.stderr)


def test_bot_seats_and_chance_play_at_once(db: Path, engine: Engine) -> None:
    """"Bot seats and chance play at once, up to the first decision of a seat that is not a bot." """
    hello = engine.call("hello")
    game = hello["games"][0]
    created = engine.call("new", game=game["name"], players=["ann", "bob"], seed="bots",
                          bots={"bob": "greedy" if "greedy" in game["bots"] else game["bots"][0]})
    check_position(created, ["ann", "bob"])
    bot = SeatBot(engine, created["game_id"], "ann", seed=3)
    for _ in range(5000):
        mine = engine.call("position", game=created["game_id"], as_="ann")
        check_position(mine, ["ann", "bob"], view="ann")
        if mine["over"]:
            break
        assert mine["to_act"] == ["ann"], mine["to_act"]  # never the bot, never chance
        answer = bot.step()
        assert answer is not None
        check_move(answer, mine["seq"])
    else:
        raise AssertionError("the game did not end")
    # every bot policy hello lists is accepted by `new`
    for policy in game["bots"]:
        engine.call("new", game=game["name"], players=["ann", "bob"], seed="bots", bots={"bob": policy})
    assert citylog(engine_db(engine), "verify", created["game_id"]).returncode == 0


def engine_db(engine: Engine) -> Path:
    args = engine.process.args
    return Path(args[args.index("--db") + 1])


def test_players_as_a_count_and_every_choice_of_every_option(engine: Engine) -> None:
    """"players is a list of names or a count (3: players p1, p2, p3)"; options take their choices."""
    for game in engine.call("hello")["games"]:
        count = min(3, game["max_players"])
        created = engine.call("new", game=game["name"], players=count)
        assert created["players"] == [f"p{i}" for i in range(1, count + 1)]
        for option in game["options"]:
            for choice in option["choices"]:
                made = engine.call("new", game=game["name"], players=2, options={option["key"]: choice})
                check_position(made, ["p1", "p2"])
            # the default is a value the option takes, listed choices or not
            engine.call("new", game=game["name"], players=2, options={option["key"]: option["default"]})
            if option["choices"]:
                bad = refusal(engine, "new", game=game["name"], players=2,
                              options={option["key"]: "no-such-" + option["choices"][0]})
                assert (bad.kind, bad.exit) == ("bad-input", 2)


# -- refusals ---------------------------------------------------------------------------------

def test_every_documented_refusal_with_its_exit_and_nothing_written(db: Path, engine: Engine) -> None:
    game = engine.call("new", game="card-city", players=["ann", "bob"], seed="refusals")
    gid = game["game_id"]
    first = game["to_act"][0]
    other = next(p for p in game["players"] if p != first)
    command = game["legal"][first][0]

    def unchanged() -> None:
        now = engine.call("position", game=gid)
        assert (now["seq"], now["head"]) == (game["seq"], game["head"]), "a refused request wrote"

    kinds: dict[str, list[EngineRefused]] = {}

    def expect(kind: str, op: str, **fields: Any) -> EngineRefused:
        refused = refusal(engine, op, **fields)
        assert refused.kind == kind, (kind, fields, refused.answer)
        # exit: "2 bad input" — every refusal below is the sender's mistake
        assert refused.exit == 2, refused.answer
        kinds.setdefault(kind, []).append(refused)
        unchanged()
        return refused

    # bad-request: "an unknown op, a missing or mistyped field"
    expect("bad-request", "no-such-op")
    expect("bad-request", "position")  # no game
    expect("bad-request", "position", game=7)
    expect("bad-request", "new", game="card-city", players="two")
    expect("bad-request", "new", game="card-city", players=["ann", "bob"], options=["parking-meters"])
    expect("bad-request", "move", game=gid, player=first)  # no command
    expect("bad-request", "move", game=gid, player=first, command=command, seq="5")
    expect("bad-request", "events", game=gid, since="1")
    # bad-input: "an unknown game, bad options or players, no such player in the game"
    expect("bad-input", "new", game="no-such-game", players=["ann", "bob"])
    expect("bad-input", "new", game="card-city", players=["ann", "bob"], options={"no-such-option": "yes"})
    expect("bad-input", "new", game="card-city", players=["ann", "ann"])
    expect("bad-input", "new", game="card-city", players=99)
    expect("bad-input", "new", game="card-city", players=["ann", "bob"], bots={"bob": "no-such-policy"})
    expect("bad-input", "legal", game=gid, player="zed")
    expect("bad-input", "position", game=gid, as_="zed")
    expect("bad-input", "move", game=gid, player="zed", command=command)
    # bad-command: "the command's text cannot be read"
    expect("bad-command", "move", game=gid, player=first, command="frobnicate the mayor")
    # illegal: "the rules forbid the command here (rule names the rule)" — the document's
    # own example `build R F5`, sent in the first phase of a Card City game
    illegal = expect("illegal", "move", game=gid, player=first, command="build R F5")
    assert illegal.rule and f"[{illegal.rule}]" in illegal.message, illegal.answer
    assert citylog(db, "rules", illegal.rule).returncode == 0  # "citylog rules ID prints it"
    # not-your-turn: "the player may not act now" — the other seat sends a legal command
    expect("not-your-turn", "move", game=gid, player=other, command=command)
    # stale: "the move was made against an older position"
    expect("stale", "move", game=gid, player=first, command=command, seq=game["seq"] - 1)
    # not-found: "no game of that id"
    expect("not-found", "position", game="ffffffffffff")
    expect("not-found", "events", game="ffffffffffff")
    expect("not-found", "move", game="ffffffffffff", player=first, command=command)
    # the session goes on after every refusal: "A refused request ... never ends it"
    assert engine.call("hello")["protocol"] == PROTOCOL
    # `legal`: "`as`, if given, must be that player" (the document names no kind)
    mismatch = refusal(engine, "legal", game=gid, player=first, as_=other)
    assert mismatch.exit == 2
    unchanged()

    # the exit is "the exit code the same citylog command would have ended with"
    cli = citylog(db, "move", gid, "--as", other, command)
    assert cli.returncode == kinds["not-your-turn"][0].exit
    assert citylog(db, "show", "ffffffffffff").returncode == kinds["not-found"][0].exit
    assert citylog(db, "move", gid, "--as", first, "build R F5").returncode == illegal.exit
    unchanged()

    # game-over: "the game has ended" — a command this game's seats sent, sent again at the end
    final = play_to_end(engine, gid, game["players"], seed=1)
    assert final["over"]
    over = refusal(engine, "move", game=gid, player=first, command=command)
    assert (over.kind, over.exit) == ("game-over", 2), over.answer
    assert engine.call("legal", game=gid, player=first)["legal"] == []
    assert citylog(db, "verify", gid).returncode == 0


def test_a_move_made_by_another_command_makes_an_older_seq_stale(db: Path, engine: Engine) -> None:
    """The games live in the same database as every other citylog command, "and the other
    way round"; `seq`: "if the game has moved on since, the move is refused as stale"."""
    made = citylog(db, "new", "card-city", "--players", "ann,bob", "--seed", "shared", "--json")
    assert made.returncode == 0, made.stderr
    gid = json.loads(made.stdout.splitlines()[0])["game_id"]
    assert engine.call("position", game="last")["game_id"] == gid  # `last`, as the commands take it
    assert engine.call("position", game=gid[:6].upper())["game_id"] == gid  # "a unique start (any case)"
    seat = engine.call("position", game=gid)["to_act"][0]
    mine = engine.call("position", game=gid, as_=seat)
    moved = citylog(db, "move", gid, "--as", seat, mine["legal"][seat][0])
    assert moved.returncode == 0, moved.stderr
    now = engine.call("position", game=gid)
    assert now["seq"] > mine["seq"]  # the engine sees the other writer's move
    for actor in now["to_act"]:
        listed = engine.call("legal", game=gid, player=actor)["legal"]
        stale = refusal(engine, "move", game=gid, player=actor, command=listed[0], seq=mine["seq"])
        assert (stale.kind, stale.exit) == ("stale", 2), stale.answer
    assert engine.call("position", game=gid)["head"] == now["head"]
    assert citylog(db, "verify", gid).returncode == 0


def test_an_exported_file_is_read_but_a_move_on_it_is_refused(db: Path, engine: Engine, tmp_path: Path) -> None:
    """A game may be "the path of an exported log or view file (read-only: position, legal
    and events read it, move refuses it)"."""
    game = engine.call("new", game="point-city", players=["ann", "bob"], seed="file")
    gid, seat = game["game_id"], game["to_act"][0]
    view_file, host_file = tmp_path / f"{seat}.jsonl", tmp_path / "host.jsonl"
    assert citylog(db, "export", gid, "--as", seat, "-o", str(view_file)).returncode == 0
    assert citylog(db, "export", gid, "-o", str(host_file)).returncode == 0
    for path, view in ((view_file, seat), (host_file, None)):
        before = path.read_bytes()
        position = engine.call("position", game=str(path))
        check_position(position, game["players"], view=view)
        assert (position["game_id"], position["seq"], position["head"]) == (gid, game["seq"], game["head"])
        assert position["legal"][seat] == game["legal"][seat]
        assert engine.call("legal", game=str(path), player=seat)["legal"] == game["legal"][seat]
        from_file = check_events(engine.call("events", game=str(path)))
        assert [e["seq"] for e in from_file] == list(range(1, game["seq"] + 1))
        refused = refusal(engine, "move", game=str(path), player=seat, command=game["legal"][seat][0])
        assert (refused.kind, refused.exit) == ("refused", 2), refused.answer
        assert path.read_bytes() == before
    assert engine.call("position", game=gid)["head"] == game["head"]


# -- the wire ---------------------------------------------------------------------------------

def test_ids_are_echoed_in_the_order_of_requests_written_before_any_is_read(engine: Engine) -> None:
    """"one answer for every request, in the order of the requests"; `id`: "any JSON value,
    echoed"; "blank lines are ignored"."""
    game = engine.call("new", game="5x5-city", players=["ann", "bob"], seed="pipe")
    gid, seat = game["game_id"], game["to_act"][0]
    ids: list[Any] = [41, "forty-two", 4.5, [1, {"a": None}], {"k": [True]}, True, 41, -7, "", 0, 1e100]
    sent: list[tuple[str, Any]] = []
    command = game["legal"][seat][0]

    def queue(name: str, op: str, request_id: Any, **fields: Any) -> None:
        engine.send(op, id=request_id, **fields)
        sent.append((name, request_id))

    def raw(name: str, line: str) -> None:
        engine.send_line(line, expect_id=None)
        sent.append((name, None))

    def blank(line: str) -> None:
        engine.send_line(line)
        engine._pending.pop()  # a blank line is ignored: no answer to wait for

    queue("hello", "hello", ids[0])
    queue("position", "position", ids[1], game=gid, as_=seat)
    queue("no-such-op", "no-such-op", ids[2])
    queue("move", "move", ids[3], game=gid, player=seat, command=command, seq=game["seq"])
    queue("stale-move", "move", ids[4], game=gid, player=seat, command=command, seq=game["seq"])
    blank("")
    blank("   \t")
    queue("events", "events", ids[5], game=gid, since=game["seq"])
    queue("legal", "legal", ids[6], game=gid, player=seat)
    raw("garbage", "this is not json")
    raw("array", "[1, 2, 3]")
    raw("no id", json.dumps({"op": "hello"}))
    queue("not-found", "position", ids[7], game="ffffffffffff")
    for extra in ids[8:]:
        queue("hello", "hello", extra)
    answers = [engine.read_answer() for _ in sent]
    engine._pending.clear()
    assert [a["id"] for a in answers] == [i for _, i in sent]
    by_name = dict(zip([name for name, _ in sent], answers))
    assert by_name["hello"]["ok"] and by_name["position"]["ok"] and by_name["move"]["ok"]
    assert by_name["stale-move"]["error"]["kind"] == "stale"  # the move before it moved the game on
    assert by_name["events"]["ok"] and [e["seq"] for e in by_name["events"]["events"]] == list(
        range(game["seq"] + 1, by_name["move"]["seq"] + 1))
    for name in ("no-such-op", "garbage", "array"):
        assert by_name[name]["error"]["kind"] == "bad-request", by_name[name]
    assert by_name["no id"]["ok"] is True  # the id is optional
    assert by_name["not-found"]["error"]["kind"] == "not-found"


def test_a_line_of_one_mib_is_read_and_a_longer_or_undecodable_one_refused(engine: Engine) -> None:
    """"one JSON object a line (UTF-8, at most 1 MiB a line)"; over it: bad-request."""
    request = json.dumps({"id": "big", "op": "hello"})
    exactly = request[:-1] + " " * (ONE_MIB - len(request)) + "}"
    assert len(exactly.encode()) == ONE_MIB
    engine.send_line(exactly, expect_id="big")
    assert engine.receive("big")["ok"] is True
    engine.send_line(request[:-1] + " " * (ONE_MIB + 1 - len(request)) + "}", expect_id=None)
    too_long = engine.receive(None)
    assert too_long["error"]["kind"] == "bad-request" and too_long["error"]["exit"] == 2
    assert engine.process.stdin is not None
    engine.process.stdin.buffer.write(b'{"id": "\xff\xfe", "op": "hello"}\n')
    engine.process.stdin.buffer.flush()
    engine._pending.append((None, "not UTF-8"))
    assert engine.receive(None)["error"]["kind"] == "bad-request"
    assert engine.call("hello")["protocol"] == PROTOCOL  # and the session goes on


def test_quit_answers_bye_and_ends_the_process_with_exit_0(engine: Engine) -> None:
    """"quit: Answers {"bye": true} and ends the session" — nothing after it is answered."""
    assert engine.process.stdin is not None
    engine.process.stdin.write(
        '{"id": 1, "op": "hello"}\n{"id": 2, "op": "quit"}\n{"id": 3, "op": "hello"}\n')
    engine.process.stdin.flush()
    assert engine.read_answer()["id"] == 1
    bye = engine.read_answer()
    assert bye == {"id": 2, "ok": True, "bye": True}
    assert engine.process.stdout is not None and engine.process.stdout.read() == ""
    assert engine.wait() == 0
    assert engine.stderr_text() == ""  # "nothing is written to standard error"


def test_the_end_of_input_ends_the_process_with_exit_0_even_after_refusals(engine: Engine) -> None:
    """"The session ends at the quit request or at the end of the input (exit 0)."""
    engine.send("hello", id="a")
    engine.send("no-such-op", id="b")
    engine.send("position", id="c", game="ffffffffffff")
    engine.send_line("{", expect_id=None)
    assert engine.process.stdin is not None
    engine.process.stdin.close()
    assert [engine.read_answer()["id"] for _ in range(4)] == ["a", "b", "c", None]
    assert engine.process.stdout is not None and engine.process.stdout.read() == ""
    assert engine.wait() == 0
    assert engine.stderr_text() == ""


def test_the_engine_reads_no_database_from_the_environment_when_given_db(db: Path, tmp_path: Path) -> None:
    """The database is "the --db option, CITYLOG_DB, or the default file": --db wins."""
    other = tmp_path / "other.db"
    env = child_env(ROOT) | {"CITYLOG_DB": str(other)}
    with Engine([sys.executable, "-m", "cli.main", "engine", "--db", str(db)], env=env, cwd=ROOT) as engine:
        gid = engine.call("new", game="card-city", players=2, seed="env")["game_id"]
        engine.quit()
    assert citylog(db, "show", gid).returncode == 0
    assert not other.exists()  # CITYLOG_DB was never opened


# -- where the document and the engine part (strict xfails: they fail loudly once fixed) -------

def test_an_option_without_choices_says_what_it_takes(engine: Engine) -> None:
    """docs/engine-protocol.md `hello`: `choices` is empty when the option takes free
    text, which its `help` describes (the document once said "any value")."""
    for game in engine.call("hello")["games"]:
        for option in game["options"]:
            assert isinstance(option["help"], str)
            if not option["choices"]:
                assert option["help"], option
                refused = refusal(engine, "new", game=game["name"], players=2,
                                  options={option["key"]: "any value at all"})
                assert refused.kind == "bad-input"


def test_a_mistyped_board_is_a_bad_request(engine: Engine) -> None:
    gid = engine.call("new", game="card-city", players=2)["game_id"]
    refused = refusal(engine, "position", game=gid, board="no")
    assert refused.kind == "bad-request"


def test_the_not_found_message_says_it_once(engine: Engine) -> None:
    refused = refusal(engine, "position", game="ffffffffffff")
    assert "no game no game" not in refused.message
