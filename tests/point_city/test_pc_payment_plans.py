"""Point City's payment plans: ``_plans`` filters each type's choices for
minimality [PL-4] before combining them; it lists exactly what combining every
choice and keeping the plans :func:`_minimal` accepts lists, in the same order
(the enumeration it replaced, kept here as the reference).  ``is_minimal``
works the same out arithmetically; it answers as leaving each source out does."""

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


def test_is_minimal_equals_leaving_each_source_out() -> None:
    """``is_minimal`` (arithmetic) against its definition, on random sources for every cost:
    resource cards of every kind (faces too) and producers, duplicates and strays included."""
    from core.point_city.cards import FACES
    from core.point_city.payment import _is_minimal_by_dropping, covers, is_minimal

    rng = random.Random(16)
    resource_cards = sorted(c.id for c in CARDS.values() if c.resource) + sorted(FACES)
    producers = sorted(c.id for c in CARDS.values() if c.produces)
    others = sorted(c.id for c in CARDS.values() if not c.produces)
    seen = {True: 0, False: 0}
    for cost in sorted({c.cost for c in CARDS.values()}):
        for _ in range(300):
            cards = tuple(rng.sample(resource_cards, rng.randint(0, 5)))
            perms = tuple(rng.sample(producers, rng.randint(0, 4))) + tuple(rng.sample(others, rng.randint(0, 1)))
            want = _is_minimal_by_dropping(cost, cards, perms)
            assert is_minimal(cost, cards, perms) == want, (cost, cards, perms)
            seen[want] += 1
            # and the minimal payments listed for these sources are minimal
            if covers(cost, cards, perms):
                from core.point_city.payment import payments

                for pc, pp in payments(cost, cards, perms):
                    assert is_minimal(cost, pc, pp) and _is_minimal_by_dropping(cost, pc, pp)
    assert seen[True] > 100 and seen[False] > 100  # both answers met often
