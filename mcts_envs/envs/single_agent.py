"""One seat of a two-player game as a single-agent Gymnasium env, the other seat played by an opponent.

This is the view Stable-Baselines3's ``MaskablePPO`` (sb3-contrib) trains on: observations are the
game's planes from the learner's view, :meth:`SingleAgentEnv.action_masks` gives the legal actions,
and the reward is +1 / -1 / 0 at the end (-1 also when the opponent's reply ends the game). The
opponent is any callable ``opponent(env) -> action`` that reads the AEC env (every agent's ``act``
fits), or an object with such an ``act`` method, so search agents, frozen policies or self-play
snapshots can sit in the other seat. For many games at once see :mod:`mcts_envs.rl`.

Registered with Gymnasium when ``mcts_envs`` is imported, one id per game::

    import gymnasium, mcts_envs
    env = gymnasium.make("mcts_envs/TicTacToe-v0", opponent=make_agent("alphabeta").act)

(ids: ``mcts_envs/TicTacToe-v0``, ``UltimateTicTacToe-v0``, ``PentagoTwist-v0``, ``Ataxx-v0``,
``Tantrix-v0``; :func:`gymnasium_id` gives a game's id). In a fresh interpreter, or from a config
file, prefix the module so Gymnasium imports it first: ``gymnasium.make("mcts_envs:mcts_envs/
TicTacToe-v0")`` (a bare id needs ``import mcts_envs`` before ``gymnasium.make``).

Render modes: ``ansi`` (text) always; ``rgb_array`` when pygame (the ``render`` extra) is
installed, and only then is it listed in ``metadata["render_modes"]``, so Gymnasium's
``check_env`` passes on the core install.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from mcts_envs.core.errors import InvalidOptionError, require_optional
from mcts_envs.core.game import check_action_type
from mcts_envs.core.registry import make
from mcts_envs.core.seeding import check_seed
from mcts_envs.envs import rendering
from mcts_envs.envs.gymnasium_registration import (  # noqa: F401  (their home was here)
    gymnasium_id,
    register_gymnasium_envs,
)

SEATS = ("player_0", "player_1", "alternate")
#: The render modes of the one-seat view (no window: ``human`` belongs to the AEC env).
RENDER_MODES = ("ansi", "rgb_array")
ILLEGAL_ACTION_MODES = ("lose", "raise")


def available_render_modes() -> list[str]:
    """``["ansi", "rgb_array"]``, or ``["ansi"]`` when pygame (the ``render`` extra) is absent."""
    return rendering.available_render_modes(RENDER_MODES)


class SingleAgentEnv(gymnasium.Env):
    """A Gymnasium env for one seat of ``game``; the other seat is played by ``opponent``.

    Args:
        game: a registered game name (see ``mcts_envs.list_games()``).
        opponent: ``opponent(aec_env) -> action`` for the other seat (or an object with an
            ``act(aec_env)`` method, e.g. an agent); ``None`` plays uniformly at random with this
            env's ``np_random``.
        seat: ``"player_0"``, ``"player_1"`` or ``"alternate"`` (a fair coin from ``np_random`` at
            each reset).
        illegal_action: ``"lose"`` (default, so any action of the ``Discrete`` space is a valid
            step as Gymnasium expects): an illegal learner action ends the episode with reward -1
            and ``info["illegal_action"] = True``, the game unchanged; ``"raise"``: it raises
            :class:`~mcts_envs.core.errors.IllegalActionError` and changes nothing.
        opponent_factory: instead of ``opponent``, ``opponent_factory(seed) -> opponent``: each
            ``reset(seed=s)`` builds a fresh opponent with a seed derived from ``s`` (e.g.
            ``lambda seed: make_agent("mcts:iterations=200", seed=seed)``), so the opponent's own
            randomness follows the episode seed.
        image: observations as ``uint8`` channel-first images with values 0 / 255
            (``Box(0, 255, (C, H, W), uint8)``, what CNN policies expect); default: the game's
            ``int8`` planes ``(H, W, C)``.
        **env_kwargs: options of the game's AEC env (e.g. ``max_moves``, game options).

    Seeding: ``reset(seed=s)`` re-seeds this env and the AEC env and resets the opponent: an
    ``opponent_factory`` builds a new one from a seed drawn from ``s``; a plain ``opponent`` is
    restored to a deep copy of its state at construction. Either way the same seed gives the same
    episode, also against a seeded agent (``make_agent("random", seed=0).act``). Every reset calls
    the opponent agent's ``reset()`` (a new game); ``reset()`` without a seed continues the
    generators.

    Raises:
        InvalidOptionError: for a bad ``seat``, ``illegal_action`` or env option.
        OptionalDependencyError: for ``render_mode="rgb_array"`` without pygame.
    """

    #: ``render_fps`` is the game's own (its AEC env's) on each instance.
    metadata = {"render_modes": available_render_modes(), "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponent: Callable[[Any], int] | Any | None = None,
        seat: str = "alternate",
        render_mode: str | None = None,
        illegal_action: str = "lose",
        image: bool = False,
        opponent_factory: Callable[[int], Any] | None = None,
        **env_kwargs: Any,
    ):
        if seat not in SEATS:
            raise InvalidOptionError(f"seat must be one of {SEATS}, got {seat!r}")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise InvalidOptionError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        if opponent is not None and not callable(opponent) and not hasattr(opponent, "act"):
            raise InvalidOptionError(
                f"opponent must be None, a callable opponent(env) -> action or an agent with "
                f"act(env), got {opponent!r}"
                + (
                    f" (for an agent spec, pass mcts_envs.agents.spec.make_agent({opponent!r}))"
                    if isinstance(opponent, str)
                    else ""
                )
            )
        if opponent_factory is not None and (
            opponent is not None or not callable(opponent_factory)
        ):
            raise InvalidOptionError(
                "give opponent or opponent_factory (a callable seed -> opponent), not both"
            )
        if render_mode == "rgb_array":
            require_optional("pygame", "render")
        self.opponent_factory = opponent_factory
        if opponent_factory is not None:
            opponent = opponent_factory(0)
        self.illegal_action = illegal_action
        self.aec = make(game, raw=True, render_mode=render_mode, **env_kwargs)
        self.metadata = {
            "render_modes": available_render_modes(),
            "render_fps": self.aec.metadata["render_fps"],
        }
        self.opponent = opponent
        self._opponent_template = self._snapshot(opponent)
        self.seat_option = seat
        self.render_mode = render_mode
        self.image = bool(image)
        self.learner = "player_0"
        self._over = True
        self._started = False
        info = self.aec.game.info
        if self.image:
            h, w, c = info.observation_shape
            self.observation_space = spaces.Box(0, 255, (c, h, w), np.uint8)
        else:
            self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")

    @staticmethod
    def _snapshot(opponent: Any) -> Any:
        if opponent is None:
            return None
        try:
            return copy.deepcopy(opponent)
        except Exception as error:  # an opponent that cannot be copied still plays, unrestored
            warnings.warn(
                f"SingleAgentEnv: cannot copy the opponent ({error}); reset(seed) will not "
                f"restore its state",
                stacklevel=3,
            )
            return None

    def _opponent_agent(self) -> Any:
        """The object behind the opponent (the agent of a bound ``agent.act``)."""
        return getattr(self.opponent, "__self__", self.opponent)

    def _opponent_action(self) -> int:
        if self.opponent is not None:
            act = self.opponent if callable(self.opponent) else self.opponent.act
            return act(self.aec)
        legal = np.flatnonzero(self.aec.observe(self.aec.agent_selection)["action_mask"])
        return int(legal[self.np_random.integers(len(legal))])

    def _advance(self) -> None:
        """Let the opponent act until the learner is on move or the game is over."""
        aec = self.aec
        while not aec.terminations[self.learner] and not aec.truncations[self.learner]:
            if aec.agent_selection == self.learner:
                return
            aec.step(self._opponent_action())

    def _convert(self, planes: np.ndarray) -> np.ndarray:
        if not self.image:
            return planes
        return (np.moveaxis(planes, -1, 0).astype(np.uint8) * np.uint8(255)).copy()

    def _observation(self) -> tuple[np.ndarray, dict[str, Any]]:
        obs = self.aec.observe(self.learner)
        info = dict(self.aec.infos.get(self.learner, {}))
        info["action_mask"] = obs["action_mask"]
        info["seat"] = self.aec.possible_agents.index(self.learner)
        return self._convert(obs["observation"]), info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as ``int8[num_actions]`` (MaskablePPO's hook)."""
        return self.aec.observe(self.learner)["action_mask"]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a game; returns ``(obs, info)`` (see the class docstring for seeding)."""
        seed = check_seed(seed)
        super().reset(seed=seed)
        if seed is not None and self.opponent_factory is not None:
            self.opponent = self.opponent_factory(int(self.np_random.integers(2**31)))
        elif seed is not None and self._opponent_template is not None:
            self.opponent = copy.deepcopy(self._opponent_template)
        reset_hook = getattr(self._opponent_agent(), "reset", None)
        if callable(reset_hook):
            reset_hook()
        if self.seat_option == "alternate":
            self.learner = "player_0" if self.np_random.integers(2) == 0 else "player_1"
        else:
            self.learner = self.seat_option
        self.aec.reset(seed=int(self.np_random.integers(2**31)))
        self._advance()
        self._started = True
        self._over = bool(self.aec.terminations[self.learner] or self.aec.truncations[self.learner])
        return self._observation()

    def step(self, action: int):
        """Play the learner's ``action``, then the opponent's replies; Gymnasium's 5-tuple.

        Raises:
            gymnasium.error.ResetNeeded: before the first ``reset()`` or after the episode ended.
            IllegalActionError: for an illegal action with ``illegal_action="raise"``.
        """
        if not self._started or self._over:
            raise gymnasium.error.ResetNeeded(
                f"{self.aec.metadata['name']}: the episode is over (or never started); call "
                f"reset() before step()"
            )
        if self.illegal_action == "lose":
            legal = self.action_masks()
            try:
                index = check_action_type(action)
            except TypeError:
                index = -1
            if not 0 <= index < len(legal) or not legal[index]:
                obs, info = self._observation()
                info["illegal_action"] = True
                self._over = True
                return obs, -1.0, True, False, info
        self.aec.step(action)
        self._advance()
        obs, info = self._observation()
        terminated = bool(self.aec.terminations[self.learner])
        truncated = bool(self.aec.truncations[self.learner]) and not terminated
        reward = float(self.aec._cumulative_rewards[self.learner]) if terminated else 0.0
        self._over = terminated or truncated
        return obs, reward, terminated, truncated, info

    def render(self):
        """Render the underlying game (``ansi`` text or an ``rgb_array`` picture)."""
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
