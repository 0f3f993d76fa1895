"""``citylog mail sync``: one pass of the agent, for the host and for a player.

Host (every play-by-email game of this data directory's store that has an
address book, ``mail invite``): apply what arrived (attachments saved into
``<datadir>/mail/inbox`` and read by ``cli.mail._inbox``: signatures and
positions checked, nothing applied twice), queue for each seat what it needs now
(an invitation, its view when it must act, every final view at the end), a
refusal back to its sender as a reply naming the reason, then say who must
answer next.

Player: store each received view in ``<datadir>/mail/views`` (sealed by the
game's host key, the first one seen for that game), answer an invitation with a
join (when this data directory holds the invited player's key), say whose turn
it is, and send the move files ``citylog play GAME --as PLAYER`` (or ``move``)
queued in ``<datadir>/mail/outgoing``.

The crash-safe order is :mod:`cli.post.ledger`'s; :func:`step` names each point
between two steps (tests make it fail there).
"""

from __future__ import annotations

from core.words import plural

import contextlib
import hashlib
import io
import json as _json
import os
import sqlite3
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import typer

from cli.context import keys_folder, state
from cli.output import safe_name, say
from cli.post import letters
from cli.post.config import MailConfig
from cli.post.ledger import OUTGOING, Ledger, View
from cli.post.transport import Inbound, Outbound
from events import statements
from events.service import GameService, ServiceError
from events.statements import HandOver, Invite, MoveFile, StatementError
from events.store import EnvironmentFailure, GameNotFound

INBOX = "mail/inbox"
VIEWS = "mail/views"
MAX_LEGAL_LISTED = 60
MAX_SINCE_LISTED = 40


KILL_AT = "CITYLOG_MAIL_KILL_AT"
"""Fault injection for the crash tests: a pass reaching the step this environment
variable names kills its own process there (SIGKILL: no clean-up at all)."""


def step(name: str) -> None:
    """A point between two steps of a sync (a crash there must lose nothing)."""
    if os.environ.get(KILL_AT) == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def home_of(ctx: typer.Context) -> Path:
    """The data directory: the folder of the SQLite database (of ``keys``)."""
    from cli.post.config import home_of as home

    return home(state(ctx).db)


@dataclass
class Summary:
    received: int = 0
    applied: int = 0
    refused: int = 0
    ignored: int = 0
    sent: int = 0
    unsent: int = 0
    send_error: str = ""
    waiting: dict[str, list[str]] = field(default_factory=dict)
    """Host: for each game, who must answer next."""
    turns: list[tuple[str, str, int]] = field(default_factory=list)
    """Player: (game, player, seq) of each view that waits for a move here."""
    lines: list[str] = field(default_factory=list)
    """What the pass said, line by line."""


class Agent:
    def __init__(self, ctx: typer.Context, svc: GameService, cfg: MailConfig, ledger: Ledger,
                 inbound: Inbound, outbound: Outbound, now: float | None = None) -> None:
        self.ctx, self.svc, self.cfg, self.ledger = ctx, svc, cfg, ledger
        self.inbound, self.outbound = inbound, outbound
        self.now = time.time() if now is None else now
        self.home = cfg.home
        self.summary = Summary()
        self.json = False
        """Under --json nothing is printed: what happened is in :attr:`Summary.lines`."""

    def _say(self, text: str) -> None:
        self.summary.lines.append(text)
        if not self.json:
            say(text)

    # ---------------------------------------------------------------- helpers
    def _folder(self, rel: str) -> Path:
        path = self.home / rel
        path.mkdir(parents=True, exist_ok=True)
        return path

    def _queue(self, mid: str, raw: bytes, to: list[str], game: str, kind: str, seat: str, seq: int) -> bool:
        return self.ledger.queue(mid, to, raw, game, kind, seat, seq)

    def _mail(self, *, game: str, seq: int, seat: str, kind: str, to: str, subject: str, body: str,
              attachments: Sequence[letters.Attachment] = (), in_reply_to: str | None = None,
              extra: str = "") -> tuple[str, bytes]:
        from datetime import datetime, timezone

        return letters.compose(game=game, seq=seq, seat=seat, kind=kind, sender=self.cfg.sender(), to=[to],
                               subject_line=subject, body=body, attachments=list(attachments),
                               in_reply_to=in_reply_to, extra=extra,
                               when=datetime.fromtimestamp(self.now, timezone.utc))

    def _refuse(self, p: letters.Parsed, why: str, game: str = "") -> None:
        """Queue a reply to ``p``'s sender naming ``why`` (never to an automatic mail)."""
        self.summary.refused += 1
        self._say(f"refused {p.message_id} from {p.sender or 'no address'}: {why}")
        if not p.sender or p.auto or not p.citylog:
            return
        game = game or p.headers.get("game", "") or "unknown"
        extra = hashlib.sha256((p.message_id + why).encode()).hexdigest()[:12]
        body = (f"citylog refused your mail {p.message_id}:\n\n  {why}\n\n"
                "Nothing of it was applied.  Only signed citylog files count; "
                "send the move again with 'citylog play GAME --as PLAYER'.\n")
        mid, raw = self._mail(game=game, seq=_int(p.headers.get("seq")), seat="refusal", kind="refusal",
                              to=p.sender, subject=letters.subject(game, _int(p.headers.get("seq")), "refusal", "",
                                                                    why=why),
                              body=body, in_reply_to=p.message_id, extra=extra)
        self._queue(mid, raw, [p.sender], game, "refusal", p.sender, _int(p.headers.get("seq")))

    # ---------------------------------------------------------------- the pass
    def sync(self) -> Summary:
        self.receive()
        self.apply_inbox()
        self.queue_moves()
        self.queue_host_mail()
        self.flush()
        self.tell()
        return self.summary

    def receive(self) -> None:
        own = self.ledger.queued_ids()
        for key, raw in self.inbound.fetch():
            if self.ledger.key_done(key):
                self.inbound.done(key)
                continue
            p = letters.parse(raw)
            digest = hashlib.sha256(raw).hexdigest()
            self.summary.received += 1
            if self.ledger.handled(p.message_id, digest) or p.message_id in own:
                with self.ledger.transaction():
                    self.ledger.mark_key(key)
                step("replay-marked")
                self.inbound.done(key)
                self.summary.ignored += 1
                self._say(f"ignored {p.message_id}: handled before (a mail is read once)")
                continue
            with self.ledger.transaction():
                outcome, why = self._handle(p)
                self.ledger.mark_handled(p.message_id, digest, p.sender, outcome, why)
                self.ledger.mark_key(key)
                step("handled-recorded")
            step("before-done")
            self.inbound.done(key)

    def _handle(self, p: letters.Parsed) -> tuple[str, str]:
        """What to do with one new message (inside the ledger transaction that records it handled)."""
        if p.headers.get("kind") in ("refusal", "reminder") and not p.files:
            what = "refused a mail" if p.headers["kind"] == "refusal" else "sent a reminder"
            self._say(f"the host {what} of game {p.headers.get('game', '?')}: {p.subject}")
            self.summary.ignored += 1
            if p.headers["kind"] == "refusal":
                self._refused_here(p)
            return "notice", p.subject
        if p.refused:
            self._refuse(p, p.reason())
            return "refused", p.reason()
        saved = 0
        problems = list(p.ignored)
        for index, (name, data) in enumerate(p.files):
            try:
                if name.lower().endswith(".jsonl"):
                    self._store_view(p, name, data)
                else:
                    st = _statement(data, name)
                    if isinstance(st, Invite):
                        self._answer_invite(p.sender, p.message_id, st, data)
                    else:
                        self._save_for_inbox(p, index, name, data)
                saved += 1
            except (EnvironmentFailure, OSError, sqlite3.Error):
                raise  # the machine failed, not the mail: nothing recorded, the next pass tries again
            except (ServiceError, StatementError, ValueError) as exc:
                problems.append(f"{name}: {exc}")
            except Exception as exc:  # noqa: BLE001 - no attachment can stop the agent (or every later pass)
                problems.append(f"{name}: cannot be read ({type(exc).__name__})")
        if problems:
            self._refuse(p, "; ".join(problems))
        return ("accepted" if saved else "refused"), "; ".join(problems)

    def _refused_here(self, p: letters.Parsed) -> None:
        """A refusal answering a move of ours, from the game's host address: recorded, so
        that her agent says so beside 'sent; waiting for the host' (``tell``) — and no
        more [CL-S17].  A refusal is not signed (anyone can send one naming her move's
        Message-ID, and the host can say it refused a move it keeps): were it to give
        her turn back, the move she made next would be a second signed decision at
        one position, and a cheating host would apply whichever of the two it liked."""
        queued = self.ledger.answer(p.in_reply_to) if p.in_reply_to else None
        host = self.ledger.host(queued.game) if queued is not None else None
        if queued is None or host is None or letters.bare(host[0]).lower() != p.sender.lower():
            return
        self.ledger.mark_refused(queued.message_id, p.subject)
        self._say(f"{queued.seat}: the host says it refused your {queued.kind} at seq {queued.seq} "
                  f"of game {queued.game} (unsigned: it may not be so) [CL-S17]")

    # host: attachments into the inbox folder
    def _save_for_inbox(self, p: letters.Parsed, index: int, name: str, data: bytes) -> None:
        inbox = self._folder(INBOX)
        # [CL-S8] named by what it carries as well as by its Message-ID: a crash's rewrite
        # finds the same name, but a forged letter sent first under a guessed Message-ID
        # (citylog's are deterministic) leaves a file of another name, never the real one's
        carried = hashlib.sha256(data).hexdigest()[:16]
        stem = "m" + hashlib.sha256(p.message_id.encode()).hexdigest()[:12] + f"-{carried}-{index}-"
        final = safe_name(stem + name)
        if not final.endswith(".json"):
            final += ".json"
        self.ledger.add_file(final, p.message_id, p.sender)
        if any(os.path.lexists(inbox / sub / final) for sub in ("", "applied", "refused")):
            return  # written by a run that stopped before recording the message: the same file
        tmp = inbox / f".{final}.tmp"
        tmp.write_bytes(data)
        step("attachment-written")
        os.replace(tmp, inbox / final)

    # player: a received view
    def _store_view(self, p: letters.Parsed, name: str, data: bytes) -> None:
        from replay import logfile
        from replay.sources import fold_log
        from replay.trust import check_seal

        log = logfile.read(io.StringIO(data.decode("utf-8")), name)
        game_id = log.header.game_id or ""
        player = log.header.view
        host_key = log.header.definition.host_key or ""
        if not game_id or player is None or not host_key:
            raise ServiceError("not a player's view of a play-by-email game")
        if player not in log.header.definition.players:
            raise ServiceError(f"the view's player {player!r} is not one of the game's players")
        if not (keys_folder(state(self.ctx).db) / f"{player}.key").is_file():
            raise ServiceError(f"a view for {player}, whose key this data directory does not hold")
        problem = check_seal(log)
        if problem:
            raise ServiceError(problem)
        known = self.ledger.host(game_id)
        if known is not None and known[1] != host_key:
            raise ServiceError(f"sealed by another host key than game {game_id}'s ({host_key[:12]}…)")
        game, events, states = fold_log(log, name)
        seat = log.header.definition.players.index(player)
        seq = log.lines[-1].seq if log.lines else 0
        over = not game.to_act(states[-1]) if states else False
        to_act = bool(states) and seat in game.to_act(states[-1])
        kind = "final" if over else "view"
        tag = "final" if over else f"seq{seq}"
        path = self._folder(VIEWS) / safe_name(f"{game_id}-{tag}-{player}.jsonl")
        if not path.exists():
            tmp = path.with_name("." + path.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        self.ledger.set_host(game_id, p.sender, host_key)
        self.ledger.add_view(View(game_id, player, seq, kind, path, p.message_id, to_act))
        self._say(f"received {player}'s view of game {game_id} at seq {seq}" + (" (game over)" if over else ""))
        self._reveal_if_asked(p, log, player, events)

    def _reveal_if_asked(self, p: letters.Parsed, log: Any, player: str, events: list[Any]) -> None:
        """[CL-S7] A view after the last join of a game of committed entropy asks its
        player to reveal: her entropy and salt derive from her key and the genesis,
        so the agent makes the signed reveal and sends it to the host at once."""
        from cli.keys import key_for
        from cli.reveals import record_reveal
        from core.seats import last_join_seq, must_reveal
        from events.envelope import genesis_hash
        from events.signing import public_hex

        d = log.header.definition
        seat = d.players.index(player)
        if seat not in must_reveal(events, len(d.players), d.entropy):
            return
        game_id = log.header.game_id or ""
        at = last_join_seq(events)
        mid = letters.message_id(game_id, at, player, "reveal")
        if self.ledger.was_queued(mid):
            return  # revealed already (the view came twice)
        private = key_for(self.ctx, player, None)
        # [CL-S12] one position per commitment: asked at another, the agent refuses (the host is told why)
        record_reveal(keys_folder(state(self.ctx).db), game_id, genesis_hash(d), public_hex(private), at,
                      log.lines[at - 1].hash)
        rv = statements.signed_reveal(private, game_id, genesis_hash(d), player, at, log.lines[at - 1].hash)
        mid, raw = self._mail(
            game=game_id, seq=at, seat=player, kind="reveal", to=p.sender,
            subject=letters.subject(game_id, at, "reveal", player),
            body=f"{player} reveals the entropy committed at the join of game {game_id}\n",
            attachments=[letters.Attachment(safe_name(f"{game_id}-seq{at}-{player}-reveal.json"),
                                            statements.encode(rv))],
            in_reply_to=p.message_id)
        self._queue(mid, raw, [p.sender], game_id, "reveal", player, at)
        self._say(f"{player} reveals the committed entropy of game {game_id} (a signed reveal goes to {p.sender})")

    def _answer_invite(self, sender: str, message_id: str, inv: Invite, data: bytes) -> None:
        """Join the game of an invitation, once; one from another host key than the
        game's pinned one is held, never answered, until the player chooses it with
        ``citylog mail accept GAME --host-key HEX`` [CL-S10]."""
        from cli.keys import key_for
        from events.envelope import genesis_hash
        from events.signing import KEY_HEX, public_hex, same_hex
        from events.statements import signed_committed_join

        if not inv.signed():
            raise ServiceError("the invitation is not signed by the host key it names")
        from cli.reveals import refuse_clear_entropy

        refuse_clear_entropy(inv.definition, f"the invitation to game {inv.game_id}")  # [CL-S15]
        if not (keys_folder(state(self.ctx).db) / f"{inv.player}.key").is_file():
            raise ServiceError(f"an invitation for {inv.player}, whose key this data directory does not hold "
                               f"(citylog key new {inv.player})")
        private = key_for(self.ctx, inv.player, None)
        public = public_hex(private)
        if inv.player_key and not same_hex(inv.player_key, public, KEY_HEX):
            raise ServiceError(f"the invitation is for the key {inv.player_key[:12]}…, not {inv.player}'s here")
        known = self.ledger.host(inv.game_id)
        host_key = inv.definition.host_key or ""
        if known is not None and known[1] != host_key:
            # [CL-S10] no letter anyone can send decides which host a player trusts: the
            # first invitation of a game pinned its key, but a forged one may have come
            # first, so this one is kept for the player to choose, never dropped
            self.ledger.hold_invitation(inv.game_id, host_key, sender, message_id, data)
            self._say(f"game {inv.game_id}: an invitation from host key {host_key}, not the key {known[1][:12]}… "
                      f"this data directory trusts for it; if it is your host's: "
                      f"citylog mail accept {inv.game_id} --host-key {host_key}")
            raise ServiceError(f"an invitation to game {inv.game_id} from another host key than the one "
                               f"{inv.player} trusts for it; held for 'citylog mail accept' [CL-S10]")
        # one join per (game, host key): a join once sent to a forged invitation's
        # host does not count as this one's answer [CL-S10]
        mid = letters.message_id(inv.game_id, 0, inv.player, "join", host_key[:16])
        if self.ledger.was_queued(mid):
            return  # answered already (the invitation came twice, under another Message-ID)
        genesis = genesis_hash(inv.definition)
        # a commitment only; revealed later [CL-S7] (no clear join: CL-S15)
        jf = signed_committed_join(private, inv.game_id, genesis, inv.player, inv.seat_secret)
        data = statements.encode(jf)
        mid, raw = self._mail(
            game=inv.game_id, seq=0, seat=inv.player, kind="join", to=sender, extra=host_key[:16],
            subject=letters.subject(inv.game_id, 0, "join", inv.player),
            body=f"{inv.player} joins game {inv.game_id} with key {public[:12]}…\n",
            attachments=[letters.Attachment(safe_name(f"{inv.game_id}-join-{inv.player}.json"), data)],
            in_reply_to=message_id)
        self.ledger.set_host(inv.game_id, sender, host_key)
        self._queue(mid, raw, [sender], inv.game_id, "join", inv.player, 0)
        # [CL-S8] the host key is shown: the first invitation of a game pins it, so compare it
        self._say(f"{inv.player} accepts the invitation to game {inv.game_id} (a signed join goes to {sender}; "
                  f"host key {host_key}: compare it with the one your host gave you)")

    def accept(self, game_id: str, host_key: str) -> str:
        """The player's choice of the host key of ``game_id`` [CL-S10]: pinned (replacing
        the one the first invitation pinned), and the invitation held from that key, if
        one came, answered.  What was done, in words."""
        from events.signing import is_public_hex

        key = host_key.strip().lower()
        if not is_public_hex(key):
            raise ServiceError(f"--host-key {host_key!r} is not a public key (64 hex digits) [CL-S10]")
        known = self.ledger.host(game_id)
        held = self.ledger.held_invitation(game_id, key)
        with self.ledger.transaction():
            self.ledger.pin_host(game_id, held[0] if held else (known[0] if known and known[1] == key else ""), key)
            if held is None:
                return (f"game {game_id}: host key {key[:12]}… trusted; its invitation is answered when it comes"
                        if known is None or known[1] != key else f"game {game_id}: host key {key[:12]}… was trusted already")
            sender, message_id, data = held
            st = _statement(data, f"{game_id}-invitation.json")
            if not isinstance(st, Invite):
                raise ServiceError("the held letter is not an invitation")
            self._answer_invite(sender, message_id, st, data)
            self.ledger.drop_held(game_id, key)
        return f"game {game_id}: host key {key[:12]}… trusted; the invitation it sent is answered (the join goes out on the next sync)"

    # host: apply
    def apply_inbox(self) -> None:
        from cli.mail import _folder_lock, _inbox, _prepare

        inbox = self.home / INBOX
        if not inbox.is_dir():
            return
        for where in ("applied", "refused"):
            _prepare(inbox / where)
        if any(n.endswith(".json") and not n.startswith(".") for n in os.listdir(inbox)):
            buffer = io.StringIO()
            with _folder_lock(inbox), contextlib.redirect_stdout(buffer):
                _inbox(self.svc, inbox, True)
            step("inbox-applied")
            for line in buffer.getvalue().splitlines():
                try:
                    told = _json.loads(line)
                except ValueError:
                    continue
                self._told(told.get("file", ""), told.get("outcome", ""), told.get("why", ""))
        refused = inbox / "refused"
        if refused.is_dir():  # a refusal a stopped run did not answer
            for name in sorted(os.listdir(refused)):
                self._told(name, "refused", "refused by the host's inbox (run 'citylog verify' on your view)")

    def _told(self, name: str, outcome: str, why: str) -> None:
        found = self.ledger.file(name)
        if outcome == "applied":
            self.summary.applied += 1
            self._say(f"applied {_shown(name)}: {why}")
            with self.ledger.transaction():
                self.ledger.answered(name)
            return
        if outcome == "held":
            self._say(f"held {_shown(name)}: {why}")
            return
        if found is None or found[2]:
            return
        mid, sender, _ = found
        p = letters.Parsed(mid, sender, citylog=True, headers=self._routing(name))
        with self.ledger.transaction():
            self._refuse(p, f"{outcome}: {why}")
            self.ledger.answered(name)

    def _routing(self, name: str) -> dict[str, str]:
        """The game, seq and seat a refused inbox file names (for its refusal's headers
        and subject; nothing in it is trusted), none if it cannot be read."""
        try:
            st = _statement((self.home / INBOX / "refused" / name).read_bytes(), name)
        except (OSError, ServiceError, StatementError, ValueError):
            return {}
        seq, seat = getattr(st, "seq", None), getattr(st, "player", None)
        return {"game": st.game_id, **({"seq": str(seq)} if isinstance(seq, int) else {}),
                **({"seat": seat} if isinstance(seat, str) else {})}

    # player: moves queued by play/move
    def queue_moves(self) -> None:
        out = self.home / OUTGOING
        if not out.is_dir():
            return
        for path in sorted(out.glob("*.json")):
            data = path.read_bytes()
            try:
                mv = _statement(data, path.name)
            except (StatementError, ValueError) as exc:
                self._say(f"{path}: not sent ({exc})")
                continue
            if not isinstance(mv, (MoveFile, HandOver)):
                self._say(f"{path}: not a move or hand-over file; not sent")
                continue
            kind = "move" if isinstance(mv, MoveFile) else "handover"
            host = self.ledger.host(mv.game_id)
            if host is None:
                self._say(f"{path}: no host address for game {mv.game_id} yet; kept")
                continue
            extra = hashlib.sha256(data).hexdigest()[:10]
            what = "; ".join(mv.commands) if isinstance(mv, MoveFile) else \
                ("hands the seat to the bot" if mv.bot else "takes the seat back")
            mid, raw = self._mail(
                game=mv.game_id, seq=mv.seq, seat=mv.player, kind=kind, to=host[0],
                subject=letters.subject(mv.game_id, mv.seq, kind, mv.player),
                body=f"{mv.player}: {what} (against seq {mv.seq})\n",
                attachments=[letters.Attachment(path.name, data)],
                in_reply_to=letters.message_id(mv.game_id, mv.seq, mv.player, "view"), extra=extra)
            why = None
            try:
                with self.ledger.transaction():
                    why = self._second_move(mv) if isinstance(mv, MoveFile) else None
                    if why is None:
                        self._queue(mid, raw, [host[0]], mv.game_id, kind, mv.player, mv.seq)
            except ServiceError as exc:  # the record of her moves cannot be read: nothing is sent
                self._say(f"{path}: not sent ({exc})")
                continue
            if why is not None:
                self._say(f"{path.name}: {why}")
                _keep(out, path, data, "refused")
                continue
            step("move-queued")
            _keep(out, path, data, "sent")

    def _second_move(self, mv: MoveFile) -> str | None:
        """[CL-S17] The backstop for a move file made by other means (another tool, a
        hand-made file, one made before the record): why it must not be sent — another
        move at its position was queued here or signed by her tools — or None.  Called
        inside the ledger transaction that queues it, so two passes never both pass, and
        holding the record's lock, so a replacement being made is read with its record."""
        from cli.answered import held, refused_to_send

        queued = []
        for raw in self.ledger.moves_at(mv.game_id, mv.player, mv.seq):
            for name, data in letters.parse(raw).files:
                with contextlib.suppress(StatementError, ServiceError, ValueError):
                    st = _statement(data, name)
                    if isinstance(st, MoveFile):
                        queued.append(st)
        folder = keys_folder(state(self.ctx).db)
        with held(folder):  # a `move` writes its file, then its record line, holding this lock
            return refused_to_send(folder, mv, queued)

    # host: what each seat needs now
    def queue_host_mail(self) -> None:
        for game_id in self.ledger.booked_games():
            try:
                loaded = self.svc.load(game_id)
            except GameNotFound:
                continue
            if not loaded.record.pbem:
                continue
            book = self.ledger.book(game_id)
            timed_out = deadline_hook(self, loaded)
            if timed_out:
                loaded = self.svc.load(game_id)  # the timeouts moved the game on
            with self.ledger.transaction():
                self.summary.waiting[game_id] = self._needs(loaded, book)
                actors = loaded.game.to_act(loaded.state)
                for player in timed_out:  # her agent learns the decision is no longer hers
                    seat = loaded.players.index(player)
                    if actors and seat not in actors and player in book:
                        self._view(loaded, seat, book[player], final=False)

    def _needs(self, loaded: Any, book: dict[str, str]) -> list[str]:
        waiting = self.svc.waiting_to_join(loaded)
        if waiting:
            for player in waiting:
                if player in book:
                    self._invite(loaded, player, book[player])
            return [f"{p} (to join)" for p in waiting]
        revealing = self.svc.waiting_to_reveal(loaded)
        if revealing:  # [CL-S7] the view after the last join asks each of them for a reveal
            for player in revealing:
                if player in book:
                    self._view(loaded, loaded.players.index(player), book[player], final=False)
            return [f"{p} (to reveal)" for p in revealing]
        actors = loaded.game.to_act(loaded.state)
        seats = [a for a in actors if a >= 0] if actors else list(range(len(loaded.players)))
        for seat in seats:
            player = loaded.players[seat]
            if player not in book:
                continue
            if actors and self._still_current(loaded, seat):
                continue
            self._view(loaded, seat, book[player], final=not actors)
        return [loaded.players[s] for s in seats] if actors else []

    def _still_current(self, loaded: Any, seat: int) -> bool:
        then = self.ledger.last_sent(loaded.record.id, loaded.players[seat], "view")
        if then is None or not 0 < then <= loaded.version:
            return False
        if then == loaded.version:
            return True
        key = loaded.game.decision_key(loaded.state, seat)
        return key is not None and key == loaded.game.decision_key(loaded.game.fold(loaded.events[:then]), seat)

    def _invite(self, loaded: Any, player: str, address: str) -> None:
        from cli.keys import key_with_public
        from events.signing import sign
        from events.statements import INVITE_FORMAT, seat_secret

        rec = loaded.record
        mid = letters.message_id(rec.id, 0, player, "invite")
        if self.ledger.was_queued(mid):
            return
        if rec.seed is None:
            raise ServiceError(f"game {rec.id} has no seed; it cannot invite")
        private = key_with_public(self.ctx, rec.host_key, None)
        seat = loaded.players.index(player)
        inv = Invite(INVITE_FORMAT, rec.id, player, rec.definition, "", seat_secret(rec.seed, rec.salt, rec.genesis,
                                                                                     seat, ""), "")
        inv = msgspec.structs.replace(inv, signature=sign(private, "invite", statements.body(inv)))
        body = (f"{player}: you are invited to game {rec.id} ({', '.join(loaded.players)}).\n\n"
                "citylog's mail agent answers it by itself ('citylog mail sync' in your data directory, "
                f"which holds your key '{player}'); by hand: citylog join FILE --as {player}.\n"
                "The attachment holds your seat's one-time secret: do not forward it.\n")
        _, raw = self._mail(game=rec.id, seq=0, seat=player, kind="invite", to=address,
                            subject=letters.subject(rec.id, 0, "invite", player), body=body,
                            attachments=[letters.Attachment(safe_name(f"{rec.id}-invite-{player}.json"),
                                                            statements.encode(inv))])
        self._queue(mid, raw, [address], rec.id, "invite", player, 0)

    def _view(self, loaded: Any, seat: int, address: str, final: bool) -> None:
        from cli.mail import export_bytes

        rec = loaded.record
        player = loaded.players[seat]
        kind = "final" if final else "view"
        mid = letters.message_id(rec.id, loaded.version, player, kind)
        if self.ledger.was_queued(mid):
            return
        data, _ = export_bytes(self.ctx, self.svc, rec.id, player, None)
        actors = loaded.game.to_act(loaded.state)
        to_move = [loaded.players[a] for a in actors if a >= 0]
        tag = "final" if final else f"seq{loaded.version}"
        attachments = [letters.Attachment(safe_name(f"{rec.id}-{tag}-{player}.jsonl"), data, "application/jsonl")]
        if self.cfg.html:
            from replay import logfile
            from replay.html import page

            html = page(logfile.read(io.StringIO(data.decode()), rec.id)).encode()
            attachments.append(letters.Attachment(safe_name(f"{rec.id}-{tag}-{player}.html"), html, "text/html"))
        _, raw = self._mail(
            game=rec.id, seq=loaded.version, seat=player, kind=kind, to=address,
            subject=letters.subject(rec.id, loaded.version, kind, player, to_move),
            body=view_text(data, player, rec.id), attachments=attachments)
        self._queue(mid, raw, [address], rec.id, kind, player, loaded.version)

    def held_players(self, game_id: str) -> set[str]:
        """Players whose move for ``game_id`` waits in the inbox (held for a seat acting at
        the same time), counting only files the host would apply now [CL-S9]."""
        from cli.mail import held_players

        inbox = self.home / INBOX
        return held_players(inbox, game_id, self.svc) if inbox.is_dir() else set()

    def remind(self, game_id: str, player: str, seq: int, left: int, address: str) -> None:
        """Queue one reminder for ``player``'s decision at ``seq`` (once: its Message-ID)."""
        mid = letters.message_id(game_id, seq, player, "reminder")
        if self.ledger.was_queued(mid):
            return
        when = f"about {plural(round(left / 3600), 'hour')}" if left >= 5400 else f"about {plural(max(1, round(left / 60)), 'minute')}"
        _, raw = self._mail(game=game_id, seq=seq, seat=player, kind="reminder", to=address,
                            subject=letters.subject(game_id, seq, "reminder", player),
                            body=f"{player}: game {game_id} waits for your move at seq {seq}; its deadline passes "
                                 f"in {when}, then the game's timeout policy plays for you.\n"
                                 f"citylog play {game_id} --as {player}\n",
                            in_reply_to=letters.message_id(game_id, seq, player, "view"))
        self._queue(mid, raw, [address], game_id, "reminder", player, seq)
        self._say(f"game {game_id}: reminded {player} (seq {seq}, {when} left)")

    # send
    def flush(self) -> None:
        """Send what waits, each mail inside the ledger transaction that records it as
        sent: the write lock is taken before the mail leaves, so a ledger that cannot
        record a send (locked, full, read-only) sends nothing, and a watching agent
        never sends the same mail again pass after pass (the red team's resend loop)."""
        for q in self.ledger.unsent():
            left = False
            try:
                with self.ledger.transaction():
                    self.outbound.send(q.raw, q.recipients, self.cfg.address)
                    left = True
                    step("mail-sent")
                    self.ledger.mark_sent(q.message_id)
            except (EnvironmentFailure, ServiceError) as exc:
                if left:  # sent, but the record of it failed (a full disk at COMMIT): the
                    raise  # pass fails, so a watching agent backs off before sending it again
                self.summary.send_error = str(exc)
                break
            self.summary.sent += 1
            self._say(f"sent {q.kind} of game {q.game} (seq {q.seq}) to {', '.join(q.recipients)}")
        self.summary.unsent = len(self.ledger.unsent())

    def tell(self) -> None:
        for game_id, who in self.summary.waiting.items():
            if who:
                self._say(f"game {game_id}: waiting for {', '.join(who)}")
            else:
                self._say(f"game {game_id}: game over (every seat is sent its final view)")
        moved = self.ledger.answered_moves()
        refused = self.ledger.refused_moves()
        for v in self.ledger.latest_views():
            if v.kind == "final":
                self._say(f"game {v.game} is over: citylog verify {v.path}")
            elif v.to_act and (v.game, v.player, v.seq) not in moved:
                self.summary.turns.append((v.game, v.player, v.seq))
                self._say(f"{v.player}: your turn in game {v.game} (seq {v.seq}): citylog play {v.game} --as {v.player}")
            elif v.to_act and (v.game, v.player, v.seq) in refused:
                # [CL-S17] an unsigned refusal never gives the turn back: a second move at
                # this position would let a cheating host apply either
                self._say(f"{v.player}: your move at seq {v.seq} of game {v.game} is sent; the host says it refused "
                          f"it ({refused[(v.game, v.player, v.seq)]}). A refusal is not signed: making another "
                          f"move at this position lets a dishonest host apply either of the two [CL-S17]; ask "
                          f"your host, or wait for the deadline")
            elif v.to_act:
                self._say(f"{v.player}: your move at seq {v.seq} of game {v.game} is sent; waiting for the host")
            else:
                self._say(f"{v.player}: not your turn in game {v.game} (your newest view: seq {v.seq})")
        if self.summary.unsent:
            self._say(f"{plural(self.summary.unsent, 'mail', 'mails')} {'waits' if self.summary.unsent == 1 else 'wait'} to be sent: {self.summary.send_error or 'not sent yet'}")


def _kept_name(folder: Path, name: str, data: bytes) -> Path:
    """Where a sent move file is kept in ``folder``: its own name, or — when a different
    file of that name is there already (a second move at one position) — the name with
    its hash, so that no signed file she sent is ever overwritten (her evidence,
    trust.md)."""
    path = folder / name
    try:
        st = path.lstat()
    except FileNotFoundError:
        return path
    if stat.S_ISREG(st.st_mode) and st.st_size == len(data) and path.read_bytes() == data:
        return path  # the same file again (anything but a regular file of these bytes is 'another')
    stem, dot, ext = name.rpartition(".")
    return folder / (f"{stem}-{hashlib.sha256(data).hexdigest()[:12]}{dot}{ext}" if dot else f"{name}-{hashlib.sha256(data).hexdigest()[:12]}")


def _keep(out: Path, path: Path, data: bytes, where: str) -> None:
    """Keep the move file ``data`` read from ``path`` in ``out/where`` (``sent``, or
    ``refused``: never sent [CL-S17]), then take ``path`` out of the queue.  What is
    kept is the bytes that were read (and queued), never the file as it is now: a file
    rewritten since it was read is left in the queue for the next pass, not kept as
    sent unsent."""
    folder = out / where
    folder.mkdir(exist_ok=True)
    kept = _kept_name(folder, path.name, data)
    if not kept.exists():
        tmp = folder / f".{kept.name}.tmp"
        tmp.write_bytes(data)
        os.replace(tmp, kept)
    taking = out / f".{path.name}.taking"
    try:
        os.replace(path, taking)  # whatever is there now, taken out of the queue at once
    except FileNotFoundError:
        return
    st = taking.lstat()
    if stat.S_ISREG(st.st_mode) and st.st_size == len(data) and taking.read_bytes() == data:
        taking.unlink()
        return
    back, n = path, 0  # rewritten since it was read: back in the queue, for the next pass
    while os.path.lexists(back):  # (and written once more since: both stay)
        n += 1
        back = out / f"{path.stem}-{n}{path.suffix}"
    os.replace(taking, back)


REMIND_FRACTION = 0.25
"""A reminder goes out when a quarter of the deadline is left (at most a day before)."""


def deadline_hook(agent: Agent, loaded: Any) -> list[str]:
    """Reminders and timeouts (issue 24 item 3), by ``events.deadlines`` (its
    ``reminders`` and ``apply_due``) where that module is in this build; a game
    without a deadline has none.  Until then: nothing (HOOK: deadlines).  The players timed out."""
    try:
        from events import deadlines  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        return []
    rec = loaded.record
    length = float(getattr(rec, "deadline", 0) or 0)
    if not length:
        return []
    answered = agent.held_players(rec.id)
    book = agent.ledger.book(rec.id)
    before = min(length * REMIND_FRACTION, 86400.0)
    with agent.ledger.transaction():
        for r in deadlines.reminders(agent.svc, rec.id, agent.now, before, answered):
            if r.player in book:
                agent.remind(rec.id, r.player, r.seq, int(r.left), book[r.player])
    from cli.keys import key_with_public
    from events.signing import sign

    private = key_with_public(agent.ctx, rec.host_key, None)
    timed = [d.player for d in deadlines.due(agent.svc, rec.id, agent.now, answered)]
    written = deadlines.apply_due(agent.svc, rec.id, agent.now, lambda body: sign(private, "timeout", body), answered)
    if written:
        agent._say(f"game {rec.id}: a deadline passed; seqs {written[0].seq}–{written[-1].seq} record the timeout")
    return timed if written else []


def _statement(data: bytes, name: str) -> statements.Statement:
    from cli.inputs import check_statement
    from cli.mail import MAX_STATEMENT

    if len(data) > MAX_STATEMENT:
        raise ServiceError(f"longer than {MAX_STATEMENT >> 20} MiB")
    st = statements.decode(data, name)
    check_statement(st, name)
    return st


def _shown(name: str) -> str:
    """An inbox file's name without the prefix that ties it to its mail.

    >>> _shown("m0128c1b95e81-0-67bc4a36-join-alice.json")
    '67bc4a36-join-alice.json'
    """
    head, _, rest = name.partition("-")
    index, _, tail = rest.partition("-")
    return tail if len(head) == 13 and head.startswith("m") and index.isdigit() and tail else name


def _int(text: str | None) -> int:
    try:
        return max(0, min(int(text or 0), 1 << 31))
    except ValueError:
        return 0


def _to_reveal(log: Any, events: list[Any]) -> list[int]:
    from core.seats import must_reveal

    d = log.header.definition
    return must_reveal(events, len(d.players), d.entropy)


def view_text(data: bytes, player: str, game_id: str) -> str:
    """A view mail's body: the position as text, what happened since the seat
    last moved, and its legal commands."""
    from cli.arguments import legal_commands
    from core.markup import plain
    from replay import logfile
    from replay.sources import fold_log

    log = logfile.read(io.StringIO(data.decode()), game_id)
    game, events, states = fold_log(log, game_id)
    players = log.header.definition.players
    seat = players.index(player)
    state_now = game.view(states[-1], seat) if states else None
    seq = log.lines[-1].seq if log.lines else 0
    out = [f"Game {game_id}, seq {seq}: {player}'s view.", ""]
    if state_now is not None:
        out += [plain(game.render(state_now, seat)), ""]
    last = 0
    for line in log.lines:
        if line.signed and line.signed.get("player") == player and line.signed.get("format", "").startswith("citylog-move"):
            last = line.seq
    since = [(line, e) for line, e in zip(log.lines, events, strict=True) if line.seq > last]
    out.append("What happened since your last move:" if last else "What happened so far:")
    shown = since[-MAX_SINCE_LISTED:]
    if len(since) > len(shown):
        out.append(f"  … {len(since) - len(shown)} earlier events ('citylog log FILE')")
    out += [f"  {line.seq:>4}  {game.describe(e, players)}" for line, e in shown]
    out.append("")
    legal = legal_commands(game, state_now, seat) if state_now is not None else []
    if legal:
        out.append(f"Your legal commands ({len(legal)}):")
        out += [f"  {c}" for c in legal[:MAX_LEGAL_LISTED]]
        if len(legal) > MAX_LEGAL_LISTED:
            out.append(f"  … {len(legal) - MAX_LEGAL_LISTED} more: citylog legal FILE --as {player}")
        out += ["", f"Answer: citylog play {game_id} --as {player}   (then 'citylog mail sync' sends it)"]
    elif seat in _to_reveal(log, events):
        out.append("Every seat has joined: reveal the entropy your join committed to (your mail agent "
                   f"sends it; by hand: citylog reveal FILE --as {player}). No chance is dealt before [CL-S7].")
    elif states and not game.to_act(states[-1]):
        out.append("The game is over: 'citylog verify FILE' proves the deal.")
    else:
        out.append("Nothing for you to do in this view.")
    return "\n".join(out) + "\n"


@contextlib.contextmanager
def opened(ctx: typer.Context, now: float | None = None) -> Iterator[Agent]:
    from cli.context import service
    from cli.post import config
    from cli.post.transport import open_inbound, open_outbound

    home = home_of(ctx)
    cfg = config.load(home)
    with _sync_lock(home):
        ledger = Ledger(home)
        try:
            # an IMAP login and an SMTP session end with the pass (never left to the
            # garbage collector: the server counts the connections of a user)
            with contextlib.closing(_Closer(open_inbound(cfg))) as inbound, \
                    contextlib.closing(_Closer(open_outbound(cfg))) as outbound:
                yield Agent(ctx, service(ctx), cfg, ledger, inbound.transport, outbound.transport, now)
        finally:
            ledger.close()


class _Closer:
    """Close a transport that has ``close`` (IMAP, SMTP); the local kinds have nothing to close."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport

    def close(self) -> None:
        close = getattr(self.transport, "close", None)
        if close is not None:
            close()


SYNC_LOCK = ".citylog-mail.lock"
SYNC_WAIT = 60.0
"""Seconds a pass waits for another pass on the same data directory (then exit 4)."""


def _sync_lock(home: Path) -> contextlib.AbstractContextManager[None]:
    """One pass at a time per data directory (``<datadir>/.citylog-mail.lock``):
    a ``--watch`` agent and a ``mail sync`` by hand take turns."""
    from cli.locks import held

    home.mkdir(parents=True, exist_ok=True)
    return held(home / SYNC_LOCK, SYNC_WAIT, f"another 'citylog mail sync' has held {home}")
