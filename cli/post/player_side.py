"""The player's side of a mail pass (:class:`PlayerSide`).

Each received view is stored in ``<datadir>/mail/views`` (sealed by the game's
host key, the first one seen for that game), a view asking for a reveal is
answered with one, an invitation with a join (when this data directory holds the
invited player's key), and the move files ``citylog play GAME --as PLAYER`` (or
``move``) queued in ``<datadir>/mail/outgoing`` are queued for the host.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import stat
from pathlib import Path
from typing import Any

from cli.context import keys_folder, state
from cli.output import safe_name
from cli.post import agent_base, letters
from cli.post.agent_base import AgentBase, _statement
from cli.post.ledger import OUTGOING, View
from events import statements
from events.service import ServiceError
from events.statements import HandOver, Invite, MoveFile, StatementError

VIEWS = "mail/views"


class PlayerSide(AgentBase):
    """A player's answers to what her host sends, and the moves she sends it."""

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

    # a received view
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
        from cli.answered import view_genesis

        view_genesis(log)  # its lines chain from its header's genesis, which _genesis_of reads [CL-S17]
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

    def _answer_invite(self, sender: str, message_id: str, inv: Invite, data: bytes, replace: bool = False) -> None:
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
        from cli.joined import record_join

        # [CL-S18] one game under one id, whichever tool joined it (the record before the join leaves)
        record_join(keys_folder(state(self.ctx).db), inv.game_id, inv.player, public, genesis, replace)
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
            # her choice of host key is her choice of game: a join sent to a forged
            # invitation's game under the id is replaced [CL-S10, CL-S18]
            self._answer_invite(sender, message_id, st, data, replace=True)
            self.ledger.drop_held(game_id, key)
        return f"game {game_id}: host key {key[:12]}… trusted; the invitation it sent is answered (the join goes out on the next sync)"

    # moves queued by play/move
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
            agent_base.step("move-queued")
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
        genesis = self._genesis_of(mv)
        with held(folder):  # a `move` writes its file, then its record line, holding this lock
            return refused_to_send(folder, mv, queued, genesis)

    def _genesis_of(self, mv: MoveFile) -> str | None:
        """The genesis of the chain ``mv`` lands on, as a view received here for its
        player says: one whose line at the move's seq has the hash the move signs (that
        line's chain is the game it lands in, whatever view is newest: a genuine view
        of another game under the id does not hide this one's record).  None if no view
        here holds that line (or none can be read): then every record of a move under
        the id counts [CL-S17]."""
        from cli.answered import view_genesis
        from replay import logfile

        for v in reversed(self.ledger.views(mv.game_id)):
            if v.player != mv.player:
                continue
            try:
                with open(v.path, encoding="utf-8") as handle:
                    log = logfile.read(handle, v.path.name)
                if any(line.seq == mv.seq and line.hash == mv.hash for line in log.lines):
                    return view_genesis(log)
            except (OSError, ValueError, ServiceError):
                continue
        return None

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
