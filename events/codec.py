"""Encoding game events to the bytes stored in a :class:`~events.envelope.Recorded`.

One module-level encoder, one cached decoder per event union (msgspec's advice:
build them once, reuse them).

>>> import msgspec
>>> class Ping(msgspec.Struct, frozen=True, tag_field="type", tag="ping"):
...     n: int
>>> encode(Ping(3))
b'{"type":"ping","n":3}'
>>> decoder_for(Ping).decode(b'{"type":"ping","n":3}')
Ping(n=3)
>>> decoder_for(Ping) is decoder_for(Ping)
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import msgspec

_encoder = msgspec.json.Encoder()


def encode(event: Any) -> bytes:
    """The msgspec-JSON bytes of an event (a tagged Struct)."""
    return _encoder.encode(event)


@lru_cache(maxsize=None)
def decoder_for(event_type: Any) -> msgspec.json.Decoder:
    """A cached decoder for an event type or tagged union (``A | B | C``)."""
    return msgspec.json.Decoder(event_type)


def event_tag(event: Any) -> str:
    """The tag of a tagged Struct instance, i.e. the ``type`` of its record."""
    tag = type(event).__struct_config__.tag
    if not isinstance(tag, str):
        raise TypeError(f"{type(event).__name__} is not a string-tagged Struct")
    return tag


def to_item(event: Any) -> tuple[str, bytes]:
    """``(type, payload)`` ready for :meth:`events.store.EventStore.append`."""
    return event_tag(event), _encoder.encode(event)
