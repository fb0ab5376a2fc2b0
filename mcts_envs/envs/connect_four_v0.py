"""Connect Four.

| Import             | `import mcts_envs.connect_four_v0`                |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1']`                     |
| Agents             | 2                                                      |
| Action shape       | (1)                                                    |
| Action values      | Discrete(7)                                            |
| Observation shape  | (6, 7, 2)                                              |
| Observation values | [0, 1]                                                 |

Connect Four on the standard standing board of 7 columns and 6 rows (docs/RULES.md section 6),
the game PettingZoo (`connect_four_v3`), OpenSpiel (`connect_four`) and pgx (`connect_four`)
ship. `player_0` (`x`) moves first; players alternate dropping a stone into a column that is
not full, and the stone falls to the lowest empty cell of that column. Four stones of one side
in a line (across, up or diagonally) win at once; a full board without such a line is a draw.

### Observation space
`{"observation": int8[6, 7, 2], "action_mask": int8[7]}`, row 0 the top row, column 0 the
left one (the layout of PettingZoo's `connect_four_v3`). Plane 0 holds the observing agent's
stones, plane 1 the opponent's, so one policy can play both seats.

### Action space and legal-action mask
Action `column`, 0 (left) to 6 (right): drop a stone there. The mask is 1 at the columns that
are not full for the agent on move, all zeros for the other agent and after the end.

### Rewards
+1 to the winner and -1 to the loser at the end, 0 for a draw and for every other step.
`game.heuristic` counts, for each side, the lines of four it can still complete, weighted by
the stones it has in them (minimax2, alpha-beta and MCTS leaf values use it).

### Forward model
`env.unwrapped.game` is the Game (`ConnectFour`), `env.unwrapped.game_state` the current state
(`int64[4]`: `x` bits, `o` bits, side to move, status; column-major bitboards, layout in
`mcts_envs/games/connect_four/kernels.py`). Text record: the rows from the top, e.g.
`"......./......./......./......./...o.../...x... x"`.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` draw the board with the column
numbers of the move notation (below) under it. The position
`......./......./......./......./...o.../..xx... o` (x on columns 3 and 4, o on x's stone in
column 4, o to move):

```text
| . . . . . . . |
| . . . . . . . |
| . . . . . . . |
| . . . . . . . |
| . . . o . . . |
| . . x x . . . |
+---------------+
  1 2 3 4 5 6 7
o to move
```

### Move notation
The column's number, `1` to `7` from the left (action `column` is `column + 1`), as Connect
Four solvers write games: `4` is the centre column (action 3).
`game.action_to_string(state, action)` writes it and `game.string_to_action(state, text)` reads it
(case and spacing ignored); `mcts-envs play` takes moves in it.

### Truncation
`env(max_cycles=n)` (PettingZoo's cycle: one step of every agent) truncates the game once each
agent has made `n` moves, after `2 * n` moves; `env(max_moves=n)` truncates it after `n` moves of
both agents together. Without them a game runs to its end.

### Version history
* v0: first release.
"""

from mcts_envs.envs.factory import define_env
from mcts_envs.games.connect_four.game import ConnectFour
from mcts_envs.games.connect_four.render import ConnectFourRenderer

env, raw_env = define_env(
    name="connect_four",
    version=0,
    game_factory=ConnectFour,
    renderer_factory=ConnectFourRenderer,
    module=__name__,
    render_fps=1,
)

__all__ = ["env", "raw_env"]
