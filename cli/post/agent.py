"""``citylog mail sync``: one pass of the agent, for the host and for a player.

The pass (:meth:`Agent.sync`): receive each new mail once, apply the host's
inbox, queue the player's moves, queue what the host owes each seat, send what
waits, then say whose turn it is.  :class:`Agent` joins the two sides:

* :mod:`cli.post.host_side`   — the host's: attachments saved into
  ``<datadir>/mail/inbox`` and applied by :mod:`cli.inbox` (signatures and
  positions checked, nothing applied twice), a refusal back to its sender as a
  reply naming the reason, for each seat what it needs now (an invitation, its
  view when it must act, every final view at the end), then who must answer next;
* :mod:`cli.post.player_side` — the player's: each received view stored in
  ``<datadir>/mail/views`` (sealed by the game's host key, the first one seen for
  that game), an invitation answered with a join (when this data directory holds
  the invited player's key), and the move files ``citylog play GAME --as PLAYER``
  (or ``move``) queued in ``<datadir>/mail/outgoing`` sent;
* :mod:`cli.post.agent_base`  — what both share: the pass's state, its mail, its refusals.

The crash-safe order is :mod:`cli.post.ledger`'s; :func:`cli.post.agent_base.step`
names each point between two steps (tests make it fail there).
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from cli.context import state
from cli.post import agent_base, letters
from cli.post.agent_base import Summary, _statement
from cli.post.host_side import HostSide
from cli.post.ledger import Ledger
from cli.post.player_side import PlayerSide
from core.words import plural
from events.service import ServiceError
from events.statements import Invite, StatementError
from events.store import EnvironmentFailure


def home_of(ctx: typer.Context) -> Path:
    """The data directory: the folder of the SQLite database (of ``keys``)."""
    from cli.post.config import home_of as home

    return home(state(ctx).db)


class Agent(PlayerSide, HostSide):
    """One pass of the mail agent: what arrived is read (each mail once), applied by
    the host's side or answered by the player's, then what waits is sent."""

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
                agent_base.step("replay-marked")
                self.inbound.done(key)
                self.summary.ignored += 1
                self._say(f"ignored {p.message_id}: handled before (a mail is read once)")
                continue
            with self.ledger.transaction():
                outcome, why = self._handle(p)
                self.ledger.mark_handled(p.message_id, digest, p.sender, outcome, why)
                self.ledger.mark_key(key)
                agent_base.step("handled-recorded")
            agent_base.step("before-done")
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
                    agent_base.step("mail-sent")
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
