"""A torch network as the batched leaf evaluator of the PUCT search (the ``train`` extra).

``TorchEvaluator(model)`` is a callable ``(observations, masks) -> (priors, values)``, the
interface of :mod:`mcts_envs.agents.mcts.puct`: give it to the MCTS agent as ``evaluator=`` and selection
becomes PUCT with the network's priors and values at the leaves::

    from mcts_envs.agents.mcts import MCTSAgent
    from mcts_envs.agents.learned.torch_evaluator import TorchEvaluator

    evaluator = TorchEvaluator(model)               # model(x) -> (logits, values)
    agent = MCTSAgent(iterations=200, evaluator=evaluator, batch_size=8, seed=0)
    result = agent.search(env)                      # visits, root value, ...
    result.evaluator_calls, result.evaluated_leaves, result.mean_batch  # this search
    print(evaluator.stats())                        # running totals, batch histogram

The model takes a ``float32`` tensor ``[B, *observation_shape]`` (the game's observations from
the view of the player to move, stacked) and returns ``(logits [B, num_actions], values [B] or
[B, 1])``, values in [-1, 1] from the view of the player to move (a ``tanh`` head). Priors are
the softmax of the logits over the legal actions only. Evaluation runs on the CPU under
``torch.inference_mode()``, with the model switched to ``eval()`` for the call and put back in
the mode it was in, so one model can be trained between searches.

Each search reports its own evaluator calls and leaves in its result
(:attr:`~mcts_envs.agents.result.SearchResult.evaluator_calls`, ``evaluated_leaves``, ``mean_batch``).
The evaluator also keeps running totals across searches, with the histogram of batch sizes and
the time spent in the network (:meth:`TorchEvaluator.stats`; :meth:`TorchEvaluator.reset_stats`
starts a new count).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, NamedTuple

import numpy as np

from mcts_envs.core.errors import InvalidOptionError, require_optional


class EvaluatorStats(NamedTuple):
    """What a :class:`TorchEvaluator` did since its last :meth:`~TorchEvaluator.reset_stats`.

    Attributes:
        calls: evaluator calls (one per batch of leaves).
        positions: leaves evaluated (the sum of the batch sizes).
        mean_batch: ``positions / calls`` (0 without calls).
        max_batch: the largest batch seen (0 without calls).
        batch_sizes: ``{batch size: number of calls}``.
        seconds: wall-clock time spent inside the calls (conversion and network).
    """

    calls: int
    positions: int
    mean_batch: float
    max_batch: int
    batch_sizes: dict[int, int]
    seconds: float


class TorchEvaluator:
    """Batched leaf evaluation with a torch model (CPU, inference mode, masked softmax).

    Args:
        model: a ``torch.nn.Module`` (or any callable on tensors) mapping ``float32``
            observations ``[B, ...]`` to ``(logits [B, num_actions], values [B] or [B, 1])``.
        threads: if given, ``torch.set_num_threads(threads)`` once here (a process-wide torch
            setting; default ``None`` leaves it alone).

    Raises:
        OptionalDependencyError: without torch (``pip install 'mcts-envs[train]'``).
        InvalidOptionError: if ``model`` is not callable or ``threads`` is not a positive int.
    """

    def __init__(self, model: Any, threads: int | None = None) -> None:
        self._torch = require_optional("torch", "train")
        if not callable(model):
            raise InvalidOptionError(
                f"TorchEvaluator needs a callable model (a torch.nn.Module), got {model!r}"
            )
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
                raise InvalidOptionError(f"threads must be a positive int, got {threads!r}")
            self._torch.set_num_threads(threads)
        self.model = model
        self.reset_stats()

    def reset_stats(self) -> None:
        """Forget the counts of calls and batch sizes."""
        self._calls = 0
        self._positions = 0
        self._batches: Counter[int] = Counter()
        self._seconds = 0.0

    def stats(self) -> EvaluatorStats:
        """The counts since the last :meth:`reset_stats` (or construction)."""
        return EvaluatorStats(
            calls=self._calls,
            positions=self._positions,
            mean_batch=self._positions / self._calls if self._calls else 0.0,
            max_batch=max(self._batches, default=0),
            batch_sizes=dict(sorted(self._batches.items())),
            seconds=self._seconds,
        )

    def __call__(
        self, observations: np.ndarray, masks: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(priors float32[B, num_actions], values float32[B])`` for a batch of leaves.

        Args:
            observations: ``[B, *observation_shape]`` observations of the leaves.
            masks: ``[B, num_actions]`` legal-action masks (nonzero = legal); every row needs a
                legal action (the search never sends terminal leaves).

        Raises:
            InvalidOptionError: if the batch sizes differ, a mask row has no legal action, or
                the model's output does not have the shapes above.
        """
        torch = self._torch
        start = time.perf_counter()
        observations = np.asarray(observations)
        masks = np.asarray(masks)
        batch = len(observations)
        if masks.ndim != 2 or len(masks) != batch:
            raise InvalidOptionError(
                f"TorchEvaluator: masks must be [B, num_actions] with B = {batch} observations, "
                f"got shape {masks.shape}"
            )
        legal = torch.from_numpy(masks != 0)
        if batch and not bool(legal.any(dim=1).all()):
            raise InvalidOptionError("TorchEvaluator: every mask row needs a legal action")
        inputs = torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32))
        was_training = bool(getattr(self.model, "training", False))
        if was_training:
            self.model.eval()
        try:
            with torch.inference_mode():
                logits, values = self.model(inputs)
                logits = logits.float()
                values = values.float().reshape(-1)
                if logits.shape != legal.shape or values.shape != (batch,):
                    raise InvalidOptionError(
                        f"TorchEvaluator: the model must return (logits {tuple(legal.shape)}, "
                        f"values ({batch},) or ({batch}, 1)); got {tuple(logits.shape)} and "
                        f"{tuple(values.shape)}"
                    )
                priors = torch.softmax(logits.masked_fill(~legal, float("-inf")), dim=1)
                out = priors.numpy().copy(), values.numpy().copy()
        finally:
            if was_training:
                self.model.train()
        self._calls += 1
        self._positions += batch
        self._batches[batch] += 1
        self._seconds += time.perf_counter() - start
        return out

    def __repr__(self) -> str:
        stats = self.stats()
        return (
            f"TorchEvaluator(model={type(self.model).__name__}, calls={stats.calls}, "
            f"mean_batch={stats.mean_batch:.2f})"
        )
