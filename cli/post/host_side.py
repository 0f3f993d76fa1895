"""The host's side of a mail pass (:class:`HostSide`).

Attachments are saved into ``<datadir>/mail/inbox`` and applied by
:mod:`cli.inbox` (signatures and positions checked, nothing applied twice); a
refusal goes back to its sender as a reply naming the reason; each seat is
queued what it needs now (an invitation, its view when it must act, every final
view at the end), reminders and timeouts by the game's deadline; and the pass
says who must answer next.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json as _json
import os
from typing import Any

import msgspec

from cli.output import safe_name
from cli.post import agent_base, letters
from cli.post.agent_base import AgentBase, _statement
from core.words import plural
from events import statements
from events.service import ServiceError
from events.statements import Invite, StatementError
from events.store import GameNotFound

INBOX = "mail/inbox"
MAX_LEGAL_LISTED = 60
MAX_SINCE_LISTED = 40


class HostSide(AgentBase):
    """A host's reading of what its players send, and the mail it owes them."""

    # attachments into the inbox folder
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
        agent_base.step("attachment-written")
        os.replace(tmp, inbox / final)

    # apply
    def apply_inbox(self) -> None:
        from cli.inbox import _folder_lock, _inbox, _prepare

        inbox = self.home / INBOX
        if not inbox.is_dir():
            return
        for where in ("applied", "refused"):
            _prepare(inbox / where)
        if any(n.endswith(".json") and not n.startswith(".") for n in os.listdir(inbox)):
            buffer = io.StringIO()
            with _folder_lock(inbox), contextlib.redirect_stdout(buffer):
                _inbox(self.svc, inbox, True)
            agent_base.step("inbox-applied")
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

    # what each seat needs now
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
        from cli.inbox import held_players

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


REMIND_FRACTION = 0.25
"""A reminder goes out when a quarter of the deadline is left (at most a day before)."""


def deadline_hook(agent: HostSide, loaded: Any) -> list[str]:
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


def _shown(name: str) -> str:
    """An inbox file's name without the prefix that ties it to its mail.

    >>> _shown("m0128c1b95e81-0-67bc4a36-join-alice.json")
    '67bc4a36-join-alice.json'
    """
    head, _, rest = name.partition("-")
    index, _, tail = rest.partition("-")
    return tail if len(head) == 13 and head.startswith("m") and index.isdigit() and tail else name


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
