"""Mail without a server: a Maildir or an mbox that the user's own tools fill
(getmail, fetchmail, mbsync), a ``sendmail``-compatible command, or ``.eml``
files written to a folder for any mail client (or a test's postman)."""

from __future__ import annotations

import hashlib
import mailbox
import os
import shlex
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from cli.post.limits import MAX_FETCH
from events.service import ServiceError
from events.store import EnvironmentFailure

SENDMAIL_TIMEOUT = 60.0
MAX_MBOX = 512 << 20
"""An mbox file longer than this (512 MiB) is refused: split it, or use a Maildir."""


def _read_capped(path: Path) -> bytes | None:
    """At most :data:`MAX_FETCH` bytes of a regular file; None if it is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    try:
        import stat

        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return b""
        chunks, left = [], MAX_FETCH
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


class MaildirInbound:
    """A Maildir: messages in ``new/``, and in ``cur/`` without the Seen flag;
    ``done`` moves one to ``cur/`` with the Seen flag (``S``).  Give citylog a
    Maildir (or a folder of one) of its own: a mail read in a client is Seen."""

    def __init__(self, path: Path, create: bool = True) -> None:
        self.path = path
        if path.exists() and not (path / "cur").is_dir():
            raise ServiceError(f"{path} is not a Maildir (no cur/ folder)")
        if not path.exists() and not create:
            raise ServiceError(f"no Maildir {path}")
        try:
            for sub in ("tmp", "new", "cur"):
                (path / sub).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EnvironmentFailure(f"{path}: cannot make the Maildir ({exc.strerror})") from None

    def fetch(self) -> Iterator[tuple[str, bytes]]:
        names: list[tuple[str, str]] = []
        for sub in ("new", "cur"):
            try:
                listed = sorted(os.listdir(self.path / sub))
            except FileNotFoundError:
                continue
            for name in listed:
                if name.startswith("."):
                    continue
                if sub == "cur" and "S" in name.rpartition(":2,")[2] and ":2," in name:
                    continue
                names.append((sub, name))
        for sub, name in names:
            raw = _read_capped(self.path / sub / name)
            if raw is None:
                continue  # taken meanwhile
            yield f"{sub}/{name}", raw

    def done(self, key: str) -> None:
        sub, _, name = key.partition("/")
        base, sep, flags = name.partition(":2,")
        flags = "".join(sorted(set(flags) | {"S"})) if sep else "S"
        try:
            os.rename(self.path / sub / name, self.path / "cur" / f"{base}:2,{flags}")
        except FileNotFoundError:
            pass  # already moved


class MboxInbound:
    """An mbox file, read only: citylog never rewrites it.  A message's key is
    the hash of its bytes; what was handled is kept by the agent's ledger."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fetch(self) -> Iterator[tuple[str, bytes]]:
        if not self.path.exists():
            return
        if not self.path.is_file():
            raise ServiceError(f"{self.path} is not an mbox file")
        if self.path.stat().st_size > MAX_MBOX:
            raise ServiceError(f"{self.path}: mbox longer than {MAX_MBOX >> 20} MiB (split it, or use a Maildir)")
        box = mailbox.mbox(self.path, create=False)
        try:
            for k in box.keys():
                raw = box.get_bytes(k)[:MAX_FETCH]
                yield "mbox:" + hashlib.sha256(raw).hexdigest()[:32], raw
        finally:
            box.close()

    def done(self, key: str) -> None:
        pass  # the ledger remembers


class EmlFolderOutbound:
    """Each message as one ``.eml`` file in a folder (written to a temporary
    name, then renamed: a reader never sees half a message)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def send(self, raw: bytes, to: Sequence[str], sender: str) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            name = hashlib.sha256(raw).hexdigest()[:24] + ".eml"
            final = self.folder / name
            if final.exists():
                return  # the very same message, already written
            tmp = self.folder / f".{name}.tmp"
            tmp.write_bytes(raw)
            os.replace(tmp, final)
        except OSError as exc:
            raise EnvironmentFailure(f"{self.folder}: cannot write a mail ({exc.strerror})") from None


class SendmailOutbound:
    """A ``sendmail``-compatible command (sendmail, msmtp, ssmtp, postfix):
    ``COMMAND -i -f SENDER -- RECIPIENT...`` with the message on stdin."""

    def __init__(self, command: str) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise ServiceError("sendmail: no command")

    def send(self, raw: bytes, to: Sequence[str], sender: str) -> None:
        argv = [*self.argv, "-i", "-f", sender, "--", *to]
        try:
            done = subprocess.run(argv, input=raw, capture_output=True, timeout=SENDMAIL_TIMEOUT, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EnvironmentFailure(f"{self.argv[0]}: {exc}") from None
        if done.returncode != 0:
            why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            raise EnvironmentFailure(f"{self.argv[0]} failed: {why[0][:200]}")
