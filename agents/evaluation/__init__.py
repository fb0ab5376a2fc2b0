"""Evaluation: play agents against each other and tell what the results mean.

Modules: :mod:`.stats` (Wilson and score intervals, Elo), :mod:`.games` (the one game loop and its
seeds), :mod:`.openings` (the opening of each game pair), :mod:`.plan` (the games of a tournament
or match), :mod:`.results_file` (results files and resume), :mod:`.run` (the one run function:
backend, results file, preparation, progress), :mod:`.progress`, :mod:`.arena` (a match: a
tournament of one pairing), :mod:`.backends` (in-process, processes, Ray), :mod:`.ratings`
(Bradley-Terry with a prior, SPRT), :mod:`.ladder`, :mod:`.plots`, :mod:`.mistakes`,
:mod:`.expert` and :mod:`.chat_data` (datasets of a search's decisions).
"""
