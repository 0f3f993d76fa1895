"""Point City's payment plans: ``_plans`` filters each type's choices for
minimality [PL-4] before combining them; it lists exactly what combining every
choice and keeping the plans :func:`_minimal` accepts lists, in the same order
(the enumeration it replaced, kept here as the reference)."""

from __future__ import annotations

import random
from itertools import product

from core.point_city.cards import CARDS, TYPES, WILD
from core.point_city.payment import Cost, _Class, _minimal, _plans


def reference_plans(cost: Cost, shape: tuple[tuple[_Class, int], ...]) -> tuple[tuple[tuple[_Class, int], ...], ...]:
    have = dict(shape)
    wilds = have.get(("card", WILD, 1), 0)
    per_type = []
    for t, n in cost:
        opts = []
        for a in range(min(have.get(("perm", t, 1), 0), n) + 1):
            for b in range(min(have.get(("card", t, 1), 0), n - a) + 1):
                for d in range(min(have.get(("card", t, 2), 0), (n - a - b + 1) // 2) + 1):
                    opts.append((a, b, d))
        per_type.append(opts)
    out = []
    for combo in product(*per_type):
        deficit = sum(max(0, n - (a + b + 2 * d)) for (_, n), (a, b, d) in zip(cost, combo))
        if deficit > wilds:
            continue
        plan: list[tuple[_Class, int]] = [(("card", WILD, 1), deficit)] if deficit else []
        for (t, _), (a, b, d) in zip(cost, combo):
            plan += [(k, m) for k, m in ((("perm", t, 1), a), (("card", t, 1), b), (("card", t, 2), d)) if m]
        if _minimal(cost, plan):
            out.append(tuple(plan))
    return tuple(out)


def random_shape(rng: random.Random, cost: Cost) -> tuple[tuple[_Class, int], ...]:
    """How many sources of each class a hand has, as ``_payments`` passes them (sorted);
    classes of other types and two-symbol wild faces too, which plans must ignore."""
    classes: list[_Class] = [("card", WILD, 1), ("card", WILD, 2)]
    for t in [t for t, _ in cost] + [rng.choice(TYPES)]:
        classes += [("perm", t, 1), ("card", t, 1), ("card", t, 2)]
    shape = {k: rng.randint(1, 4) for k in classes if rng.random() < 0.6}
    return tuple(sorted(shape.items()))


def test_plans_equal_the_filtered_enumeration_on_every_cost() -> None:
    rng = random.Random(20261130)
    costs = sorted({c.cost for c in CARDS.values()})
    checked = 0
    for cost in costs:
        for _ in range(150):
            shape = random_shape(rng, cost)
            assert _plans.__wrapped__(cost, shape) == reference_plans(cost, shape), (cost, shape)
            checked += 1
    assert checked == 150 * len(costs)


def test_every_plan_is_minimal_and_covers() -> None:
    rng = random.Random(7)
    for cost in sorted({c.cost for c in CARDS.values()}):
        shape = random_shape(rng, cost)
        for plan in _plans.__wrapped__(cost, shape):
            assert _minimal(cost, list(plan))
