"""``citylog engine`` (issue 26 item 9): the JSON-lines protocol of docs/engine-protocol.md.

The example bot of the document plays a whole game of every game through a real
``citylog engine`` process; the protocol's answers agree with the commands
(``legal --as``, ``show --as``) and with the in-process service; every failure is
an answer of the documented kind, and the session goes on.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.engine import MAX_LINE, PROTOCOL, Session, serve
from core import registry
from events.service import GameService
from events.backends import open_store
from tests.cli.clirun import dump, ok

ROOT = Path(__file__).resolve().parents[2]
GAMES = registry.available()


def session(db: Path) -> Session:
    return Session(lambda: GameService(open_store(str(db))))


def ask(s: Session, **request: Any) -> dict[str, Any]:
    answer = s.handle(request)
    assert answer["id"] == request.get("id")
    return answer


def good(s: Session, **request: Any) -> dict[str, Any]:
    answer = ask(s, **request)
    assert answer["ok"], answer
    return answer


def refused(s: Session, kind: str, **request: Any) -> dict[str, Any]:
    answer = ask(s, **request)
    assert not answer["ok"], answer
    assert answer["error"]["kind"] == kind, answer
    assert "\n" not in answer["error"]["message"]
    return answer["error"]


@pytest.mark.parametrize("game", GAMES)
def test_the_documented_example_bot_plays_a_whole_game(game: str, tmp_path: Path) -> None:
    """docs/examples/random_bot.py, written against the document only, against a
    real ``citylog engine`` process: a whole game, every move accepted, and the
    game it recorded verifies."""
    db = tmp_path / "e.db"
    env = {**os.environ, "CITYLOG_DB": str(db), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs/examples/random_bot.py"), game, "2", "bot-seed"],
        env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["moves"] > 10 and summary["result"]["winners"]
    verdict = ok(db, "verify", summary["game_id"])
    assert "every event legal" in verdict and "the game is over" in verdict


def test_the_document_shows_the_example_bot_as_it_is_shipped() -> None:
    """The bot printed in docs/engine-protocol.md is the shipped example's core."""
    doc = (ROOT / "docs/engine-protocol.md").read_text(encoding="utf-8")
    shipped = (ROOT / "docs/examples/random_bot.py").read_text(encoding="utf-8")
    block = doc.split("```python\n", 1)[1].split("```", 1)[0]
    for line in block.splitlines():
        if line.startswith(("def ask", "    answer", "    if not", "while", "    mine", "    command", "assert")):
            assert line in shipped, line


def test_hello_names_the_protocol_and_every_game(tmp_path: Path) -> None:
    s = session(tmp_path / "e.db")
    hello = good(s, id="h", op="hello")
    assert hello["protocol"] == PROTOCOL
    assert [g["name"] for g in hello["games"]] == GAMES
    for g in hello["games"]:
        game = registry.get(g["name"])
        assert g["rules_version"] == game.spec.rules_version
        assert g["bots"] == sorted(game.bots)
    assert not (tmp_path / "e.db").exists()  # hello opens no database


@pytest.mark.parametrize("game", GAMES)
def test_position_as_a_player_is_what_the_commands_show_that_player(game: str, db: Path) -> None:
    s = session(db)
    first = good(s, op="new", game=game, players=["ann", "bob"], seed="law", bots={"bob": "greedy"})
    gid = first["game_id"]
    for _ in range(6):
        pos = good(s, op="position", game=gid, **{"as": "ann"}, board=True)
        assert pos["view"] == "ann" and set(pos["legal"]) <= {"ann"}
        cli = json.loads(ok(db, "legal", gid, "--as", "ann", "--json"))
        assert pos["legal"].get("ann", []) == cli["legal"]
        assert pos["seq"] == cli["seq"]
        assert pos["board"].strip() in ok(db, "show", gid, "--as", "ann")
        if pos["over"]:
            break
        good(s, op="move", game=gid, player="ann", command=pos["legal"]["ann"][0], seq=pos["seq"])
    events = good(s, op="events", game=gid, **{"as": "ann"})["events"]
    log = ok(db, "log", gid, "--as", "ann")
    for e in events:
        assert e["text"] in log


@settings(max_examples=6)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10**6), moves=st.integers(1, 12))
def test_moves_through_the_protocol_record_what_the_service_records(game: str, seed: int, moves: int) -> None:
    """Law: the same commands through the engine and through the service in process
    give byte-identical events (the engine writes through the one write path; the
    hashes differ only by each game's random commitment salt)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        s = session(Path(tmp) / "e.db")
        svc = GameService(open_store(str(Path(tmp) / "s.db")))
        gid = good(s, op="new", game=game, players=2, seed=str(seed))["game_id"]
        sid = svc.create(game, ["p1", "p2"], seed=str(seed))
        for i in range(moves):
            pos = good(s, op="position", game=gid)
            if pos["over"]:
                break
            player = pos["to_act"][0]
            cmds = pos["legal"][player]
            text = cmds[(seed + i) % len(cmds)]
            good(s, op="move", game=gid, player=player, command=text)
            loaded = svc.load(sid)
            seat = loaded.players.index(player)
            svc.submit(sid, seat, loaded.game.parse_command(loaded.state, seat, text))
        mine = [(r.seq, r.type, r.payload) for r in s.service.store.read(gid)]
        theirs = [(r.seq, r.type, r.payload) for r in svc.store.read(sid)]
        assert mine == theirs


def test_every_failure_is_an_answer_of_its_kind_and_writes_nothing(db: Path) -> None:
    s = session(db)
    gid = good(s, op="new", game="card-city", players=["ann", "bob"], seed="x")["game_id"]
    before = dump(db)
    pos = good(s, op="position", game=gid)
    assert pos["to_act"] == ["ann"]
    refused(s, "bad-request", id=1, op="teleport")
    refused(s, "bad-request", op="move", game=gid, player="ann")
    refused(s, "bad-request", op="position", game=7)
    refused(s, "bad-command", op="move", game=gid, player="ann", command="dance wildly")
    refused(s, "not-your-turn", op="move", game=gid, player="bob", command=pos["legal"]["ann"][0])
    err = refused(s, "illegal", op="move", game=gid, player="ann", command="split CC CC CC")
    assert err["exit"] == 2 and err["rule"]
    refused(s, "stale", op="move", game=gid, player="ann", command=pos["legal"]["ann"][0], seq=pos["seq"] - 1)
    refused(s, "not-found", op="position", game="nosuchgame")
    refused(s, "bad-input", op="position", game=gid, **{"as": "carol"})
    refused(s, "bad-input", op="new", game="chess", players=2)
    refused(s, "bad-input", op="new", game="card-city", players=9)
    refused(s, "bad-request", op="legal", game=gid, player="ann", **{"as": "bob"})
    assert dump(db) == before


def test_a_file_is_read_not_moved_in(db: Path, tmp_path: Path) -> None:
    s = session(db)
    gid = good(s, op="new", game="5x5-city", players=["ann", "bob"], seed="f")["game_id"]
    view = tmp_path / "ann.jsonl"
    ok(db, "export", gid, "--as", "ann", "-o", str(view))
    pos = good(s, op="position", game=str(view))
    assert pos["view"] == "ann"
    assert pos["legal"] == good(s, op="position", game=gid, **{"as": "ann"})["legal"]
    refused(s, "refused", op="move", game=str(view), player="ann", command=pos["legal"]["ann"][0])


def test_game_over_is_its_own_kind(db: Path) -> None:
    s = session(db)
    gid = good(s, op="new", game="point-city", players=["ann", "bob"], seed="o", bots={"ann": "random", "bob": "random"})[
        "game_id"
    ]
    pos = good(s, op="position", game=gid)
    assert pos["over"] and pos["result"]["winners"] and pos["legal"] == {}
    refused(s, "game-over", op="move", game=gid, player="ann", command="take A1 A2")


def test_a_bug_is_an_answer_and_the_session_goes_on(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = session(db)

    def broken(request: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("oops")

    monkeypatch.setitem(s._ops, "position", broken)
    err = refused(s, "bug", op="position", game="x")
    assert err["exit"] == 3 and "KeyError" in err["message"]
    assert good(s, op="hello")["protocol"] == PROTOCOL


def test_the_stream_answers_every_line_in_order_and_survives_garbage(db: Path) -> None:
    lines = [
        b'{"id": 1, "op": "hello"}\n',
        b"\n",
        b"not json\n",
        b"[1, 2]\n",
        b'{"id": "deep", "op": "hello", "x": ' + b"[" * 10000 + b"]" * 10000 + b"}\n",
        b'{"id": 2, "op": "hello", "pad": "' + b"x" * (MAX_LINE + 10) + b'"}\n',
        b'{"id": 3, "op": "quit"}\n',
        b'{"id": 4, "op": "hello"}\n',
    ]
    out = io.BytesIO()
    serve(session(db), io.BytesIO(b"".join(lines)), out)
    answers = [msgspec.json.decode(x) for x in out.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, None, None, None, None, 3]  # nothing after quit
    assert [a["ok"] for a in answers] == [True, False, False, False, False, True]
    assert all(a["error"]["kind"] == "bad-request" for a in answers[1:5])


def test_end_of_input_ends_the_process_with_exit_0(db: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "--db", str(db), "engine"],
        input=b'{"id": 1, "op": "hello"}\n{"op": "new"}\n', env=env, capture_output=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and done.stderr == b""
    first, second = (json.loads(x) for x in done.stdout.splitlines())
    assert first["ok"] and not second["ok"] and second["error"]["kind"] == "bad-request"


@settings(max_examples=9)
@given(game=st.sampled_from(GAMES), seed=st.integers(0, 10**6), players=st.integers(1, 4))
def test_every_command_a_view_lists_is_accepted_when_chosen(game: str, seed: int, players: int) -> None:
    """Law (issue 26): a command listed in a seat's own ``position`` is never refused
    when that seat sends it back as a ``move`` — whole random games, every seat
    asking its own view, every choice drawn from what was listed."""
    import random
    import tempfile

    spec = registry.get(game).spec
    n = min(max(players, spec.min_players), spec.max_players)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        s = session(Path(tmp) / "e.db")
        pos = good(s, op="new", game=game, players=n, seed=f"law/{seed}")
        gid = pos["game_id"]
        while not pos["over"]:
            player = pos["to_act"][0]
            mine = good(s, op="position", game=gid, **{"as": player})
            listed = mine["legal"][player]
            assert listed, f"{player} must act but their view lists nothing"
            good(s, op="move", game=gid, player=player, command=rng.choice(listed), seq=mine["seq"])
            pos = good(s, op="position", game=gid)


def test_a_request_without_an_op_says_so(db: Path) -> None:
    """A request with no "op" field ({"cmd": "hello"}, as the walkthrough first typed)
    names the missing field, not an unknown op None."""
    err = refused(session(db), "bad-request", id=1, cmd="hello")
    assert err["message"].startswith('no "op" field') and "None" not in err["message"]
    assert "unknown op 'teleport'" in refused(session(db), "bad-request", op="teleport")["message"]


def test_a_move_is_never_decided_for_a_player_who_no_longer_sits_there(tmp_path: Path) -> None:
    """The engine reads a game's players from its last fold and the submit checks them
    in its own transaction: after another writer deletes the game and makes another
    under the same id with the seats swapped, ann's move (legal for the seat she had,
    now bob's, to act) is refused as stale, nothing written, never decided for bob."""
    db = tmp_path / "c.db"
    s = session(db)
    gid = good(s, op="new", game="5x5-city", players=["ann", "bob"], seed="roster")["game_id"]
    first = good(s, op="legal", game=gid, player="ann")["legal"][0]
    good(s, op="move", game=gid, player="ann", command=first)  # the session's fold: ann at seat 0
    other = GameService(open_store(str(db)))
    other.delete(gid)
    other.create("5x5-city", ["bob", "ann"], seed="roster", game_id=gid)  # seat 0, to act, is bob's now
    assert first in good(s, op="legal", game=gid, player="bob")["legal"]
    before = dump(db)
    error = refused(s, "stale", op="move", game=gid, player="ann", command=first)
    assert "is not 'ann' any more" in error["message"]
    assert dump(db) == before
