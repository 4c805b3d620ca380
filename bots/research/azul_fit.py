"""Fit Azul's evaluation to self-play: the `WEIGHTS` of `bots/search/azul.py`.

Run as `python -m bots.research.azul_fit [--games N] [--iterations N] [--seed N] [-j N]
[--out FILE]` (needs numpy: `pip install 'tile-arena[pettingzoo]'`). It plays 2-player games
of the search before any fit (`SELF_PLAY`: leaves valued by `HAND_WEIGHTS`, no points of its
own) against itself at a fixed number of iterations a decision, so that the seed alone makes
the deals, the searches' choices and so the weights, whatever weights are shipped: a run is
reproducible. It records at the start of every round after the first each seat's
`board_features` and the points the seat scored from there to the game's end, fits the weights
of each phase by least squares, and writes them as a `WEIGHTS_FILE` (to FILE, else standard
output), with each phase's R² on held-out games (every fifth) on standard error. A phase with
fewer than `MIN_SAMPLES` samples, and phase 0 (no tile on any wall at a round's start: never
sampled), gets the weights fitted to all samples. The defaults make the shipped
`bots/search/azul_weights.json`.

What an evaluation needs is to rank the states a search reaches from one root, which the
held-out R² (across games, whose futures differ by far more than a decision's choices) does
not tell: docs/strategies.md measures the fitted evaluation in play.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bots.search.azul import (
    FEATURES,
    HAND_WEIGHTS,
    PHASES,
    PROFILE,
    AzulState,
    board_features,
    evaluation,
)
from bots.search.ismcts import Params, Search
from referee.games.azul import Azul

MIN_SAMPLES = 20 * len(FEATURES)
"""Fewer samples than this in a phase: it gets the weights fitted to all samples."""
Sample = tuple[int, list[float], float]
"""A phase, a seat's features and the points it scored from there to the game's end."""


def by_hand(state: AzulState) -> list[float]:
    """The self-play's leaf values: `evaluation` by `HAND_WEIGHTS`."""
    return evaluation(state, HAND_WEIGHTS)


SELF_PLAY = dataclasses.replace(PROFILE, evaluation=by_hand, own_points=0.0)
"""The search the weights are fitted to the play of: Azul's as it was before any fit, valued by
`HAND_WEIGHTS` and without points of its own (added with the fitted evaluation). Its own points
taught weights that scored fewer points against greedy (docs/strategies.md)."""


def play(seed: int, iterations: int) -> list[Sample]:
    """One game of `SELF_PLAY` against itself; its samples at every round's start after the
    first."""
    game = Azul()
    rng = random.Random(seed)
    search = Search(game, Params(), SELF_PLAY)
    state = game.new(2, seed)
    boards = []
    scores_then = []
    seen_round = 1
    while seats := game.to_act(state):
        if state.round != seen_round:
            seen_round = state.round
            boards.append(board_features(state))
            scores_then.append(state.score[:])
        seat = seats[0]
        root = game.from_observation(game.observe(state, seat), rng)
        action = search.run(root, seat, rng, float("inf"), iterations)
        game.apply(state, {seat: action})
    final = game.scores(state)
    return [
        (found.phase, features, float(final[seat] - scores[seat]))
        for found, scores in zip(boards, scores_then, strict=True)
        for seat, features in enumerate(found.features)
    ]


def fit(samples: Sequence[Sample], holdout: Sequence[bool]) -> tuple[list[list[float]], list[str]]:
    """The weights of every phase, and a line per phase on its samples and held-out R²."""
    import numpy as np

    def arrays(rows: list[int]) -> tuple[Any, Any]:
        """The features and the points to come of these samples."""
        return np.array([samples[i][1] for i in rows]), np.array([samples[i][2] for i in rows])

    def solve(rows: list[int]) -> Any:
        x, y = arrays(rows)
        return np.linalg.lstsq(x, y, rcond=None)[0]

    def r2(weights: Any, rows: list[int]) -> float:
        x, y = arrays(rows)
        return float(1 - ((y - x @ weights) ** 2).mean() / y.var())

    everything = list(range(len(samples)))
    pooled = solve(everything)
    weights: list[list[float]] = []
    report: list[str] = []
    for phase in range(PHASES):
        rows = [i for i in everything if samples[i][0] == phase]
        if len(rows) < MIN_SAMPLES:
            weights.append([float(w) for w in pooled])
            report.append(f"phase {phase}: {len(rows)} samples, the pooled weights")
            continue
        train = [i for i in rows if not holdout[i]]
        tested = [i for i in rows if holdout[i]]
        score = r2(solve(train), tested) if tested and train else float("nan")
        weights.append([float(w) for w in solve(rows)])
        report.append(f"phase {phase}: {len(rows)} samples, held-out R² {score:.3f}")
    return weights, report


def weights_file(weights: list[list[float]]) -> str:
    """A `WEIGHTS_FILE`'s JSON: the features, then a phase's weights a line, to 3 decimals."""
    names = ", ".join(f'"{name}"' for name in FEATURES)
    rows = ",\n".join(
        "    [" + ", ".join(f"{round(w, 3) + 0.0:g}" for w in row) + "]" for row in weights
    )
    return f'{{\n  "features": [{names}],\n  "phases": [\n{rows}\n  ]\n}}\n'


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bots.research.azul_fit", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--games", type=int, default=2400, help="self-play games (default 2400)")
    parser.add_argument(
        "--iterations", type=int, default=80, help="search iterations a decision (default 80)"
    )
    parser.add_argument("--seed", type=int, default=1000, help="the first game's seed")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="processes (0: cores)")
    parser.add_argument(
        "--out", type=Path, help="write the weights file here (default: standard output)"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.iterations < 1 or args.jobs < 0:
        parser.error("--games and --iterations must be positive, --jobs not negative")
    if args.out is not None and not args.out.parent.is_dir():
        parser.error(f"--out: no folder {args.out.parent}")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        import numpy  # noqa: F401
    except ImportError:
        sys.exit("azul_fit needs numpy: pip install 'tile-arena[pettingzoo]'")
    seeds = range(args.seed, args.seed + args.games)
    samples: list[Sample] = []
    holdout: list[bool] = []
    with ProcessPoolExecutor(args.jobs or None) as pool:
        games = pool.map(play, seeds, [args.iterations] * args.games)
        for done, (seed, found) in enumerate(zip(seeds, games, strict=True), 1):
            samples += found
            holdout += [seed % 5 == 0] * len(found)
            if done % 100 == 0 or done == args.games:
                print(f"{done}/{args.games} games, {len(samples)} samples", file=sys.stderr)
    weights, report = fit(samples, holdout)
    for line in report:
        print(line, file=sys.stderr)
    text = weights_file(weights)
    if args.out is None:
        print(text, end="")
    else:
        args.out.write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
