"""The cheating host's catalogue, part 1: what it does to its own database while
the game is played (re-create, reseed, replay old files, write bots, status,
lineage, fork) -- everything a host with ``sqlite3`` and its own key can do.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from collections.abc import Callable
from typing import Any

from adversary.honest import Mail
from adversary.host_tools import delete_game, force_join, force_move, force_reveal
from adversary.judge import Received

Attack = Callable[[Mail, int], Received]
"""``attack(mail, at)``: a fresh game (not yet joined); ``at`` honest round trips
before the cheat (where the attack has a when)."""


def redeal(mail: Mail, at: int) -> Received:
    """[issue 22] The host reads every join's entropy, then deletes the game and
    re-creates it under the same id with a seed of its choosing (after seeing
    what it deals), and appends the players' original join files."""
    from events.service import GameService
    from events.sqlite_store import SqliteStore

    mail.invite()
    originals = [mail.join_file(p).read_bytes() for p in mail.players]
    for p in mail.players:
        shutil.copy(mail.join_file(p), mail.inbox)
    mail.read_inbox()
    # [CL-S7] a game of committed entropy shows no entropy until every seat revealed:
    # the host waits for the reveals, then re-deals with them
    mail.round_trip()
    revealed = [f.read_bytes() for f in mail.applied("reveal")]
    record = _record(mail)
    delete_game(mail)
    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        svc.create(record.definition.game, list(record.players), seed="host-chosen-after-the-joins",
                   options=dict(record.definition.options), game_id=mail.gid, host_key=record.host_key,
                   entropy=record.entropy)
    for raw in originals:
        force_join(mail, raw)
    for raw in revealed:
        force_reveal(mail, raw)
    mail.play()
    return Received(mail.finals())


def _record(mail: Mail) -> Any:
    from events.sqlite_store import SqliteStore

    with contextlib.closing(SqliteStore(mail.host.db)) as store:
        return store.get_game(mail.gid)


def reseeds(mail: Mail, at: int) -> Received:
    """[issue 22] The host writes ``reseeds`` into its own games row before the next
    chance events: the draws from then on are the host's choice."""
    mail.start(at)
    if mail.over():
        return Received(mail.finals(), mounted=False)
    mail.sql("UPDATE games SET reseeds = ? WHERE id = ?", json.dumps([[mail.version() + 1, "host-chosen"]]), mail.gid)
    mail.play()
    return Received(mail.finals())


def _old_move(upper: bool) -> Attack:
    def attack(mail: Mail, at: int) -> Received:
        state = {"done": False}

        def hook(m: Mail) -> None:
            if state["done"]:
                return
            for new in sorted(m.inbox.glob(f"{m.gid}-seq*-move.json")):
                player = new.stem.split("-")[-2]
                code, out, _ = m.host.run("legal", m.gid, "--as", player, "--json")
                legal = set(json.loads(out)["legal"]) if code == 0 else set()
                sent = json.loads(new.read_bytes())["commands"]
                for old in m.applied(f"-{player}-move"):
                    d = json.loads(old.read_bytes())
                    cmds = d.get("commands") or [d.get("command")]
                    if len(cmds) == 1 and cmds[0] in legal and cmds != sent:
                        if upper:
                            d["signature"] = d["signature"].upper()
                        stored = json.dumps(d, sort_keys=True, separators=(",", ":")).encode() + b"\n"
                        dropped = m.root / "dropped"
                        dropped.mkdir(exist_ok=True)
                        shutil.move(str(new), dropped / new.name)
                        force_move(m, player, cmds, stored)
                        state["done"] = True
                        return

        mail.start(at)
        mail.on_inbox = hook
        mail.play()
        return Received(mail.finals(), mounted=state["done"])

    attack.__doc__ = (
        "[issue 22] The host drops a player's new move and plays instead an older move file of the same "
        "player whose command is legal again" + (", its signature's hex in upper case." if upper else
                                                 ", byte for byte.")
    )
    return attack


old_move_upper = _old_move(True)
old_move_verbatim = _old_move(False)


def bots_row(mail: Mail, at: int) -> Received:
    """The host writes a bot into its games row for the last seat: from then on the
    host's bot plays that seat, and no signed file stands behind its moves."""
    from core import registry

    mail.start(at)
    if mail.over():
        return Received(mail.finals(), mounted=False)
    bot = min(registry.get(mail.case.game).bots)
    mail.sql("UPDATE games SET bots = ? WHERE id = ?", json.dumps({str(len(mail.players) - 1): bot}), mail.gid)
    mail.play()
    return Received(mail.finals())


def status_row(mail: Mail, at: int) -> Received:
    """Once the game is over the host sets its row back to ``active``: the final
    views then say the game goes on (and reveal no seed)."""
    mail.start()
    mail.sql("UPDATE games SET status = 'active', winners = '[]' WHERE id = ?", mail.gid)
    for path in mail.outbox.glob(f"{mail.gid}-final-*.jsonl"):
        path.unlink()  # not sent yet: the outbox writes them again from the row
    return Received(mail.finals())


def lineage_row(mail: Mail, at: int) -> Received:
    """The host gives its game a parent and a fork point it never had (nothing that
    decides the game: harmless, or refused)."""
    mail.start(at)
    mail.sql("UPDATE games SET parent = 'deadbeef', fork_at = 2 WHERE id = ?", mail.gid)
    mail.play()
    return Received(mail.finals())


def fork_chosen_seed(mail: Mail, at: int) -> Received:
    """The host forks its game at the current position with a seed of its choosing,
    copies the signed files over, and passes the fork off as the game (same id,
    no lineage)."""
    mail.start(at)
    if mail.over():
        return Received(mail.finals(), mounted=False)
    v = mail.version()
    code, out, _ = mail.host.run("fork", mail.gid, "--at", str(v), "--seed", "host-chosen", "--json")
    if code != 0:  # the host's citylog will not fork a game by email: it edits its row instead
        mail.sql("UPDATE games SET reseeds = ? WHERE id = ?", json.dumps([[v + 1, "host-chosen"]]), mail.gid)
    else:
        child = json.loads(out)["game_id"]
        mail.sql("DELETE FROM signed WHERE game_id = ?", child)
        mail.sql("INSERT INTO signed (game_id, seq, statement) SELECT ?, seq, statement FROM signed "
                 "WHERE game_id = ? AND seq <= ?", child, mail.gid, v)
        delete_game(mail)
        mail.sql("UPDATE games SET id = ?, parent = NULL, fork_at = NULL WHERE id = ?", mail.gid, child)
        mail.sql("UPDATE events SET game_id = ? WHERE game_id = ?", mail.gid, child)
        mail.sql("UPDATE signed SET game_id = ? WHERE game_id = ?", mail.gid, child)
    mail.play()
    return Received(mail.finals())



def split_views(mail: Mail, at: int) -> Received:
    """(Found by the red team.)  The host hands each player a game of her own: after
    the joins it copies its database once per player and, in each copy, plays every
    other seat itself (no signed file behind those moves) while that player plays
    hers; each player is sent the final view of her copy.  Every player's own moves
    are hers, and a view skipped another seat's line without a file."""
    import copy

    from adversary.host_tools import host_plays, to_act
    from tests.helpers.pbem import Party

    mail.start(0)
    chains: dict[str, Mail] = {}
    for p in mail.players:
        m = copy.copy(mail)
        shutil.copytree(mail.host.home, mail.root / f"host-{p}")
        m.host = Party(mail.root, f"host-{p}")
        m.outbox, m.inbox = mail.root / f"outbox-{p}", mail.root / f"inbox-{p}"
        m.inbox.mkdir()
        m.answered, m.refusals = set(mail.answered), []
        chains[p] = m
    for p, m in chains.items():
        for _ in range(5000):
            if m.over() or m.stuck:
                break
            others = [s for s in to_act(m) if s != p]
            for s in others:
                host_plays(m, s)
            if not others and not m.round_trip():
                break
    finals = {p: m.finals()[p] for p, m in chains.items()}
    return Received(finals, note="; ".join(f"{p}: {m.stuck}" for p, m in chains.items() if m.stuck))


def _row_edit(column: str, value: str, doc: str) -> Attack:
    def attack(mail: Mail, at: int) -> Received:
        mail.start(at)
        if mail.over():
            return Received(mail.finals(), mounted=False)
        mail.sql(f"UPDATE games SET {column} = ? WHERE id = ?", value, mail.gid)
        mail.play()
        return Received(mail.finals())

    attack.__doc__ = doc
    return attack


seed_row = _row_edit("seed", "host-chosen", """The host writes a seed of its choosing into its games row mid-game
(the chained commitment unchanged): the draws from then on are its choice.""")
salt_row = _row_edit("salt", "ab" * 16, """The host changes the commitment's salt in its games row mid-game
(line nonces, seat secrets and chance all derive from it).""")


def grind_entropy(mail: Mail, at: int) -> Received:
    """[CL-S7] The host plays the last seat itself, with a key of its own (a puppet
    no player can tell apart).  It waits until every other seat has revealed, then
    grinds the puppet's entropy for the deal it likes best and writes that reveal,
    signed with the puppet's key, past its own checks (its citylog then deals from
    it): the puppet's commitment was chained before any reveal, and does not open."""
    from unittest import mock

    from core import chance
    from core.rng import deal_seed
    from core.seats import last_join_seq, reveals
    from events.service import GameService
    from events.signing import load_private_pem
    from events.sqlite_store import SqliteStore
    from events.statements import signed_reveal

    puppet = list(mail.players)[-1]
    mail.join_all()
    mail.host.ok("outbox", mail.gid, str(mail.outbox))
    for view in mail.fresh_views():
        name = view.stem.split("-")[-1]
        if name != puppet and mail.asks_reveal(view, name):
            party, key, _ = mail.controller[name]
            party.ok("reveal", str(view), "--as", name, "--out", str(mail.inbox), "--key", str(key))
    mail.read_inbox()
    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(mail.gid)
        rec = loaded.record
        shown = reveals(loaded.events)
        others = [shown[s].entropy for s in range(len(rec.players) - 1)]
        secret = chance.game_secret(rec.seed or "", rec.salt, rec.secrets)
        candidates = [f"{k:032x}" for k in range(64)]
        chosen = min(candidates, key=lambda e: deal_seed(secret, [*others, e]))
        last = last_join_seq(loaded.events)
        key = load_private_pem(mail.players[puppet].key().read_bytes(), "puppet.key")
        rv = signed_reveal(key, mail.gid, rec.genesis, puppet, last, loaded.records[last - 1].hash,
                           (chosen, "5a" * 16))
        committed = loaded.events[last - 1].commitment
        with mock.patch("events.admission.entropy_commitment", lambda e, s: committed), \
                mock.patch("core.seats.matches", lambda j, r: True):
            svc.reveal(rv)
    with mock.patch("core.seats.matches", lambda j, r: True):  # the host's citylog deals from it
        mail.play()
    return Received(mail.finals())


ATTACKS: dict[str, Attack] = {
    "redeal": redeal,
    "grind_entropy": grind_entropy,
    "reseeds": reseeds,
    "old_move_upper": old_move_upper,
    "old_move_verbatim": old_move_verbatim,
    "bots_row": bots_row,
    "status_row": status_row,
    "lineage_row": lineage_row,
    "fork_chosen_seed": fork_chosen_seed,
    "split_views": split_views,
    "seed_row": seed_row,
    "salt_row": salt_row,
}
