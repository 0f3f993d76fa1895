"""The state and the helpers both sides of a mail pass share (:class:`AgentBase`).

The host's side is :mod:`cli.post.host_side`, the player's :mod:`cli.post.player_side`;
:mod:`cli.post.agent` joins them and runs the pass.  :func:`step` names each point
between two steps of a pass (the crash tests make it fail there): every caller
calls it as ``agent_base.step``, so that one patch of this module's attribute
reaches them all.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import typer

from cli.output import say
from cli.post import letters
from cli.post.config import MailConfig
from cli.post.ledger import Ledger
from cli.post.transport import Inbound, Outbound
from events import statements
from events.service import GameService, ServiceError

KILL_AT = "CITYLOG_MAIL_KILL_AT"
"""Fault injection for the crash tests: a pass reaching the step this environment
variable names kills its own process there (SIGKILL: no clean-up at all)."""


def step(name: str) -> None:
    """A point between two steps of a sync (a crash there must lose nothing)."""
    if os.environ.get(KILL_AT) == name:
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


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


class AgentBase:
    """What a pass holds, and the mail it writes, for either side."""

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


def _statement(data: bytes, name: str) -> statements.Statement:
    from cli.inputs import check_statement
    from cli.inbox import MAX_STATEMENT

    if len(data) > MAX_STATEMENT:
        raise ServiceError(f"longer than {MAX_STATEMENT >> 20} MiB")
    st = statements.decode(data, name)
    check_statement(st, name)
    return st


def _int(text: str | None) -> int:
    try:
        return max(0, min(int(text or 0), 1 << 31))
    except ValueError:
        return 0
