"""Real mail servers for the mail tests: one SMTP (aiosmtpd) and one IMAP (dovecot)
per session, on loopback (tests/helpers/mail_servers.py).  Locally, when they cannot
start, the tests that need them skip with the reason; under CI=true they fail."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.helpers import mail_servers
from cli.post.network import DONE_FOLDER
from tests.helpers.mail_servers import MailServers, NoMailServer, no_mail_server


@pytest.fixture(scope="session")
def mail() -> Iterator[MailServers]:
    """Started once a session (about 0.7 s; stopping dovecot takes about 1 s more):
    users host, alice, bob, carol and dave, each with a Maildir, an SMTP login and an IMAP login."""
    try:
        with mail_servers.mail_servers(("host", "alice", "bob", "carol", "dave")) as servers:
            sys.stderr.write(f"\nmail servers started in {servers.start_seconds['total']:.2f} s "
                             f"({', '.join(f'{k} {v:.2f}' for k, v in servers.start_seconds.items() if k != 'total')})\n")
            yield servers
    except NoMailServer as exc:
        no_mail_server(str(exc))


@pytest.fixture
def ms(mail: MailServers) -> Iterator[MailServers]:
    """The session's servers with every user's Maildir emptied (INBOX and citylog-done)."""
    for name in mail.users:
        for folder in (mail.maildir(name), mail.maildir(name) / f".{DONE_FOLDER}"):
            for sub in ("new", "cur"):
                d = folder / sub
                if d.is_dir():
                    for f in d.iterdir():
                        f.unlink()
    yield mail
