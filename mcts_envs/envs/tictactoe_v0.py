"""Tic-Tac-Toe.

| Import             | `import mcts_envs.tictactoe_v0`                   |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1']`                     |
| Agents             | 2                                                      |
| Action shape       | (1)                                                    |
| Action values      | Discrete(9)                                            |
| Observation shape  | (3, 3, 2)                                              |
| Observation values | [0, 1]                                                 |

`player_0` plays X and moves first; players alternate marking an empty cell; three marks in a
row, column or diagonal win; a full board without a line is a draw (docs/RULES.md section 1).

### Observation space
`{"observation": int8[3, 3, 2], "action_mask": int8[9]}`. Plane 0 holds the observing
agent's marks, plane 1 the opponent's, so one policy can play both seats.

### Action space and legal-action mask
Action `cell = row * 3 + col`. The mask is 1 at empty cells for the agent on move, all zeros
for the other agent and after the end.

### Rewards
+1 to the winner and -1 to the loser at the end, 0 for a draw and for every other step.

### Forward model
`env.unwrapped.game` is the Game (`TicTacToe`), `env.unwrapped.game_state` the current state
(`int64[4]`: X bits, O bits, side to move, status). Text record: `"x.o/.x./..o x"`.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` draw the board with the files
and ranks of the move notation (below) around it. The position `x.o/.x./... o`
(X on a3 and b2, O on c3, O to move):

```text
    a   b   c
  +---+---+---+
3 | X | . | O | 3
  +---+---+---+
2 | . | X | . | 2
  +---+---+---+
1 | . | . | . | 1
  +---+---+---+
    a   b   c
to move: O
```

### Move notation
A square, column `a`-`c` from the left and row `1`-`3` from the bottom (as on a chess
board): `b2` is the centre (action 4), `a3` the top-left corner (action 0).
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
from mcts_envs.games.tictactoe.game import TicTacToe
from mcts_envs.games.tictactoe.render import TicTacToeRenderer

env, raw_env = define_env(
    name="tictactoe",
    version=0,
    game_factory=TicTacToe,
    renderer_factory=TicTacToeRenderer,
    module=__name__,
    render_fps=1,
)

__all__ = ["env", "raw_env"]
