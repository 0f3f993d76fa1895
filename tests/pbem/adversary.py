"""The red team of issue 22: a cheating host and cheating players, black-box.

A :class:`Mail` is one play-by-email game between a host and players, each with
a data directory of their own, talking only through the CLI and files (as
``pbem_mail.Table`` does, faster: the click command is built once).  Honest
players only ever run ``join``, ``legal``, ``move`` and ``verify`` on what they
receive; what they *finally* receive is their final view.

An *attack* plays an honest game up to some point and then cheats:

* **the host** may do anything to its own database (rewrite rows with
  ``sqlite3``, delete and re-create a game, edit the ``games`` row's header
  fields, apply a file it should not, re-sign with its own key) and to the
  files it sends (rewrite, cut, re-chain and re-seal an export);
* **a player** may send the host any file (another seat's join, a second key,
  old moves, re-spelled files, huge entropy), crafted with any code and signed
  with any key *it* holds.

:func:`judge` is the law: some honest player's ``verify`` of what they finally
received fails (exit 1, one line; never exit 3), or the attack changed nothing
that matters (each honest player's final view folds to the same result as the
same game played honestly, and that game is over).  For a cheating player,
:func:`judge_player` adds: the host's ``inbox`` refused the file with the store
exactly as it was, or it accepted it and the law above holds.

Attacks are written in terms of what a cheater does with files and rows, never
in terms of APIs a fix adds, so they run on today's code and after the fixes.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import secrets
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import click.testing
import msgspec
import typer

from cli.main import app

_COMMAND: Any = None


def _command() -> Any:
    """The click command, built once (typer rebuilds it on every invoke: 95% of a call)."""
    global _COMMAND
    if _COMMAND is None:
        _COMMAND = typer.main.get_command(app)
    return _COMMAND


class Bug(AssertionError):
    """A command exited 3 or raised: never an acceptable answer to a cheater."""


class Party:
    """One data directory (host or player) and the CLI run against it."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.home = root / name
        self.home.mkdir(parents=True, exist_ok=True)
        self.db = self.home / "citylog.db"

    def run(self, *args: str) -> tuple[int, str, str]:
        r = click.testing.CliRunner().invoke(_command(), ["--db", str(self.db), *args])
        if r.exception is not None and not isinstance(r.exception, SystemExit):
            raise Bug(f"{self.name}: {args[:2]} raised {type(r.exception).__name__}: {r.exception}") from r.exception
        if r.exit_code == 3:
            raise Bug(f"{self.name}: {args[:2]} exited 3 (a bug): {r.stderr}{r.stdout}")
        return r.exit_code, r.stdout, r.stderr

    def ok(self, *args: str) -> str:
        code, out, err = self.run(*args)
        assert code == 0, f"{self.name}: {args} exited {code}: {err}{out}"
        return out

    def key(self, name: str | None = None) -> Path:
        return self.home / "keys" / f"{name or self.name}.key"


def _seq_of(path: Path) -> tuple[int, str]:
    part = path.name.split("-")[1] if path.name.count("-") >= 2 else ""
    return (int(part[3:]) if part.startswith("seq") and part[3:].isdigit() else -1, path.name)


@contextlib.contextmanager
def deterministic(label: str) -> Iterator[None]:
    """Every ``secrets.token_hex`` (game id, seed, salt, entropy) from a counter,
    so an attacked game and the same game played honestly match up to the cheat."""
    counter = iter(range(10**9))

    def token_hex(n: int = 32) -> str:
        return hashlib.sha256(f"{label}-{next(counter)}".encode()).hexdigest()[: 2 * n].ljust(2 * n, "0")

    with mock.patch.object(secrets, "token_hex", token_hex):
        yield


def pick(options: list[str], *salt: object) -> str:
    """A choice that depends only on the position (not on how we got there)."""
    h = hashlib.sha256(":".join(map(str, salt)).encode()).digest()
    return options[int.from_bytes(h[:8], "big") % len(options)]


# -- a game ------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """A game to attack: which, with whom, and how the honest players choose."""

    game: str
    players: tuple[str, ...]
    options: tuple[str, ...] = ()
    seed: str | None = None
    choices: int = 0
    label: str = "adv"

    def __str__(self) -> str:
        return f"{self.game} {','.join(self.players)} {' '.join(self.options)} seed={self.seed} choices={self.choices}"


_STARTS: dict[tuple[Case, int | None], Mail] = {}


class Mail:
    """One play-by-email game, host and players in their own directories."""

    def __init__(self, root: Path, case: Case) -> None:
        self.case = case
        self.root = root
        self.host = Party(root, "host")
        self.players = {p: Party(root, p) for p in case.players}
        self.outbox = root / "outbox"
        self.inbox = root / "inbox"
        self.inbox.mkdir(parents=True)
        self.host.ok("key", "new", "host")
        for name, party in self.players.items():
            party.ok("key", "new", name)
        seed = ("--seed", case.seed) if case.seed else ()
        out = self.host.ok("new", case.game, "--players", ",".join(case.players), "--pbem", "--json",
                           *case.options, *seed)
        self.gid: str = json.loads(out)["game_id"]
        self.answered: set[str] = set()
        self.controller: dict[str, tuple[Party, Path, int]] = {
            p: (party, party.key(), case.choices) for p, party in self.players.items()
        }
        """Who answers each seat's views, with which key and which choices (a hijacker may take one)."""
        self.refusals: list[str] = []
        self.stuck: str | None = None
        """Why an honest player could not go on (could not read a view, no legal move)."""
        self.on_inbox: Callable[[Mail], None] | None = None
        """A host's hook: runs after the players answered and before the host reads its inbox."""

    # -- the host's row and files ------------------------------------------
    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        with contextlib.closing(sqlite3.connect(self.host.db)) as conn, conn:
            return conn.execute(query, params).fetchall()

    def version(self) -> int:
        return int(self.sql("SELECT coalesce(max(seq), 0) FROM events WHERE game_id = ?", self.gid)[0][0])

    def over(self) -> bool:
        return self.sql("SELECT status FROM games WHERE id = ?", self.gid)[0][0] == "over"

    def dump(self) -> list[str]:
        with contextlib.closing(sqlite3.connect(self.host.db)) as conn:
            return list(conn.iterdump())

    def applied(self, kind: str) -> list[Path]:
        """Files the host applied, oldest first (``join`` or ``move``)."""
        folder = self.inbox / "applied"
        if not folder.is_dir():
            return []
        return sorted(folder.glob(f"{self.gid}-*{kind}*.json"), key=_seq_of)

    # -- joining -------------------------------------------------------------
    def invite(self) -> dict[str, Path]:
        self.host.ok("outbox", self.gid, str(self.outbox))
        return {p: self.outbox / f"{self.gid}-invite-{p}.json" for p in self.players}

    def join_file(self, name: str) -> Path:
        """``name`` answers their invitation (into a folder of their own, not yet sent)."""
        party = self.players[name]
        out = party.home / f"{self.gid}-join-{name}.json"
        if not out.exists():
            party.ok("join", str(self.outbox / f"{self.gid}-invite-{name}.json"), "--as", name, "-o", str(out))
        return out

    def read_inbox(self, folder: Path | None = None) -> tuple[int, str, str]:
        code, out, err = self.host.run("inbox", str(folder or self.inbox))
        if code != 0:
            self.refusals.append(out + err)
        return code, out, err

    def join_all(self, skip: tuple[str, ...] = ()) -> None:
        self.invite()
        for name in self.players:
            if name not in skip:
                shutil.copy(self.join_file(name), self.inbox)
        self.read_inbox()

    # -- playing -------------------------------------------------------------
    def legal(self, party: Party, view: Path, name: str) -> list[str] | None:
        """``name``'s legal commands in the file received, as ``citylog legal FILE`` lists
        them (read in-process: a fifth of a game's time otherwise)."""
        from cli.games import legal_commands
        from replay.sources import fold_log, read_path

        try:
            log = read_path(view)
            game, _, states = fold_log(log)
            seat = log.header.definition.players.index(name)
            return list(legal_commands(game, game.view(states[-1], seat), seat))
        except (ValueError, OSError) as exc:
            self.stuck = f"{name} cannot read {view.name}: {' '.join(str(exc).split())[:300]}"
            return None

    # -- an honest start, played once per case and copied -------------------------
    def start(self, rounds: int | None = None) -> None:
        """Everyone joins, then ``rounds`` honest round trips (None: to the end, with
        the final views written).  Played once per (case, rounds) and copied here."""
        src = honest_start(self.case, rounds)
        shutil.rmtree(self.root)
        shutil.copytree(src.root, self.root)
        self.gid, self.answered, self.stuck = src.gid, set(src.answered), src.stuck
        self.refusals = list(src.refusals)

    def round_trip(self) -> bool:
        """The host sends views; each seat to act answers its newest; the host reads
        the inbox.  False once the game is over (or stuck)."""
        if self.stuck:
            return False
        self.host.ok("outbox", self.gid, str(self.outbox))
        if self.finals_written():
            return False
        fresh = [p for p in sorted(self.outbox.glob(f"{self.gid}-seq*.jsonl")) if p.name not in self.answered]
        latest: dict[str, Path] = {}
        for v in sorted(fresh, key=lambda v: int(v.stem.split("-")[1][3:])):
            latest[v.stem.split("-")[-1]] = v
        self.answered.update(v.name for v in fresh)
        if not latest:
            self.stuck = "the host sent nothing new and the game is not over"
            return False
        for view in latest.values():
            name = view.stem.split("-")[-1]
            party, key, choices = self.controller[name]
            legal = self.legal(party, view, name)
            if not legal:
                self.stuck = self.stuck or f"{name} was sent {view.name} but has no legal move"
                return False
            seq = int(view.stem.split("-")[1][3:])
            command = pick(legal, choices, name, seq)
            code, out, err = party.run("move", str(view), "--as", name, command, "--out", str(self.inbox),
                                       "--key", str(key))
            if code != 0:
                self.stuck = f"{name} cannot answer {view.name}: {err.strip() or out.strip()}"
                return False
        if self.on_inbox is not None:
            self.on_inbox(self)
        self.read_inbox()
        return True

    def play(self, rounds: int | None = None) -> None:
        """``rounds`` round trips (all of them by default: to the end)."""
        for _ in range(rounds if rounds is not None else 5000):
            if not self.round_trip():
                return

    def finals_written(self) -> bool:
        return any(self.outbox.glob(f"{self.gid}-final-*.jsonl"))

    def finals(self) -> dict[str, Path]:
        """Each player's final view (the host writes them once the game is over)."""
        if not self.stuck:
            self.host.run("outbox", self.gid, str(self.outbox))
        return {p: self.outbox / f"{self.gid}-final-{p}.jsonl" for p in self.players}


# -- what a player makes of a file ----------------------------------------------


def outcome(path: Path) -> tuple[Any, ...] | None:
    """What matters in a final view: the game's result folded from it (scores,
    winners), or None if it does not fold to a finished game."""
    from replay.sources import fold_log, read_path

    try:
        game, _, states = fold_log(read_path(path))
    except Exception:  # noqa: BLE001 - a file that cannot be folded shows no result
        return None
    if not states or game.to_act(states[-1]):
        return None
    result = game.result(states[-1])
    return None if result is None else (tuple(result.scores), tuple(result.winners))


@dataclass
class Received:
    """What the honest players finally received, and what ``verify`` said of it."""

    finals: dict[str, Path]
    mounted: bool = True
    """False when the attack found nothing to do in this game (it changed nothing)."""
    note: str = ""
    verdicts: dict[str, tuple[int, str]] = field(default_factory=dict)


def verify_all(mail: Mail, received: Received) -> None:
    for name, path in received.finals.items():
        if not path.exists():
            received.verdicts[name] = (-1, f"{name} received no final view ({mail.stuck or 'the game did not end'})")
            continue
        code, out, err = mail.players[name].run("verify", str(path))
        received.verdicts[name] = (code, (out + err).strip())


def honest_start(case: Case, rounds: int | None = None) -> Mail:
    """``case`` joined and played honestly for ``rounds`` round trips (None: to the
    end, final views written), once per session; never change it (copy it:
    :meth:`Mail.start`)."""
    key = (case, rounds)
    if key not in _STARTS:
        import atexit
        import tempfile

        root = Path(tempfile.mkdtemp(prefix="citylog-red-team-"))
        atexit.register(shutil.rmtree, root, True)
        with deterministic(case.label):
            m = Mail(root / "game", case)
            m.join_all()
            m.play(rounds)
            if rounds is None:
                m.finals()
        _STARTS[key] = m
    return _STARTS[key]


def honest_outcomes(root: Path, case: Case) -> dict[str, tuple[Any, ...] | None]:
    """Each player's result when ``case`` is played honestly to the end."""
    mail = honest_start(case)
    out = {p: outcome(f) for p, f in mail.finals().items()}
    assert not mail.stuck and all(v is not None for v in out.values()), f"the honest game: {mail.stuck} {out}"
    return out


def judge(root: Path, case: Case, received: Received, mail: Mail) -> str:
    """The law; returns how it held ("detected: …" or "harmless"), raises if broken."""
    verify_all(mail, received)
    caught = []
    for name, (code, text) in received.verdicts.items():
        if code == 1:
            assert len(text.splitlines()) == 1, f"{name}'s verify gave more than one line: {text}"
            caught.append(f"{name}: {text}")
    if caught:
        return "detected: " + caught[0]
    unproven = {n: t for n, (c, t) in received.verdicts.items() if c != 0 or "deal proven" not in t}
    assert not unproven, (
        f"a final view neither failed verify (exit 1) nor proved its deal: {unproven} [{received.note}]"
    )
    honest = honest_outcomes(root / "honest", case)
    seen = {name: outcome(path) if path.exists() else None for name, path in received.finals.items()}
    wrong = {n: (seen[n], honest[n]) for n in received.finals if seen[n] != honest[n]}
    assert not wrong, (
        f"undetected: every honest player's verify passed ({received.verdicts}) but the result changed "
        f"(seen, honest) {wrong} [{received.note}]"
    )
    return "harmless"


# -- the host's tools --------------------------------------------------------


def host_key(mail: Mail) -> Any:
    from events.signing import load_private_pem

    return load_private_pem(mail.host.key().read_bytes(), "host.key")


def read_log(path: Path) -> Any:
    from replay.sources import read_path

    return read_path(path)


def rechain(log: Any, start: int = 0) -> Any:
    """Recompute prev_hash/hash of every line from ``start`` on, from each line's
    digest (a redacted line's, or its payload's with its own nonce)."""
    from events.envelope import chain_hash, genesis_hash

    prev = genesis_hash(log.header.definition) if start == 0 else log.lines[start - 1].hash
    for i in range(start, len(log.lines)):
        line = log.lines[i]
        h = chain_hash(prev, line.seq, line.type, log.digest_of(line))
        log.lines[i] = msgspec.structs.replace(line, prev_hash=prev, hash=h)
        prev = h
    return log


def reseal_write(mail: Mail, log: Any, path: Path) -> None:
    """Seal ``log`` with the host's key (as an honest export would) and write it."""
    from events.signing import sign
    from replay import logfile
    from replay.trust import seal

    key = host_key(mail)
    log.header = seal(log, lambda body: sign(key, "export", body))
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)


@contextlib.contextmanager
def trusting() -> Iterator[None]:
    """The host's own citylog with every proof check answering yes: signature checks
    (``verify_signature``, wherever it was imported to) and any ``proves_*`` check
    (an invitation's seat secret, say) of citylog's own modules."""
    import sys

    from events import signing

    real = signing.verify_signature
    yes = lambda *a, **k: True
    with contextlib.ExitStack() as stack:
        for name, module in list(sys.modules.items()):
            if module is None or name.split(".")[0] not in ("events", "replay", "cli", "core"):
                continue
            for attr in list(vars(module)):
                value = getattr(module, attr, None)
                if value is real or (attr.startswith("proves_") and callable(value)):
                    stack.enter_context(mock.patch.object(module, attr, yes))
        yield


def force_move(mail: Mail, player: str, commands: list[str], stored: bytes) -> list[int]:
    """The host plays ``commands`` for ``player`` at the current position without any
    signed file, then records ``stored`` as the signed file behind the line(s).
    The seqs the commands opened."""
    from events.service import GameService
    from events.statements import MoveFile
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        loaded = svc.load(mail.gid)
        body = dict(json.loads(stored))
        body.update(seq=loaded.version, hash=loaded.head_hash, commands=list(commands),
                    signature="00" * 64, player=player, game_id=mail.gid)
        if "command" in body:  # a citylog-move/1 field
            body["command"] = ""
        mv = msgspec.convert(body, MoveFile)
        with trusting():
            written = svc.submit_move(mv)
    game = loaded.game
    opened = [r.seq for r, e in zip(written, _decode(game, written), strict=True)
              if (c := game.command_of(e)) is not None and c[0] >= 0]
    for seq in opened:
        mail.sql("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", stored, mail.gid, seq)
    return opened


def _decode(game: Any, records: list[Any]) -> list[Any]:
    from events.codec import decoder_for

    dec = decoder_for(game.event_type)
    return [dec.decode(r.payload) for r in records]


def force_join(mail: Mail, original: bytes) -> None:
    """The host records a join file in its game although it was made for another
    definition, and keeps the original (signed) bytes on the line."""
    from events.service import GameService
    from events.statements import JoinFile
    from events.sqlite_store import SqliteStore

    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        body = dict(json.loads(original))
        body["genesis"] = svc.store.get_game(mail.gid).genesis
        jf = msgspec.convert(body, JoinFile)
        with trusting():
            written = svc.join(jf)
    mail.sql("UPDATE signed SET statement = ? WHERE game_id = ? AND seq = ?", original, mail.gid, written[0].seq)


def delete_game(mail: Mail, gid: str | None = None) -> None:
    gid = gid or mail.gid
    for table in ("signed", "events", "notes", "tags"):
        mail.sql(f"DELETE FROM {table} WHERE game_id = ?", gid)
    mail.sql("DELETE FROM games WHERE id = ?", gid)


def resign(body: dict[str, Any], key_path: Path, domain: str) -> dict[str, Any]:
    """A statement signed again (by whoever holds ``key_path``) after an edit."""
    from events.signing import load_private_pem, public_hex, sign

    key = load_private_pem(key_path.read_bytes(), key_path.name)
    out = dict(body)
    out.pop("signature", None)
    out["public_key"] = public_hex(key)
    out["signature"] = sign(key, domain, out)
    return out


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(json.dumps(data))
    return path


def unsalted_nonce(seed: str, seq: int) -> bytes:
    """What a line nonce was before issue 22: a function of the seed and seq alone."""
    return hmac.digest(b"citylog-line-v1:" + seed.encode(), str(seq).encode(), "sha256")[:16]


# -- the cheating host's catalogue --------------------------------------------------

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
    record = _record(mail)
    delete_game(mail)
    svc = GameService(SqliteStore(mail.host.db))
    with contextlib.closing(svc.store):
        svc.create(record.definition.game, list(record.players), seed="host-chosen-after-the-joins",
                   options=dict(record.definition.options), game_id=mail.gid, host_key=record.host_key)
    for raw in originals:
        force_join(mail, raw)
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


def _final_edit(edit: Callable[[Mail, Any, int], Any | None], doc: str) -> Attack:
    """An attack on what the host sends at the end: ``edit(mail, log, at)`` returns a
    changed log (re-sealed by the host) or None (nothing to change in this one)."""

    def attack(mail: Mail, at: int) -> Received:
        mail.start()
        finals = mail.finals()
        mounted = False
        for path in finals.values():
            if not path.exists():
                continue
            changed = edit(mail, read_log(path), at)
            if changed is not None:
                reseal_write(mail, changed, path)
                mounted = True
        return Received(finals, mounted=mounted)

    attack.__doc__ = doc
    return attack


def _json_bumped(value: Any, k: int) -> tuple[Any, bool]:
    """``value`` with its k-th integer (depth first) changed, and whether it had one."""
    seen = [0]

    def walk(v: Any) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(v, int):
            seen[0] += 1
            return v + 7 if seen[0] == k + 1 else v
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            return {key: walk(x) for key, x in v.items()}
        return v

    out = walk(value)
    return out, seen[0] > k


def _rewrite_visible_line(mail: Mail, log: Any, at: int) -> Any | None:
    """A visible line marked redacted, its digest computed from its own nonce, any
    payload put in: the first change (from the end) that changes the result."""
    before = _outcome_of(mail, log)
    for i in range(len(log.lines) - 1, 0, -1):
        line = log.lines[i]
        if line.redacted or line.nonce is None:
            continue
        payload = json.loads(bytes(line.payload))
        for k in range(40):
            bumped, ok = _json_bumped(payload, k)
            if not ok:
                break
            forged = msgspec.structs.replace(
                line, payload=msgspec.Raw(json.dumps(bumped).encode()), redacted=True,
                digest=log.digest_of(line), nonce=None, signed=None)
            trial = type(log)(log.header, [*log.lines[:i], forged, *log.lines[i + 1:]])
            after = _outcome_of(mail, trial)
            if after is not None and after != before:
                return trial
    return None


def _outcome_of(mail: Mail, log: Any) -> tuple[Any, ...] | None:
    from replay import logfile

    path = mail.root / "trial.jsonl"
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)
    return outcome(path)


view_rewrite = _final_edit(_rewrite_visible_line, """[issue 22] A sealed final view rewritten: a visible line
marked redacted, its digest computed from its own nonce, a payload that changes the result put in.""")


def _truncate(mail: Mail, log: Any, at: int) -> Any | None:
    cut = 1 + at % max(1, len(log.lines) // 3)
    if len(log.lines) <= cut + 1:
        return None
    log.lines = log.lines[:-cut]
    return log


truncate_reseal = _final_edit(_truncate, "The host cuts the last lines off a final view and seals it again.")


def _swap_signed(mail: Mail, log: Any, at: int) -> Any | None:
    moves = [i for i, x in enumerate(log.lines) if x.signed and str(x.signed.get("format", "")).startswith("citylog-move")]
    for a in moves:
        for b in moves:
            if log.lines[a].signed["player"] != log.lines[b].signed["player"]:
                x, y = log.lines[a], log.lines[b]
                log.lines[a] = msgspec.structs.replace(x, signed=y.signed)
                log.lines[b] = msgspec.structs.replace(y, signed=x.signed)
                return log
    return None


swap_signed = _final_edit(_swap_signed, "The host swaps two players' signed move files between their lines.")


def _old_seal(mail: Mail, path: Path, at: int) -> bool:
    """Cut ``path`` back to the length of an earlier export of the same player and put
    that export's seal on it (game id, seq, head and view then match the seal); the
    header keeps the final one's reveal.  Not sealed again.  False: no earlier export."""
    from replay import logfile

    log = read_log(path)
    earlier = sorted(mail.outbox.glob(f"{mail.gid}-seq*-{log.header.view}.jsonl"))
    if not earlier:
        return False
    before = read_log(earlier[at % len(earlier)])
    log.lines = log.lines[: len(before.lines)]
    log.header = msgspec.structs.replace(log.header, seal=before.header.seal)
    with path.open("w", encoding="utf-8") as out:
        logfile.write(log, out)
    return True


def old_seal(mail: Mail, at: int) -> Received:
    """The host replays the seal of an earlier export of a player on her final view cut
    back to that export's length (the seal's game id, seq, head and view all match)."""
    mail.start()
    finals = mail.finals()
    mounted = [_old_seal(mail, path, at) for path in finals.values() if path.exists()]
    return Received(finals, mounted=any(mounted))


def _extra_redacted(mail: Mail, log: Any, at: int) -> Any | None:
    last = log.lines[-1]
    extra = msgspec.structs.replace(last, seq=last.seq + 1, redacted=True,
                                    digest=hashlib.sha256(f"extra-{at}".encode()).hexdigest(), nonce=None, signed=None)
    log.lines.append(extra)
    return rechain(log, len(log.lines) - 1)


extra_redacted_line = _final_edit(_extra_redacted, "The host appends a redacted line to a final view, chains and seals it.")


def _drop_chance(mail: Mail, log: Any, at: int) -> Any | None:
    from core.engine import CHANCE
    from replay.verify import decode_events

    decoded = decode_events(log)
    if not isinstance(decoded, tuple):
        return None
    game, events = decoded
    chances = [i for i, e in enumerate(events) if (c := game.command_of(e)) is not None and c[0] == CHANCE]
    if not chances:
        return None
    i = chances[at % len(chances)]
    lines = log.lines[:i] + [msgspec.structs.replace(x, seq=x.seq - 1) for x in log.lines[i + 1:]]
    log.lines = lines
    return rechain(log, i)


drop_chance_line = _final_edit(_drop_chance, "The host drops a chance event from a final view, renumbers, "
                                             "chains and seals it.")


HOST_ATTACKS: dict[str, Attack] = {
    "redeal": redeal,
    "reseeds": reseeds,
    "old_move_upper": old_move_upper,
    "view_rewrite": view_rewrite,
    "old_move_verbatim": old_move_verbatim,
    "bots_row": bots_row,
    "status_row": status_row,
    "lineage_row": lineage_row,
    "fork_chosen_seed": fork_chosen_seed,
    "truncate_reseal": truncate_reseal,
    "swap_signed": swap_signed,
    "old_seal": old_seal,
    "extra_redacted_line": extra_redacted_line,
    "drop_chance_line": drop_chance_line,
}


# -- cheating players ----------------------------------------------------------


@dataclass
class Cheat:
    """One file a cheating player sent, and what the host's ``inbox`` made of it."""

    name: str
    code: int
    unchanged: bool
    refused: bool
    text: str


def send(mail: Mail, path: Path, along: bool = False) -> Cheat:
    """The host reads an inbox holding only this file (so its effect is its own);
    ``along``: with the honest files now in the inbox (seats that act at the same
    time are applied together).  Files the host holds go back to the inbox."""
    folder = mail.root / f"cheat-{len(list(mail.root.glob('cheat-*')))}"
    folder.mkdir()
    moved = folder / path.name
    shutil.move(str(path), moved)
    others = [p for p in mail.inbox.glob("*.json") if p.is_file()] if along else []
    for other in others:
        shutil.move(str(other), folder / other.name)
    before = mail.dump()
    code, out, err = mail.host.run("inbox", str(folder))
    after = mail.dump()
    for left in folder.glob("*.json"):
        shutil.move(str(left), mail.inbox / left.name)  # held: the host reads them again later
    refused = (folder / "refused" / path.name).exists()
    if not refused and not (folder / "applied" / path.name).exists():
        code = -1  # held, not decided
    return Cheat(path.name, code, before == after, refused, (out + err).strip())


@dataclass
class PlayerReceived(Received):
    cheats: list[Cheat] = field(default_factory=list)
    cheater: str = ""


def judge_player(root: Path, case: Case, received: PlayerReceived, mail: Mail) -> str:
    """A cheating player's file is refused (exit 2, the store as it was), or it was
    accepted and the game is as if played honestly: every honest player's final
    view verifies, proves the deal and folds to the honest result."""
    for c in received.cheats:
        assert c.code != -1, f"{c.name} was held and never decided: {c.text}"
        if c.code != 0 or c.refused:
            assert c.code == 2 and c.refused and c.unchanged, (
                f"{c.name}: refused with exit {c.code}, store unchanged={c.unchanged}, "
                f"moved to refused/={c.refused}: {c.text}")
    received.finals = mail.finals()  # the cheater's own final view too: a framed host fails there
    verify_all(mail, received)
    full = mail.root / "host-full.jsonl"
    code, out, err = mail.host.run("export", mail.gid, "-o", str(full), "--force")
    code, out, err = (code, out, err) if code else mail.host.run("verify", str(full))
    received.verdicts["host's full export"] = (code, (out + err).strip())
    bad = {n: t for n, (code, t) in received.verdicts.items() if code != 0 or "deal proven" not in t}
    accepted = [c.name for c in received.cheats if c.code == 0]
    assert not bad, f"the host accepted {accepted} from {received.cheater}; then honest players' verify: {bad}"
    if not accepted:
        return "refused"  # and the game went on as honest play: every final view proves its deal
    honest = honest_outcomes(root / "honest", case)
    seen = {name: outcome(path) for name, path in received.finals.items()}
    wrong = {n: (seen[n], honest[n]) for n in received.finals if seen[n] != honest[n]}
    assert not wrong, (f"the host accepted {accepted} from {received.cheater} and every check passed, "
                       f"but the result changed (seen, honest): {wrong} [{received.note}]")
    return "harmless"


PlayerAttack = Callable[[Mail, int], PlayerReceived]


def _honest_finals(mail: Mail, cheater: str) -> dict[str, Path]:
    return {p: f for p, f in mail.finals().items() if p != cheater}


def seat_hijack(mail: Mail, at: int) -> PlayerReceived:
    """[issue 22] The last player answers his own invitation, then sends a second join
    for the first seat, signed with a second key of his, before its player's join
    arrives; if it is taken, he plays that seat too (choosing otherwise than she would)."""
    names = list(mail.players)
    victim, cheater = names[0], names[-1]
    mallory = mail.players[cheater]
    mallory.ok("key", "new", f"{cheater}-second")
    second = mallory.key(f"{cheater}-second")
    mail.invite()
    own = json.loads(mail.join_file(cheater).read_bytes())
    forged = resign({**own, "player": victim}, second, "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{victim}.json", forged))
    for p in names:
        shutil.copy(mail.join_file(p), mail.inbox)
    mail.read_inbox()
    if cheat.code == 0:
        mail.controller[victim] = (mallory, second, mail.case.choices + 1)
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def huge_entropy(mail: Mail, at: int) -> PlayerReceived:
    """[issue 22] A player joins with 0.6 MB of entropy (every later view would be
    over the line limit: one player bricks the game)."""
    cheater = list(mail.players)[-1]
    mail.invite()
    own = json.loads(mail.join_file(cheater).read_bytes())
    forged = resign({**own, "entropy": "ab" * 300_000}, mail.players[cheater].key(), "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{cheater}.json", forged))
    for p in mail.players:
        if cheat.code != 0 or p != cheater:
            shutil.copy(mail.join_file(p), mail.inbox)
    mail.read_inbox()
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def _respelled(kind: str) -> PlayerAttack:
    """A player's move file, re-spelled (and re-signed where the body changed)."""

    def edit(d: dict[str, Any], key: Path) -> dict[str, Any]:
        if kind == "command_lower":
            return resign({**d, "commands": [c.lower() for c in d["commands"]]}, key, "move")
        if kind == "command_spaces":
            return resign({**d, "commands": ["  " + c.replace(" ", "   ") + " " for c in d["commands"]]}, key, "move")
        if kind == "signature_upper":
            return {**d, "signature": d["signature"].upper()}
        if kind == "key_upper":
            return {**d, "public_key": d["public_key"].upper()}
        if kind == "hash_upper":
            return resign({**d, "hash": d["hash"].upper()}, key, "move")
        if kind == "unknown_field":
            return {**d, "note": "not covered by the signature"}
        if kind == "player_spaced":
            return resign({**d, "player": d["player"] + " "}, key, "move")
        raise ValueError(kind)

    def attack(mail: Mail, at: int) -> PlayerReceived:
        cheater = list(mail.players)[-1]
        cheats: list[Cheat] = []

        def hook(m: Mail) -> None:
            if cheats:
                return
            mine = sorted(m.inbox.glob(f"{m.gid}-seq*-{cheater}-move.json"))
            if not mine:
                return
            original = mine[0].read_bytes()
            d = json.loads(original)
            changed = edit(d, m.players[cheater].key())
            if changed["commands"] == d["commands"] and kind.startswith("command"):
                return  # this command is spelled the same either way: wait for another
            path = write_json(mine[0], changed)
            cheats.append(send(m, path, along=True))
            if cheats[0].code != 0:  # refused: he sends the file citylog made after all
                (m.inbox / mine[0].name).unlink(missing_ok=True)
                mine[0].write_bytes(original)

        mail.start(at)
        mail.on_inbox = hook
        mail.play()
        return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)

    attack.__doc__ = f"[issue 22] A player sends his move re-spelled ({kind}): refused, or every later export verifies."
    return attack


def replay_other_join(mail: Mail, at: int) -> PlayerReceived:
    """A player sends another seat's join file again (copied from the mail)."""
    mail.start(at)
    names = list(mail.players)
    cheat = send(mail, Path(shutil.copy(mail.join_file(names[0]), mail.root / f"{mail.gid}-join-again.json")))
    mail.play()
    return PlayerReceived(_honest_finals(mail, names[-1]), cheats=[cheat], cheater=names[-1])


def second_key_own_seat(mail: Mail, at: int) -> PlayerReceived:
    """A player who joined sends a second join for his own seat with another key."""
    mail.start(at)
    cheater = list(mail.players)[-1]
    party = mail.players[cheater]
    party.ok("key", "new", f"{cheater}-other")
    own = json.loads(mail.join_file(cheater).read_bytes())
    forged = resign(own, party.key(f"{cheater}-other"), "join")
    cheat = send(mail, write_json(mail.root / f"{mail.gid}-join-{cheater}-other.json", forged))
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), cheats=[cheat], cheater=cheater)


def resend_old_move(mail: Mail, at: int) -> PlayerReceived:
    """A player sends one of his applied moves again, its signature re-spelled in upper case."""
    mail.start(max(at, 1))
    cheater = list(mail.players)[-1]
    cheats = []
    for old in mail.applied(f"-{cheater}-move")[:1]:
        d = json.loads(old.read_bytes())
        d["signature"] = d["signature"].upper()
        cheats.append(send(mail, write_json(mail.root / f"again-{old.name}", d)))
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)


def move_for_other_seat(mail: Mail, at: int) -> PlayerReceived:
    """A player signs, with his own key, a move for the seat to act that is not his
    (its player's own file, taken from the mail, re-signed)."""
    names = list(mail.players)
    cheater = names[-1]
    cheats: list[Cheat] = []

    def hook(m: Mail) -> None:
        if cheats:
            return
        theirs = [p for p in sorted(m.inbox.glob(f"{m.gid}-seq*-move.json")) if p.stem.split("-")[-2] != cheater]
        if theirs:
            d = json.loads(theirs[0].read_bytes())
            forged = resign(d, m.players[cheater].key(), "move")
            cheats.append(send(m, write_json(m.root / f"forged-{theirs[0].name}", forged), along=True))

    mail.start(at)
    mail.on_inbox = hook
    mail.play()
    return PlayerReceived(_honest_finals(mail, cheater), mounted=bool(cheats), cheats=cheats, cheater=cheater)


PLAYER_ATTACKS: dict[str, PlayerAttack] = {
    "seat_hijack": seat_hijack,
    "huge_entropy": huge_entropy,
    **{f"respelled_{k}": _respelled(k) for k in (
        "command_lower", "command_spaces", "signature_upper", "key_upper", "hash_upper", "unknown_field",
        "player_spaced")},
    "replay_other_join": replay_other_join,
    "second_key_own_seat": second_key_own_seat,
    "resend_old_move": resend_old_move,
    "move_for_other_seat": move_for_other_seat,
}
