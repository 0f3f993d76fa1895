"""Card City's commands: what a player (or chance) asks for.

Text forms (``text.py`` parses and formats them).  Squares are named in the
fixed frame around City Hall [CL-10]: a column ``A``–``I`` and a row ``1``–``9``,
City Hall at ``E5``; the old City-Hall-relative ``row,col`` (``-1,0`` is ``E4``)
is still read.  The structs hold the relative ``row, col``, as the events do:

========================  ==============================================
``draw R I L P C C``      chance: the cards drawn (entered for table games)
``split RC PL IC``        the face-up pair, the face-up half, the face-down half
``take pair|rest``        choose a group of the split on offer
``keep RC``               solo: keep two of the three drawn [CC-9]
``build R E4``            build a card from the hand
``discard L``             discard a card that has no legal square [CC-2]
``develop R F6``          develop a district (Phase 3)
``buy D5``                buy an Industrial card and place it [CC-10]
``pass``                  buy nothing
========================  ==============================================
"""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, tag_field="type"):
    pass


class Draw(_Command, frozen=True, tag="draw"):
    cards: tuple[str, ...]


class SplitCards(_Command, frozen=True, tag="split"):
    pair: tuple[str, ...]
    up: tuple[str, ...]
    down: tuple[str, ...]


class Take(_Command, frozen=True, tag="take"):
    group: str


class Keep(_Command, frozen=True, tag="keep"):
    cards: tuple[str, ...]


class Build(_Command, frozen=True, tag="build"):
    card: str
    row: int
    col: int


class Discard(_Command, frozen=True, tag="discard"):
    card: str


class Develop(_Command, frozen=True, tag="develop"):
    card: str
    row: int
    col: int


class Buy(_Command, frozen=True, tag="buy"):
    row: int
    col: int


class Pass(_Command, frozen=True, tag="pass"):
    pass


Command = Draw | SplitCards | Take | Keep | Build | Discard | Develop | Buy | Pass
