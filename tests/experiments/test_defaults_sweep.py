"""Stored experiments keep their meaning when the per-game defaults change: each documented
command resumes its stored games (plays none), and the specs state what the games' rows set."""

import json

import pytest

from experiments import pentago_twist_report
from experiments.common import RESULTS, SeriesSettings, missing_games
from experiments.defaults_sweep import GRIDS, grid_games, grid_series
from mcts_envs.agents.mcts.defaults import GENERIC, defaults_for
from mcts_envs.agents.spec import parse_spec


def _stored_summary(folder: str) -> dict:
    return json.loads((RESULTS / folder / "summary.json").read_text())


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_every_entry_states_the_options_the_games_defaults_set(name):
    # an entry that left one of them to the defaults would change meaning with the defaults
    grid = GRIDS[name]
    row = defaults_for(grid.game).per_game_options()
    set_by_row = {k for k, v in row.items() if v != getattr(GENERIC, k)}
    assert grid.then_default in grid.options
    for spec in grid_series(grid)[0].specs.values():
        _, options = parse_spec(spec)
        assert set_by_row <= set(options), (spec, set_by_row - set(options))


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_the_stored_sweep_is_the_run_of_the_documented_command(name):
    # `python -m experiments.defaults_sweep` with the stored seed and games resumes every game
    grid, stored = GRIDS[name], _stored_summary("defaults_sweep")
    settings = SeriesSettings(grid_games(grid, stored["games_per_setting"]), stored["seed"])
    path = RESULTS / "defaults_sweep" / name / "results.jsonl"
    assert missing_games(grid.game, grid_series(grid), settings, path) == 0


def test_the_stored_pentago_twist_report_is_the_run_of_the_documented_command():
    stored = _stored_summary("pentago_twist_report")
    settings = SeriesSettings(stored["games_per_point"], stored["master_seed"])
    series = pentago_twist_report.build_series(quick=False)
    path = RESULTS / "pentago_twist_report" / "results.jsonl"
    assert missing_games(pentago_twist_report.GAME, series, settings, path) == 0
