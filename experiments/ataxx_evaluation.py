"""Ataxx's search evaluation tuned against AtaxxDotCpp: the engine's search scores fitted by least
squares on our evaluation terms.

The method, in three steps:

1. **Positions**: AtaxxDotCpp plays itself from :data:`OPENING_PLIES` random plies, each move
   its answer to ``go nodes`` :data:`PLAY_NODES`, or, with probability :data:`RANDOM_MOVES`, a
   uniformly random legal move (so that positions vary); every position of a game with a
   player to move after the opening is kept, to the end of the game.
2. **Labels**: the engine's score of each position at ``go nodes`` :data:`LABEL_NODES` (its last
   ``info`` line, of its deepest completed iteration: the side to move's view, 100 a stone).
   (The engine reads ``nodes`` but not ``depth``.) Positions it scores as decided (beyond
   :data:`DECIDED_SCORE`: its won and lost scores are near 31,000) are left out.
3. **Fit**: least squares of the label on the five terms of
   :func:`mcts_envs.games.ataxx.search.evaluation_terms` from the mover's view (the tempo term is
   then a constant: the intercept); the weights are the coefficients divided by material's, so
   one stone weighs 1, as :data:`~mcts_envs.games.ataxx.search.WEIGHTS` does.

The engine is built as ``experiments/ataxx_engine.py`` says and given with ``--engine``; without
it the script says so and plays nothing. Writes ``<out>/positions.npz`` (states, labels, the
node counts), ``summary.json`` (the fitted weights, the fit's R^2 and material's alone, the
settings) and ``table.md``.

Run: ``python -m experiments.ataxx_evaluation --engine PATH --games 40`` (``--quick``: two games
at small node counts, for the test suite).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

import mcts_envs
from experiments.ataxx_engine import engine_path
from experiments.common import parse_arguments
from mcts_envs.agents.players.uai_agent import UAIAgent
from mcts_envs.games.ataxx import search as ataxx_search

RESULTS = Path(__file__).resolve().parent / "results" / "ataxx_evaluation"
OPENING_PLIES = 6
PLAY_NODES = 20_000
RANDOM_MOVES = 0.1
LABEL_NODES = 300_000
#: Engine scores beyond this are decided games (a win is 31,000 less the plies to it).
DECIDED_SCORE = 10_000
QUICK = {"games": 2, "play_nodes": 500, "label_nodes": 2000}


def play_positions(
    engine: str, games: int, seed: int, play_nodes: int
) -> tuple[list[np.ndarray], int]:
    """The positions of ``games`` engine self-play games (see the module docstring) and the
    number of plies played."""
    game = mcts_envs.make_game("ataxx")
    player = UAIAgent(cmd=engine, nodes=play_nodes)
    generator = np.random.default_rng(seed)
    positions: list[np.ndarray] = []
    plies = 0
    try:
        for _ in range(games):
            player.reset()
            state = game.initial_state()
            ply = 0
            while game.current_player(state) >= 0:
                legal = game.legal_actions(state)
                if ply < OPENING_PLIES or generator.random() < RANDOM_MOVES:
                    action = int(generator.choice(legal))
                else:
                    action = player.act_state(game, state)
                if ply >= OPENING_PLIES:
                    positions.append(state)
                state = game.apply(state, action)
                ply += 1
            plies += ply
    finally:
        player.close()
    return positions, plies


def label_positions(engine: str, positions: list[np.ndarray], nodes: int) -> np.ndarray:
    """The engine's ``go nodes`` score of each position (the mover's view, 100 a stone)."""
    game = mcts_envs.make_game("ataxx")
    labeller = UAIAgent(cmd=engine, nodes=nodes)
    labels = np.empty(len(positions))
    try:
        for index, state in enumerate(positions):
            labeller.act_state(game, state)
            labels[index] = labeller.last_info_numbers.get("score", np.nan)
    finally:
        labeller.close()
    return labels


def terms_of(positions: list[np.ndarray]) -> np.ndarray:
    """``float64[n, 5]``: the evaluation terms of each position from its mover's view."""
    game = mcts_envs.make_game("ataxx")
    rows = np.empty((len(positions), len(ataxx_search.TERMS)))
    for index, state in enumerate(positions):
        ataxx_search.evaluation_terms(state, game.current_player(state), rows[index])
    return rows


def fit(terms: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, float, float]:
    """Least-squares coefficients of ``labels`` on ``terms`` (the tempo column is constant, so
    it is the intercept), their R^2, and the R^2 of material with an intercept alone."""
    coefficients, *_ = np.linalg.lstsq(terms, labels, rcond=None)
    total = float(np.sum((labels - labels.mean()) ** 2))
    r2 = 1.0 - float(np.sum((labels - terms @ coefficients) ** 2)) / total
    material = terms[:, [ataxx_search.MATERIAL, ataxx_search.TEMPO]]
    only, *_ = np.linalg.lstsq(material, labels, rcond=None)
    r2_material = 1.0 - float(np.sum((labels - material @ only) ** 2)) / total
    return coefficients, r2, r2_material


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--engine", default=None, help="the AtaxxDotCpp executable")
    parser.add_argument("--games", type=int, default=40, help="self-play games")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--play-nodes", type=int, default=PLAY_NODES)
    parser.add_argument("--label-nodes", type=int, default=LABEL_NODES)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--quick", action="store_true", help="tiny run for the test suite")
    args = parse_arguments(parser, argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    engine = engine_path(args.engine)
    if engine is None:
        print(
            f"ataxx_evaluation: no engine at {args.engine!r} (give --engine PATH to the "
            "AtaxxDotCpp executable; experiments/ataxx_engine.py says how to build it): nothing "
            "played"
        )
        return
    out = args.out or RESULTS.with_name(RESULTS.name + ("_quick" if args.quick else ""))
    out.mkdir(parents=True, exist_ok=True)
    started, load = time.time(), os.getloadavg()[0]
    positions, plies = play_positions(engine, args.games, args.seed, args.play_nodes)
    labels = label_positions(engine, positions, args.label_nodes)
    keep = np.isfinite(labels) & (np.abs(labels) < DECIDED_SCORE)
    states = np.array(positions)[keep]
    labels = labels[keep]
    terms = terms_of(list(states))
    coefficients, r2, r2_material = fit(terms, labels)
    weights = coefficients / coefficients[ataxx_search.MATERIAL]
    np.savez_compressed(out / "positions.npz", states=states, labels=labels, terms=terms)
    summary = {
        "engine": engine,
        "games": args.games,
        "seed": args.seed,
        "positions": len(states),
        "decided_left_out": int(len(positions) - len(states)),
        "plies": plies,
        "opening_plies": OPENING_PLIES,
        "random_moves": RANDOM_MOVES,
        "play_nodes": args.play_nodes,
        "label_nodes": args.label_nodes,
        "terms": list(ataxx_search.TERMS),
        "coefficients": [round(float(c), 3) for c in coefficients],
        "weights": [round(float(w), 4) for w in weights],
        "r2": round(r2, 4),
        "r2_material_only": round(r2_material, 4),
        "load_start": round(load, 2),
        "load_end": round(os.getloadavg()[0], 2),
        "wall_seconds": round(time.time() - started, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [
        "# Ataxx evaluation terms fitted to AtaxxDotCpp's search scores",
        "",
        f"{len(states)} positions of {args.games} engine self-play games ("
        f"{args.play_nodes} nodes a move, {OPENING_PLIES} random opening plies, {RANDOM_MOVES:.0%} random "
        f"moves), labelled at {args.label_nodes} nodes; R^2 {r2:.3f} (material alone "
        f"{r2_material:.3f}).",
        "",
        "| term | engine units (100 a stone) | weight (a stone = 1) |",
        "| --- | ---: | ---: |",
    ]
    for name, coefficient, weight in zip(ataxx_search.TERMS, coefficients, weights, strict=True):
        lines.append(f"| {name} | {coefficient:.1f} | {weight:.3f} |")
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
