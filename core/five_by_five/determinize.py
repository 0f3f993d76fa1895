"""A true state consistent with a seat's view, sampled (information-set search).

What a seat cannot work out (FC-7, FL-5, FL-10, GN-1) is which tile each
*unknown tile* is: another player's Park-action draw while they hold it, the
building front of a tile another player put down Park side up.  Each can be
only a tile of its draw's pool (:func:`core.five_by_five.view.knowledge`), no
two the same; the sample picks them one at a time, each at random among the
tiles that still leave the rest a choice, and the bag is every other unseen
tile.  The sample's view is the given view (tests/test_determinize.py), and
it is consistent with all the seat has seen, not only with its counts.
"""

from __future__ import annotations

from msgspec.structs import replace

from core.five_by_five.state import HIDDEN, State
from core.five_by_five.view import _matches, knowledge
from core.rng import Rng


def determinize(view: State, seat: int, rng: Rng) -> State:
    """A state whose ``view(·, seat)`` is ``view``, its unknown tiles drawn from what they can be."""
    k = knowledge(view, seat)
    if k.bag_size != len(view.bag) or len(k.unseen) != len(view.bag) + len(k.unknown):
        raise ValueError("the view's hidden tiles do not add up to the unseen ones")
    cands = [set(u.can_be) for u in k.unknown]
    picked: list[int] = []
    for i in range(len(cands)):
        rest = cands[i + 1 :]
        taken = set(picked)
        options = [t for t in rng.shuffled(sorted(cands[i] - taken)) if _matches(rest, taken | {t})]
        if not options:
            raise ValueError("the view's unknown tiles cannot all be different tiles")
        picked.append(options[0])
    boards = list(view.boards)
    drawn = list(view.park_drawn)
    for u, t in zip(k.unknown, picked):
        if u.where >= 0:
            b = boards[u.owner]
            boards[u.owner] = replace(b, tiles=b.tiles[: u.where] + (t,) + b.tiles[u.where + 1 :])
        else:
            drawn[u.drawn] = t
    for owner in sorted({u.owner for u in k.unknown}):  # the drawer's own record, as the sample has it
        if not boards[owner].drew:
            mine = tuple(t for u, t in zip(k.unknown, picked) if u.owner == owner)
            boards[owner] = replace(boards[owner], drew=mine)
    bag = tuple(sorted(set(k.unseen) - set(picked)))
    if HIDDEN in drawn:
        raise ValueError("a park draw the seat may not see is not among its unknown tiles")
    return replace(view, boards=tuple(boards), park_drawn=tuple(drawn), bag=bag)
