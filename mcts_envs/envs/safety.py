"""``env()``'s safety layer: PettingZoo's three classic wrappers fused into one.

PettingZoo wraps classic envs in TerminateIllegal -> AssertOutOfBounds -> OrderEnforcing; each
layer forwards every attribute through ``__getattr__``, which costs about 4x in a random-play
loop. :class:`SafeEnv` gives the same behaviour in one layer:

* calls before ``reset()`` raise, as with ``OrderEnforcingWrapper`` (it *is* one, so
  ``agent_iter`` checks that ``step`` is called in the loop): ``step``, ``last``, ``observe``
  and ``render`` raise :class:`~mcts_envs.core.errors.ResetRequiredError` (the raw env's error,
  also an ``AssertionError`` as PettingZoo's), attributes such as ``agent_selection`` raise
  ``AttributeError`` as PettingZoo's do;
* an action of the wrong type or outside the action space raises
  :class:`~mcts_envs.core.errors.IllegalActionError` and changes nothing;
* a legal-range but illegal action ends the game: the mover gets ``illegal_reward`` (-1), the other
  0, everyone is terminated and truncated, and a warning is logged (``TerminateIllegalWrapper``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from mcts_envs.core.errors import ResetRequiredError


class SafeEnv(OrderEnforcingWrapper):
    """One-layer equivalent of PettingZoo's classic wrapper stack (see module docstring)."""

    def __init__(self, env: Any, illegal_reward: float = -1.0):
        super().__init__(env)
        self._illegal_reward = float(illegal_reward)
        self._raw = env.unwrapped

    # Hot attributes read directly (no __getattr__ chain), guarded like OrderEnforcingWrapper.
    def _guard(self, name: str) -> None:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")

    @property
    def agent_selection(self) -> str:
        self._guard("agent_selection")
        return self._raw.agent_selection

    @property
    def terminations(self) -> dict:
        self._guard("terminations")
        return self._raw.terminations

    @property
    def truncations(self) -> dict:
        self._guard("truncations")
        return self._raw.truncations

    @property
    def rewards(self) -> dict:
        self._guard("rewards")
        return self._raw.rewards

    @property
    def infos(self) -> dict:
        self._guard("infos")
        return self._raw.infos

    @property
    def agents(self) -> list:
        self._guard("agents")
        return self._raw.agents

    @property
    def num_agents(self) -> int:
        self._guard("num_agents")
        return len(self._raw.agents)

    @property
    def _cumulative_rewards(self) -> dict:
        return self._raw._cumulative_rewards

    def action_space(self, agent: str):
        return self._raw.action_spaces[agent]

    def observation_space(self, agent: str):
        return self._raw.observation_spaces[agent]

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise ResetRequiredError(f"{self._raw}: call reset() before {what}")

    def last(self, observe: bool = True):
        self._require_reset("last()")
        return self._raw.last(observe)

    def observe(self, agent: str):
        self._require_reset("observe()")
        return self._raw.observe(agent)

    def render(self):
        self._require_reset("render()")
        return self._raw.render()

    def step(self, action: Any) -> None:
        """Step with PettingZoo's classic safety (see module docstring)."""
        raw = self._raw
        self._require_reset("step()")
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        action = raw._check_in_action_space(action)
        if not raw._legal_mask()[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0.0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.agents, 0.0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            return
        raw._play(action)

    def __str__(self) -> str:
        return str(self._raw)
