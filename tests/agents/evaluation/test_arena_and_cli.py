"""Arena statistics and determinism, the random agent and adapters, and the mcts-envs CLI."""

from __future__ import annotations

import io
import json
import math
import sys

import numpy as np
import pytest

import mcts_envs
from mcts_envs.agents import make_agent
from mcts_envs.agents.evaluation.arena import play_match
from mcts_envs.agents.evaluation.games import GameRules, GameTask, play_game, task_seeds
from mcts_envs.agents.evaluation.plan import plan_match
from mcts_envs.agents.evaluation.run import RunSettings
from mcts_envs.agents.evaluation.stats import elo_from_score, wilson_interval
from mcts_envs.agents.frontends.cli import main
from mcts_envs.agents.learned.adapters import MaskablePPOAgent, PolicyAgent
from mcts_envs.core.errors import IllegalActionError, InvalidRecordError, OptionalDependencyError
from mcts_envs.records import game_identity, read_records, replay_states

# -- statistics ---------------------------------------------------------------------------------


def test_wilson_interval_matches_hand_computation():
    # 8 wins of 10, z = 1.96: centre (0.8 + 1.96^2/20) / (1 + 1.96^2/10) = 0.7167...
    z = 1.959963984540054
    n, p = 10, 0.8
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = wilson_interval(8, 10)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert (low, high) == pytest.approx((0.4902, 0.9433), abs=1e-4)  # published table value
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 20)[0] == 0.0 and wilson_interval(20, 20)[1] == 1.0


def test_elo_helpers():
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf


def test_game_seeds_are_derived_from_the_master_seed_pair_and_colour():
    seeds = [task_seeds(1, 0, pair, colour) for pair in range(25) for colour in (0, 1)]
    assert seeds == [task_seeds(1, 0, pair, colour) for pair in range(25) for colour in (0, 1)]
    assert seeds != [task_seeds(2, 0, pair, colour) for pair in range(25) for colour in (0, 1)]
    assert len({(a, b) for a, b, _ in seeds}) == 50  # every game's agents draw their own seeds
    assert all(seeds[2 * p][2] == seeds[2 * p + 1][2] for p in range(25))  # a pair: one chance


# -- random agent and adapters ------------------------------------------------------------------


def test_random_agent_respects_the_mask_and_its_seed():
    game = mcts_envs.make_game("ultimate_tictactoe")
    state = game.apply(game.initial_state(), 40)  # O is sent to board 4: 8 legal cells
    legal = set(game.legal_actions(state).tolist())
    picks = [make_agent("random", seed=3).act_state(game, state) for _ in range(5)]
    assert len(set(picks)) == 1  # same seed, same choice
    agent = make_agent("random", seed=3)
    many = [agent.act_state(game, state) for _ in range(400)]
    assert set(many) == legal  # uniform over the mask: every legal move appears
    counts = np.bincount(many, minlength=81)[sorted(legal)]
    assert counts.min() > 25
    probs, value = agent.policy(game, state)
    assert probs[sorted(legal)] == pytest.approx(np.full(len(legal), 1 / len(legal)))
    assert value == 0.0


def test_random_agent_plays_any_env_through_the_mask():
    env = mcts_envs.make("tictactoe")
    env.reset(seed=0)
    agent = make_agent("random", seed=0)
    for _name in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = agent.act(env)
            assert observation["action_mask"][action] == 1
        env.step(action)


def test_policy_agent_in_an_env_loop_and_on_the_forward_model():
    seen = []

    def first_legal(observation, mask):
        seen.append(observation.shape)
        return int(np.flatnonzero(mask)[0])

    agent = PolicyAgent(first_legal, name="first")
    env = mcts_envs.make("tictactoe")
    env.reset(seed=0)
    moves = []
    for _name in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else agent.act(env)
        moves.append(action)
        env.step(action)
    assert moves[:7] == [0, 1, 2, 3, 4, 5, 6]  # X completes the diagonal 2-4-6
    game = mcts_envs.make_game("tictactoe")
    assert agent.act_state(game, game.apply(game.initial_state(), 0)) == 1
    assert set(seen) == {(3, 3, 2)}
    with pytest.raises(IllegalActionError, match="mask does not allow"):
        PolicyAgent(lambda o, m: 0).act_state(game, game.apply(game.initial_state(), 0))


class RecordingMaskablePPO:
    """Stands in for an ``sb3_contrib.MaskablePPO`` model: same ``predict`` signature and
    return shape; plays the highest legal action and records what it was given."""

    def __init__(self):
        self.calls = []

    def predict(
        self, observation, state=None, episode_start=None, deterministic=False, action_masks=None
    ):
        self.calls.append((observation.shape, action_masks.dtype, deterministic))
        return np.array(np.flatnonzero(action_masks)[-1]), None


def test_maskable_ppo_agent_passes_boolean_masks_and_plays_legal_moves():
    model = RecordingMaskablePPO()
    agent = MaskablePPOAgent(model, deterministic=False)
    game = mcts_envs.make_game("tictactoe")
    state = game.apply(game.initial_state(), 8)
    assert agent.act_state(game, state) == 7
    env = mcts_envs.make("tictactoe")
    env.reset(seed=0)
    env.step(8)
    assert agent.act(env) == 7
    assert model.calls == [((3, 3, 2), np.dtype(bool), False)] * 2


def test_maskable_ppo_agent_from_a_path_needs_the_train_extra(tmp_path, monkeypatch):
    """Without sb3-contrib (simulated: a None entry makes its import fail), loading names the
    extra to install."""
    from mcts_envs.agents.learned.adapters import _load_cached

    _load_cached.cache_clear()
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    model = tmp_path / "model.zip"
    model.write_bytes(b"not needed: the import fails first")
    with pytest.raises(OptionalDependencyError, match="train"):
        MaskablePPOAgent(model)


# -- arena ----------------------------------------------------------------------------------------


def without_timing(records):
    return [game_identity(r) for r in records]


def test_same_seeds_give_the_same_games_and_seats_alternate():
    first = play_match(plan_match("tictactoe", "alphabeta:depth=2", "random", 6, seed=11))
    again = play_match(plan_match("tictactoe", "alphabeta:depth=2", "random", 6, seed=11))
    other = play_match(plan_match("tictactoe", "alphabeta:depth=2", "random", 6, seed=12))
    assert without_timing(first.records) == without_timing(again.records)
    assert without_timing(first.records) != without_timing(other.records)
    assert [r["seat_a"] for r in first.records] == [0, 1, 0, 1, 0, 1]
    assert first.records[1]["players"] == ["random", "alphabeta:depth=2"]
    a, b = first.a, first.b
    assert a.wins == b.losses and a.draws == b.draws and a.games == b.games == 6
    # a single game replays from its seeds alone
    record = first.records[3]
    seeds = (record["seed"]["a"], record["seed"]["b"], record["seed"]["chance"])
    task = GameTask(0, "alphabeta:depth=2", "random", 1, 1, record["initial"], seeds)
    alone = play_game(task, GameRules("tictactoe"))
    assert without_timing([alone]) == without_timing([record])
    assert plan_match(GameRules("tictactoe"), "alphabeta:depth=2", "random", 6, 11).tasks[3] == task


def test_workers_give_identical_results():
    serial = play_match(
        plan_match("tictactoe", "random", "random", 8, seed=5), RunSettings(workers=1)
    )
    parallel = play_match(
        plan_match("tictactoe", "random", "random", 8, seed=5), RunSettings(workers=2)
    )
    assert without_timing(serial.records) == without_timing(parallel.records)


def test_alphabeta_never_loses_tictactoe():
    result = play_match(plan_match("tictactoe", "alphabeta:depth=9", "random", 10, seed=2))
    assert result.a.losses == 0 and result.a.wins >= 5


def test_records_replay_to_the_recorded_final_state():
    result = play_match(plan_match("ultimate_tictactoe", "random", "random", 2, seed=4))
    for record in result.records:
        game, states = replay_states(record)
        assert game.to_text(states[-1]) == record["final"]
        assert list(game.returns(states[-1])) == record["returns"]


# -- CLI ------------------------------------------------------------------------------------------


def run_cli(*argv, keys=""):
    out = io.StringIO()
    status = main(list(argv), out=out, keys=io.StringIO(keys))
    return status, out.getvalue()


def test_cli_match_writes_records_and_replay_steps_through_them(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    status, text = run_cli(
        "match", "tictactoe", "alphabeta:depth=9", "random", "--games", "4", "--seed", "3",
        "--out", str(path),
    )  # fmt: skip
    assert status == 0
    assert "alphabeta:depth=9" in text and "win rate [95% CI]" in text and "moves/s" in text
    assert "4/4" in capsys.readouterr().err  # the tqdm progress bar
    records = read_records(path)
    assert len(records) == 4 and [r["index"] for r in records] == [0, 1, 2, 3]
    lines = text.splitlines()
    row = next(line for line in lines if line.startswith("A  alphabeta:depth=9"))
    wins = sum(r["result"] == "a" for r in records)
    draws = sum(r["result"] == "draw" for r in records)
    assert row.split()[2:5] == [str(wins), str(draws), str(4 - wins - draws)]

    status, shown = run_cli("replay", str(path), "--game", "1", "--delay", "0")
    assert status == 0
    moves = len(records[1]["actions"])
    assert shown.count("plays") == moves
    assert f"result: {records[1]['result']}" in shown
    # stepping with Enter; q stops
    status, shown = run_cli("replay", str(path), keys="\n\nq\n")
    assert status == 0 and shown.count("plays") == 2


def test_cli_list_names_games_and_agents():
    status, text = run_cli("list")
    assert status == 0
    assert "tictactoe" in text and "ultimate_tictactoe" in text
    assert "alphabeta" in text and "depth: int | None = None" in text and "minimax2" in text


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (("match", "chess", "random", "random"), "unknown game 'chess'"),
        (("match", "tictactoe", "randon", "random"), "did you mean 'random'"),
        (("match", "tictactoe", "alphabeta:dept=2", "random"), "unknown option 'dept'"),
        (("match", "tictactoe", "alphabeta:depth=x", "random"), "depth='x' is invalid"),
        (("replay", "/nonexistent/games.jsonl"), "No such file"),
    ],
)
def test_cli_errors_are_clear(argv, fragment, capsys):
    status, _ = run_cli(*argv, "--games", "1") if argv[0] == "match" else run_cli(*argv)
    assert status == 2
    assert fragment in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"game": "tictactoe"\n', "line 1: not valid JSON"),
        ("\n[1, 2]\n", "line 2: a game record is a JSON object"),
        ('{"game": "tictactoe", "index": 0}\n', "line 1: missing key(s) version, initial"),
    ],
)
def test_malformed_jsonl_names_the_line(tmp_path, content, fragment):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(InvalidRecordError) as caught:
        read_records(path)
    assert fragment in str(caught.value)
    status, _ = run_cli("replay", str(path))
    assert status == 2


def test_replay_rejects_illegal_recorded_actions(tmp_path, capsys):
    record = play_match(plan_match("tictactoe", "random", "random", 1, seed=0)).records[0]
    record["actions"][2] = record["actions"][1]  # play on an occupied cell
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    status, _ = run_cli("replay", str(path), "--delay", "0")
    assert status == 2
    assert "action 3" in capsys.readouterr().err
    status, _ = run_cli("replay", str(path), "--game", "5")
    assert status == 2


def test_cli_match_with_mcts(tmp_path):
    path = tmp_path / "mcts.jsonl"
    status, text = run_cli(
        "match", "tictactoe", "mcts:iterations=200", "random", "--games", "2", "--seed", "1",
        "--out", str(path), "--no-progress",
    )  # fmt: skip
    assert status == 0
    assert "mcts:iterations=200" in text
    records = read_records(path)
    assert [r["agents"][0] for r in records] == ["mcts:iterations=200"] * 2
    assert all(r["result"] != "b" for r in records)
