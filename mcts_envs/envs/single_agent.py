"""One seat of a two-player game as a single-agent Gymnasium env, the other seat played by an opponent.

This is the view Stable-Baselines3's ``MaskablePPO`` (sb3-contrib) trains on: observations are the
game's planes from the learner's view, :meth:`SingleAgentEnv.action_masks` gives the legal actions,
and the reward is +1 / -1 / 0 at the end. The opponent is any callable ``opponent(env) -> action``
that reads the AEC env (every agent's ``act`` fits), so search agents, frozen policies or self-play
snapshots can sit in the other seat.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.registry import make
from mcts_envs.core.seeding import check_seed

SEATS = ("player_0", "player_1", "alternate")


class SingleAgentEnv(gymnasium.Env):
    """A Gymnasium env for one seat of ``game``; the other seat is played by ``opponent``.

    Args:
        game: a registered game name (see ``mcts_envs.list_games()``).
        opponent: ``opponent(aec_env) -> action`` for the other seat; ``None`` plays uniformly at
            random with this env's ``np_random``.
        seat: ``"player_0"``, ``"player_1"`` or ``"alternate"`` (a fair coin from ``np_random`` at
            each reset).
        illegal_action: ``"raise"`` (default): an illegal learner action raises
            :class:`~mcts_envs.core.errors.IllegalActionError` and changes nothing; ``"lose"``: it
            ends the episode with reward -1 and ``info["illegal_action"] = True`` (for learners
            that sample without the mask).
        **env_kwargs: options of the game's AEC env (e.g. ``max_moves``, game options).

    Observation: the AEC ``"observation"`` planes from the learner's view; ``action_masks()`` is the
    int8 mask (``info["action_mask"]`` holds it too).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        game: str,
        opponent: Callable[[Any], int] | None = None,
        seat: str = "alternate",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **env_kwargs: Any,
    ):
        if seat not in SEATS:
            raise InvalidOptionError(f"seat must be one of {SEATS}, got {seat!r}")
        if illegal_action not in ("raise", "lose"):
            raise InvalidOptionError(
                f"illegal_action must be 'raise' or 'lose', got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        self.aec = make(game, raw=True, render_mode=render_mode, **env_kwargs)
        self.opponent = opponent
        self.seat_option = seat
        self.render_mode = render_mode
        self.learner = "player_0"
        space = self.aec.observation_space("player_0")
        self.observation_space = space["observation"]
        self.action_space = self.aec.action_space("player_0")

    def _opponent_action(self) -> int:
        if self.opponent is not None:
            return self.opponent(self.aec)
        legal = np.flatnonzero(self.aec.observe(self.aec.agent_selection)["action_mask"])
        return int(legal[self.np_random.integers(len(legal))])

    def _advance(self) -> None:
        """Let the opponent act until the learner is on move or the game is over."""
        aec = self.aec
        while not aec.terminations[self.learner] and not aec.truncations[self.learner]:
            if aec.agent_selection == self.learner:
                return
            aec.step(self._opponent_action())

    def _observation(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs = self.aec.observe(self.learner)
        info = dict(self.aec.infos.get(self.learner, {}))
        info["action_mask"] = obs["action_mask"]
        info["seat"] = self.learner
        return obs["observation"], info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as ``int8[num_actions]`` (MaskablePPO's hook)."""
        return self.aec.observe(self.learner)["action_mask"]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game (``seed`` seeds both this env and the AEC env); returns ``(obs, info)``."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        if self.seat_option == "alternate":
            self.learner = "player_0" if self.np_random.integers(2) == 0 else "player_1"
        else:
            self.learner = self.seat_option
        self.aec.reset(seed=int(self.np_random.integers(2**31)))
        self._advance()
        return self._observation()

    def step(self, action: int):
        """Play the learner's ``action``, then the opponent's replies; Gymnasium's 5-tuple."""
        if self.illegal_action == "lose":
            legal = self.action_masks()
            if (
                not (isinstance(action, (int, np.integer)) and 0 <= action < len(legal))
                or not legal[action]
            ):
                obs, info = self._observation()
                info["illegal_action"] = True
                return obs, -1.0, True, False, info
        self.aec.step(action)
        self._advance()
        obs, info = self._observation()
        terminated = bool(self.aec.terminations[self.learner])
        truncated = bool(self.aec.truncations[self.learner]) and not terminated
        reward = float(self.aec._cumulative_rewards[self.learner]) if terminated else 0.0
        return obs, reward, terminated, truncated, info

    def render(self):
        """Render the underlying game (``ansi`` text or an ``rgb_array`` picture)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
