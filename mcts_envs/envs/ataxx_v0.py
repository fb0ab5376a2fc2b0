"""Ataxx (7x7).

| Import             | `import mcts_envs.ataxx_v0`                       |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1']`                     |
| Agents             | 2                                                      |
| Action shape       | (1)                                                    |
| Action values      | Discrete(834)                                          |
| Observation shape  | (7, 7, 4)                                              |
| Observation values | [0, 1]                                                 |

Ataxx on a 7x7 board without blocked squares (docs/RULES.md section 4), as the Ataxx MCTS paper
plays it, with the conventions of the Ataxx engines (libataxx, UAI) for notation and the draw
rule. `player_0` (`x`) starts with stones on a7 and g1, `player_1` (`o`) on g7 and a1;
`player_0` moves first: `x5o/7/7/7/7/7/o5x x 0 1`.

* A **copy** puts a new stone on an empty square next to (Chebyshev distance 1) one of the
  mover's stones. A **jump** moves one of the mover's stones to an empty square at distance
  exactly 2. After either, every opponent stone next to the destination turns to the mover.
* A player with no move while the game goes on must **pass** (an explicit action).
* The game ends when a side has no stones, or when no empty square lies within distance 2 of
  any stone (nobody can move; a full board is one case): more stones wins, equal is a draw.
  It also ends, as a draw, when the halfmove clock (plies since the last copy; jumps and passes
  add 1) reaches 100, unless one of the first two endings holds at the same time (they decide).

### Observation space
`{"observation": int8[7, 7, 4], "action_mask": int8[834]}`, row 0 = rank 7, column 0 = file a.
Planes from the observing agent's view: 0 its stones, 1 the opponent's stones, 2 empty squares,
3 empty squares the observing agent could move to (copy or jump destinations). The halfmove
clock is not in the planes (it is in `infos["halfmove_clock"]` and the state).

### Action space and legal-action mask
Squares are numbered row-major from a7 (0) to g1 (48): `square = (7 - rank) * 7 + file`, files
a..g = 0..6. Example: b6 is 8, d4 is 24.

* `0..48`: copy to `square` (one action per destination, however many stones are next to it).
* `49..832`: jump `49 + from_square * 16 + offset_index`, with the offsets
  (row change, file change; rows grow towards rank 1) in this order:

  | index | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 |
  |---|---|---|---|---|---|---|---|---|
  | offset | (-2,-2) | (-2,-1) | (-2,0) | (-2,1) | (-2,2) | (-1,-2) | (-1,2) | (0,-2) |

  | index | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 |
  |---|---|---|---|---|---|---|---|---|
  | offset | (0,2) | (1,-2) | (1,2) | (2,-2) | (2,-1) | (2,0) | (2,1) | (2,2) |

  Example: the jump a7c5 is from square 0 with offset (2,2), action `49 + 0 * 16 + 15 = 64`.
* `833`: pass, the only legal action when the mover has no copy or jump.

The mask is 1 exactly at the legal actions for the agent on move, all zeros for the other agent
and after the end. `game.move_to_uai(state, action)` and `game.uai_to_move(state, "a7c5")`
convert to and from UAI move strings (`b6` copy, `a7c5` jump, `0000` pass).

### Rewards
+1 to the side with more stones and -1 to the other at the end, 0 for a draw (equal stones or
the 100-ply rule) and for every other step. `game.score(state)` gives each player's share of the
stones (the graded result of the "fractional" MCTS variant); `game.heuristic` is the mover's
share of stones, the Ataxx paper's minimax2 evaluation.

### Forward model
`env.unwrapped.game` (`Ataxx`), `env.unwrapped.game_state` (`int64[6]`: `x` bits, `o` bits, side to
move, halfmove clock, fullmove number, status; layout in `mcts_envs/games/ataxx/kernels.py`).
Text record: FEN, `game.from_text("x5o/7/7/7/7/7/o5x x 0 1")`. `infos` hold the stone counts
and the halfmove clock.

### Board
`render_mode="ansi"`, `mcts-envs play` and `mcts-envs replay` draw the board with the files
and ranks of the move notation (below) around it. The position `6o/1x4o/2x4/7/7/7/o5x o 1 2`
(after `b6`, `g6`, `a7c5`):

```text
    a b c d e f g
  +---------------+
7 | . . . . . . o | 7
6 | . x . . . . o | 6
5 | . . x . . . . | 5
4 | . . . . . . . | 4
3 | . . . . . . . | 3
2 | . . . . . . . | 2
1 | o . . . . . x | 1
  +---------------+
    a b c d e f g
o to move; stones x 3 o 3; halfmove 1; move 2
```

### Move notation
UAI strings: `b6` (a copy, by its destination), `a7c5` (a jump: origin and destination),
`0000` (a pass, legal only when nothing else is).
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
from mcts_envs.games.ataxx.game import Ataxx
from mcts_envs.games.ataxx.render import AtaxxRenderer

env, raw_env = define_env(
    name="ataxx",
    version=0,
    game_factory=Ataxx,
    renderer_factory=AtaxxRenderer,
    module=__name__,
    render_fps=2,
)

__all__ = ["env", "raw_env"]
