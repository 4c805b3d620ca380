"""`python benchhelp.py SECTION`: one section of `arena bench` at the tests' smallest sizes,
its figures as JSON on stdout, in a process of its own as `arena bench` runs (test_bench.py)."""

from __future__ import annotations

import sys

import msgspec

from tournaments.bench import league_server
from tournaments.bench.report import QUICK, ClonesSizes, ScaleSizes, run
from tournaments.output import render_json

SMALLEST = msgspec.structs.replace(
    QUICK,
    engine_games=1,
    engine_repeats=1,
    round_trips=20,
    pipe_repeats=1,
    overhead_games=1,
    match_games=1,
    tournament_deals=1,
    round_robin_deals=1,
    peer_games=1,
    memory_small=100,
    memory_large=1_000,
    primitive_calls=20,
    startups=1,
    league=msgspec.structs.replace(
        QUICK.league,
        window_s=2.0,
        memory_games=2,
        placements=1,
        final_budget=4,
        load_s=1.5,
    ),
    standings=((10, 1),),
    scale=ScaleSizes(3, 2, 1, (3,), ((3, 50),), 4, 4.0),
    executors=(2, 1, 1, 20),
    search=(3, 10),
    clones=ClonesSizes(("azul",), deals=1, search=False, repeats=2),
)
"""Every section at its smallest: it runs and reports, and measures next to nothing (its
readers read for seconds enough that each page is answered on a loaded machine)."""
BUSY_GAMES = 4
"""The ladder's games before the placements' uploads (the bench waits for hundreds)."""
PLACEMENT_HOUSE = {"greedy": "greedy", "random": "random"}
"""The league a version is placed in: two bots, so that its placement is eight games."""
CORES = 1
"""The cores every section is told it has: the suite's other tests share the machine's, and a
section's ladder fills every core it is given for the whole of its windows."""
CLIENTS_READY_S = 1.0
"""The head start of a phase's clients (the bench gives 3 s, so as not to measure their
interpreters starting: the tests measure nothing)."""


if __name__ == "__main__":
    league_server.BUSY_GAMES = BUSY_GAMES
    league_server.PLACEMENT_HOUSE = PLACEMENT_HOUSE
    league_server.CLIENTS_READY_S = CLIENTS_READY_S
    print(render_json(run([sys.argv[1]], sizes=SMALLEST, cores=CORES)))
