"""``mcts-envs serve``: play the package's games against its agents in a browser.

Modules: :mod:`.limits` (which opponents a request may ask for, and the server-side caps),
:mod:`.session` (one game between a person and an agent), :mod:`.store` (the bounded set of open
games), :mod:`.page` (the HTML and the bit of JavaScript), :mod:`.app` (the Starlette app) and
:mod:`.command` (the command-line entry). Only :mod:`.app` and :mod:`.command`'s ``run`` need the
optional ``web`` extra (Starlette, uvicorn).
"""
