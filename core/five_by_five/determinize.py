"""A true state consistent with a seat's view, sampled (information-set search).

What a seat does not see (FC-7, FL-5, FL-10): the bag's tiles, another
player's Park-action draw, and the building front of a tile another player put
down Park side up (``HIDDEN_PARK``).  Every other tile is in sight, so the
unseen tiles are the 108 less those; the hidden places are filled from them
without replacement and the rest is the bag.  The sample's view is the given
view (tests/test_determinize.py).
"""

from __future__ import annotations

from msgspec.structs import replace

from core.five_by_five.state import HIDDEN, HIDDEN_PARK, Board, State
from core.five_by_five.tiles import ALL_TILE_IDS
from core.rng import Rng


def unseen_tiles(view: State) -> list[int]:
    """The tiles ``view`` does not show anywhere, sorted."""
    seen = {t for st in view.sets for t in st}
    seen.update(view.hand)
    seen.update(t for t in view.park_drawn if t != HIDDEN)
    for b in view.boards:
        seen.update(t for t in b.tiles if 0 <= t != HIDDEN_PARK)
    return [t for t in ALL_TILE_IDS if t not in seen]


def determinize(view: State, seat: int, rng: Rng) -> State:
    """A state whose ``view(·, seat)`` is ``view``, its hidden tiles drawn from the unseen ones."""
    unseen = rng.shuffled(unseen_tiles(view))
    secrets = sum(1 for b in view.boards if b.secret >= 0 and b.tiles[b.secret] == HIDDEN_PARK)
    if len(unseen) != len(view.bag) + view.park_drawn.count(HIDDEN) + secrets:
        raise ValueError("the view's hidden tiles do not add up to the unseen ones")

    def board(b: Board) -> Board:
        if b.secret < 0 or b.tiles[b.secret] != HIDDEN_PARK:
            return b
        return replace(b, tiles=b.tiles[: b.secret] + (unseen.pop(),) + b.tiles[b.secret + 1 :])

    boards = tuple(board(b) for b in view.boards)
    drawn = tuple(unseen.pop() if t == HIDDEN else t for t in view.park_drawn)
    return replace(view, boards=boards, park_drawn=drawn, bag=tuple(sorted(unseen)))
