"""A fuzzer of the public :class:`~mcts_envs.core.game.Game` and
:class:`~mcts_envs.vector.VectorGame` methods on raw state arrays (run in a child process).

The arrays never went through ``validate_state``: random words (small, extreme, powers of two),
reachable states with a few words changed (by one, to another reachable state's word, to an
extreme, swapped, spliced), and arrays of the wrong dtype or shape. Every public method that
takes a state (``legal_actions``, ``apply``, ``observation``, ``to_text``, ``random_playout``, the
game's own extras such as ``board``, ...) is called on each; each call must return or raise a
package error (``MctsEnvsError``); a wrong dtype or shape must raise one that is also a
``TypeError``. A state the checks accept must play: ``apply`` of its legal actions gives states
the checks accept too. Every public ``VectorGame`` method that takes a ``states`` array
(``observe``, ``set_states``) gets each array as a batch, alone or beside a reachable state: it
must raise a package error when ``game.check_state`` refuses a row (``set_states``: when
``game.validate_state`` does), and otherwise ``observe`` must equal ``game.observation`` row by
row and ``set_states`` must give envs that step on.

A memory error in a kernel kills the process, so the tests run this module as a child process
(``python -m tests.games.state_fuzz GAME COUNT SEED``); it prints one JSON line as each array is
tried (so the parent can name the array that crashed it), one per broken contract, and a summary.
"""

from __future__ import annotations

import inspect
import json
import random
import sys
from collections.abc import Iterator

import numpy as np

from mcts_envs.core.errors import MctsEnvsError
from mcts_envs.core.game import CHANCE, TERMINAL
from mcts_envs.core.registry import make_game
from mcts_envs.vector import VectorGame
from tests.games.record_fuzz import reachable_records

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
EXTREMES = (INT64_MIN, INT64_MIN + 1, -(2**32), -(2**31), -2, -1, 0, 1, 2, 2**31, 2**32, INT64_MAX)
#: Parameters (after ``state``) the fuzzer knows how to fill.
ARGUMENTS = ("player", "action", "seed", "text")
#: Parameters of ``VectorGame`` methods (beside ``states``) the fuzzer knows how to fill (the
#: optional ones with their defaults).
VECTOR_ARGUMENTS = ("players", "indices", "step_counts", "chance_rngs", "first_players")
#: Envs of the fuzzed ``VectorGame``.
VECTOR_ENVS = 3


def hostile_word(rng: random.Random, near: int = 0) -> int:
    """A word likely to break a range assumption: small, extreme, a power of two or near ``near``."""
    kind = rng.randrange(6)
    if kind == 0:
        return rng.randrange(-3, 8)
    if kind == 1:
        return rng.choice(EXTREMES)
    if kind == 2:
        return rng.choice((1, -1)) << rng.randrange(63)
    if kind == 3:
        return min(max(near + rng.choice((-1, 1, -2, 2, 64, -64, 1024)), INT64_MIN), INT64_MAX)
    if kind == 4:
        return rng.randrange(INT64_MIN, INT64_MAX)
    return near ^ (1 << rng.randrange(63))  # one bit flipped


def wrong_arrays(game, rng: random.Random) -> Iterator[object]:
    """Objects that are not state arrays of ``game``: other dtypes and shapes, lists, None."""
    size = game.info.state_size
    state = game.initial_state()
    yield rng.choice(
        (
            state.astype(np.float64),
            state.astype(np.int32),
            state.astype(np.uint64),
            state.astype(np.int8),
            state.astype(bool),
            state.reshape(1, size),
            state[:-1].copy(),
            np.concatenate([state, [0]]),
            np.zeros((0,), np.int64),
            np.int64(0),
            state.tolist(),
            None,
            "x" * size,
            state.astype(object),
        )
    )


def arrays(game, rng: random.Random, count: int) -> Iterator[tuple[str, object]]:
    """``count`` ``(kind, array)`` cases: random, mutated-reachable and wrong-type arrays."""
    size = game.info.state_size
    pool = [game.from_text(text) for text in reachable_records(game, rng, 12)]
    for _ in range(count):
        kind = rng.choices(("random", "mutated", "spliced", "uniform", "wrong"), (2, 12, 2, 1, 1))[
            0
        ]
        if kind == "wrong":
            yield kind, next(wrong_arrays(game, rng))
            continue
        if kind == "random":
            state = np.array([hostile_word(rng) for _ in range(size)], dtype=np.int64)
        elif kind == "uniform":
            state = np.full(size, rng.choice(EXTREMES), np.int64)
        elif kind == "spliced":  # two reachable states cut and joined
            a, b = rng.choice(pool), rng.choice(pool)
            cut = rng.randrange(size + 1)
            state = np.concatenate([a[:cut], b[cut:]])
        else:
            state = rng.choice(pool).copy()
            for _ in range(rng.choice((1, 1, 1, 2, 3, 8))):
                index = rng.randrange(size)
                action = rng.randrange(3)
                if action == 0:
                    state[index] = hostile_word(rng, int(state[index]))
                elif action == 1:
                    state[index] = rng.choice(pool)[index]
                else:
                    other = rng.randrange(size)
                    state[index], state[other] = state[other], state[index]
        yield kind, state


def state_methods(game) -> list[tuple[str, list[str]]]:
    """Public methods of ``game`` whose first parameter is ``state``, with their other
    (fillable) parameter names."""
    methods = []
    for name in sorted(dir(game)):
        if name.startswith("_"):
            continue
        method = getattr(game, name)
        if not callable(method) or hasattr(method, "py_func"):
            continue  # not a method, or a compiled kernel (unchecked, like ``game.kernels``)
        try:
            parameters = list(inspect.signature(method).parameters)
        except (TypeError, ValueError):
            continue
        if parameters[:1] == ["state"] and all(p in ARGUMENTS for p in parameters[1:]):
            methods.append((name, parameters[1:]))
    return methods


def call_all(game, methods, state: object, rng: random.Random) -> list[str]:
    """Call every method on ``state``; the broken contracts found, as messages."""
    problems = []
    wrong_type = not (
        isinstance(state, np.ndarray)
        and state.dtype == np.int64
        and state.shape == (game.info.state_size,)
    )
    accepted = None
    try:
        game.check_state(state)
        accepted = True
    except MctsEnvsError as error:
        accepted = False
        if wrong_type and not isinstance(error, TypeError):
            problems.append(f"check_state: {type(error).__name__} is not a TypeError")
    except Exception as error:
        problems.append(f"check_state: {type(error).__name__}: {error}"[:300])
    if wrong_type and accepted:
        problems.append("check_state accepted an array of the wrong dtype or shape")
    action = rng.randrange(-2, game.info.num_actions + 2)
    if accepted:
        legal = game.legal_actions(state)
        if game.current_player(state) == CHANCE:
            legal = game.chance_outcomes(state)[0]
        if len(legal):
            action = int(legal[rng.randrange(len(legal))])
    values = {"player": rng.randrange(2), "action": action, "seed": rng.randrange(1000)}
    for name, parameters in methods:
        if name == "apply_unchecked" and not accepted:
            continue  # documented: for callers that checked the state and the action already
        if name == "apply_unchecked" and action not in (legal if accepted else ()):
            continue
        arguments = [values.get(p, "a1") for p in parameters]
        try:
            result = getattr(game, name)(state, *arguments)
        except MctsEnvsError as error:
            if wrong_type and not isinstance(error, TypeError):
                problems.append(f"{name}: {type(error).__name__} is not a TypeError")
            continue
        except Exception as error:
            problems.append(f"{name}: {type(error).__name__}: {error}"[:300])
            continue
        if accepted and name == "apply" and isinstance(result, np.ndarray):
            try:
                game.check_state(result)
            except MctsEnvsError as error:
                problems.append(f"apply of an accepted state gave a refused one: {error}"[:300])
    return problems


def vector_state_methods(vector: VectorGame) -> list[tuple[str, list[str]]]:
    """Public methods of ``vector`` that take a ``states`` array, with their parameter names."""
    methods = []
    for name in sorted(dir(type(vector))):
        attribute = getattr(type(vector), name)
        if name.startswith("_") or isinstance(attribute, property) or not callable(attribute):
            continue
        parameters = list(inspect.signature(getattr(vector, name)).parameters)
        if "states" in parameters:
            unknown = set(parameters) - {"states", *VECTOR_ARGUMENTS}
            if unknown:
                raise SystemExit(f"VectorGame.{name}: the fuzzer cannot fill {sorted(unknown)}")
            methods.append((name, parameters))
    return methods


def as_batch(state: object, pool: list[np.ndarray], rng: random.Random) -> tuple[object, int]:
    """``state`` as a ``states`` argument: one row, or a reachable row and it (in either order);
    returns the batch and the row that holds ``state``. Anything but a 1-D array becomes a
    wrong batch (an array one dimension up, or a list holding it)."""
    if not isinstance(state, np.ndarray):
        return [state], 0
    if state.ndim != 1:
        return state[None].copy(), 0
    if rng.random() < 0.5:
        return state[None].copy(), 0
    other = rng.choice(pool).astype(state.dtype)
    if other.shape != state.shape:
        return state[None].copy(), 0
    row = rng.randrange(2)
    return np.stack([other, state] if row else [state, other]), row


def call_vector(
    game, vector: VectorGame, methods, state: object, pool, rng: random.Random, passed: dict
) -> list[str]:
    """Call every ``VectorGame`` state method on ``state`` (in a batch); broken contracts.
    ``passed[name]`` counts the calls of each method that returned."""
    problems = []
    size = game.info.state_size
    wrong_type = not (
        isinstance(state, np.ndarray) and state.dtype == np.int64 and state.shape == (size,)
    )
    checked = valid = False
    if not wrong_type:
        try:
            game.check_state(state)
            checked = True
            game.validate_state(state)
            valid = game.current_player(state) != TERMINAL
        except MctsEnvsError:
            pass
    batch, row = as_batch(state, pool, rng)
    rows = len(batch) if isinstance(batch, np.ndarray) and batch.ndim == 2 else 1
    values = {
        "players": rng.randrange(2)
        if rng.random() < 0.5
        else np.array([rng.randrange(2) for _ in range(rows)]),
        "indices": rng.sample(range(VECTOR_ENVS), min(rows, VECTOR_ENVS)),
        "step_counts": None,
        "chance_rngs": None,
        "first_players": None,
        "states": batch,
    }
    for name, parameters in methods:
        should_pass = checked if name != "set_states" else valid
        try:
            result = getattr(vector, name)(*(values[p] for p in parameters))
        except MctsEnvsError as error:
            if wrong_type and not isinstance(error, TypeError):
                problems.append(f"VectorGame.{name}: {type(error).__name__} is not a TypeError")
            elif should_pass:
                problems.append(f"VectorGame.{name} refused an accepted state: {error}"[:300])
            continue
        except Exception as error:
            problems.append(f"VectorGame.{name}: {type(error).__name__}: {error}"[:300])
            continue
        passed[name] = passed.get(name, 0) + 1
        if not should_pass:
            problems.append(f"VectorGame.{name} accepted a state that game.check_state refuses")
        elif name == "observe":
            players = np.broadcast_to(values["players"], (rows,))
            expected = game.observation(state, int(players[row]))
            if not np.array_equal(result[row], expected):
                problems.append("VectorGame.observe differs from game.observation")
        elif name == "set_states":
            problems += step_vector(game, vector, rng)
    return problems


def step_vector(game, vector: VectorGame, rng: random.Random) -> list[str]:
    """A few random steps of every env of ``vector``, each state checked; broken contracts."""
    try:
        for _ in range(rng.randrange(1, 6)):
            vector.step(vector.random_actions())
            for state in vector.states:
                game.check_state(state)
    except MctsEnvsError as error:
        return [f"stepping on from set_states: {type(error).__name__}: {error}"[:300]]
    return []


def play_on(game, state: np.ndarray, rng: random.Random, steps: int) -> list[str]:
    """Checked ``apply`` from an accepted ``state`` for up to ``steps`` moves; broken contracts."""
    for _ in range(steps):
        try:
            player = game.current_player(state)
            if player == TERMINAL:
                return []
            legal = (
                game.chance_outcomes(state)[0] if player == CHANCE else game.legal_actions(state)
            )
            if not len(legal):
                return []  # a safe state need not be a playable one (validate_state's job)
            state = game.apply(state, int(legal[rng.randrange(len(legal))]))
        except MctsEnvsError as error:
            return [f"playing on from an accepted state: {type(error).__name__}: {error}"[:300]]
    return []


def run(name: str, count: int, seed: int, out=sys.stdout) -> None:
    """Fuzz ``count`` arrays of game ``name``; JSON lines on ``out`` (see the module docstring)."""
    game = make_game(name)
    rng = random.Random(seed)
    methods = state_methods(game)
    vector = VectorGame(name, VECTOR_ENVS, seed=seed)
    vector.reset()
    vectors = vector_state_methods(vector)
    pool = [game.from_text(text) for text in reachable_records(game, random.Random(seed), 6)]
    pool = [state for state in pool if game.current_player(state) != TERMINAL]
    accepted = 0
    passed: dict[str, int] = {}
    for index, (kind, state) in enumerate(arrays(game, rng, count)):
        shown = state.tolist() if isinstance(state, np.ndarray) else repr(state)[:200]
        print(json.dumps({"start": index, "kind": kind, "array": shown}), file=out, flush=True)
        problems = call_all(game, methods, state, rng)
        problems += call_vector(game, vector, vectors, state, pool, rng, passed)
        try:
            game.check_state(state)
        except MctsEnvsError:
            pass
        else:
            accepted += 1
            problems += play_on(game, state, rng, 30)
        for problem in problems:
            print(json.dumps({"fail": problem, "kind": kind, "array": shown}), file=out)
    summary = {"done": count, "accepted": accepted, "methods": len(methods)}
    summary["vector_methods"] = {name: passed.get(name, 0) for name, _ in vectors}
    print(json.dumps(summary), file=out)


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
