"""How mail comes in and goes out: the two Protocols every transport implements."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol


class Inbound(Protocol):
    def fetch(self) -> Iterator[tuple[str, bytes]]:
        """(key, raw RFC 5322 bytes) of every message not yet handled."""
        ...

    def done(self, key: str) -> None:
        """Mark the message ``key`` handled: it is never fetched again."""
        ...


class Outbound(Protocol):
    def send(self, raw: bytes, to: Sequence[str], sender: str) -> None: ...
