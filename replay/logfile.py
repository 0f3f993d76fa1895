"""Exported logs: JSON Lines, one header line then one event per line.

Header (line 1)::

    {"format": "citylog-log/1", "game_id": …, "definition": {…}, "seed": … (referee
     exports only), "reseeds": [[seq, seed], …] (referee only), "bots": {…},
     "parent": …, "fork_at": …, "view": null | "PLAYER", "status": …,
     "salt": … (with the seed), "seal": … (play by email: the host's signature),
     "analyses": {KEY: {…}, …} (citylog analyse's judgements, if any)}

Event lines::

    {"seq": 1, "type": "cc.created", "payload": {…}, "prev_hash": "…", "hash": "…",
     "signed": {…} (play by email: the signed move or join file behind the line)}

Once a game is over, a player's view carries the seed and salt too (the reveal):
``verify`` then proves the deal (:mod:`replay.verify`).

A player's view (``view`` set) leaves out the seed and redacts what that player
may not see; a redacted line carries ``"digest"`` (sha256 of the real payload)
and ``"redacted": true``, so the hash chain still verifies.  Readers take an
open text handle and never open files themselves (python-chess convention).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO, Any

import msgspec

from core.chance import nonce_secret
from events.envelope import (
    GameDefinition,
    Recorded,
    chain_hash,
    genesis_hash,
    line_nonce,
    payload_digest,
)

FORMAT = "citylog-log/1"


class LogFileError(ValueError):
    """A malformed or tampered log file; the message names the line."""


class Header(msgspec.Struct, frozen=True):
    format: str
    definition: GameDefinition
    game_id: str | None = None
    seed: str | None = None
    reseeds: tuple[tuple[int, str], ...] = ()
    bots: dict[int, str] = {}
    parent: str | None = None
    fork_at: int | None = None
    view: str | None = None
    status: str = "active"
    salted: bool = True
    """Line digests are salted with nonces derived from the seed.  Read only for a
    game of secret scheme 1 (its definition's ``secrets``); a scheme-2 game always
    salts, whatever this says [CL-V6]."""
    salt: str | None = None
    """The seed commitment's salt, with the seed (a referee export, or any export
    of a finished game: the reveal)."""
    seal: str | None = None
    """Play by email: the host's signature over (game id, seq, head hash, view)
    (:mod:`replay.trust`), so a cut-off or re-headed export is detected."""
    analyses: dict[str, msgspec.Raw] | msgspec.UnsetType = msgspec.UNSET
    """``citylog analyse``'s judgements, key -> judgement (:mod:`replay.analyses`):
    derived, outside the chain, checked against the game when read [CL-X1]; a
    view carries its player's own only [CL-X2].  Absent (not written) when none."""


class Line(msgspec.Struct, frozen=True):
    seq: int
    type: str
    payload: msgspec.Raw
    prev_hash: str
    hash: str
    digest: str | None = None
    redacted: bool = False
    nonce: str | None = None
    """Hex salt of this line's digest; in a player's view (no seed), on the lines
    the player may see.  Redacted lines give only their salted digest."""
    signed: dict[str, Any] | None = None
    """Play by email: the signed move or join file behind the decision this line
    opens (left out of a view where it would show hidden cards)."""


class LogFile(msgspec.Struct):
    """A whole log in memory, from a file or from the store."""

    header: Header
    lines: list[Line]

    @property
    def line_secret(self) -> str | None:
        """The secret the lines' nonces derive from, if the header carries the seed
        (:func:`core.chance.nonce_secret`; the scheme is the chained definition's)."""
        h = self.header
        return nonce_secret(h.seed, h.salt, h.definition.secrets, h.salted)

    def records(self) -> list[Recorded]:
        gid = self.header.game_id or ""
        return [Recorded(gid, x.seq, x.type, bytes(x.payload), x.prev_hash, x.hash) for x in self.lines]

    def digest_of(self, line: Line) -> str:
        if line.redacted and line.digest:
            return line.digest
        if line.nonce is not None:
            nonce = bytes.fromhex(line.nonce)
        else:
            nonce = line_nonce(self.line_secret, line.seq)
        return payload_digest(bytes(line.payload), nonce)


_enc = msgspec.json.Encoder()
_header_dec = msgspec.json.Decoder(Header)
_line_dec = msgspec.json.Decoder(Line)


def write(log: LogFile, out: IO[str]) -> None:
    out.write(_enc.encode(log.header).decode() + "\n")
    for line in log.lines:
        out.write(_enc.encode(line).decode() + "\n")


MAX_LINE_CHARS = 1 << 20
"""A line longer than this (1 Mi characters) is refused; the longest real event
line is a few kilobytes."""
MAX_FILE_CHARS = 64 << 20
"""A file longer than this (64 Mi characters) is refused; a 300-event game's log
is about 150 kilobytes."""


def _text_lines(handle: IO[str], source: str) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, read as a stream within the size limits.

    A UTF-8 byte order mark before the first line is dropped; blank lines at the
    end are ignored; a blank line before another line is an error.
    """
    total = 0
    blank_at: int | None = None
    number = 0
    while True:
        raw = handle.readline(MAX_LINE_CHARS + 2)
        if not raw:
            return
        number += 1
        total += len(raw)
        if total > MAX_FILE_CHARS:
            raise LogFileError(f"{source}:{number}: the file is longer than the limit ({MAX_FILE_CHARS} characters)")
        text = raw.rstrip("\r\n")
        if len(text) > MAX_LINE_CHARS:
            raise LogFileError(f"{source}:{number}: line longer than the limit ({MAX_LINE_CHARS} characters)")
        if number == 1 and text.startswith("\ufeff"):
            text = text[1:]
        if not text.strip():
            if blank_at is None:
                blank_at = number
            continue
        if blank_at is not None:
            raise LogFileError(f"{source}:{blank_at}: blank line inside the log")
        yield number, text


def read(handle: IO[str], source: str = "log") -> LogFile:
    """Parse a log file as a stream; ``LogFileError`` names the first bad line."""
    lines = _text_lines(handle, source)
    first = next(lines, None)
    if first is None:
        raise LogFileError(f"{source}: empty file, not a citylog log")
    try:
        header = _header_dec.decode(first[1])
    except (msgspec.DecodeError, RecursionError) as exc:
        raise LogFileError(f"{source}:1: not a citylog log header ({_short(exc)})") from None
    if header.format != FORMAT:
        raise LogFileError(f"{source}:1: unknown format {header.format!r} (this citylog reads {FORMAT})")
    problem = salt_problem(header.salt) or _long_field(header)
    if problem is not None:
        raise LogFileError(f"{source}:1: {problem}")
    out: list[Line] = []
    for number, text in lines:
        try:
            line = _line_dec.decode(text)
        except (msgspec.DecodeError, RecursionError) as exc:
            raise LogFileError(f"{source}:{number}: malformed event line ({_short(exc)})") from None
        out.append(line)
    return LogFile(header, out)


def _long_field(header: Header) -> str | None:
    """Why a header's names are too long (:mod:`events.limits`) or hold a control
    character (no game citylog makes has one), or None."""
    from events.limits import MAX_GAME_ID, FieldTooLong, check_length, check_names

    try:
        check_length("the game id", header.game_id, MAX_GAME_ID)
        check_length("the parent's game id", header.parent, MAX_GAME_ID)
        check_names("the view's player", [header.view])
        check_names("a player's name", header.definition.players)
    except FieldTooLong as exc:
        return str(exc)
    named = [header.game_id, header.parent, header.view, *header.definition.players]
    if any(isinstance(x, str) and not x.isprintable() for x in named):
        return "a game id or a player's name holds a control character"
    return None


SALT_HEX_DIGITS = 32
"""A seed commitment's salt: 16 bytes, written as 32 lower-case hex digits, in one spelling only."""


def salt_problem(salt: object) -> str | None:
    """Why ``salt`` (a header's, or a stored game's) is not a salt, or None
    (None itself: no salt, an unsalted or unrevealed game).

    >>> salt_problem("5a" * 16) is None, salt_problem("zz" * 16), salt_problem("5A" * 16) is None
    (True, 'the salt is not 32 lower-case hex digits', False)
    """
    if salt is None:
        return None
    if not isinstance(salt, str) or len(salt) != SALT_HEX_DIGITS or salt.strip("0123456789abcdef"):
        return f"the salt is not {SALT_HEX_DIGITS} lower-case hex digits"
    return None


def _short(exc: BaseException) -> str:
    """An exception's message on one line, at most 200 characters."""
    text = " ".join(str(exc).split()) if not isinstance(exc, RecursionError) else "nested too deeply"
    return text if len(text) <= 200 else text[:197] + "..."


def first_bad_line(log: LogFile) -> tuple[int, str] | None:
    """Check numbering and the hash chain; (file line number, why) of the first bad line."""
    prev = genesis_hash(log.header.definition)
    try:
        _ = log.line_secret  # raises on a salt that is not 32 hex digits
    except ValueError:
        return 1, "the header's seed and salt cannot derive the line nonces (a salt is 32 hex digits)"
    for i, line in enumerate(log.lines):
        number = i + 2
        if line.seq != i + 1:
            return number, f"expected seq {i + 1}, found {line.seq} (a line was dropped, added or moved)"
        if line.prev_hash != prev:
            return number, "prev_hash does not link to the line before (the log was edited or reordered)"
        if line.redacted and not line.digest:
            return number, "a redacted line must carry the digest of its payload"
        try:
            digest = log.digest_of(line)
        except ValueError:
            return number, "the line's nonce is not hex"
        expected = chain_hash(prev, line.seq, line.type, digest)
        if line.hash != expected:
            return number, "hash does not match the payload (the line was edited)"
        prev = line.hash
    return None


def from_records(header: Header, records: Iterable[Recorded]) -> LogFile:
    return LogFile(
        header,
        [Line(r.seq, r.type, msgspec.Raw(r.payload), r.prev_hash, r.hash) for r in records],
    )


def redacted_lines(
    records: Iterable[Recorded], decoded: Iterable[Any], redact: Any, seat: int, secret: str | None
) -> Iterator[Line]:
    """Lines as ``seat`` may see them: a visible line carries its nonce; a changed
    (redacted) payload carries only the salted digest of the real one."""
    for r, event in zip(records, decoded, strict=True):
        seen = redact(event, seat)
        nonce = line_nonce(secret, r.seq)
        if seen == event:
            yield Line(r.seq, r.type, msgspec.Raw(r.payload), r.prev_hash, r.hash, nonce=nonce.hex())
        else:
            yield Line(
                r.seq,
                r.type,
                msgspec.Raw(_enc.encode(seen)),
                r.prev_hash,
                r.hash,
                digest=payload_digest(r.payload, nonce),
                redacted=True,
            )
