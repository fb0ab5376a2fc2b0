"""The Ray backend on a real local Ray cluster: same records as the local backend, retries."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from mcts_envs.agents.evaluation.backends.local import LocalBackend  # noqa: E402
from mcts_envs.agents.evaluation.backends.ray_backend import RayBackend  # noqa: E402
from mcts_envs.agents.evaluation.games import GameRules  # noqa: E402
from mcts_envs.agents.evaluation.plan import plan_tournament  # noqa: E402
from mcts_envs.agents.evaluation.run import StopFlag  # noqa: E402
from mcts_envs.records import game_identity  # noqa: E402


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local Ray cluster of 2 CPUs, and a numba cache root shared by the module's tests."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield tmp_path_factory.mktemp("numba")
    ray.shutdown()


def _key(record):
    return record["pairing"], record["index"]


def _compare_with_local(specs, cache_root, kill_a_worker):
    # 8 games per pairing: after the kill (2 records in, at most 2 more in flight) games remain,
    # so the dead worker is handed one and the backend must retry it.
    plan = plan_tournament(GameRules("tictactoe"), specs, 8, seed=7, openings="random:2")
    local = list(LocalBackend().run(iter(plan.tasks), plan.rules, lambda: False))
    backend = RayBackend(2, plan.specs, plan.tasks[0].opening, cache_root=str(cache_root))
    records = []
    for record in backend.run(iter(plan.tasks), plan.rules, lambda: False):
        records.append(record)
        if kill_a_worker and len(records) == 2:
            info = backend.worker_info()
            assert [Path(i["numba_cache_dir"]).name for i in info] == ["worker-0", "worker-1"]
            os.kill(info[0]["pid"], signal.SIGKILL)  # a worker crashes: its game is played again
    assert sorted(map(game_identity, records), key=_key) == sorted(
        map(game_identity, local), key=_key
    )
    return backend


def test_ray_records_equal_the_local_backend_even_after_a_worker_dies(cluster):
    backend = _compare_with_local(["random", "minimax2"], cluster, kill_a_worker=True)
    assert backend.retries >= 1
    caches = sorted(p.name for p in cluster.iterdir())
    assert caches == ["worker-0", "worker-1"]  # one numba cache directory per worker


@pytest.mark.slow  # about 65 s on 2 busy cores: each fresh worker compiles the MCTS
def test_ray_records_equal_the_local_backend_with_mcts(cluster):
    """Also run by benchmarks/tournament_overhead.py, which compares every backend's records."""
    _compare_with_local(["random", "minimax2", "mcts:iterations=60"], cluster, False)


@pytest.mark.slow  # another two fresh actors (about 6 s); the process backend drains the same way
def test_stopping_drains_games_in_flight(cluster):
    plan = plan_tournament(GameRules("tictactoe"), ["random", "minimax2"], 8, seed=1)
    backend = RayBackend(2, plan.specs, plan.tasks[0].opening, cache_root=str(cluster))
    stop = StopFlag()
    records = []
    for record in backend.run(iter(plan.tasks), plan.rules, stop):
        records.append(record)
        stop.stop("test")
    assert 1 <= len(records) <= 2  # the first game plus at most the other one in flight
