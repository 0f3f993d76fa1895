"""The text record: export → import → export is byte-identical and the hashes are
the original's, for every game — seeded games, table games with chance lines,
forks — with notes as ``{comments}``; and a changed record is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import msgspec

from core import registry
from core.engine import CHANCE
from core.rng import Rng
from events.service import GameService
from events.store import Note
from events.sqlite_store import SqliteStore
from events.envelope import chain
from replay import record
from replay.logfile import from_records
from replay.record import RecordError
from replay.sources import export, export_record, import_log
from tests.options import draw_options

GAMES = registry.available()


def _service(tmp_path: Path, name: str) -> GameService:
    return GameService(SqliteStore(tmp_path / name, durability="normal"))  # no fsync a commit: no test here of a crash


def _play_table_game(svc: GameService, gid: str, seed: str, stop: int | None = None) -> None:
    """Random players and chance typed in by hand, up to ``stop`` decisions."""
    n = 0
    while stop is None or n < stop:
        loaded = svc.load(gid)
        game, state = loaded.game, loaded.state
        actors = game.to_act(state)
        if not actors:
            return
        rng = Rng.derive(seed, loaded.version + 1, "test")
        seat = actors[rng.below(len(actors))]
        if seat == CHANCE:
            command = game.chance(state, rng)
        else:
            options = list(game.legal(state, seat))
            command = options[rng.below(len(options))]
        svc.submit(gid, seat, command)
        n += 1


def _round_trip(svc: GameService, gid: str, into: GameService) -> str:
    text = export_record(svc, gid)
    log, notes = record.read(text, "r.txt")
    # bot seats are the importer's to give, never the file's [CL-V5]: give the original's
    new = import_log(into, log, notes, svc.store.get_game(gid).bots, again=True)  # maybe the same store
    assert export_record(into, new) == text
    assert [x.hash for x in export(into, new).lines] == [x.hash for x in export(svc, gid).lines]
    assert into.store.notes(new) == svc.store.notes(gid)
    return text


def _game_setup(game: Any, data: st.DataObject) -> tuple[list[str], dict[str, str]]:
    n = data.draw(st.integers(game.spec.min_players, game.spec.max_players), label="players")
    return [f"p{i}" for i in range(n)], draw_options(game, data.draw)


NOTE_CHARS = st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")) | st.sampled_from(" \n\t")
"""What a note may hold: printable text, spaces, line breaks and tabs (the service
refuses any other control character in a note, issue 22)."""


@pytest.mark.slow  # many whole games (issue 27: -m 'not slow' leaves it out)
@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_seeded_games_and_forks_round_trip(name: str, data: st.DataObject, tmp_path_factory: Any) -> None:
    tmp = tmp_path_factory.mktemp("rec")
    svc = _service(tmp, "a.db")
    game = registry.get(name)
    players, options = _game_setup(game, data)
    seed = data.draw(st.text("abc0123456789", min_size=1, max_size=6), label="seed")
    bots = {i: data.draw(st.sampled_from(["random", "greedy"])) for i in range(len(players))}  # mcts: too slow here
    gid = svc.create(name, players, seed=seed, options=options, bots=bots)
    version = svc.store.version(gid)
    notes = data.draw(st.lists(st.tuples(st.integers(1, version), st.text(NOTE_CHARS, max_size=20)), max_size=4))
    for seq, text in notes:
        svc.store.add_note(gid, seq, text)
    _round_trip(svc, gid, svc)
    _round_trip(svc, gid, _service(tmp, "b.db"))
    # a fork at a decision point, with a new seed or the same one
    loaded = svc.load(gid)
    points = [i for i in range(1, version) if game.command_of(loaded.events[i]) is not None]
    at = data.draw(st.sampled_from(points), label="fork at")
    fork = svc.fork(gid, at, seed=data.draw(st.sampled_from([None, "other"]), label="fork seed"))
    svc.autoplay(fork, "random")
    svc.store.add_note(fork, at, "fork point")
    text = _round_trip(svc, fork, svc)
    assert f'[Parent "{gid}"]' in text and f'[ForkAt "{at}"]' in text


@pytest.mark.parametrize("name", GAMES)
@given(data=st.data())
def test_table_games_with_chance_lines_round_trip(name: str, data: st.DataObject, tmp_path_factory: Any) -> None:
    tmp = tmp_path_factory.mktemp("rec")
    svc = _service(tmp, "a.db")
    game = registry.get(name)
    players, options = _game_setup(game, data)
    seed = data.draw(st.text("xyz0123", min_size=1, max_size=6), label="seed")
    gid = svc.create(name, players, options=options, table=True)
    finish = data.draw(st.booleans(), label="finish")
    _play_table_game(svc, gid, seed, None if finish else data.draw(st.integers(0, 30)))
    text = _round_trip(svc, gid, _service(tmp, "b.db"))
    assert "(chance)" in text or svc.store.version(gid) == 1 or not _has_chance(svc, gid)
    if finish:
        assert '[Result "*"]' not in text
    # a fork of a table game, played on with chance typed in
    loaded = svc.load(gid)
    points = [i for i in range(1, len(loaded.events)) if game.command_of(loaded.events[i]) is not None]
    if points:
        fork = svc.fork(gid, data.draw(st.sampled_from(points), label="fork at"))
        _play_table_game(svc, fork, seed + "f", data.draw(st.integers(0, 20), label="fork moves"))
        _round_trip(svc, fork, svc)


def _has_chance(svc: GameService, gid: str) -> bool:
    loaded = svc.load(gid)
    return any((loaded.game.command_of(e) or (0, None))[0] == CHANCE for e in loaded.events)


@pytest.fixture()
def finished(tmp_path: Path) -> tuple[GameService, str]:
    svc = _service(tmp_path, "a.db")
    gid = svc.create("card-city", ["alice", "bob"], seed="s1", bots={0: "greedy", 1: "greedy"})
    return svc, gid


def test_record_reads_like_a_game_score(finished: tuple[GameService, str]) -> None:
    svc, gid = finished
    svc.store.add_note(gid, 6, "a bold } split\nreally")
    svc.store.add_note(gid, 8, "@ a note on an automatic event")
    text = export_record(svc, gid)
    head, _, body = text.partition("\n\n")
    assert head.splitlines()[0] == '[Format "citylog-record/1"]'
    assert '[Players "alice bob"]' in head and '[Seed "s1"]' in head
    assert "R1 #2 (chance) draw " in body and "R1 #6 alice: split " in body
    assert "{a bold \\} split\\nreally}" in body
    assert "{@8 \\@ a note on an automatic event}" in body
    log, notes = record.read(text)
    assert notes == [Note(6, "a bold } split\nreally"), Note(8, "@ a note on an automatic event")]


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: _edit(t, "R1 #6 alice: split", "R1 #6 bob: split"), "not bob's turn"),
        (lambda t: _edit(t, '[Result "alice', '[Result "alice 1'), "the Result tag says"),
        (lambda t: _edit(t, '[Seed "s1"]', '[Seed "s2"]'), "Head tag"),
        (lambda t: _edit(t, "R1 #6 ", "R1 #7 "), "not #7"),
        (lambda t: _edit(t, "R1 #6 ", "R2 #6 "), "not R2"),
        (lambda t: _edit(t, "R1 #6 alice:", "R1 #6 carol:"), "not a player"),
        (lambda t: _edit(t, "R1 #6 alice: split", "R1 #6 alice: splat"), ":"),
        (lambda t: _edit(t, '[Game "card-city"]', '[Game "chess"]'), "unknown game"),
        (lambda t: _edit(t, '[Format "citylog-record/1"]', '[Format "citylog-record/9"]'), "not a citylog-record/1"),
        (lambda t: t + "{unterminated\n", "a comment is one line"),
        (lambda t: t + "R10 #999 alice: pass\n", "not #999"),
        (lambda t: _edit(t, '[Players "alice bob"]', '[Players alice bob]'), ":4: malformed tag line"),
        (lambda t: "hello\n" + t, ":1: not a citylog record"),
        (lambda t: _edit(t, "alice=greedy", "alice=genius"), "is not PLAYER=POLICY"),
        (lambda t: _edit(t, "decentralization=no", "decentralization=maybe"), "not a valid game"),
        (lambda t: _edit(t, '[Options "', '[Options "decentralization=yes '), "given twice"),
        (lambda t: _edit(t, '[Players "alice bob"]', '[Players "alice alice"]'), "not a valid game"),
        (lambda t: _edit(t, '[Events "', '[Events "1'), "the Events tag says"),
    ],
)
def test_changed_records_are_refused_with_the_line(
    finished: tuple[GameService, str], change: Any, message: str
) -> None:
    svc, gid = finished
    text = change(export_record(svc, gid))
    with pytest.raises(RecordError, match=message):
        record.read(text, "r.txt")


def test_a_player_view_has_no_text_record(finished: tuple[GameService, str]) -> None:
    svc, gid = finished
    with pytest.raises(RecordError, match="view hides chance"):
        record.write(export(svc, gid, "alice"))


def test_a_record_without_seed_imports_for_an_unsalted_reader(finished: tuple[GameService, str]) -> None:
    """Dropping the Seed tag: the chain's salt is gone, so the hashes cannot match (refused)."""
    svc, gid = finished
    text = export_record(svc, gid).replace('[Seed "s1"]\n', "")
    with pytest.raises(RecordError, match="Head tag"):
        record.read(text)


def test_import_of_a_bad_record_stores_nothing(finished: tuple[GameService, str], tmp_path: Path) -> None:
    svc, gid = finished
    before = len(svc.store.list_games())
    log, notes = record.read(export_record(svc, gid))
    notes.append(Note(10_000, "past the end"))
    with pytest.raises(Exception, match="no seq 10000"):
        import_log(svc, log, notes, again=True)  # a copy of a stored game: only the bad note refuses it
    assert len(svc.store.list_games()) == before


@given(st.text())
def test_comments_escape_to_one_line_and_back(text: str) -> None:
    escaped = record.escape_comment(text)
    assert len(("{" + escaped + "}").splitlines()) == 1
    assert record.unescape_comment(escaped) == text


@given(st.text(min_size=1))
def test_tag_values_stay_on_one_line(value: str) -> None:
    line = record._tag("Seed", value)
    assert len(line.splitlines()) == 1
    assert record._TAG.match(line) is not None


def test_a_record_under_other_rules_is_written_but_not_re_decided(finished: tuple[GameService, str]) -> None:
    svc, gid = finished
    text = export_record(svc, gid)
    version = registry.get("card-city").spec.rules_version
    old = text.replace(f'[Rules "{version}"]', '[Rules "card-city/0"]')
    with pytest.raises(RecordError, match="recorded under rules card-city/0"):
        record.read(old)
    # a stored game under other rules still writes its record (never re-decided)
    log = export(svc, gid)
    d = msgspec.structs.replace(log.header.definition, rules_version="card-city/0")
    rechained = chain(d, gid, [(x.type, bytes(x.payload)) for x in log.lines], secret="s1")
    written = record.write(from_records(msgspec.structs.replace(log.header, definition=d), rechained))
    assert written.partition("\n\n")[2] == text.partition("\n\n")[2]
    assert '[Rules "card-city/0"]' in written
