"""The size limits of citylog's mail (one place: transports, the parser and the agent share them)."""

from __future__ import annotations

MAX_MESSAGE = 8 << 20
"""A message longer than this (8 MiB) is refused unread (its headers only are read, to reply)."""
MAX_FETCH = MAX_MESSAGE + 1
"""An inbound transport never reads more than this of one message."""
