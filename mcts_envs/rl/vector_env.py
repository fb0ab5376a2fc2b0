"""A Gymnasium vector env for a single-agent learner against an opponent, on a :class:`VectorGame`.

Env ``i`` is one seat of a two-player game; the other seat is played by a batched opponent
(:mod:`mcts_envs.rl.opponents`). Every observation the learner gets is a position where the
learner is on move, from its own view.

* **Seats alternate**: with ``seats="alternate"`` (default) env ``i`` starts with the learner as
  ``player_{i % 2}`` and swaps seats at every new game, so the learner plays both sides equally.
* **Rewards**: the learner's +1 / -1 / 0 when its game ends, *also when the opponent's move ends
  it* (the learner then gets -1 for the opponent's win, on the step that played the learner's
  previous move). Rewards are zero before the end.
* **Auto-reset: same step** (``metadata["autoreset_mode"] = AutoresetMode.SAME_STEP``): the step
  that ends env ``i``'s game returns its reward with ``terminated[i]`` (or ``truncated[i]``) and
  already the first learner position of the next game; the learner's view of the final position
  is ``infos["final_obs"][i]`` (where ``infos["_final_obs"][i]``).
* ``infos["action_mask"]`` and :meth:`LearnerVectorEnv.action_masks` give ``bool[N, A]`` legal
  actions; ``infos["seat"]`` the learner's seat per env.
* ``image=True`` turns observations into ``uint8`` channel-first images with values 0 / 255
  (``Box(0, 255, (C, H, W), uint8)``), the format of CNN policies (Stable-Baselines3's
  ``CnnPolicy`` checks exactly these bounds).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from mcts_envs.core.errors import InvalidOptionError
from mcts_envs.core.seeding import check_seed
from mcts_envs.rl.opponents import OpponentView, check_opponent_actions, random_opponent
from mcts_envs.vector import VectorGame

SEAT_OPTIONS = ("alternate", "player_0", "player_1")


def to_image(planes: np.ndarray) -> np.ndarray:
    """``[..., H, W, C]`` 0/1 planes as ``uint8 [..., C, H, W]`` with values 0 / 255."""
    moved = np.moveaxis(planes, -1, -3)
    return (moved.astype(np.uint8) * np.uint8(255)).copy()


def observation_space_of(info: Any, image: bool) -> spaces.Box:
    """The learner's single observation space for a game's :class:`GameInfo`."""
    if image:
        h, w, c = info.observation_shape
        return spaces.Box(0, 255, (c, h, w), np.uint8)
    return spaces.Box(0, info.observation_high, info.observation_shape, info.observation_dtype)


class LearnerVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games where a learner plays one seat and ``opponent`` the other.

    Args:
        game: a registered game name.
        num_envs: number of games stepped together.
        opponent: a batched opponent (see :mod:`mcts_envs.rl.opponents`); ``None`` plays uniformly
            random legal moves (re-seeded by ``reset(seed)``).
        seed: seed of the games' chance generators (and of the default opponent).
        seats: ``"alternate"`` (default), ``"player_0"`` or ``"player_1"``.
        image: ``uint8`` channel-first observations with values 0 / 255.
        vector_kwargs: options of :class:`~mcts_envs.vector.VectorGame` (``max_moves``,
            ``illegal_action``, ``penalty``, ``threads``, game options).

    Raises:
        InvalidOptionError: for a bad ``seats`` or VectorGame option.
    """

    def __init__(
        self,
        game: str,
        num_envs: int,
        opponent: Any = None,
        seed: int | None = None,
        *,
        seats: str = "alternate",
        image: bool = False,
        **vector_kwargs: Any,
    ) -> None:
        if seats not in SEAT_OPTIONS:
            raise InvalidOptionError(f"seats must be one of {SEAT_OPTIONS}, got {seats!r}")
        self.vector = VectorGame(game, num_envs, seed, **vector_kwargs)
        self.game = self.vector.game
        self.num_envs = self.vector.num_envs
        self.opponent = opponent if opponent is not None else random_opponent(seed)
        self.seats_option = seats
        self.image = bool(image)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = observation_space_of(self.game.info, self.image)
        self.single_action_space = spaces.Discrete(self.game.info.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.seats = np.zeros(self.num_envs, np.int64)
        self._batch = None

    # -- helpers ------------------------------------------------------------------------------
    def _initial_seats(self) -> np.ndarray:
        if self.seats_option == "alternate":
            return np.arange(self.num_envs, dtype=np.int64) % 2
        return np.full(self.num_envs, int(self.seats_option[-1]), np.int64)

    def _observe(self, planes: np.ndarray) -> np.ndarray:
        return to_image(planes) if self.image else planes

    def _opponent_moves(self, totals: dict[str, np.ndarray]) -> None:
        """Let the opponent play until the learner is on move in every env."""
        for _ in range(10_000 * max(1, self.game.info.max_game_length)):
            batch = self._batch
            pending = batch.current_player != self.seats
            if not pending.any():
                return
            rows = np.flatnonzero(pending)
            view = OpponentView(
                batch.observation[rows],
                batch.legal_action_mask[rows],
                self.vector.states[rows],
                rows,
                batch.current_player[rows],
                self.game,
            )
            chosen = check_opponent_actions(self.opponent(view), view, _name(self.opponent))
            actions = np.zeros(self.num_envs, np.int64)
            actions[rows] = chosen
            self._batch = self.vector.step(actions, active=pending)
            self._collect(self._batch, totals)
        raise RuntimeError("the opponent kept moving without the learner's turn coming")

    def _collect(self, batch: Any, totals: dict[str, np.ndarray]) -> None:
        """Add the learner's rewards and flags of ``batch``; swap seats of ended games."""
        ended = batch.terminated | batch.truncated
        totals["reward"] += batch.rewards[np.arange(self.num_envs), self.seats]
        totals["terminated"] |= batch.terminated
        totals["truncated"] |= batch.truncated & ~batch.terminated
        for i in np.flatnonzero(ended):
            totals["final_obs"][i] = self._observe(
                self.game.observation(batch.final_state[i], int(self.seats[i]))
            )
            totals["final_state"][i] = batch.final_state[i]
        totals["ended"] |= ended
        if ended.any():
            new_games = np.flatnonzero(ended)
            if self.seats_option == "alternate":
                self.seats[new_games] = 1 - self.seats[new_games]
            hook = getattr(self.opponent, "new_games", None)
            if hook is not None:
                hook(new_games)

    def _totals(self) -> dict[str, np.ndarray]:
        n = self.num_envs
        return {
            "reward": np.zeros(n, np.float32),
            "terminated": np.zeros(n, np.bool_),
            "truncated": np.zeros(n, np.bool_),
            "ended": np.zeros(n, np.bool_),
            "final_obs": np.zeros((n, *self.single_observation_space.shape), self._obs_dtype()),
            "final_state": np.zeros((n, self.game.info.state_size), np.int64),
        }

    def _obs_dtype(self) -> Any:
        return self.single_observation_space.dtype

    def _infos(self, totals: dict[str, np.ndarray] | None) -> dict[str, Any]:
        infos: dict[str, Any] = {
            "action_mask": self._batch.legal_action_mask.copy(),
            "seat": self.seats.copy(),
        }
        if totals is not None and totals["ended"].any():
            infos["final_obs"] = totals["final_obs"]
            infos["_final_obs"] = totals["ended"].copy()
            infos["final_state"] = totals["final_state"]
        return infos

    # -- Gymnasium API ------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a game in every env; ``seed`` re-seeds the games and ``opponent.reset(seed)``.

        Returns:
            ``(observation [N, ...], infos)``.
        """
        seed = check_seed(seed)
        if seed is not None:
            hook = getattr(self.opponent, "reset", None)
            if hook is not None:
                hook(seed)
        self.seats = self._initial_seats()
        self._batch = self.vector.reset(seed)
        hook = getattr(self.opponent, "new_games", None)
        if hook is not None:
            hook(np.arange(self.num_envs))
        self._opponent_moves(self._totals())
        return self._observe(self._batch.observation), self._infos(None)

    def step(self, actions: Any):
        """Play the learner's ``actions`` [N], then the opponent's replies (see module docstring).

        Raises:
            RuntimeError: before :meth:`reset`.
            IllegalActionError: for an illegal learner action (unless ``illegal_action=
                "penalty"``) or an illegal opponent action; no env changed by the learner's step.
        """
        if self._batch is None:
            raise RuntimeError("LearnerVectorEnv: call reset() before step()")
        totals = self._totals()
        self._batch = self.vector.step(actions)
        self._collect(self._batch, totals)
        self._opponent_moves(totals)
        return (
            self._observe(self._batch.observation),
            totals["reward"],
            totals["terminated"],
            totals["truncated"],
            self._infos(totals),
        )

    def action_masks(self) -> np.ndarray:
        """``bool[N, num_actions]``: the learner's legal actions in each env."""
        if self._batch is None:
            raise RuntimeError("LearnerVectorEnv: call reset() before action_masks()")
        return self._batch.legal_action_mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        return None


def _name(opponent: Any) -> str:
    return repr(getattr(opponent, "name", type(opponent).__name__))
