"""Tantrix (two players).

| Import             | `import mcts_envs.tantrix_v0`                                  |
|--------------------|---------------------------------------------------------------------|
| Actions            | Discrete                                                            |
| Parallel API       | No                                                                  |
| Manual control     | No                                                                  |
| Agents             | `agents= ['player_0', 'player_1']`                                  |
| Agents             | 2                                                                   |
| Action shape       | (1)                                                                 |
| Action values      | Discrete(121104) = 58 x 58 window cells x 6 orientations x 6 slots  |
| Observation shape  | (58, 58, 27)                                                        |
| Observation values | [0, 1]                                                              |

Hexagonal tiles with three coloured paths are placed so that colours match on every shared edge;
each player scores their longest line of their colour (a closed loop counts double). Draws from
the bag are chance nodes; the same agent may act several times in a row (forced plays). Rules:
docs/RULES.md section 5 (every numbered rule is implemented in `mcts_envs/games/tantrix/kernels.py`).

Options: `tantrix_v0.env(colors=("red", "yellow"), first_player="highest_tile")`; colours are
names or letters (red, yellow, blue, green; must differ); `first_player="player_0"` makes
`player_0` always start instead of the holder of the highest-numbered tile.

### Turn structure
The deal (12 chance nodes, alternating `player_0`, `player_1`) happens inside `reset`. A turn is:
(a) forced fills while the mover can legally fill a forced space (an empty cell with three or
more tiles around it), (b) exactly one free move, (c) forced fills again. Every placement is its
own step of the same agent, followed by a draw (sampled by the env with `np_random`) while the
bag is not empty. While the bag is not empty every placement must also obey restrictions
(a) no empty cell with three links of one colour, (b)/(c) no four-sided space now or once the
forced spaces are filled (closure reading of rule 11c). An empty hand is skipped; a mover with
tiles but no legal free move ends the game in a drawn deadlock.

### Window, bound and action encoding
Cells are axial `(q, r)` on pointy-top hexes (edges 0..5 = NE, E, SE, SW, W, NW). Actions and
observations index a 58 x 58 parallelogram *window* recentred after each placement: window cell
`(i, j)` is axial `(cq - 28 + i, cr - 28 + j)` with `cq = floor((q_min + q_max) / 2)` over the
placed tiles (likewise `cr`; `(0, 0)` before the first tile).
`action = ((i * 58 + j) * 6 + orientation) * 6 + hand_slot`.

*Bound (no clipping).* Neighbouring cells differ by at most 1 in `q` and in `r`, so any connected
group of at most 56 tiles spans at most 55 in `q` (and in `r`); with the empty cells around it,
at most 57, i.e. 58 cells. With the centring above, `q_min - 1 >= cq - 28` because
`floor(55 / 2) = 27`, and `q_max + 1 <= cq + 29` because `ceil(55 / 2) = 28`: every tile and
every cell where a tile could go lies in the window. A straight line of 56 tiles along the
north-east axis needs all 58 rows and columns (tested). Internally the state stores the window
with a one-cell empty border (60 x 60 words) so neighbour lookups never need bounds checks.

*Worked example.* Before the first tile the window is centred on the origin, so the origin is
window cell `(28, 28)`, flat `28 * 58 + 28 = 1652`; placing the tile in hand slot 2 turned 3
steps clockwise is action `(1652 * 6 + 3) * 6 + 2 = 59492`. If the next tile goes east of it at
`(1, 0)`, the bounding box becomes `q in [0, 1]`, `cq = floor(1 / 2) = 0`: the window does not
move, and `(1, 0)` is cell `29 * 58 + 28 = 1710`. After a third tile at `(2, 0)`, `cq = 1` and
the window shifts one step: `(2, 0)` is now cell `(29, 28)`, the origin `(27, 28)`. The legal
actions and the observation always refer to the current window of the state they come with.

### Observation space
`{"observation": int8[58, 58, 27], "action_mask": int8[121104]}`, from the observing agent's
view, same window as the actions:
* channels `4 * edge + k` (edge 0..5): the colour at that edge of the tile on the cell, one-hot
  over `k` = 0 own colour, 1 opponent's colour, 2 and 3 the remaining colours in the order red,
  yellow, blue, green (so one policy can play either colour);
* channel 24: occupied; channel 25: forced space (empty with >= 3 placed neighbours; holes
  that no tile can fill keep this mark);
* channel 26: a feature plane read row-major (index `n` at `[n // 58, n % 58]`): `0..299` both
  hands, observer first, 6 slots x (present + 6 edges x 4 relative colours, orientation 0);
  `300..303` own colour one-hot, `304..307` opponent colour; `308..363` which tiles (numbers
  1..56) are still in the bag (known to both: all tiles minus board and hands; never their
  order); `364..366` turn phase one-hot (first forced, free, forced after); `367` observer on
  move.

### Legal-action mask
1 exactly at the legal placements of the agent on move in the current phase (only forced fills
during forced phases); all zeros for the other agent. About a third of decisions have a single
legal action.

### Rewards
+1 / -1 for the better / worse best line at the end (all 56 tiles placed), 0 each for equal lines
or a deadlock.

### Infos
`infos[agent]` holds the same keys after every step, each an int or a pair of ints by seat (so
TorchRL and Gymnasium's vector wrappers can batch them): `status` (an index into
`mcts_envs.games.tantrix.game.STATUS_NAMES`: 2 decide, 3 finished, 4 deadlock), `phase` (into
`PHASE_NAMES`: 0 forced, 1 free, 2 forced after), `scores` (both best lines), `loops` (1 where that
line is a closed loop), `last_drawn` (tile number, 0 before any draw) and `drawn_by` (the seat that
drew it, -1 before any draw), `bag_count` and `forced_spaces`. The tiles drawn in the last step
(or the deal of the last reset) are `env.unwrapped.chance_outcomes`.

### Forward model
`env.unwrapped.game` is the Game (`Tantrix`), `env.unwrapped.game_state` the current state (see
`mcts_envs/games/tantrix/kernels.py`); draws are chance nodes (`game.chance_outcomes(state)`,
uniform over the bag), so a cloned state can only be played forward by sampling. Text record:
`colors=RY first=highest status=decide mover=0 phase=free last=41:1 hands=... board=0,0:56@2;...`.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` give the position as text: phase,
bag, hands, scores, the forced spaces as axial cells and every placed tile in placement order as
the move notation (below) writes it. The position
`colors=RY first=highest status=decide mover=0 phase=forced_after last=26:0 hands=18.26.29.42.44.46/15.17.23.24.31.53 board=0,0:2@5;1,-1:8@1;0,1:54@5;-1,2:32@4`
(after `#2@5 at (0,0)`, `#8@1 at (1,-1)`, `#54@5 at (0,1)`, `#32@4 at (-1,2)`):

```text
Tantrix  phase: forced_after  bag: 40  to move: player_0  last drawn: #26 by player_0
player_0 red    score  2  hand: #18 GRGYYR, #26 BBGRRG, #29 BGBRRG, #42 BGRGBR, #44 BGYGBY, #46 BYBYGG
player_1 yellow score  2  hand: #15 GGRYYR, #17 GRGRYY, #23 GGYYRR, #24 BGGBRR, #31 GGRYRY, #53 BGBYYG
board: 4 tiles, forced spaces: (-1,1) (1,0)  (cells are axial (q,r): q + 1 is one cell east, r + 1 one cell south-east)
tiles: #2@5 at (0,0); #8@1 at (1,-1); #54@5 at (0,1); #32@4 at (-1,2)
```

The SVG picture (`mcts_envs.svg.board`, `mcts-envs serve`) draws the hexes.

### Move notation
Tile number, `@`, orientation (0-5, 60-degree steps clockwise) and axial cell: `#12@3 at (1,0)`;
typed moves may be shortened to `12@3 1,0`. Chance outcomes read `draw #12`.
`game.action_to_string(state, action)` writes it and `game.string_to_action(state, text)` reads it
(case and spacing ignored); `mcts-envs play` takes moves in it.

### Truncation
`env(max_cycles=n)` (PettingZoo's cycle: one step of every agent) lets each agent make at most `n`
moves: the game is truncated as soon as the agent to move has made `n`. An agent's consecutive
placements are each its own move, so the other agent may have made fewer. `env(max_moves=n)`
truncates the game after `n` moves of both agents together (chance draws not counted). Without
them a game runs to its end.

### Version history
* v0: first release.
"""

from mcts_envs.envs.factory import define_env
from mcts_envs.games.tantrix.game import Tantrix
from mcts_envs.games.tantrix.render import TantrixRenderer

env, raw_env = define_env(
    name="tantrix",
    version=0,
    game_factory=Tantrix,
    renderer_factory=TantrixRenderer,
    module=__name__,
    render_fps=2,
)

__all__ = ["env", "raw_env"]
