"""Play by real email (issue 24): mail as the transport, and the agent that routes it.

* :mod:`cli.post.config`     — ``<datadir>/mail.toml``, written by ``citylog mail setup``;
* :mod:`cli.post.transport`  — the ``Inbound``/``Outbound`` protocols and their factory;
* :mod:`cli.post.local`      — Maildir, mbox, ``sendmail`` and ``.eml`` folders (no server);
* :mod:`cli.post.network`    — IMAP over TLS, SMTP with STARTTLS/SMTPS;
* :mod:`cli.post.credentials`— a password from the environment, ``~/.netrc`` or a command;
* :mod:`cli.post.letters`    — composing and (safely) parsing citylog's mail;
* :mod:`cli.post.ledger`     — ``<datadir>/mail.sqlite``: what was handled, sent, received;
* :mod:`cli.post.agent`      — ``citylog mail sync``: the pass, joining the two sides below;
* :mod:`cli.post.agent_base` — what both sides share: the pass's state, its mail, its refusals,
  and ``step`` (the points the crash tests kill at);
* :mod:`cli.post.host_side`  — the host's side: the inbox folder applied, refusals, what each
  seat needs now, reminders and deadlines;
* :mod:`cli.post.player_side`— the player's side: views stored, invitations and reveals
  answered, her queued moves sent (once per position).

Authentication is the signature, never the mail: From, DKIM and every header are
routing only; what a mail carries reaches the game only through the signed-file
checks of the host's inbox, ``cli/inbox.py``.
"""
