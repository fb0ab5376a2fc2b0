"""Exception types of the package.

Every error says what was wrong and what is allowed. All derive from :class:`MctsEnvsError`,
and each also derives from the built-in exception a Python user would expect
(``ValueError``, ``TypeError``, ``KeyError``, ``ImportError``), so ``except ValueError`` keeps working.
"""

from __future__ import annotations


class MctsEnvsError(Exception):
    """Base class of every error raised by mcts-envs."""


class IllegalActionError(MctsEnvsError, ValueError):
    """An action that is not legal in the current state (or is out of the action space)."""


class ActionTypeError(IllegalActionError, TypeError):
    """An action of the wrong type (actions are integers, ``int`` or a NumPy integer)."""


class InvalidRecordError(MctsEnvsError, ValueError):
    """A malformed text record (position string, FEN, game record) that cannot be parsed."""


class InvalidStateError(InvalidRecordError):
    """A state array that is not a position of its game: a word out of its range, words that
    contradict each other, or (from ``validate_state``) a position no record describes.

    A subclass of :class:`InvalidRecordError`, which ``validate_state`` raised before."""


class StateTypeError(InvalidStateError, TypeError):
    """An object that is not a state array of the game (not an ``int64`` array of its shape)."""


class UnknownGameError(MctsEnvsError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class InvalidSeedError(MctsEnvsError, TypeError):
    """A seed that is not ``None`` or a non-negative integer."""


class EnvUsageError(MctsEnvsError, RuntimeError):
    """An env method called out of order: before ``reset()`` or after the game has ended."""


class ResetRequiredError(EnvUsageError, AssertionError):
    """An env method called before the first ``reset()``; also an ``AssertionError``, which
    PettingZoo's order-enforcing wrapper raises in this case."""


class InvalidOptionError(MctsEnvsError, ValueError):
    """An unknown or out-of-range option passed to a game, env or agent."""


class OptionalDependencyError(MctsEnvsError, ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""


def require_optional(module: str, extra: str):
    """Import ``module`` lazily or raise :class:`OptionalDependencyError` naming ``extra``.

    Returns:
        The imported module.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise OptionalDependencyError(
            f"{module!r} is needed for this feature but is not installed; "
            f"install it with: pip install 'mcts-envs[{extra}]'"
        ) from error


class SearchError(MctsEnvsError, RuntimeError):
    """A search that cannot go on: a leaf evaluation or rollout gave a non-finite value or an
    output of the wrong shape, or selection found no child to follow. Raised instead of reading
    or writing outside the search tree."""
