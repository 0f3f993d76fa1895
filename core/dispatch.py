"""A table of handlers keyed by class, looked up as ``isinstance`` would match.

A ``match`` over many event classes tests them one by one, and every miss is an
``isinstance`` through the event classes' metaclass; the describers of a move's
events ran mostly on those misses.  A table keyed by class finds the handler in
one dictionary look-up; :func:`handler` falls back on the class's bases, so a
subclass finds its base's entry as ``isinstance`` (and a ``case``) would.

>>> table = {int: "an int", object: "something"}
>>> handler(table, 3), handler(table, True), handler(table, "x"), handler({}, 1)
('an int', 'an int', 'something', None)

A redaction changes a few kinds of event; :func:`classes_outside` names the
others, so that most events pass it on one set look-up.

>>> sorted(c.__name__ for c in classes_outside(int | str | bool, int))
['str']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar, get_args

T = TypeVar("T")


def handler(table: Mapping[type, T], obj: object) -> T | None:
    """The entry of ``table`` for ``obj``'s class, else for the nearest of its bases (MRO order)."""
    found = table.get(type(obj))
    if found is None:
        for cls in type(obj).__mro__[1:]:
            found = table.get(cls)
            if found is not None:
                break
    return found


def classes_outside(union: object, *classes: type) -> frozenset[type]:
    """The classes of the union type ``union`` that are none of ``classes`` nor a
    subclass of one: an object whose class is among them is an instance of none of
    ``classes`` (a class not in the union proves nothing: test it the long way)."""
    return frozenset(c for c in get_args(union) if not issubclass(c, classes))
