"""Helpers shared by the tests, imported as ``tests.helpers.NAME`` (no ``sys.path`` edits).

The two whole-game helpers are named for their game because they take their
arguments differently (names or a count of players); both are
``core.autoplay.play_game`` with random bots by default.

* :mod:`tests.helpers.five_by_five` — 5x5 City: ``play_5x5(seed, players, options,
  bots)``, boards from text;
* :mod:`tests.helpers.point_city` — Point City: ``play_point_city(seed, n, bots,
  options)``, hand-made tables;
* :mod:`tests.helpers.pbem` — a game by email between a host and players, each in a
  data directory of their own, through the CLI only (``Party``, ``PbemGame``,
  ``dump``): the base of ``tests/pbem/pbem_mail.py`` and of the red team
  (``tests/pbem/adversary/``);
* :mod:`tests.helpers.mail_parties` — play by real email without servers: parties with a
  Maildir and an ``.eml`` outbound folder, a postman between them, ``MailTable``;
* :mod:`tests.helpers.pg_server` — a throwaway PostgreSQL cluster (tests and benches);
* :mod:`tests.helpers.mail_servers` — real SMTP (aiosmtpd) and IMAP (dovecot) servers on
  loopback, delivering into test Maildirs (the mail tests, ``tests/post/``);
* :mod:`tests.helpers.cdp_browser` — a headless chromium driven over its DevTools protocol.

The other folders' ``helpers.py`` (``tests.tui.helpers``, ``tests.views.helpers``)
and ``tests/cli/clirun.py`` serve one folder each; ``tests/pbem/pbem_mail.py`` too (on
:mod:`tests.helpers.pbem`).
"""
