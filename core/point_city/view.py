"""Hidden information (PL-1): nobody sees the unseen cards (the deck below its
top card and the cards removed at setup).  The top card of the deck lies
resource side up and is public, so the first card of a deck take is known
when choosing; the second is not in the state until it is revealed (after
the choice), so no event ever carries a secret and ``redact`` changes nothing.
"""

from __future__ import annotations

import msgspec

from core.point_city.state import State


def view(s: State, seat: int | None) -> State:
    return msgspec.structs.replace(s, unseen=((), (), ()))


def redact(event: object, seat: int | None) -> object:
    return event
