"""Where a mail password comes from: never from citylog's own files.

``password_for(section)`` takes a config table (``[imap]`` or ``[smtp]`` of
``mail.toml``) and tries, in this order:

1. ``password_env = "NAME"``: the environment variable ``NAME``;
2. ``password_command = "pass show mail/imap"`` (a string split as a shell would,
   or a list; run without a shell, 30 s at most): the first line of its output;
3. ``~/.netrc`` (or ``$NETRC``): the ``machine`` entry for ``host`` (its ``login``
   must be ``user`` when both are given).

A table that holds a ``password`` key is refused: passwords are not stored.
The password is returned, never logged or written.  Failing all three is
:class:`NoCredentials` (an environment failure: exit code 4).
"""

from __future__ import annotations

import netrc
import os
import shlex
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cli.post.network import MailError

COMMAND_TIMEOUT = 30.0


class NoCredentials(MailError):
    """No password could be found for a mail server; the message says where we looked."""


def password_for(section: Mapping[str, Any], *, env: Mapping[str, str] | None = None,
                 netrc_file: str | os.PathLike[str] | None = None) -> str:
    env = os.environ if env is None else env
    host = str(section.get("host", ""))
    user = section.get("user")
    where = f"{user} at {host}" if user and host else str(user or host or "the mail server")
    if "password" in section:
        raise NoCredentials(f"{where}: mail.toml holds a password; citylog does not store passwords — use "
                            f"password_env, password_command or ~/.netrc, and remove it from the file")
    tried: list[str] = []
    name = section.get("password_env")
    if name:
        value = env.get(str(name))
        if value:
            return value
        tried.append(f"${name} is not set")
    command = section.get("password_command")
    if command:
        return _from_command(command, where)
    found = _from_netrc(host, None if user is None else str(user), netrc_file, env, tried)
    if found is not None:
        return found
    raise NoCredentials(f"no password for {where}: {'; '.join(tried)} (set password_env or password_command "
                        f"in mail.toml, or add 'machine {host or 'HOST'}' to ~/.netrc)")


def _from_command(command: Any, where: str) -> str:
    argv = shlex.split(command) if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise NoCredentials(f"{where}: password_command is empty")
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=COMMAND_TIMEOUT)
    except FileNotFoundError:
        raise NoCredentials(f"{where}: password_command {argv[0]!r} not found") from None
    except subprocess.TimeoutExpired:
        raise NoCredentials(f"{where}: password_command {argv[0]!r} ran over {COMMAND_TIMEOUT:.0f} s") from None
    except OSError as exc:
        raise NoCredentials(f"{where}: password_command {argv[0]!r}: {exc}") from None
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()  # never its stdout: the secret
        raise NoCredentials(f"{where}: password_command {argv[0]!r} exited with {done.returncode}"
                            + (f" ({err[-1][:200]})" if err else ""))
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if not lines or not lines[0]:
        raise NoCredentials(f"{where}: password_command {argv[0]!r} printed no password")
    return lines[0]


def _from_netrc(host: str, user: str | None, netrc_file: str | os.PathLike[str] | None,
                env: Mapping[str, str], tried: list[str]) -> str | None:
    path = Path(netrc_file) if netrc_file is not None else Path(env.get("NETRC") or Path.home() / ".netrc")
    if not host:
        tried.append("no host to look up in .netrc")
        return None
    try:
        entry = netrc.netrc(str(path)).authenticators(host)
    except FileNotFoundError:
        tried.append(f"no {path}")
        return None
    except (netrc.NetrcParseError, OSError) as exc:
        raise NoCredentials(f"{path}: {exc}") from None
    if entry is None:
        tried.append(f"no machine {host} in {path}")
        return None
    login, _, password = entry
    if user is not None and login and login != user:
        tried.append(f"{path} has login {login!r} for {host}, not {user!r}")
        return None
    if not password:
        tried.append(f"{path} has no password for {host}")
        return None
    return password
