"""Issue 24 item 4: games survive upgrades (``citylog upgrade``, CL-U1..CL-U4).

A Point City game recorded under rules pc-2 is re-decided command by command
under pc-3: where every command gives byte-identical events a chained
``rules.upgraded`` line records the switch and play goes on under pc-3; where
one does not, the command is named with what each version makes of it and the
store is unchanged.  ``verify`` re-checks every upgrade (a forged one fails),
in play by email too; and, as a law on random games of every game, upgrading a
game already on the current rules is a no-op, and export → import → export
stays identical across an upgrade.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from core import chance, registry
from core.engine import CHANCE, checked_step, random_bot
from core.point_city.bots import greedy_bot
from core.point_city.game import GAME, GAME_PC2
from core.rng import Rng, seed_commitment
from core.upgrade import Upgraded
from events.codec import to_item
from events.envelope import GameDefinition
from events.service import GameService
from events.sqlite_store import SqliteStore
from events.store import GameRecord, new_game_id
from tests.cli.clirun import dump, ok, run

PLAYERS = ("ann", "bob", "cy", "dee")
DIFFERS = ("s1", 3, "greedy", 329)
"""A pc-2 game (seed, players, bots) that pc-3 decides differently, and the seq of the
decision: pc-2's PL-7 test ends the game after that refill's reveal, pc-3's does not."""


def pc2_events(seed: str, n: int, bot: str, upto: int | None = None, human: bool = True) -> list[Any]:
    """A seeded pc-2 game played by bots (chance as the store draws it outside play by
    email: from the seed, per seq), stopped before the first decision at or past ``upto``
    (a player's, if ``human``: where a stored game waits)."""
    g = GAME_PC2
    decide = {"random": random_bot, "greedy": greedy_bot}[bot]
    events = [g.create(PLAYERS[:n], {})]
    state = g.apply(None, events[0])
    while g.to_act(state) and (upto is None or len(events) < upto or (human and g.to_act(state) == (CHANCE,))):
        seat = g.to_act(state)[0]
        rng = Rng.derive(seed, len(events) + 1)
        command = g.chance(state, rng) if seat == CHANCE else decide(g, state, seat, rng)
        produced, state = checked_step(g, state, seat, command)
        events += produced
    return events


def store_pc2(db: Path, seed: str, n: int, bot: str, upto: int | None = None, human: bool = True) -> str:
    """The game of :func:`pc2_events` as a stored game recorded under pc-2."""
    svc = GameService(SqliteStore(db))
    events = pc2_events(seed, n, bot, upto, human)
    salt = chance.repeatable_salt(seed)
    definition = GameDefinition(
        game="point-city", rules_version="pc-2", options={"solo-level": "1"}, players=PLAYERS[:n],
        seed_commitment=seed_commitment(seed, salt), table=False, host_key="", secrets=chance.CURRENT)
    record = GameRecord.of(new_game_id(), definition, seed=seed, bots={}, salt=salt)
    svc.writer.write_game(record, GAME_PC2, events, GAME_PC2.fold(events))
    svc.store.close()
    return record.id


def loaded(db: Path, gid: str) -> Any:
    svc = GameService(SqliteStore(db))
    try:
        return svc.load(gid)
    finally:
        svc.store.close()


def same_export(db: Path, gid: str, tmp: Path, tag: str) -> None:
    """export → import (into another store) → export: the same file but for the new id."""
    a, b, other = tmp / f"{tag}-a.jsonl", tmp / f"{tag}-b.jsonl", tmp / f"{tag}-other.db"
    ok(db, "export", gid, "-o", str(a))
    new = json.loads(ok(other, "import", str(a), "--json"))["game_id"]
    ok(other, "export", new, "-o", str(b))
    assert a.read_text().replace(gid, "GAME") == b.read_text().replace(new, "GAME")


def test_a_pc2_game_upgrades_and_plays_on_under_pc3(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    gid = store_pc2(db, "s0", 2, "random", upto=120)
    before = loaded(db, gid)
    assert before.game is GAME_PC2 and before.game.to_act(before.state)  # played by the rules it was recorded by
    # it goes on under pc-2 (kept rules) before any upgrade [CL-U3]
    svc = GameService(SqliteStore(db))
    seat = before.game.to_act(before.state)[0]
    svc.submit(gid, seat, next(before.game.legal(before.state, seat)))
    svc.store.close()
    assert "every event legal" in ok(db, "verify", gid)

    untouched = dump(db)
    out = ok(db, "upgrade", gid, "--check")
    assert "can be upgraded from pc-2 to pc-3" in out and "nothing written" in out
    assert dump(db) == untouched
    n = loaded(db, gid).version
    report = json.loads(ok(db, "upgrade", gid, "--json"))
    assert (report["status"], report["from_version"], report["to_version"], report["seq"]) == (
        "upgraded", "pc-2", "pc-3", n + 1)
    after = loaded(db, gid)
    assert after.game is GAME and type(after.events[-1]) is Upgraded
    assert after.records[-1].type == "rules.upgraded"
    assert "upgraded from pc-2 to pc-3" in ok(db, "log", gid).splitlines()[-1]
    assert "decided by pc-3" in ok(db, "explain", gid, "--at", str(n + 1))
    # already on the current rules: said so, exit 0, nothing written [CL-U1]
    untouched = dump(db)
    assert "already on the current rules pc-3" in ok(db, "upgrade", gid)
    assert dump(db) == untouched
    # play goes on under pc-3, and every line verifies by the rules in effect there
    ok(db, "autoplay", gid, "--bots", "greedy")
    assert loaded(db, gid).record.status == "over"
    verdict = ok(db, "verify", gid)
    assert "every event legal" in verdict and "the game is over" in verdict
    same_export(db, gid, tmp_path, "jsonl")
    # the text record carries the upgrade and re-decides it on import
    text = tmp_path / "game.txt"
    ok(db, "export", gid, "--format", "text", "-o", str(text))
    assert f"#{n + 1} (upgrade) pc-2 pc-3" in text.read_text()
    ok(tmp_path / "records.db", "import", str(text))
    # and the html page
    ok(db, "export", gid, "--format", "html", "-o", str(tmp_path / "game.html"))
    # a fork before the upgrade goes on under pc-2, one after it under pc-3
    early = json.loads(ok(db, "fork", gid, "--at", str(n), "--json"))["game_id"]
    late = json.loads(ok(db, "fork", gid, "--at", str(n + 1), "--json"))["game_id"]
    assert loaded(db, early).game is GAME_PC2 and loaded(db, late).game is GAME


def test_a_pc2_game_that_pc3_decides_differently_is_told_why_and_unchanged(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    seed, n, bot, at = DIFFERS
    gid = store_pc2(db, seed, n, bot)
    untouched = dump(db)
    for args in ((), ("--check",)):
        code, out, err = run(db, "upgrade", gid, *args)
        assert code == 1, (out, err)
        assert "stays on pc-2" in out and f"seq {at}, the chance outcome 'reveal " in out, out
        assert "the recorded rules gave" in out and "game over: the player to act cannot take two cards" in out
        assert "pc-3 gives nothing more (the decision ends there)" in out and "[CL-U2]" in out
        assert dump(db) == untouched
    code, out, _ = run(db, "upgrade", gid, "--json")
    report = json.loads(out)
    assert code == 1 and report["status"] == "refused" and report["difference"]["seq"] == at
    assert dump(db) == untouched
    assert "every event legal" in ok(db, "verify", gid)


def test_a_pc2_game_cut_before_the_difference_goes_on_under_pc2(tmp_path: Path) -> None:
    """Not upgraded, a pc-2 game continues under pc-2: the draw that pc-2's PL-7 ends
    the game after ends it again, as recorded [CL-U3]."""
    db = tmp_path / "c.db"
    seed, n, bot, at = DIFFERS
    full = pc2_events(seed, n, bot)
    gid = store_pc2(db, seed, n, bot, upto=at - 1, human=False)
    assert len(loaded(db, gid).events) == at - 1
    ok(db, "autoplay", gid, "--bots", "greedy")
    assert [to_item(e) for e in loaded(db, gid).events] == [to_item(e) for e in full]
    # that prefix could have been upgraded (nothing in it differs) and go on under pc-3
    gid2 = store_pc2(db, seed, n, bot, upto=at - 1, human=False)
    ok(db, "upgrade", gid2)
    ok(db, "autoplay", gid2, "--bots", "greedy")
    assert "every event legal" in ok(db, "verify", gid2)


def _forge(db: Path, gid: str, up: Upgraded) -> None:
    """An upgrade line appended past the writer (a forged store, chained as it would be)."""
    svc = GameService(SqliteStore(db))
    with svc.store.transaction():
        svc.store.append(gid, svc.store.version(gid), [to_item(up)])
    svc.store.close()


@pytest.mark.parametrize(("up", "why"), [
    (Upgraded("pc-2", "pc-3"), "the upgrade to pc-3 changes a recorded decision: seq 329"),
    (Upgraded("pc-1", "pc-3"), "the upgrade says the game was on rules 'pc-1', but pc-2 are in effect"),
    (Upgraded("pc-2", "pc-9"), "an upgrade to rules 'pc-9', which this citylog does not keep"),
    (Upgraded("pc-2", "pc-2"), "an upgrade from pc-2 to itself"),
])
def test_a_forged_upgrade_line_fails_verify(tmp_path: Path, up: Upgraded, why: str) -> None:
    db = tmp_path / "c.db"
    seed, n, bot, _ = DIFFERS
    gid = store_pc2(db, seed, n, bot)
    seq = loaded(db, gid).version + 1
    _forge(db, gid, up)
    code, out, _ = run(db, "verify", gid)
    assert code == 1 and f":{seq + 1}: " in out and why in out and "[CL-U4]" in out, out
    ok(db, "export", gid, "-o", str(tmp_path / "forged.jsonl"))
    code, out, _ = run(db, "verify", str(tmp_path / "forged.jsonl"))
    assert code == 1 and why in out, out


# -- play by email ----------------------------------------------------------------
def _pbem_pc2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A 2-seat Point City game by email whose host created it under pc-2."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pbem"))
    from pbem_mail import Table

    real = registry.get
    with monkeypatch.context() as m:
        m.setattr(registry, "get", lambda name: GAME_PC2 if name == "point-city" else real(name))
        table = Table(tmp_path, "point-city", ["alice", "bob"])
    assert loaded(table.host.db, table.gid).record.rules_version == "pc-2"
    table.join_all()
    return table


def test_an_upgrade_by_email_is_the_hosts_and_every_verify_re_checks_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _pbem_pc2(tmp_path, monkeypatch)
    rng = random.Random(5)
    for _ in range(3):
        assert table.round_trip(rng)
    host = table.host
    assert "upgraded from pc-2 to pc-3" in host.ok("upgrade", table.gid)
    seq = loaded(host.db, table.gid).version
    for _ in range(3):
        assert table.round_trip(rng)  # each player verifies her view, the upgrade line in it
    host.ok("outbox", table.gid, str(table.outbox))
    views = {v.stem.split("-")[-1]: v for v in sorted(table.outbox.glob(f"{table.gid}-seq*.jsonl"),
                                                       key=lambda v: int(v.stem.split("-")[1][3:]))}
    for name, view in views.items():
        lines = view.read_text().splitlines()
        assert json.loads(lines[seq])["type"] == "rules.upgraded"
        out = table.players[name].ok("verify", str(view))
        assert "valid" in out
    assert "every event legal" in host.ok("verify", table.gid)
    # a forged upgrade line in a sealed view (re-chained): the host's seal no longer matches
    name, view = next(iter(views.items()))
    lines = view.read_text().splitlines()
    line = json.loads(lines[seq])
    line["payload"]["to_version"] = "pc-2"
    from events.codec import encode
    from events.envelope import chain_hash, payload_digest

    line["hash"] = chain_hash(line["prev_hash"], line["seq"], line["type"],
                              payload_digest(encode(Upgraded("pc-3", "pc-2")), bytes.fromhex(line["nonce"]))
                              if line.get("nonce") else payload_digest(encode(Upgraded("pc-3", "pc-2"))))
    forged = tmp_path / "forged.jsonl"
    forged.write_text("\n".join([*lines[:seq], json.dumps(line, separators=(",", ":")), *lines[seq + 1:]]) + "\n")
    code, out, _ = table.players[name].run("verify", str(forged))
    assert code == 1 and "valid —" not in out, out
    # the host cannot slip in an upgrade the rules deny: every player's view re-checks it
    _forge(host.db, table.gid, Upgraded("pc-2", "pc-3"))
    host.ok("outbox", table.gid, str(table.outbox))
    # the view the outbox wrote after the forged line: the seat to move's (which seat that is
    # depends on the game's random seed, so it is found, not assumed)
    forged_seq = loaded(host.db, table.gid).version
    newest = max(table.outbox.glob(f"{table.gid}-seq*.jsonl"), key=lambda v: int(v.stem.split("-")[1][3:]))
    assert len(newest.read_text().splitlines()) - 1 == forged_seq, newest
    name = newest.stem.split("-")[-1]
    code, out, _ = table.players[name].run("verify", str(newest))
    assert code == 1 and "the upgrade says the game was on rules 'pc-2', but pc-3 are in effect" in out, out


# -- the law ----------------------------------------------------------------------
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
          phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(name=st.sampled_from(registry.names()), players=st.integers(1, 4), seed=st.integers(0, 10_000),
       cut=st.integers(0, 60))
def test_law_upgrading_a_current_game_is_a_no_op_and_exports_survive_an_upgrade(
        tmp_path_factory: pytest.TempPathFactory, name: str, players: int, seed: int, cut: int) -> None:
    tmp = tmp_path_factory.mktemp("law")
    db = tmp / "c.db"
    game = registry.get(name)
    n = max(game.spec.min_players, min(players, game.spec.max_players))
    svc = GameService(SqliteStore(db))
    gid = svc.create(name, list(PLAYERS[:n]), seed=f"law-{seed}", salt=chance.repeatable_salt(f"law-{seed}"))
    svc.autoplay(gid, "random")  # no bot seats in its row: an import carries none (they are outside the chain)
    svc.store.close()
    untouched = dump(db)
    out = ok(db, "upgrade", gid)
    assert f"already on the current rules {game.spec.rules_version}" in out
    assert dump(db) == untouched
    same_export(db, gid, tmp, "current")
    # across an upgrade: a pc-2 game cut anywhere, upgraded, played on
    pc2 = store_pc2(db, f"law-{seed}", min(players, 4), "random", upto=2 + cut * 5)
    code, _, _ = run(db, "upgrade", pc2)
    if code == 0 and loaded(db, pc2).game is GAME and GAME.to_act(loaded(db, pc2).state):
        ok(db, "autoplay", pc2, "--bots", "random")
    same_export(db, pc2, tmp, "upgraded")


@pytest.mark.slow
def test_a_whole_game_by_email_upgraded_midway_ends_with_the_deal_proven(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reveal re-checks the upgrade for every seat and chance event: each final
    view says "deal proven" with the upgrade line in it."""
    table = _pbem_pc2(tmp_path, monkeypatch)
    rng = random.Random(11)
    for _ in range(4):
        assert table.round_trip(rng)
    assert "upgraded from pc-2 to pc-3" in table.host.ok("upgrade", table.gid)
    table.play_out(rng)
    for name, party in table.players.items():
        final = table.outbox / f"{table.gid}-final-{name}.jsonl"
        assert '"rules.upgraded"' in final.read_text()
        out = party.ok("verify", str(final))
        assert "deal proven" in out, out
