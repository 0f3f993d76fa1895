"""``citylog analyse`` (issue 25): every decision judged from its mover's view.

The law, for every game: ``analyse FILE`` on P's exported view equals ``analyse
GAME --as P``, and two different true logs with the same view of P give the
same analysis of P's decisions.  Budgets are tiny and games are prefixes (a
judgement plays out to the end): the laws do not depend on strength.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import msgspec
import pytest

from cli.analyse import analyse_views
from core import analysis as an
from core import registry
from events.envelope import chain_hash, genesis_hash
from replay import logfile
from replay.logfile import Line, LogFile
from replay.sources import read_path, view_of
from replay.verify import decode_events
from tests.cli.clirun import dump, ok

GAMES = registry.available()
DECISIONS = 2
"""Decisions of each seat a test game keeps (a prefix of a bot game, with its chance)."""


def _cut(full: Path, each: int) -> int:
    """The lines of the shortest prefix holding DECISIONS decisions of every seat."""
    from core.engine import CHANCE, decisions

    decoded = decode_events(read_path(full))
    assert isinstance(decoded, tuple)
    game, events = decoded
    made: dict[int, int] = {}
    for d in decisions(game, events):
        if d.seat != CHANCE:
            made[d.seat] = made.get(d.seat, 0) + 1
            if len(made) == 2 and min(made.values()) >= each:
                return d.end
    return len(events)


def _prefix_game(tmp_path: Path, name: str, each: int = DECISIONS) -> tuple[Path, str, Path]:
    """(db, id, full file) of a stored game: the first PREFIX lines of a greedy bot game."""
    db = tmp_path / "a.db"
    gid = json.loads(ok(db, "new", name, "--players", "alice,bob", "--bots", "greedy", "--seed", "an1", "--json"))["game_id"]
    full = tmp_path / "full.jsonl"
    ok(db, "export", gid, "-o", str(full))
    text = full.read_text().splitlines()
    keep = _cut(full, each)
    cut = tmp_path / "prefix.jsonl"
    header = json.loads(text[0])
    header["status"] = "active"  # a prefix: the game goes on
    cut.write_text("\n".join([json.dumps(header), *text[1 : 1 + keep]]) + "\n")
    pid = json.loads(ok(db, "import", str(cut), "--json"))["game_id"]
    return db, pid, cut


@pytest.mark.parametrize("name", GAMES)
def test_a_players_file_is_analysed_as_the_game_from_their_view(tmp_path: Path, name: str) -> None:
    db, gid, _ = _prefix_game(tmp_path, name)
    stored = json.loads(ok(db, "analyse", gid, "--as", "alice", "--budget", "2", "--json"))
    view = tmp_path / "alice.jsonl"
    ok(db, "export", gid, "--as", "alice", "-o", str(view))
    from_file = json.loads(ok(db, "analyse", str(view), "--budget", "2", "--json"))
    assert from_file == stored
    assert stored["decisions"] and {d["player"] for d in stored["decisions"]} == {"alice"}
    assert set(stored["seats"]) == {"alice"}
    # a second analyse reads what the first stored: nothing is written, the same answer
    before = dump(db)
    assert json.loads(ok(db, "analyse", gid, "--as", "alice", "--budget", "2", "--json")) == stored
    assert dump(db) == before
    for d in stored["decisions"]:
        p = d["player"]
        assert 0 <= d["after"][p] <= d["before"][p] <= 1 and d["loss"] == pytest.approx(d["before"][p] - d["after"][p])
        assert d["mark"] is None or d["lcb"] > 0


def _other_true_log(log: LogFile, player: str) -> LogFile | None:
    """Another true log with the same view for ``player``: two hidden values (the
    same to ``player``, different in truth) swapped, the chain rehashed; None if
    the game hides nothing from ``player`` here."""
    decoded = decode_events(log)
    assert isinstance(decoded, tuple)
    game, events = decoded
    seat = log.header.definition.players.index(player)
    hidden: list[tuple[int, tuple[object, ...], object, object]] = []

    def walk(true: object, seen: object, i: int, path: tuple[object, ...]) -> None:
        if isinstance(true, dict) and isinstance(seen, dict):
            for k in true:
                walk(true[k], seen.get(k), i, (*path, k))
        elif isinstance(true, list) and isinstance(seen, list) and len(true) == len(seen):
            for k, (a, b) in enumerate(zip(true, seen)):
                walk(a, b, i, (*path, k))
        elif true != seen:
            hidden.append((i, path, true, seen))

    def plain(e: object) -> object:  # JSON's lists and dicts (to_builtins keeps tuples)
        return msgspec.json.decode(msgspec.json.encode(e))

    for i, e in enumerate(events):
        walk(plain(e), plain(game.redact(e, seat)), i, ())
    for a in range(len(hidden)):
        for b in range(a + 1, len(hidden)):
            (i, pi, vi, si), (j, pj, vj, sj) = hidden[a], hidden[b]
            if vi == vj or si != sj:
                continue
            changed = {k: plain(events[k]) for k in {i, j}}
            for k, path, value in ((i, pi, vj), (j, pj, vi)):
                node = changed[k]
                for step in path[:-1]:
                    node = node[step]  # type: ignore[index]
                node[path[-1]] = value  # type: ignore[index]
            new = {k: msgspec.convert(v, game.event_type) for k, v in changed.items()}
            if any(game.redact(new[k], seat) != game.redact(events[k], seat) for k in new):
                continue
            lines, prev = [], genesis_hash(log.header.definition)
            for k, line in enumerate(log.lines):
                payload = msgspec.json.encode(new[k]) if k in new else bytes(line.payload)
                fresh = Line(line.seq, line.type, msgspec.Raw(payload), prev, "")
                h = chain_hash(prev, line.seq, line.type, log.digest_of(fresh))
                lines.append(Line(line.seq, line.type, msgspec.Raw(payload), prev, h))
                prev = h
            return LogFile(log.header, lines)
    return None


@pytest.mark.parametrize("name", GAMES)
def test_two_true_logs_with_the_same_view_give_the_same_analysis(tmp_path: Path, name: str) -> None:
    _, _, cut = _prefix_game(tmp_path, name, each=4)  # Card City hides its first cards in round 2
    log = read_path(cut)
    other = _other_true_log(log, "alice")
    if other is None:  # the game hides nothing from alice: her view is the true log
        assert name == "5x5-city"
        view = view_of(log, "alice")
        assert all(not x.redacted for x in view.lines)
        return
    assert [bytes(x.payload) for x in other.lines] != [bytes(x.payload) for x in log.lines]
    seen = [view_of(x, "alice") for x in (log, other)]
    assert [bytes(x.payload) for x in seen[0].lines] == [bytes(x.payload) for x in seen[1].lines]
    buf = io.StringIO()
    logfile.write(other, buf)  # a true log in its own right: it reads back
    again = logfile.read(io.StringIO(buf.getvalue()), "other")
    a = analyse_views(None, [seen[0]], None, 2, 1)
    b = analyse_views(None, [view_of(again, "alice")], None, 2, 1)
    assert a == b and a["decisions"]


def test_jobs_do_not_change_the_answer_and_every_seat_is_judged(tmp_path: Path) -> None:
    db, gid, _ = _prefix_game(tmp_path, "card-city")
    cut = tmp_path / "stored.jsonl"  # the stored game's own export: its id seeds the streams
    ok(db, "export", gid, "-o", str(cut))
    one = json.loads(ok(db, "analyse", str(cut), "--budget", "2", "--json"))
    two = json.loads(ok(db, "analyse", str(cut), "--budget", "2", "--jobs", "2", "--json"))
    assert one == two
    assert {d["player"] for d in one["decisions"]} == {"alice", "bob"} == set(one["seats"])
    # the whole game's analysis is each seat's, from its own view
    assert json.loads(ok(db, "analyse", gid, "--budget", "2", "--json")) == one
    for p in ("alice", "bob"):
        solo = json.loads(ok(db, "analyse", gid, "--as", p, "--budget", "2", "--json"))
        assert solo["decisions"] == [d for d in one["decisions"] if d["player"] == p]
        assert solo["seats"][p] == one["seats"][p]


def test_log_analysis_shows_win_chances_and_marks_by_each_event(tmp_path: Path) -> None:
    db, gid, _ = _prefix_game(tmp_path, "card-city")
    data = json.loads(ok(db, "analyse", gid, "--budget", "2", "--json"))
    text = ok(db, "log", gid, "--analysis")
    for d in data["decisions"]:
        line = next(x for x in text.splitlines() if x.split()[0] == str(d["seq"]))
        assert f"[{d['player']} win" in line
        assert d["mark"] is None or d["mark"] in line
    for c in data["chance"]:
        line = next(x for x in text.splitlines() if x.split()[0] == str(c["first"]))
        assert f"[{c['player']} luck" in line
    # a player's log shows their own judgements only (the others' were made from what they saw)
    bobs = ok(db, "log", gid, "--as", "bob", "--analysis")
    assert "[bob win" in bobs and "[alice win" not in bobs
    plain_text = ok(db, "analyse", gid, "--budget", "2")
    assert "accuracy" in plain_text.splitlines()[-1]


def test_marks_need_the_threshold_and_a_positive_lower_bound() -> None:
    assert an.mark_of(0.2, 0.01) == "blunder"
    assert an.mark_of(0.12, 0.01) == "mistake"
    assert an.mark_of(0.06, 0.01) == "inaccuracy"
    assert an.mark_of(0.04, 0.01) is None
    assert an.mark_of(0.5, 0.0) is None  # a big loss the worlds cannot tell from noise


def test_accuracy_is_lichess_formula() -> None:
    assert an.move_accuracy(0.5, 0.5) == 100.0 == an.move_accuracy(0.4, 0.6)
    # lila: 103.1668 * exp(-0.04354 * 10) - 3.1669 + 1 for a 10-point drop
    assert an.move_accuracy(0.6, 0.5) == pytest.approx(64.55, abs=0.05)
    assert an.accuracy([(0.5, 0.5)] * 20) == 100.0
    assert an.accuracy([]) is None
    worse = an.accuracy([(0.5, 0.5)] * 10 + [(0.6, 0.3)])
    assert worse is not None and worse < 100


def test_a_judgement_depends_on_the_view_up_to_it_only(tmp_path: Path) -> None:
    """A shorter view judges its decisions as the longer one does (a stored game's
    judgements stay good as it goes on); a chance run at the head is keyed by
    its last seq too, since it may grow."""
    from cli.analyse import store_key

    _, _, cut = _prefix_game(tmp_path, "card-city", each=3)
    log = view_of(read_path(cut), "bob")
    decoded = decode_events(log)
    assert isinstance(decoded, tuple)
    from core.engine import decisions

    starts = [d.start for d in decisions(decoded[0], decoded[1]) if d.seat == 1]
    short = LogFile(log.header, log.lines[: starts[-1]])  # up to bob's last decision, not including it
    long_ = analyse_views(None, [log], None, 2, 1)
    short_ = analyse_views(None, [short], None, 2, 1)
    assert short_["decisions"] == long_["decisions"][: len(short_["decisions"])] and short_["decisions"]
    a = an.Task("chance", 0, 5, 6, "k", None)
    b = an.Task("chance", 0, 5, 7, "k", None)
    assert store_key("alice", a, 2, "r") != store_key("alice", b, 2, "r")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_both_stores_keep_judgements_beside_the_chain(tmp_path: Path, request: pytest.FixtureRequest, backend: str) -> None:
    """``put_analyses`` replaces a key's data, ``analyses`` reads them back, deleting
    the game takes them with it; the chain is unchanged."""
    from events.backends import open_store
    from events.service import GameService

    url = str(tmp_path / "s.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    store = open_store(url)
    try:
        svc = GameService(store)
        gid = svc.create("card-city", ["a", "b"], seed="s")
        head = store.head(gid)
        svc.writer.put_analyses(gid, [("a|decision|6|2|r|e", b"one"), ("b|chance|2-5|2|r|e", b"two")])
        svc.writer.put_analyses(gid, [("a|decision|6|2|r|e", b"three")])
        assert store.analyses(gid) == {"a|decision|6|2|r|e": b"three", "b|chance|2-5|2|r|e": b"two"}
        assert store.head(gid) == head
        svc.delete(gid)
        assert store.list_games() == []
    finally:
        store.close()


def test_a_confirmed_mark_is_judged_on_fresh_worlds_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen's worlds pick a decision out for a second look; they are no evidence
    for it [engine an-3].  Here the played command loses every screen world and does
    as well as the best on every fresh one: judged on the fresh worlds alone it is no
    mistake (judged on all of them, as an-2 did, it was a blunder: loss 0.2)."""
    from core.autoplay import next_command
    from core.engine import CHANCE, checked_decide

    game = registry.get("card-city")
    state = game.apply(None, game.create(["alice", "bob"], {}))
    while (step := next_command(game, state, "fresh", 1, {})) is not None and step[0] == CHANCE:
        for e in checked_decide(game, state, *step):
            state = game.apply(state, e)
    seat = game.to_act(state)[0]
    legal = list(game.legal(game.view(state, seat), seat))
    assert len(legal) >= 2
    played, best = legal[0], legal[1]
    task = an.Task("decision", seat, 1, 1, "k", game.view(state, seat), played=played)
    k = an.worlds(8)
    seen: list[int] = []

    def played_out(game_, world, seat_, command, key, j, n):  # type: ignore[no-untyped-def]
        seen.append(j)
        lost = j < k and command == played  # the screen's worlds: the played command loses
        return ([0.0, 1.0] if lost else [1.0, 0.0])[:: 1 if seat_ == 0 else -1], [0.0, 0.0]

    monkeypatch.setattr(an, "search", lambda *a, **kw: [type("R", (), {"command": best})()])
    monkeypatch.setattr(an, "_played_out", played_out)
    j = an.judge_decision(game, task, 8)
    assert set(seen) == set(range(k + an.CONFIRM * k))  # screened, then measured again
    assert j.worlds == an.CONFIRM * k and j.loss == 0.0 and j.mark is None and j.best == j.played
