"""Values of ``Game.current_player`` besides the players 0 and 1 (no imports: cheap to import)."""

from __future__ import annotations

#: ``current_player`` value of a chance node (the next action is a chance outcome).
CHANCE = -1
#: ``current_player`` value of a terminal state.
TERMINAL = -2
