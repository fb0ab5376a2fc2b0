"""Tantrix has no fixed symmetry maps here (why, so nobody re-derives it).

The rules are invariant under the six rotations of the hex grid about the first tile (a tile
turns with the board: orientation ``k`` becomes ``k + 1`` per clockwise sixth turn). But the
action space indexes a ``58 x 58`` parallelogram window recentred on the placed tiles (RULES.md
rule 16): a sixth turn maps that parallelogram to a differently shaped one, and even the half turn
moves the window's centre by one cell when ``q_min + q_max`` is odd (``floor`` does not commute
with negation). So the image of a window cell depends on the state, and no permutation of the
action space (``action_maps[s]``) exists. A state-dependent map (cell -> axial -> rotated axial ->
the image state's window) would work for the cells near tiles, which are all that legal actions
use; it is not implemented.
"""

from __future__ import annotations

#: No state-independent symmetry maps (see the module docstring).
SYMMETRIES = None
NO_SYMMETRIES_REASON = (
    "its action window is recentred on the tiles, so a hex rotation maps window cells "
    "differently in each state and no fixed permutation of the actions exists"
)
