"""``python -m mcts_envs.agents``: the ``mcts-envs`` command line."""

from __future__ import annotations

import sys

from mcts_envs.agents.frontends.cli import main

sys.exit(main())
