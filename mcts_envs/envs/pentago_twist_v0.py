"""Pentago Twist.

| Import             | `import mcts_envs.pentago_twist_v0`               |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1']`                     |
| Agents             | 2                                                      |
| Action shape       | (1)                                                    |
| Action values      | Discrete(288)                                          |
| Observation shape  | (6, 6, 2)                                              |
| Observation values | [0, 1]                                                 |

The McGill COMP 424 variant of Pentago (docs/RULES.md section 3). A 6x6 board made of four 3x3
quadrants, numbered 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right. `player_0` (white)
moves first; players alternate. A move places a stone on an empty cell and then *must* transform
one quadrant (any of the four, empty or not, also the one just played in): rotate it 90 degrees
clockwise, or flip it left-right (each row of the quadrant reversed; its top and bottom rows stay
in place). After the transform: if both players have five in a row (row, column or diagonal; six
count too) the game is drawn; if exactly one has, that player wins, even when it is the mover's
opponent; otherwise a full board (36 stones) is a draw. Unlike OpenSpiel's `pentago` there are no
anticlockwise rotations but there are flips, and the transform is never optional.

### Observation space
`{"observation": int8[6, 6, 2], "action_mask": int8[288]}`. Plane 0 holds the observing agent's
stones, plane 1 the opponent's (row 0 is the top row), so one policy can play both seats.

### Action space and legal-action mask
`action = cell * 8 + quadrant * 2 + op` with `cell = row * 6 + col` (row 0 at the top, column 0 at
the left), `quadrant` 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right, `op` 0 rotate 90
degrees clockwise, 1 flip left-right. Decoding: `cell = action // 8`,
`quadrant = (action // 2) % 4`, `op = action % 2`.

Worked example: white places on row 1, column 4 (`cell = 1 * 6 + 4 = 10`, in quadrant 1) and then
flips quadrant 3 (bottom-right): `action = 10 * 8 + 3 * 2 + 1 = 87`. Rotating quadrant 1 instead
would be `10 * 8 + 1 * 2 + 0 = 82`; that turns the stone from local row 1, column 1 (the quadrant's
centre) onto itself, while a stone in the top-left corner of a quadrant goes to its top-right
corner. Every empty cell gives 8 legal actions (4 quadrants x 2 ops), so the first move has 288
and a position with `e` empty cells has `8 * e`; the mask is 1 exactly there for the agent on move
and all zeros for the other agent and after the end.

### Rewards
+1 to the winner and -1 to the loser at the end, 0 for a draw and for every other step.

### Forward model
`env.unwrapped.game` is the Game (`PentagoTwist`), `env.unwrapped.game_state` the current state
(`int64[4]`: white bits, black bits, side to move, status; layout in
`mcts_envs/games/pentago_twist/kernels.py`). Text record: six rows of `w`/`b`/`.` from top to
bottom separated by `/`, a space and the side to move, e.g.
`"....../....../....../....../....../...... w"` (the empty board); `game.from_text` raises
`InvalidRecordError` on malformed text. `game.heuristic(state, player)` (for minimax2 and
alpha-beta) weighs each five-cell line still open to a player by 4 ** (own stones - 1);
`game.score` is 1 / 0.5 / 0 for a win / draw / loss and 0.5 while the game goes on.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` draw the board with the files
and ranks of the move notation (below) around it. The position `....../....w./w...../.....b/....../...... b`
(after `c4 tl rotate`, `d3 br flip`, `e5 tr rotate`):

```text
    a b c   d e f
  +-------+-------+
6 | . . . | . . . | 6
5 | . . . | . W . | 5
4 | W . . | . . . | 4
  +-------+-------+
3 | . . . | . . B | 3
2 | . . . | . . . | 2
1 | . . . | . . . | 1
  +-------+-------+
    a b c   d e f
quadrants: tl a4-c6, tr d4-f6, bl a1-c3, br d1-f3
to move: black
```

The line under the board names the quadrants as moves write them, with the squares each covers.

### Move notation
Square (column `a`-`f` from the left, row `1`-`6` from the bottom), quadrant (`tl`, `tr`,
`bl`, `br`) and transform (`rotate` 90 degrees clockwise or `flip` left-right): `c4 tl rotate`.
Typed moves may abbreviate: `c4tlr`, `c4 q0 r`.
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
from mcts_envs.games.pentago_twist.game import PentagoTwist
from mcts_envs.games.pentago_twist.render import PentagoTwistRenderer

env, raw_env = define_env(
    name="pentago_twist",
    version=0,
    game_factory=PentagoTwist,
    renderer_factory=PentagoTwistRenderer,
    module=__name__,
    render_fps=2,
)

__all__ = ["env", "raw_env"]
