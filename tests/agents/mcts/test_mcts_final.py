"""The compiled final choice at the root against a slow reference written from its contract."""

from __future__ import annotations

import numpy as np
import pytest

from mcts_envs.agents.mcts.final import RootStatistics, decide
from mcts_envs.agents.mcts.tree import PROVEN_DRAW, PROVEN_WIN_0, PROVEN_WIN_1, UNPROVEN


def reference_choice(stats: RootStatistics, by_mean: bool, use_solver: bool):
    """Plain Python: filter by the solver, sort candidates by the documented keys."""
    player = stats.player
    actions = [a for a in range(len(stats.visits)) if stats.present[a]]

    def rank(a):
        p = int(stats.proven[a])
        if p == UNPROVEN:
            return "unproven"
        if p == PROVEN_DRAW:
            return "draw"
        return "win" if p == (PROVEN_WIN_0 if player == 0 else PROVEN_WIN_1) else "loss"

    solved = None
    if use_solver:
        if any(rank(a) == "win" for a in actions):
            actions = [a for a in actions if rank(a) == "win"]
            solved = 1.0
        elif any(rank(a) != "loss" for a in actions):
            actions = [a for a in actions if rank(a) != "loss"]
            if all(rank(a) != "unproven" for a in actions) and any(
                rank(a) == "draw" for a in actions
            ):
                solved = 0.0
        else:
            solved = -1.0

    def mean(a):
        m = 0.5 if stats.visits[a] == 0 else stats.value_sum[a] / stats.visits[a]
        return m if player == 0 else 1.0 - m

    visited = [a for a in actions if stats.visits[a] > 0]
    if by_mean and visited:
        action = min(visited, key=lambda a: (-mean(a), -stats.visits[a], a))
    else:
        action = min(actions, key=lambda a: (-stats.visits[a], -mean(a), a))
    present = stats.present.astype(float)
    if solved == 1.0:
        probs = np.array([1.0 if a in actions else 0.0 for a in range(len(present))])
        probs /= probs.sum()
    elif stats.visits.sum() > 0:
        probs = stats.visits / stats.visits.sum()
    else:
        probs = present / max(present.sum(), 1)
    if solved is not None:
        value = solved
    elif stats.root_visits > 0:
        root_mean = stats.root_value_sum / stats.root_visits
        value = 2.0 * (root_mean if player == 0 else 1.0 - root_mean) - 1.0
    else:
        value = 0.0
    return action, probs, value


def random_root(rng: np.random.Generator) -> RootStatistics:
    num_actions = int(rng.integers(1, 8))
    present = rng.random(num_actions) < 0.8
    present[rng.integers(num_actions)] = True
    # Few distinct visit counts and means, so that ties (and their tie-breaks) happen.
    visits = np.where(present, rng.integers(0, 4, num_actions), 0).astype(np.float64)
    value_sum = visits * rng.choice([0.0, 0.25, 0.5, 1.0], num_actions)
    proven = np.where(
        present & (rng.random(num_actions) < 0.4),
        rng.choice([PROVEN_WIN_0, PROVEN_WIN_1, PROVEN_DRAW], num_actions),
        UNPROVEN,
    ).astype(np.int8)
    root_visits = int(visits.sum() + rng.integers(0, 2))
    return RootStatistics(
        player=int(rng.integers(2)),
        visits=visits,
        value_sum=value_sum,
        proven=proven,
        present=present,
        root_visits=root_visits,
        root_value_sum=float(rng.random() * root_visits),
        root_proven=UNPROVEN,
        simulations=root_visits,
        nodes=num_actions + 1,
    )


@pytest.mark.parametrize("final", ["visits", "mean"])
@pytest.mark.parametrize("use_solver", [False, True])
def test_final_choice_matches_the_reference_on_random_roots(final, use_solver):
    rng = np.random.default_rng(5)
    for _ in range(3000):
        stats = random_root(rng)
        action, probs, value = decide(stats, final, use_solver)
        want_action, want_probs, want_value = reference_choice(stats, final == "mean", use_solver)
        assert action == want_action
        np.testing.assert_allclose(probs, want_probs, rtol=0, atol=1e-12)
        assert value == pytest.approx(want_value, abs=1e-12)


def test_a_root_without_children_is_an_error():
    stats = RootStatistics(
        player=0,
        visits=np.zeros(3),
        value_sum=np.zeros(3),
        proven=np.zeros(3, np.int8),
        present=np.zeros(3, np.bool_),
        root_visits=0,
        root_value_sum=0.0,
        root_proven=UNPROVEN,
        simulations=0,
        nodes=1,
    )
    with pytest.raises(RuntimeError, match="no action"):
        decide(stats, "visits", True)
