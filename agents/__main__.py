"""``python -m agents``: the ``mcts-envs`` command line."""

from __future__ import annotations

import sys

from agents.frontends.cli import main

sys.exit(main())
