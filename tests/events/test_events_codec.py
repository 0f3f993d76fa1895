"""Codec helpers and the doctests of the events package."""

from __future__ import annotations

import doctest

import msgspec
import pytest

import events.codec
import events.envelope
import events.sqlite_store
import events.store
from events.codec import decoder_for, encode, event_tag, to_item


class Drawn(msgspec.Struct, frozen=True, tag_field="type", tag="cards_drawn"):
    cards: tuple[str, ...]


class Passed(msgspec.Struct, frozen=True, tag_field="type", tag="passed"):
    seat: int


Event = Drawn | Passed


def test_round_trip_through_a_union() -> None:
    dec = decoder_for(Event)
    for e in (Drawn(("a", "b")), Passed(2)):
        assert dec.decode(encode(e)) == e
    assert decoder_for(Event) is dec


def test_to_item_uses_the_tag() -> None:
    assert to_item(Passed(1)) == ("passed", b'{"type":"passed","seat":1}')
    assert event_tag(Drawn(())) == "cards_drawn"

    class Untagged(msgspec.Struct):
        x: int

    with pytest.raises(TypeError):
        event_tag(Untagged(1))


def test_decoder_rejects_unknown_tag() -> None:
    with pytest.raises(msgspec.ValidationError):
        decoder_for(Event).decode(b'{"type":"nope"}')


@pytest.mark.parametrize("module", [events.codec, events.envelope, events.store, events.sqlite_store])
def test_doctests(module: object) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert tried > 0 and failures == 0
