"""``citylog mail``: play by real email (issue 24) — ``setup``, ``sync``, ``status``, ``invite``.

The transport is configured once per data directory (``mail.toml`` beside the
database, :mod:`cli.post.config`); ``sync`` is one pass of the agent
(:mod:`cli.post.agent`), ``--watch`` repeats it.
"""

from __future__ import annotations

from core.words import plural

import sqlite3
import time
from typing import Annotated, Optional

import typer

from cli.errors import guarded
from cli.options import Json
from cli.output import emit_json, say
from events.service import ServiceError


def setup(
    ctx: typer.Context,
    address: Annotated[str, typer.Option(metavar="ADDR", help="Your email address (the From of what citylog sends)")],
    inbound: Annotated[str, typer.Option(metavar="SPEC", help="maildir:PATH, mbox:PATH or imap")],
    outbound: Annotated[str, typer.Option(metavar="SPEC", help="sendmail:COMMAND, eml:FOLDER or smtp")],
    name: Annotated[str, typer.Option(metavar="NAME", help="A display name")] = "",
    imap_host: Annotated[Optional[str], typer.Option(metavar="HOST", help="IMAP server (inbound imap)")] = None,
    imap_port: Annotated[int, typer.Option(metavar="N", help="IMAP port")] = 993,
    imap_user: Annotated[Optional[str], typer.Option(metavar="USER", help="IMAP user (default: ADDR)")] = None,
    imap_folder: Annotated[str, typer.Option(metavar="FOLDER", help="IMAP folder")] = "INBOX",
    imap_tls: Annotated[str, typer.Option(metavar="ssl|starttls", help="IMAP TLS")] = "ssl",
    smtp_host: Annotated[Optional[str], typer.Option(metavar="HOST", help="SMTP server (outbound smtp)")] = None,
    smtp_port: Annotated[int, typer.Option(metavar="N", help="SMTP port")] = 587,
    smtp_user: Annotated[Optional[str], typer.Option(metavar="USER", help="SMTP user (default: ADDR)")] = None,
    smtp_security: Annotated[str, typer.Option(metavar="starttls|ssl", help="SMTP TLS")] = "starttls",
    cafile: Annotated[Optional[str], typer.Option(metavar="FILE", help="A CA bundle for both servers")] = None,
    password_env: Annotated[Optional[str], typer.Option(metavar="VAR", help="The environment variable holding the password")] = None,
    password_command: Annotated[Optional[str], typer.Option(metavar="COMMAND", help="A command printing the password")] = None,
    html: Annotated[bool, typer.Option("--html", help="Host: attach each view's HTML replay page too")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing mail.toml")] = False,
    json: Json = False,
) -> None:
    """Configure mail for this data directory (mail.toml; never a password).

    \b
    Example:
      citylog mail setup --address alice@example.org --inbound maildir:~/Mail/citylog --outbound 'sendmail:msmtp'
      citylog mail setup --address alice@gmail.com --inbound imap --imap-host imap.gmail.com \\
          --outbound smtp --smtp-host smtp.gmail.com --password-env CITYLOG_MAIL_PASSWORD
    """
    from cli.post import config
    from cli.post.agent import home_of

    secret = {k: v for k, v in (("password_env", password_env), ("password_command", password_command)) if v}
    imap: dict[str, object] = {}
    smtp: dict[str, object] = {}
    if inbound == "imap":
        imap = {"host": imap_host or "", "port": imap_port, "user": imap_user or address, "folder": imap_folder,
                "tls": imap_tls, **({"cafile": cafile} if cafile else {}), **secret}
    if outbound == "smtp":
        smtp = {"host": smtp_host or "", "port": smtp_port, "user": smtp_user or address, "security": smtp_security,
                **({"cafile": cafile} if cafile else {}), **secret}
    cfg = config.MailConfig(address=address, inbound=inbound, outbound=outbound, name=name, html=html, imap=imap,
                            smtp=smtp, home=home_of(ctx))
    config.check(cfg, "mail setup")
    path = config.save(cfg, force)
    if json:
        emit_json({"file": str(path), "address": address, "inbound": inbound, "outbound": outbound})
    else:
        say(f"wrote {path}: mail as {address}, in from {inbound}, out by {outbound}")


def sync(
    ctx: typer.Context,
    watch: Annotated[bool, typer.Option("--watch", help="Run again every --interval seconds, until interrupted")] = False,
    interval: Annotated[float, typer.Option(metavar="SECONDS", help="With --watch: seconds between passes")] = 60.0,
    now: Annotated[Optional[float], typer.Option(metavar="SECONDS", help="The host's clock for deadlines (epoch seconds; default: now)")] = None,
    json: Json = False,
) -> None:
    """Fetch, apply, send: one pass of the mail agent (host and player).

    Host: applies the moves and joins that arrived, sends each seat what it
    needs now (its view when it must act, the final views, refusals naming the
    reason) and says who must answer.  Player: stores the views received, says
    whose turn it is, sends the moves made with 'citylog play GAME --as PLAYER'.

    \b
    Example:
      citylog mail sync
      citylog mail sync --watch --interval 30
    """
    from cli.post.agent import opened

    if not 0 < interval <= 86400:  # also refuses nan and inf
        raise ServiceError("--interval must be more than 0 seconds and at most a day (86400)")
    from events.store import EnvironmentFailure

    failed = 0
    while True:
        try:
            with opened(ctx, now) as agent:
                agent.json = json
                s = agent.sync()
        except (EnvironmentFailure, OSError, sqlite3.Error) as exc:
            # the machine, not the mail: nothing of the pass is recorded (the ledger's
            # transactions), so a watching agent tries again instead of stopping for good,
            # waiting twice as long after each failed pass in a row (at most 10 minutes)
            if not watch:
                raise
            wait = min(interval * 2 ** min(failed, 16), max(interval, 600.0))
            failed += 1
            say(f"this pass failed ({exc}); trying again in {wait:g} s")
            time.sleep(wait)
            continue
        failed = 0
        if json:
            emit_json({"received": s.received, "applied": s.applied, "refused": s.refused, "ignored": s.ignored,
                       "sent": s.sent, "unsent": s.unsent, "waiting": s.waiting,
                       "turns": [{"game_id": g, "player": p, "seq": q} for g, p, q in s.turns], "lines": s.lines})
        if not watch:
            if s.unsent:
                raise EnvironmentFailure(f"{plural(s.unsent, 'mail')} not sent: {s.send_error}")
            return
        time.sleep(interval)


def accept(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME", help="The game id the invitation names")],
    host_key: Annotated[str, typer.Option("--host-key", metavar="HEX", help="The host's public key, as your host gave it to you")],
) -> None:
    """Trust HEX as the host key of GAME, and answer the invitation it sent.

    The agent answers the first invitation of a game by itself; one signed by
    another key for the same game is held, not dropped (anyone can send an
    invitation naming a game id).  Give the key your host told you another way:
    it replaces the one trusted, and its held invitation is answered [CL-S10].
    Before any invitation came, this pins the key in advance.

    \b
    Example:
      citylog mail accept 2f6c1a0e --host-key 9bb19937318d…
    """
    from cli.post.agent import opened

    with opened(ctx) as agent:
        say(agent.accept(game_id, host_key))


def status(ctx: typer.Context, json: Json = False) -> None:
    """What the mail agent knows: views received, mails waiting, games hosted.

    \b
    Example:
      citylog mail status
    """
    from cli.post.agent import home_of
    from cli.post.ledger import Ledger

    home = home_of(ctx)
    ledger = Ledger(home)
    try:
        views = ledger.latest_views()
        unsent = ledger.unsent()
        games = {g: ledger.book(g) for g in ledger.booked_games()}
        answered = ledger.answered_moves()  # [CL-S17] a position she sent a move at is never 'your turn'
        if json:
            emit_json({"views": [{"game_id": v.game, "player": v.player, "seq": v.seq, "kind": v.kind,
                                  "file": str(v.path), "to_act": v.to_act,
                                  "answered": (v.game, v.player, v.seq) in answered} for v in views],
                       "unsent": len(unsent), "sent": ledger.sent_count(), "hosted": games,
                       "handled": ledger.outcomes()})
            return
        for g, book in games.items():
            say(f"hosting {g}: " + ", ".join(f"{p} <{a}>" for p, a in book.items()))
        for v in views:
            turn = v.to_act and v.kind == "view"
            note = ("  your move is sent" if (v.game, v.player, v.seq) in answered else "  your turn") if turn else ""
            say(f"{v.player} in {v.game}: {v.kind} at seq {v.seq} ({v.path}){note}")
        say(f"{ledger.sent_count()} sent, {len(unsent)} waiting to be sent")
    finally:
        ledger.close()


def invite(
    ctx: typer.Context,
    game_id: Annotated[str, typer.Argument(metavar="GAME")],
    to: Annotated[list[str], typer.Option("--to", metavar="PLAYER=ADDR", help="A player's address (repeat for each)")],
    json: Json = False,
) -> None:
    """Host: the players' addresses for a game; sends the invitations now.

    \b
    Example:
      citylog mail invite last --to alice=alice@example.org --to bob=bob@example.net
    """
    from cli.context import game_id as resolve_game
    from cli.context import service
    from cli.post.agent import opened

    game_id = resolve_game(ctx, game_id)
    loaded = service(ctx).load(game_id)
    if not loaded.record.pbem:
        raise ServiceError(f"game {game_id} is not a play-by-email game (create it with --pbem)")
    pairs: list[tuple[str, str]] = []
    for item in to:
        player, sep, address = item.partition("=")
        if not sep or player not in loaded.players:
            raise ServiceError(f"--to {item!r}: give PLAYER=ADDR for one of {', '.join(loaded.players)}")
        if "@" not in address or any(c in address for c in " <>,\r\n"):
            raise ServiceError(f"--to {item!r}: {address!r} is not an email address")
        pairs.append((player, address))
    with opened(ctx) as agent:
        agent.json = json
        with agent.ledger.transaction():
            for player, address in pairs:
                agent.ledger.set_address(game_id, player, address)
        agent.queue_host_mail()
        agent.flush()
        if json:
            emit_json({"game_id": game_id, "book": agent.ledger.book(game_id), "sent": agent.summary.sent})
        else:
            agent.tell()


def register(app: typer.Typer) -> None:
    group = typer.Typer(
        help="Play by real email: setup, sync, accept, status, invite.\n\n\b\nExample:\n"
        "  citylog mail setup --address alice@example.org --inbound maildir:Mail --outbound eml:outgoing\n"
        "  citylog mail sync",
        no_args_is_help=True,
    )
    group.command("setup")(guarded(setup))
    group.command("sync")(guarded(sync))
    group.command("accept")(guarded(accept))
    group.command("status")(guarded(status))
    group.command("invite")(guarded(invite))
    app.add_typer(group, name="mail")
