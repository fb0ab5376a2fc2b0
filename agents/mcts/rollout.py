"""Rollout (simulation) policies run inside the compiled search loop.

* ``"random"``: the game's compiled ``random_playout`` kernel (uniform legal moves, chance
  outcomes by their probabilities).
* ``"minimax2"``: every move of the playout is the depth-2 minimax choice over the game's
  ``heuristic`` (ties broken at random), as in the Ataxx paper's MCTS-ucb-minimax2; chance
  outcomes are sampled by their probabilities. Costs about ``b**2`` heuristic calls per move.
* with ``rollout_cutoff = k >= 0``, either policy stops after ``k`` moves (chance outcomes not
  counted) and a game not finished by then scores the game's ``heuristic`` for player 0
  (early playout termination; the random policy then picks moves with ``legal_actions``).
* a numba dispatcher with the signature of ``random_playout`` (``(state, rng) -> None``, plays to
  the end in place): compiled into the loop like the random playout.
* any other Python callable ``fn(game, state) -> action``: played move by move from Python
  (slow; chance outcomes are sampled by the search).
"""

from __future__ import annotations

from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.numba_cache import njit
from mcts_envs.core.seeding import rng_below, rng_choice_weighted

_TIE = 1e-12


@njit(cache=True)
def minimax2_action(k, state, rng, s):
    """The depth-2 minimax action for the player to move (ties broken uniformly at random).

    ``k`` is the game's :class:`~mcts_envs.core.game.GameKernels`; ``s`` the search's work
    buffers (``actions``, ``replies``, ``child``, ``grandchild``). The second ply maximises
    when the same player moves again (turns need not alternate) and minimises otherwise;
    chance and terminal children are scored by the heuristic directly.
    """
    actions, replies, child, grandchild = s.actions, s.replies, s.child, s.grandchild
    me = k.current_player(state)
    count = k.legal_actions(state, actions)
    best = -1.0
    ties = 0
    chosen = actions[0]
    for i in range(count):
        child[:] = state
        k.apply_action(child, actions[i])
        mover = k.current_player(child)
        if mover < 0:
            value = k.heuristic(child, me)
        else:
            reply_count = k.legal_actions(child, replies)
            value = -1.0 if mover == me else 2.0
            for j in range(reply_count):
                grandchild[:] = child
                k.apply_action(grandchild, replies[j])
                leaf = k.heuristic(grandchild, me)
                if (mover == me and leaf > value) or (mover != me and leaf < value):
                    value = leaf
        if value > best + _TIE:
            best = value
            chosen = actions[i]
            ties = 1
        elif value >= best - _TIE:
            ties += 1
            if rng_below(rng, ties) == 0:
                chosen = actions[i]
    return chosen


@njit(cache=True)
def policy_playout(k, state, rng, minimax2, s, max_moves):
    """Plays ``state`` in place until the end or ``max_moves`` moves (chance outcomes, sampled by
    their probabilities, do not count): depth-2 minimax moves if ``minimax2``, else uniformly
    random legal moves. ``s``: the search's work buffers (see :func:`minimax2_action`, plus
    ``probabilities``)."""
    moves = 0
    while moves < max_moves:
        player = k.current_player(state)
        if player == TERMINAL:
            return
        if player == CHANCE:
            count = k.chance_outcomes(state, s.actions, s.probabilities)
            k.apply_action(state, s.actions[rng_choice_weighted(rng, s.probabilities, count)])
            continue
        if minimax2:
            action = minimax2_action(k, state, rng, s)
        else:
            action = s.actions[rng_below(rng, k.legal_actions(state, s.actions))]
        k.apply_action(state, action)
        moves += 1
