"""Ultimate Tic-Tac-Toe.

| Import             | `import mcts_envs.ultimate_tictactoe_v0`          |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1']`                     |
| Agents             | 2                                                      |
| Action shape       | (1)                                                    |
| Action values      | Discrete(81)                                           |
| Observation shape  | (9, 9, 5)                                              |
| Observation values | [0, 1]                                                 |

Nine local Tic-Tac-Toe boards in a 3x3 grid (docs/RULES.md section 2). `player_0` (X) moves first,
anywhere. A move in cell `c` of a local board sends the opponent to local board `c`; if that
board is won or full, the opponent may play in any empty cell of any open board. Three in a row
wins a local board (no more moves there); a full local board without a line is drawn and belongs
to nobody. Three won boards in a row win the game; when every board is won or full without such
a line, the game is a draw.

### Observation space
`{"observation": int8[9, 9, 5], "action_mask": int8[81]}` on the 9x9 grid (row 0 is the top row
of boards 0-2). Planes: 0 the observing agent's marks, 1 the opponent's, 2 cells of boards won by
the observer, 3 cells of boards won by the opponent, 4 cells where the player on move may play.

### Action space and legal-action mask
One action per move: `action = board * 9 + cell`, boards and cells each numbered row-major 0..8
(unlike OpenSpiel's two-step encoding). Example: the centre cell of the top-right board is
`2 * 9 + 4 = 22`. The mask is 1 exactly at the legal moves for the agent on move, zeros otherwise.

### Rewards
+1 to the winner and -1 to the loser at the end, 0 for a draw and for every other step.

### Forward model
`env.unwrapped.game` (`UltimateTicTacToe`), `env.unwrapped.game_state` (`int64[25]`, layout in
`mcts_envs/games/ultimate_tictactoe/kernels.py`). Text record: 9 rows of `x`/`o`/`.`, the side to
move and the target board, e.g. `"........./........./........./........./....x..../........./........./........./......... o 4"`.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` draw the board with the files
and ranks of the move notation (below) around it. The position `........./.x......./........./...o...../....xo.../........./........./........./......... x 5`
(after `e5 d6 b8 f5`):

```text
    a b c   d e f   g h i
  +-------+-------+-------+
9 | . . . | . . . | . . . | 9
8 | . X . | . . . | . . . | 8
7 | . . . | . . . | . . . | 7
  +-------+-------+-------+
6 | . . . | O . . | . . . | 6
5 | . . . | . X O | . . . | 5
4 | . . . | . . . | . . . | 4
  +-------+-------+-------+
3 | . . . | . . . | . . . | 3
2 | . . . | . . . | . . . | 2
1 | . . . | . . . | . . . | 1
  +-------+-------+-------+
    a b c   d e f   g h i
local boards (X/O won, = drawn, - open), top row first: --- / --- / ---
to move: X in the local board g4-i6 (board 5)
```

The local boards are numbered 0-8 row-major from the top left, as in the action encoding; the last
lines give each local board's owner and the local board the player on move must play in, named by
its corner squares (here `g4-i6`, board 5, where `f5`, cell 5 of the centre board, sent X).

### Move notation
A square of the whole 9x9 grid, column `a`-`i` from the left and row `1`-`9` from the
bottom: `e5` is the centre of the centre board (action 40), `a9` the top-left square (action 0).
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
from mcts_envs.games.ultimate_tictactoe.game import UltimateTicTacToe
from mcts_envs.games.ultimate_tictactoe.render import UltimateTicTacToeRenderer

env, raw_env = define_env(
    name="ultimate_tictactoe",
    version=0,
    game_factory=UltimateTicTacToe,
    renderer_factory=UltimateTicTacToeRenderer,
    module=__name__,
    render_fps=2,
)

__all__ = ["env", "raw_env"]
