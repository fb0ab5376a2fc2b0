"""The stored defaults sweep keeps its meaning when the per-game defaults change."""

import pytest

from agents.evaluation.tournament import GameRules, done_keys, plan_tournament
from agents.mcts.defaults import GENERIC, defaults_for
from agents.spec import parse_spec
from experiments.common import RESULTS, _slug
from experiments.defaults_sweep import GRIDS, spec_of
from mcts_envs.records import read_records


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_every_entry_states_the_options_the_games_defaults_set(name):
    # an entry that left one of them to the defaults would change meaning with the defaults
    grid = GRIDS[name]
    row = defaults_for(grid.game).per_game_options()
    set_by_row = {k for k, v in row.items() if v != getattr(GENERIC, k)}
    assert grid.then_default in grid.options
    for entry in grid.options:
        _, options = parse_spec(spec_of(grid.budget, entry))
        assert set_by_row <= set(options), (entry, set_by_row - set(options))


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_the_stored_games_are_the_games_of_the_documented_command(name):
    # `python -m experiments.defaults_sweep` (master seed 2026, 60 games a setting) resumes them
    grid = GRIDS[name]
    specs = [spec_of(grid.budget, entry) for entry in grid.options]
    games = 2 * max(1, round(60 * grid.games_factor / 2))
    plan = plan_tournament(GameRules(grid.game), specs, games, 2026, gauntlet=grid.opponent)
    path = RESULTS / "defaults_sweep" / name / f"results_{_slug(grid.opponent)}.jsonl"
    assert len(done_keys(plan, read_records(path))) == len(plan.tasks)
