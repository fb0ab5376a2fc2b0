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
  already the first learner position of the next game. The infos are those Gymnasium's
  ``SyncVectorEnv`` gives in that mode: each key with its ``_key`` mask, ``infos["final_obs"]``
  an object array holding the learner's view of each ended game's final position (``None``
  elsewhere), ``infos["final_info"]`` the ended games' infos (``action_mask``, ``seat``, and
  ``illegal_action`` for a game an illegal learner action ended); ``infos["final_state"]`` adds
  the forward-model states.
* ``infos["action_mask"]`` and :meth:`LearnerVectorEnv.action_masks` give ``bool[N, A]`` legal
  actions, :meth:`LearnerVectorEnv.legal_lists` the same as lists; ``infos["seat"]`` the
  learner's seat per env.
* ``gymnasium.make_vec("mcts_envs/<Game>-v0", n)`` builds one through every id's
  ``vector_entry_point`` (:func:`make_learner_vector_env`).
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
from mcts_envs.rl.opponents import (
    OpponentView,
    ViewSource,
    check_opponent_actions,
    random_opponent,
)
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
        copy: ``True`` (default, as Gymnasium's ``SyncVectorEnv``): observations, masks and infos
            are fresh arrays. ``False``: the observations (unless ``image``), ``infos["action_mask"]``
            and :meth:`action_masks` are read-only views of the vector's buffers, overwritten by
            the next step (what a loop that consumes them at once saves: Tantrix's 64 envs hold
            6 MB of observations and 7.7 MB of masks).
        vector_kwargs: options of :class:`~mcts_envs.vector.VectorGame` (``max_moves``,
            ``illegal_action``, ``penalty``, ``threads``, ``random_first_player``, game options).

    ``copy.deepcopy`` and ``pickle`` give an independent env in the same games (its opponent
    copied with it; an opponent that cannot be copied makes the copy fail with the reason).

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
        copy: bool = True,
        **vector_kwargs: Any,
    ) -> None:
        if seats not in SEAT_OPTIONS:
            raise InvalidOptionError(f"seats must be one of {SEAT_OPTIONS}, got {seats!r}")
        if not isinstance(copy, (bool, np.bool_)):
            raise InvalidOptionError(f"copy must be True or False, got {copy!r}")
        self.copy = bool(copy)
        self.vector = VectorGame(game, num_envs, seed, copy=False, **vector_kwargs)
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
        self._started = False

    # -- helpers ------------------------------------------------------------------------------
    def _initial_seats(self) -> np.ndarray:
        if self.seats_option == "alternate":
            return np.arange(self.num_envs, dtype=np.int64) % 2
        return np.full(self.num_envs, int(self.seats_option[-1]), np.int64)

    def _observe(self, planes: np.ndarray, keep: bool = True) -> np.ndarray:
        """The learner's observation of ``planes``; a view unless ``keep`` or ``copy``."""
        if self.image:
            return to_image(planes)
        return planes.copy() if keep or self.copy else planes

    def _masks(self) -> np.ndarray:
        masks = self.vector.batch.legal_action_mask
        return np.array(masks) if self.copy else masks

    def _opponent_moves(self, totals: dict[str, Any]) -> None:
        """Let the opponent play until the learner is on move in every env."""
        vector = self.vector
        for _ in range(10_000 * max(1, self.game.info.max_game_length)):
            batch = vector.batch  # read-only views of the vector's buffers
            pending = batch.current_player != self.seats
            if not pending.any():
                return
            rows = np.flatnonzero(pending)
            lists = vector.legal_lists()
            source = ViewSource(
                batch.observation, batch.legal_action_mask, vector.states_view, *(lists or ())
            )
            view = OpponentView.gather(source, rows, batch.current_player[rows], self.game)
            chosen = check_opponent_actions(self.opponent(view), view, _name(self.opponent))
            actions = np.zeros(self.num_envs, np.int64)
            actions[rows] = chosen
            self._collect(vector.step(actions, active=pending), totals)
        raise RuntimeError("the opponent kept moving without the learner's turn coming")

    def _collect(self, batch: Any, totals: dict[str, Any]) -> None:
        """Add the learner's rewards and flags of ``batch``; keep what the ended games' final
        infos need; swap seats of ended games."""
        ended = batch.terminated | batch.truncated
        totals["reward"] += batch.rewards[np.arange(self.num_envs), self.seats]
        totals["terminated"] |= batch.terminated
        totals["truncated"] |= batch.truncated & ~batch.terminated
        if not ended.any():
            return
        if "final_obs" not in totals:  # the first game to end in this step
            n = self.num_envs
            totals["final_obs"] = np.full(n, None, dtype=object)
            totals["final_state"] = np.zeros((n, self.game.info.state_size), np.int64)
            totals["final_seat"] = np.zeros(n, np.int64)
            totals["final_masks"] = {}
            totals["illegal"] = np.zeros(n, np.bool_)
        rows = np.flatnonzero(ended)
        final_states = batch.final_state[rows]
        seats = self.seats[rows]
        game_seats = seats ^ batch.final_first_player[rows]  # the learner's seat in the game
        planes = self.vector.observe(game_seats, final_states)
        for j, i in enumerate(rows):
            totals["final_obs"][i] = self._observe(planes[j])
            if batch.truncated[i] and self.game.current_player(final_states[j]) == game_seats[j]:
                # cut with the learner on move: its legal actions there, as the one-game env's
                totals["final_masks"][i] = self.game.action_mask(final_states[j]) == 1
        totals["final_state"][rows] = final_states
        totals["final_seat"][rows] = seats
        totals["illegal"][rows] = batch.illegal[rows]
        totals["ended"][rows] = True
        if self.seats_option == "alternate":
            self.seats[rows] = 1 - self.seats[rows]
        hook = getattr(self.opponent, "new_games", None)
        if hook is not None:
            hook(rows)

    def _totals(self) -> dict[str, Any]:
        n = self.num_envs
        return {
            "reward": np.zeros(n, np.float32),
            "terminated": np.zeros(n, np.bool_),
            "truncated": np.zeros(n, np.bool_),
            "ended": np.zeros(n, np.bool_),  # the final_* entries come with the first end
        }

    def _infos(self, totals: dict[str, Any] | None) -> dict[str, Any]:
        """Gymnasium's vector infos: every key with its ``_key`` mask of the envs that have it;
        ``final_obs`` / ``final_info`` of the games that ended, as ``SyncVectorEnv`` gives them in
        ``SAME_STEP`` mode."""
        n = self.num_envs
        everyone = np.ones(n, np.bool_)
        infos: dict[str, Any] = {
            "action_mask": self._masks(),
            "_action_mask": everyone,
            "seat": self.seats.copy(),
            "_seat": everyone.copy(),
        }
        if totals is None or not totals["ended"].any():
            return infos
        ended = totals["ended"]
        final_masks = np.zeros((n, self.game.info.num_actions), np.bool_)  # no learner move
        for i, mask in totals["final_masks"].items():
            final_masks[i] = mask
        final_info: dict[str, Any] = {
            "action_mask": final_masks,
            "_action_mask": ended.copy(),
            "seat": totals["final_seat"],
            "_seat": ended.copy(),
        }
        if totals["illegal"].any():
            final_info["illegal_action"] = totals["illegal"].copy()
            final_info["_illegal_action"] = totals["illegal"].copy()
        infos.update(
            final_obs=totals["final_obs"],
            _final_obs=ended.copy(),
            final_info=final_info,
            _final_info=ended.copy(),
            final_state=totals["final_state"],
            _final_state=ended.copy(),
        )
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
        self.vector.reset(seed)
        self._started = True
        hook = getattr(self.opponent, "new_games", None)
        if hook is not None:
            hook(np.arange(self.num_envs))
        self._opponent_moves(self._totals())
        return self._observe(self.vector.batch.observation, keep=False), self._infos(None)

    def step(self, actions: Any):
        """Play the learner's ``actions`` [N], then the opponent's replies (see module docstring).

        Raises:
            RuntimeError: before :meth:`reset`.
            IllegalActionError: for an illegal learner action (unless ``illegal_action=
                "penalty"``) or an illegal opponent action; no env changed by the learner's step.
        """
        if not self._started:
            raise RuntimeError("LearnerVectorEnv: call reset() before step()")
        totals = self._totals()
        self._collect(self.vector.step(actions), totals)
        self._opponent_moves(totals)
        return (
            self._observe(self.vector.batch.observation, keep=False),
            totals["reward"],
            totals["terminated"],
            totals["truncated"],
            self._infos(totals),
        )

    def action_masks(self) -> np.ndarray:
        """``bool[N, num_actions]``: the learner's legal actions in each env."""
        if not self._started:
            raise RuntimeError("LearnerVectorEnv: call reset() before action_masks()")
        return self._masks()

    def legal_lists(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The learner's legal actions as lists: read-only views ``(legal int64[N, k], counts
        int64[N])``, env ``i``'s being ``legal[i, :counts[i]]``, or ``None`` for a game whose
        vector keeps no lists (:meth:`~mcts_envs.vector.VectorGame.legal_lists`). Overwritten by
        the next step. A sampler or a policy scoring only the legal actions reads ``O(legal)``
        entries per env where a mask row is ``num_actions`` wide (Tantrix: 121,104).

        Raises:
            RuntimeError: before :meth:`reset`.
        """
        if not self._started:
            raise RuntimeError("LearnerVectorEnv: call reset() before legal_lists()")
        return self.vector.legal_lists()

    def close_extras(self, **kwargs: Any) -> None:
        return None


def make_learner_vector_env(
    num_envs: int = 1,
    game: str = "tictactoe",
    opponent: Any = None,
    seed: int | None = None,
    seat: str = "alternate",
    illegal_action: str = "lose",
    image: bool = False,
    render_mode: str | None = None,
    **options: Any,
) -> LearnerVectorEnv:
    """Gymnasium's ``vector_entry_point`` of every id: ``gymnasium.make_vec("mcts_envs/<Game>-v0",
    n, vectorization_mode="vector_entry_point")`` is a :class:`LearnerVectorEnv`.

    Takes the one-game env's options with their meaning (:class:`~mcts_envs.envs.single_agent.
    SingleAgentEnv`): ``seat`` (``"alternate"``: the learner plays both seats equally, here in
    turn), ``illegal_action`` (``"lose"``: an illegal learner action ends its game with -1;
    ``"raise"``), ``image`` and the env's options (``max_moves``, ``random_first_player``, game
    options); ``opponent`` is a *batched* opponent (:mod:`mcts_envs.rl.opponents`), not the
    one-game env's ``opponent(env)``.

    Raises:
        InvalidOptionError: for a bad ``seat``, ``illegal_action`` or option, or a
            ``render_mode`` (the batched env has none).
    """
    if illegal_action not in ("lose", "raise"):
        raise InvalidOptionError(
            f"illegal_action must be one of ('lose', 'raise'), got {illegal_action!r}"
        )
    if render_mode is not None:
        raise InvalidOptionError(
            f"the batched env does not render (render_mode={render_mode!r}); use the one-game env "
            "(vectorization_mode='sync') or mcts_envs.make(game, render_mode=...)"
        )
    if seat not in SEAT_OPTIONS:
        raise InvalidOptionError(f"seat must be one of {SEAT_OPTIONS}, got {seat!r}")
    mode = {"lose": "penalty", "raise": "raise"}[illegal_action]
    return LearnerVectorEnv(
        game,
        num_envs,
        opponent,
        seed,
        seats=seat,
        image=image,
        illegal_action=mode,
        **options,
    )


def _name(opponent: Any) -> str:
    return repr(getattr(opponent, "name", type(opponent).__name__))
