"""TorchRL's ``PettingZooWrapper`` on every registered game, unchanged: 100 masked random steps.

The raw env raises on an illegal action, so a rollout that completes took only legal ones; the
wrapper builds its info specs from the first reset's infos and fills them at every step, which
needs the same keys of fixed shape throughout (Tantrix's infos used to hold text and lists of
varying length).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mcts_envs

torch = pytest.importorskip("torch")
pettingzoo_lib = pytest.importorskip("torchrl.envs.libs.pettingzoo")


@pytest.mark.parametrize("name", mcts_envs.list_games())
def test_pettingzoo_wrapper_runs_100_masked_steps(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL names the PettingZoo version it was tested on
        env = pettingzoo_lib.PettingZooWrapper(
            env=mcts_envs.make(name, raw=True), use_mask=True, seed=0
        )
    assert env.group_map == {"player_0": ["player_0"], "player_1": ["player_1"]}
    rollout = env.rollout(100, break_when_any_done=False)  # ended games reset, play goes on
    assert len(rollout) == 100
    movers = torch.stack([rollout[p, "mask"].squeeze(-1) for p in ("player_0", "player_1")], -1)
    assert (movers.sum(-1) == 1).all()  # exactly one player acts at each step
    for player in ("player_0", "player_1"):
        actions = rollout[player, "action"].reshape(100, -1)
        masks = rollout[player, "action_mask"].reshape(100, -1)
        acted = movers[:, 0 if player == "player_0" else 1]
        chosen = actions.argmax(-1) if actions.shape[-1] > 1 else actions[:, 0]
        assert masks[acted, chosen[acted]].all()  # every action taken was in the mask
    done = rollout["next", "player_0", "done"].squeeze(-1) | rollout[
        "next", "player_1", "done"
    ].squeeze(-1)
    for step in np.flatnonzero(done.numpy()):
        final = rollout[int(step)]["next"]
        rewards = [final[p, "reward"].item() for p in ("player_0", "player_1")]
        assert sum(rewards) == 0 and set(rewards) <= {-1.0, 0.0, 1.0}
    if name == "tictactoe":
        assert done.any()  # 100 moves hold several games: the resets were exercised
