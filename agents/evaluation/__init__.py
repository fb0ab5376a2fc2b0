"""Evaluation: play agents against each other and tell what the results mean.

Modules: :mod:`.stats` (Wilson and score intervals, Elo), :mod:`.games` (the one game loop and its
seeds), :mod:`.arena` (a match: a tournament of one pairing), :mod:`.tournament` (plans, results
files, resume), :mod:`.backends` (in-process, processes, Ray), :mod:`.ratings` (Bradley-Terry with
a prior, SPRT), :mod:`.plots`, :mod:`.mistakes` and :mod:`.expert` (datasets of a search's
decisions).
"""
