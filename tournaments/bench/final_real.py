"""Finals of real quick bots (Azul, 2 players), served as a league serves them
(`league_server.final_of`): the sequential final and the final before it (`rank.doubling`)
on the same field and budget, in turn, each certifying the whole order; or one final cut at a
time limit, for its games per second and what its certificate says by then. The field: the
greedy bot and the corpus' small heuristics (`bots.corpus.simple`), each also playing a
uniformly random action in a share of its decisions (`bots.corpus.variant`), and the random
bot: bots of many strengths, none a twin of another."""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tournaments.bench.league_server import FinalRun, Progress, final_of

RULES = ("doubling", "sequential")
"""The finals compared (`LeagueSettings.final`), in the order they take turns."""
RULES_FIELD = 8
"""The bots of the finals compared."""
BASES = ("greedy", "simple:floor", "simple:bottom", "simple:finish", "simple:few")
NOISES = (0.25, 0.5, 0.75, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9)
"""The shares of random decisions, in the order the field takes them (the first three spread
a small field's strengths)."""


def quick_field(size: int) -> dict[str, str]:
    """`size` quick bots (name → command): the bases, the random bot, then the bases at each
    share of random decisions in turn."""
    field = {base.split(":")[-1]: _command(base, 0.0) for base in BASES}
    field["random"] = "random"
    for noise, base in itertools.product(NOISES, BASES):
        field[f"{base.split(':')[-1]}-{round(noise * 100)}"] = _command(base, noise)
    if size > len(field):
        raise ValueError(f"at most {len(field)} quick bots")
    return dict(itertools.islice(field.items(), size))


def _command(base: str, noise: float) -> str:
    """The command of `base` playing at random in a share `noise` of its decisions."""
    if noise:
        return f"{sys.executable} -m bots.corpus.variant {base} --noise {noise:g}"
    if base == "greedy":
        return "greedy"
    return f"{sys.executable} -m bots.corpus.{base.replace(':', ' ')}"


def run(
    size: int,
    budget: int,
    rule: str,
    concurrency: int,
    progress: Progress,
    seconds: float = math.inf,
) -> FinalRun:
    """One final of `quick_field(size)` under `rule` (`LeagueSettings.final`), its claim the
    whole order (`seconds`: its time limit)."""
    league = f'certify = "order"\nfinal = "{rule}"\n'
    with tempfile.TemporaryDirectory(prefix="arena-bench-final-") as tmp:
        field = quick_field(size)
        return final_of(Path(tmp), budget, concurrency, progress, field, league, seconds)


def proved(found: FinalRun) -> str:
    """What a final's certificate proved, in a few words."""
    certificate: dict[str, Any] = found.certificate or {}
    places = certificate.get("places", [])
    separated = sum(certificate.get("separated", []))
    order = "the whole order" if certificate.get("certified") else "not the whole order"
    return (
        f"{found.games:,} games, {found.seconds:.0f} s, {order}, {separated} of "
        f"{max(len(places) - 1, 0)} neighbours apart"
    )


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def summary(rule: str, found: FinalRun) -> str:
    """A line of a final's figures: what it proved (at its last look), the games it played,
    a second and a game's CPU, how it ended, and the machine's load."""
    certificate: dict[str, Any] = found.certificate or {}
    pinned = sum(place["low"] == place["high"] for place in certificate.get("places", []))
    return (
        f"{rule}: {proved(found)}, {pinned} places pinned, looks {certificate.get('looks')}, "
        f"{found.played:,} games played, {found.played / found.seconds:.1f} games/s, "
        f"CPU {found.cpu_s:.0f} s ({1000 * found.cpu_s / max(found.played, 1):.0f} ms a game), "
        f"{'published' if found.published else 'cut at the time limit'}, its rule settled: "
        f"{found.settled}, load {os.getloadavg()[0]:.2f}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    """`python -m tournaments.bench.final_real`: finals of real quick bots, one line each."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--rules", nargs="+", default=list(RULES) * 2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=math.inf, help="a final's time limit")
    args = parser.parse_args(argv)
    for rule in args.rules:
        found = run(args.bots, args.budget, rule, args.concurrency, _say, args.seconds)
        print(summary(rule, found), flush=True)
        for place in (found.certificate or {}).get("places", []):
            print(
                f"  {place['place']:3d} {place['bot']:<14} {place['elo']:7.1f} "
                f"[{place['low']}, {place['high']}]",
                flush=True,
            )


if __name__ == "__main__":
    main()
