"""Run the benchmark sections, judge each figure against its target, render table or Markdown.

Every target is either an absolute figure on this machine or a ratio of two figures measured in
the same run (the machine is noisy; a ratio taken minutes apart would mean little). A section
another one is judged against runs with it even when not asked for (`overhead` needs the
protocol floor, `peer` needs our own playouts).
"""

from __future__ import annotations

import math
import os
import platform
import re
import shlex
import statistics
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from referee.games import GAME_IDS
from tournaments.bench import (
    clones,
    engine,
    final_real,
    final_sim,
    league_scale,
    league_server,
    matches,
    memory,
    pipes,
    scale,
    search,
    standings,
)
from tournaments.bench.sections import SECTIONS
from tournaments.executors.checking import processes_here
from tournaments.executors.inprocess import InProcess
from tournaments.executors.ondask import INSTALL

NEEDS = {"overhead": ("floor",)}
PLAYOUT_MS = 10.0
"""A playout row plays fewer games per repetition than its size when one game takes longer than
this (see `engine.affordable_games`): Azul, 5211 and Summer Pavilion (≤ 5 ms) stay within it."""
ALHAMBRA_SEARCH = 1_000
"""Worlds a CPU second that Alhambra's 2-player search must reach (the others do 2,000-8,000)."""


class Figure(msgspec.Struct, frozen=True):
    section: str
    name: str
    value: float
    unit: str
    target: str = ""
    passed: bool | None = None
    """None: a figure for information, with no target."""

    @property
    def verdict(self) -> str:
        return "" if self.passed is None else "pass" if self.passed else "MISS"

    def row(self) -> list[str]:
        return [
            self.section,
            self.name,
            f"{self.value:,.{2 if self.unit == '×' else 1}f} {self.unit}",
            self.target,
            self.verdict,
        ]


class Sizes(msgspec.Struct, frozen=True):
    """How much each section measures: `full` for the numbers we publish, `quick` for a check."""

    engine_games: int
    engine_repeats: int
    round_trips: int
    pipe_repeats: int
    overhead_games: int
    match_games: int
    tournament_deals: int
    round_robin_deals: int
    peer_games: int
    memory_small: int
    memory_large: int
    primitive_calls: int
    startups: int
    league: LeagueSizes
    standings: tuple[tuple[int, int], ...]
    """Ladders whose kept standings are timed: bots, deals a pairing."""
    scale: ScaleSizes
    executors: tuple[int, int, int, int]
    """`scale`: the round-robin's bots and deals, its interleaved rounds, the games stored."""
    search: tuple[int, int]
    """`search`: the positions searched, and the iterations from each."""
    final_sim: FinalSimSizes
    clones: ClonesSizes = msgspec.field(default_factory=lambda: ClonesSizes())


class ClonesSizes(msgspec.Struct, frozen=True):
    """`clones`: the games, the deals of the bank, whether the mcts bots are in, and the plays
    of each deal."""

    games: tuple[str, ...] = ("azul", "5211")
    deals: int = clones.DEALS
    search: bool = True
    repeats: int = clones.REPEATS


class FinalSimSizes(msgspec.Struct, frozen=True):
    """`final-sim`: the simulated finals' field sizes, fields a setting, and games budget."""

    bots: tuple[int, ...]
    runs: int
    budget: int


class ScaleSizes(msgspec.Struct, frozen=True):
    """`league-scale`: a class's roster and first uploads, and ladders of many bots."""

    roster: int
    uploads: int
    clients: int
    coverage_bots: tuple[int, ...]
    pages: tuple[tuple[int, int], ...]
    """Leagues whose pages are read: bots, games in the store."""
    readers: int
    pages_s: float


class LeagueSizes(msgspec.Struct, frozen=True):
    uploads: int
    store_games: int
    """Games in the store the ladder and `arena run` start from."""
    windows: int
    window_s: float
    """Several `store.BATCH_S`: a window counts the games committed in it."""
    readers: int
    period_s: float
    """Each reader asks for the leaderboard this often."""
    memory_games: int
    placements: int
    """New versions uploaded while the ladder is busy (the p95 of their first games' waits)."""
    final_budget: int
    """The most games of the final measured."""
    load_s: float = 40.0
    """Each phase of `pages_under_load`: readers alone, with hostile uploads, with polling."""
    rules_budget: int = 0
    """The budget of the finals of `final_real.RULES_FIELD` bots by each rule, in turn (0:
    not run)."""


FULL_LEAGUE = LeagueSizes(5, 10_000, 3, 30.0, 20, 0.5, 20_000, 10, 2000, rules_budget=2000)
QUICK_LEAGUE = LeagueSizes(1, 0, 1, 3.0, 2, 0.5, 6, 2, 60, 3.0)
PLACED_S = 10.0
"""A new version's first ladder game, at most this long after it is `playing` (p95)."""
FULL = Sizes(
    500,
    7,
    5000,
    7,
    60,
    60,
    100,
    20,
    200,
    1_000,
    1_000_000,
    20_000,
    21,
    FULL_LEAGUE,
    ((100, 2), (300, 2), (1000, 2), (1000, 25)),
    ScaleSizes(
        300, 200, 20, (10, 100, 200), ((10, 10_000), (100, 100_000), (1000, 1_000_000)), 20, 30.0
    ),
    (4, 20, 3, 5000),
    (30, 300),
    FinalSimSizes((20, 100, 200), 200, 200_000),
)
QUICK = Sizes(
    20,
    2,
    200,
    2,
    2,
    2,
    2,
    1,
    10,
    1_000,
    10_000,
    400,
    2,
    QUICK_LEAGUE,
    ((10, 2), (70, 1)),
    ScaleSizes(20, 6, 3, (6,), ((10, 1000),), 4, 3.0),
    (2, 1, 1, 200),
    (3, 20),
    FinalSimSizes((6,), 2, 2_000),
    ClonesSizes(("azul",), 2, False, 4),
)
ROSTER_S = 5.0
"""A class's tokens from one command, at most this long."""
ALL_PLAYING_S = 120.0
"""A class's first uploads all playing at most this long after the last one."""
BEHIND_S = 30.0
"""A version uploaded behind a class's first uploads playing at most this long after."""
EVERY_BOT_S = 180.0
"""Every playing bot has a ladder game at most this long after the ladder starts."""
BOARD_BEHIND_S = 30.0
"""While the ladder plays, the leaderboard at most this far behind the last stored game."""
OPPONENTS = 8
"""After ten times as many games as bots, every bot met at least this many opponents (or every
other bot)."""
PAIR_SHARE = 0.02
"""… and no pair of bots holds more than this share of the games (or twice an even share)."""
STANDINGS_REFRESH_S = 5.0
"""The most CPU a refresh of the standings may take after new games, at any size."""
PAGE_P99_MS = 100.0
"""Each page's p99 at most this, at any size of the league and its store."""
LEAGUE_MB = 300.0 * 1000**2 / 2**20
"""The server and its league children together at most 300 MB (in MiB), at any size."""

Progress = Callable[[str], None]


class Bench:
    """One run: the figures so far, and the ones later sections are judged against."""

    def __init__(self, sizes: Sizes, cores: int, progress: Progress) -> None:
        self.sizes = sizes
        self.cores = cores
        self.progress = progress
        self.figures: list[Figure] = []
        self.floor_us: float | None = None

    def add(self, *figures: Figure) -> None:
        self.figures.extend(figures)

    def engine(self) -> None:
        s = self.sizes
        for game_id in GAME_IDS:
            build = engine.build(game_id)
            for players in engine.player_counts(game_id):
                self.progress(f"engine: {game_id}, {players} players ({build})")
                playout = engine.playout(game_id)
                games = engine.affordable_games(playout, players, s.engine_games, PLAYOUT_MS)
                got = engine.measure(playout, players, games, s.engine_repeats)
                name = f"{game_id} {players}p random playouts ({build})"
                target, passed = "", None
                if game_id == "azul" and players == 2:
                    target, passed = "≥ 1,000 games/s", got.games_per_s >= 1000
                self.add(
                    Figure("engine", name, got.games_per_s, "games/s", target, passed),
                    Figure(
                        "engine",
                        f"{game_id} {players}p, {got.decisions_per_game:.0f} decisions/game",
                        got.decisions_per_s,
                        "decisions/s",
                    ),
                )

    def primitives(self) -> None:
        s = self.sizes
        for game_id in GAME_IDS:
            for players in engine.player_counts(game_id):
                self.progress(f"primitives: {game_id}, {players} players, mid-game")
                got = engine.primitives(game_id, players, s.primitive_calls, s.engine_repeats)
                name = f"{game_id} {players}p mid-game"
                target, passed = "", None
                if game_id == "azul" and players == 2:
                    target, passed = "≤ 5 µs", got.clone_apply_us <= 5
                self.add(
                    Figure("primitives", f"{name}: clone", got.clone_us, "µs"),
                    Figure(
                        "primitives",
                        f"{name}: clone + apply",
                        got.clone_apply_us,
                        "µs",
                        target,
                        passed,
                    ),
                    Figure(
                        "primitives",
                        f"{game_id} {players}p: clone + apply, mean over a game's states",
                        got.clone_apply_game_us,
                        "µs",
                    ),
                    Figure("primitives", f"{name}: legal", got.legal_us, "µs"),
                    Figure("primitives", f"{name}: random rollout", got.rollout_us, "µs"),
                )

    def startup(self) -> None:
        s = self.sizes
        self.progress("startup: the SDK random bot, from spawn to ready")
        bot = engine.startup(engine.SDK_RANDOM_BOT, s.startups)
        bare = engine.startup(engine.BARE_INTERPRETER, s.startups)
        self.add(
            Figure(
                "startup",
                "SDK random bot: CPU time to ready",
                bot.cpu_ms,
                "ms",
                "≤ 60 ms",
                bot.cpu_ms <= 60,
            ),
            Figure("startup", "SDK random bot: wall time from spawn to ready", bot.wall_ms, "ms"),
            Figure("startup", "bare interpreter: CPU time to a reply", bare.cpu_ms, "ms"),
            Figure("startup", "bare interpreter: wall time to a reply", bare.wall_ms, "ms"),
        )

    def floor(self) -> None:
        s = self.sizes
        self.progress("floor: pipe round trips")
        self.floor_us = pipes.trio_round_trip_us(s.round_trips, s.pipe_repeats)
        blocking = pipes.blocking_round_trip_us(s.round_trips, s.pipe_repeats)
        self.add(
            Figure("floor", "short line round trip, trio parent", self.floor_us, "µs"),
            Figure("floor", "short line round trip, blocking parent", blocking, "µs"),
        )

    def overhead(self) -> None:
        assert self.floor_us is not None
        self.progress("overhead: matches of two trivial bots")
        got = matches.referee_overhead_us(self.sizes.overhead_games)
        ratio = got.per_decision_us / self.floor_us
        self.add(
            Figure(
                "overhead", "per decision: wall − bots' own think time", got.per_decision_us, "µs"
            ),
            Figure("overhead", "… as a multiple of the round trip", ratio, "×", "≤ 5×", ratio <= 5),
            Figure("overhead", "bots' own think time per decision", got.bot_think_us, "µs"),
            Figure(
                "overhead",
                "per decision: wall − time charged (no pipe)",
                got.referee_only_us,
                "µs",
            ),
        )

    def referee(self) -> None:
        self.progress("referee: its own CPU time per decision, trivial bots")
        got = matches.referee_cpu_us(self.sizes.overhead_games)
        self.add(
            Figure(
                "referee",
                "referee CPU per decision (its process only)",
                got.per_decision_us,
                "µs",
            ),
            Figure("referee", "… lower quartile of the games", got.lower_quartile_us, "µs"),
            Figure(
                "referee",
                "least loop's CPU per decision, same deals (engine, codec, one trio wait)",
                got.least_loop_us,
                "µs",
            ),
            Figure(
                "referee",
                "… referee ÷ least loop",
                got.per_decision_us / got.least_loop_us,
                "×",
            ),
            Figure("referee", "wall time per decision, same games", got.wall_per_decision_us, "µs"),
        )

    def match(self) -> None:
        self.progress(f"match: random bots, 1 and {self.cores} at a time")
        got = matches.match_throughput(self.sizes.match_games, self.cores)
        self.add(
            Figure(
                "match",
                "azul 2p game, random bots",
                got.match_ms,
                "ms",
                "≤ 30 ms",
                got.match_ms <= 30,
            ),
            Figure("match", "one match at a time", got.games_per_s, "games/s"),
            Figure("match", f"{self.cores} matches at once", got.concurrent_games_per_s, "games/s"),
        )

    def tournament(self) -> None:
        s = self.sizes
        self.progress(f"tournament: 2 random bots, concurrency {self.cores}")
        pair = scale.round_robin(InProcess(self.cores), 2, s.tournament_deals, self.cores)
        self.progress(f"tournament: 4-bot round-robin, concurrency {self.cores}")
        four = scale.round_robin(InProcess(self.cores), 4, s.round_robin_deals, self.cores)
        self.add(
            Figure(
                "tournament",
                f"azul 2p, concurrency {self.cores}",
                pair.games_per_s,
                "games/s",
                "≥ 30 games/s",
                pair.games_per_s >= 30,
            ),
            Figure("tournament", "4-bot round-robin", four.games_per_s * 60, "games/min"),
        )

    def scale(self) -> None:
        bots, deals, rounds, stored = self.sizes.executors
        dask: list[Figure] = []
        if not scale.dask_available():
            self.progress(f"scale: Dask LocalCluster row skipped, Dask is not installed: {INSTALL}")
        else:
            self.progress("scale: Dask LocalCluster of 2 workers")
            games_per_s = scale.dask_games_per_s(bots, deals)
            name = "… Dask LocalCluster, 2 workers (start excluded)"
            dask.append(Figure("scale", name, games_per_s, "games/s"))
        self.progress("scale: local executor, 1 and 2 workers, and in-process, interleaved")
        got = scale.executor_throughput(bots, deals, rounds)
        self.progress("scale: Store.add_game")
        store = scale.store_games_per_s(stored)
        self.progress("scale: the coordinator's replay check and batched store")
        checked = scale.verified_store(stored, processes_here())
        game_ms = got.two.coordinator_ms + got.two.workers_ms
        share = 100 * checked.verify_ms / game_ms
        self.add(
            Figure(
                "scale",
                "azul 2p round-robin, local executor, 1 worker",
                got.one.games_per_s,
                "games/s",
            ),
            Figure("scale", "… local executor, 2 workers", got.two.games_per_s, "games/s"),
            Figure(
                "scale", "… 2 workers ÷ 1, interleaved", got.ratio, "×", "≥ 1.5×", got.ratio >= 1.5
            ),
            Figure(
                "scale", "… in-process executor, 2 at once", got.in_process.games_per_s, "games/s"
            ),
            *dask,
            Figure(
                "scale", "coordinator CPU per game (local, 2 workers)", got.two.coordinator_ms, "ms"
            ),
            Figure(
                "scale",
                "workers' CPU per game: referee + bots (local, 2 workers)",
                got.two.workers_ms,
                "ms",
            ),
            Figure("scale", "Store.add_game, one transaction per game", store, "games/s"),
            Figure("scale", "replay check of a quick game (coordinator)", checked.verify_ms, "ms"),
            Figure(
                "scale",
                "… share of a quick game's CPU (coordinator + workers)",
                share,
                "%",
                "≤ 10%",
                share <= 10,
            ),
            Figure(
                "scale",
                "games checked in its own thread and stored in batches (coordinator)",
                checked.in_thread,
                "games/s",
            ),
            Figure(
                "scale",
                f"… checked in {checked.processes} checking processes (remote workers' games)",
                checked.in_processes,
                "games/s",
                "≥ 5,000 games/s",
                checked.in_processes >= 5000,
            ),
        )

    def peer(self) -> None:
        if not engine.peer_available():
            self.progress(
                "peer: skipped, `azul_game_engine` is not installed "
                "(pip install --ignore-requires-python azul-game-engine)"
            )
            return
        s = self.sizes
        for players in (2, 4):
            self.progress(f"peer: checking the harness, {players} players")
            check = engine.peer_check(players, s.peer_games)
            self.add(
                Figure(
                    "peer",
                    f"azul-game-engine {players}p: games ended by its rules, tiles conserved",
                    100 * check.ended / check.games if check.conserved else 0,
                    "%",
                    "100 %",
                    check.conserved and check.ended == check.games,
                )
            )
            self.progress(f"peer: azul-game-engine and ours, interleaved, {players} players")
            got = engine.interleaved(
                engine.playout("azul"), engine.peer_playout, players, s.peer_games, s.engine_repeats
            )
            ratio = got.ratio
            self.add(
                Figure(
                    "peer", f"azul-game-engine {players}p random playouts", got.theirs, "games/s"
                ),
                Figure(
                    "peer",
                    f"ours ({engine.build()}) ÷ azul-game-engine, {players}p, interleaved",
                    ratio,
                    "×",
                    "≥ 4×" if players == 2 else "",
                    ratio >= 4 if players == 2 else None,
                ),
            )

    def search(self) -> None:
        positions, iterations = self.sizes.search
        for game_id, players in search.CASES:
            self.progress(f"search: mcts on {game_id}, {players} players")
            rate = search.iterations_per_second(game_id, players, positions, iterations)
            name = f"mcts {game_id} {players}p ({engine.build(game_id)})"
            if (game_id, players) == ("alhambra", 2):
                passed = rate >= ALHAMBRA_SEARCH
                target = f"≥ {ALHAMBRA_SEARCH:,} iterations/s"
                self.add(Figure("search", name, rate, "iterations/s", target, passed))
            else:
                self.add(Figure("search", name, rate, "iterations/s"))

    def league(self) -> None:
        s = self.sizes.league
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            uploads = league_server.upload_to_playing(Path(tmp), s.uploads, self.progress)
        beyond = statistics.median([u.wait_s - u.check_s for u in uploads]) * 1000
        self.add(
            Figure(
                "league",
                f"upload → playing, beyond its check game (median of {len(uploads)})",
                beyond,
                "ms",
                "≤ 1,000 ms",
                beyond <= 1000,
            ),
            Figure(
                "league",
                "… the check game itself",
                statistics.median([u.check_s for u in uploads]) * 1000,
                "ms",
            ),
        )
        self.placements()
        self.final()
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            folder = Path(tmp)
            league_server.write_files(folder, concurrency=self.cores)
            base = league_server.fill(folder, s.store_games, self.progress)
            load = league_server.ladder_and_readers(
                folder,
                base,
                windows=s.windows,
                seconds=s.window_s,
                readers=s.readers,
                period_s=s.period_s,
                progress=self.progress,
            )
            on_dask: list[Figure] = []
            if not scale.dask_available():
                self.progress(f"league: the Dask ladder skipped, Dask is not installed: {INSTALL}")
            else:
                by_executor = league_server.ladder_by_executor(
                    folder, base, windows=s.windows, seconds=s.window_s, progress=self.progress
                )
                local_rate = sum(local.games_per_s for local, _ in by_executor)
                dask_rate = sum(dask.games_per_s for _, dask in by_executor)
                if not (local_rate and dask_rate):  # windows too short to hold a second game
                    self.progress("league: the Dask ladder's windows held too few games to compare")
                else:
                    ratio = dask_rate / local_rate  # windows of one length
                    on_dask.append(
                        Figure(
                            "league",
                            f"the ladder on a Dask LocalCluster of {self.cores} ÷ local, "
                            "interleaved",
                            ratio,
                            "×",
                            "≥ 0.8×",
                            ratio >= 0.8,
                        )
                    )
            loaded = league_server.pages_under_load(
                folder,
                base,
                readers=s.readers,
                period_s=s.period_s,
                seconds=s.load_s,
                progress=self.progress,
            )
        self.add(*on_dask)
        self.under_load(loaded)
        run_rate = statistics.median(window.games_per_s for window in load.runs)
        ladder_rate = statistics.median(window.games_per_s for window in load.ladders)
        pairs = zip(load.ladders, load.runs, strict=True)
        at_mix = statistics.median(league_server.at_run_mix(ladder, run) for ladder, run in pairs)
        p99 = league_server.p99(load.latencies_s) * 1000
        where = f"{load.store_games:,}-game store, concurrency {self.cores}"
        self.add(
            Figure("league", f"`arena run`, {where}", run_rate, "games/s"),
            Figure("league", f"the ladder, {where}, with readers", ladder_rate, "games/s"),
            Figure("league", "the ladder ÷ `arena run`, interleaved", ladder_rate / run_rate, "×"),
            Figure(
                "league",
                "… at the same mix of pairings (each game priced by `arena run`'s wall time)",
                at_mix,
                "×",
                "≥ 0.8×",
                at_mix >= 0.8,
            ),
            Figure(
                "league",
                f"leaderboard p99, {s.readers} readers each every {s.period_s} s "
                f"({len(load.latencies_s):,} requests)",
                p99,
                "ms",
                "≤ 100 ms",
                p99 <= 100 and not load.errors,
            ),
            Figure(
                "league", "leaderboard median", statistics.median(load.latencies_s) * 1000, "ms"
            ),
        )
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            hostile = league_server.hostile_upload(
                Path(tmp), s.readers, s.period_s, self.cores, self.progress
            )
        worst = league_server.p99(hostile.latencies_s) * 1000
        self.add(
            Figure(
                "league",
                f"leaderboard p99 while a version naming a 90 MB folder and an endless file is "
                f"checked ({s.readers} readers, {len(hostile.latencies_s):,} requests; it ended "
                f"{hostile.status})",
                worst,
                "ms",
                "≤ 100 ms",
                worst <= 100 and not hostile.errors,
            ),
        )

    def under_load(self, loaded: league_server.UnderLoad) -> None:
        """The leaderboard's p99 beside the ladder with its readers alone, then while an author
        uploads hostile archives, then while other clients poll a bot's page and games."""
        s = self.sizes.league
        base, hostile, polling = (
            league_server.p99(latencies) * 1000
            for latencies in (loaded.baseline_s, loaded.hostile_s, loaded.polling_s)
        )
        ok = not loaded.errors
        uploads = ", ".join(f"{n} × {code}" for code, n in sorted(loaded.uploads.items()))
        polls = sum(loaded.polls.values())
        self.add(
            Figure(
                "league",
                f"leaderboard p99 beside the ladder, {s.readers} readers alone for {s.load_s:g} s "
                f"({len(loaded.baseline_s):,} requests): the baseline of the two below",
                base,
                "ms",
                "≤ 100 ms",
                base <= 100 and ok,
            ),
            Figure(
                "league",
                f"… while an author uploads hostile archives one after another "
                f"({len(loaded.hostile_s):,} requests; the uploads answered {uploads})",
                hostile,
                "ms",
                "≤ 100 ms",
                hostile <= 100 and ok,
            ),
            Figure(
                "league",
                f"… while 4 clients (3 signed out) poll a bot's page and its 500 newest games "
                f"without pause ({len(loaded.polling_s):,} requests; they got {polls:,} answers, "
                f"{loaded.polls.get(429, 0):,} of them 429)",
                polling,
                "ms",
                "≤ 100 ms",
                polling <= 100 and ok,
            ),
        )

    def placements(self) -> None:
        """New versions uploaded while the ladder fills every core: each one's first game, and
        how soon it has met every other bot from every seat."""
        s = self.sizes.league
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            placed = league_server.placements(Path(tmp), s.placements, self.cores, self.progress)
        first = league_server.percentile([p.first_s for p in placed], 0.95)
        pairs = placed[0].pairs
        met = [p.to_meet or math.inf for p in placed]
        where = (
            f"{len(league_server.PLACEMENT_HOUSE)} quick bots, Azul 2p, concurrency {self.cores}"
        )
        self.add(
            Figure(
                "league",
                f"a new version's first ladder game after `playing` ({where}), "
                f"p95 of {len(placed)}",
                first,
                "s",
                f"≤ {PLACED_S:.0f} s",
                first <= PLACED_S,
            ),
            Figure(
                "league",
                f"… its games until it met every other bot from every seat ({pairs} pairs), most",
                max(met),
                "games",
                f"≤ {2 * pairs} (2 × opponents × rotations)",
                max(met) <= 2 * pairs,
            ),
        )

    def final(self) -> None:
        """A season's final, hands off, from `arena serve` on the frozen league to its
        standings published; they must be `arena table`'s of its games."""
        s = self.sizes.league
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            run = league_server.final_of(Path(tmp), s.final_budget, self.cores, self.progress)
        ended = "settled" if run.settled else "its budget spent"
        self.add(
            Figure(
                "league",
                f"a final of {len(league_server.FINAL_HOUSE)} quick bots (Azul 2p, concurrency "
                f"{self.cores}) from `arena serve` to published: {run.games:,} games, {ended}",
                run.seconds,
                "s",
                "published = `arena table`",
                run.equal_to_table,
            ),
        )
        if s.rules_budget:
            self.rules(s.rules_budget)

    def rules(self, budget: int) -> None:
        """The sequential final against the one before it (`rank.doubling`) on the same bots
        and budget, in turn (doubling, sequential, doubling, sequential): their median times
        from `arena serve` to published, their games and what they proved."""
        runs: dict[str, list[league_server.FinalRun]] = {rule: [] for rule in final_real.RULES}
        for rule in final_real.RULES * 2:
            runs[rule].append(
                final_real.run(final_real.RULES_FIELD, budget, rule, self.cores, self.progress)
            )
        seconds = {
            rule: statistics.median(r.seconds for r in found) for rule, found in runs.items()
        }
        said = "; ".join(
            f"{rule}: {', '.join(final_real.proved(r) for r in found)}"
            for rule, found in runs.items()
        )
        self.add(
            Figure(
                "league",
                f"a final of {final_real.RULES_FIELD} quick bots of different strengths, the "
                f"sequential one over the doubling one (median time to published, {budget:,} "
                f"games at most, the whole order claimed; {said})",
                seconds["sequential"] / seconds["doubling"],
                "×",
                "≤ 1",
                seconds["sequential"] <= seconds["doubling"],
            ),
        )

    def league_memory(self) -> None:
        s = self.sizes.league
        with tempfile.TemporaryDirectory(prefix="arena-bench-league-") as tmp:
            folder = Path(tmp)
            league_server.write_files(folder, concurrency=self.cores)
            base = league_server.fill(folder, s.store_games, self.progress)
            samples = league_server.memory(folder, base, s.memory_games, self.progress)
        played = samples[-1][0]
        warm = [mb for games, mb in samples if games >= played // 20] or [samples[-1][1]]
        reference = warm[0]
        spread = max(abs(mb - reference) for mb in warm) / reference * 100
        self.add(
            Figure("league-memory", f"server RSS after {played // 20:,} games", reference, "MiB"),
            Figure("league-memory", f"server RSS after {played:,} games", samples[-1][1], "MiB"),
            Figure(
                "league-memory",
                f"largest move from the first over {played:,} ladder games",
                spread,
                "%",
                "≤ 10%",
                spread <= 10,
            ),
        )

    def memory(self) -> None:
        s = self.sizes
        self.progress("memory: walking schedules")
        small_games, small = memory.schedule_peak_bytes(s.memory_small)
        large_games, large = memory.schedule_peak_bytes(s.memory_large)
        slack = 4096  # tracemalloc's own bookkeeping varies by a few blocks
        self.add(
            Figure("memory", f"schedule of {small_games:,} games, peak", small / 1024, "KiB"),
            Figure(
                "memory",
                f"schedule of {large_games:,} games, peak",
                large / 1024,
                "KiB",
                f"≤ the {small_games:,}-game peak + 4 KiB",
                large <= small + slack,
            ),
        )

    def standings(self) -> None:
        standings.fit_seconds(standings.ladder(70), 1)  # scipy's import is not the fit's cost
        for bots, deals in self.sizes.standings:
            games = standings.ladder(bots, deals=deals)
            size = f"{bots:,} bots ({len(games):,} games)"
            self.progress(f"standings: kept tables of {size}")
            took = standings.refresh_seconds(games)
            self.add(
                Figure("standings", f"first board, whole bootstrap, {size}, CPU", took.first_s, "s")
            )
            self.add(
                Figure(
                    "standings",
                    f"refresh after {took.new:,} new games, {size}, CPU",
                    took.refresh_s,
                    "s",
                    f"≤ {STANDINGS_REFRESH_S:.0f} s",
                    took.refresh_s <= STANDINGS_REFRESH_S,
                )
            )
            name = f"… the rest of its bootstrap over {took.refreshes} refreshes, CPU"
            self.add(Figure("standings", name, took.bootstrap_s, "s"))

    def final_sim(self) -> None:
        """The sequential final against today's on simulated fields (`bench.final_sim`)."""
        s = self.sizes.final_sim
        for setting, todays in final_sim.settings(s.bots, s.budget):
            self.progress(f"final-sim: {setting.bots} finalists, {setting.spread:.0f} Elo")
            for row in final_sim.replicate(setting, s.runs, 0, todays):
                sequential = row.rule == "sequential"
                claim = setting.claim.describe() if sequential else "the whole order"
                rule = "the sequential" if sequential else "today's"
                claimed = "—" if row.games_claimed is None else f"{row.games_claimed:,.0f}"
                share = (
                    ""
                    if row.share_of_todays is None
                    else f", {row.share_of_todays:.2f} of today's games where both claimed"
                )
                name = (
                    f"{setting.bots} finalists, {setting.spread:.0f} Elo, {setting.players}p, "
                    f"{claim}, {rule} final: claimed in {row.claimed_pct:.0f}% of "
                    f"{row.runs} (median {claimed} games{share}), wrong in"
                )
                target = "≤ 5%" if sequential else ""
                passed = row.wrong_pct <= 5 if sequential else None
                self.add(Figure("final-sim", name, row.wrong_pct, "%", target, passed))

    def clones(self) -> None:
        """The copy check on its corpus, for 2 players (`bench.clones`)."""
        s = self.sizes.clones
        for game in s.games:
            found = clones.measure(
                game, 2, s.deals, s.repeats, search=s.search, progress=self.progress
            )
            where = f"{game}, 2 players, {found.bots} bots"
            copies = 100 * found.found / max(found.copy_pairs, 1)
            name = f"{where}: copy pairs found (of {found.copy_pairs})"
            self.add(Figure("clones", name, copies, "%", "≥ 95%", copies >= 95))
            falsely = 100 * found.flagged / max(found.independent_pairs, 1)
            name = f"{where}: independent pairs flagged (of {found.independent_pairs})"
            self.add(Figure("clones", name, falsely, "%", "≤ 1%", falsely <= 1))
            if found.related_pairs:
                related = 100 * found.related_flagged / found.related_pairs
                name = f"{where}: related pairs flagged (of {found.related_pairs}; one program)"
                self.add(Figure("clones", name, related, "%"))
            worst, median = max(found.cpu_s), statistics.median(found.cpu_s)
            shape = f"median {median:.1f} s; {found.cut} cut"
            name = f"{where}: CPU per fingerprint, the most ({shape})"
            self.add(Figure("clones", name, worst, "s", "≤ 60 s", worst <= 60))

    def league_scale(self) -> None:
        """A class's tokens and first uploads, and ladders of many uploaded bots."""
        s = self.sizes.scale
        with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as tmp:
            league_server.write_files(Path(tmp), concurrency=self.cores, house={})
            roster = league_scale.roster_seconds(Path(tmp), s.roster)
        with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as tmp:
            first = league_scale.first_uploads(
                Path(tmp), s.uploads, s.clients, self.cores, self.progress
            )
        where = f"quick Python bots, Azul 2p, concurrency {self.cores}"
        self.add(
            Figure(
                "league-scale",
                f"{s.roster} tokens from one `arena league token --roster`",
                roster,
                "s",
                f"≤ {ROSTER_S:.0f} s",
                roster <= ROSTER_S,
            ),
            Figure(
                "league-scale",
                f"{first.uploads} first uploads ({s.clients} clients, {where}) all checked, "
                f"after the last ({first.rejected} rejected)",
                first.all_playing_s,
                "s",
                f"≤ {ALL_PLAYING_S:.0f} s",
                first.all_playing_s <= ALL_PLAYING_S and not first.rejected,
            ),
            Figure(
                "league-scale",
                "… a version uploaded behind them, `playing` after its upload",
                first.behind_s,
                "s",
                f"≤ {BEHIND_S:.0f} s",
                first.behind_s <= BEHIND_S,
            ),
        )
        for bots, games in s.pages:
            with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as tmp:
                read = league_scale.pages(
                    Path(tmp),
                    bots,
                    games,
                    readers=s.readers,
                    seconds=s.pages_s,
                    concurrency=self.cores,
                    progress=self.progress,
                )
            at = f"{bots:,} bots, {games:,} games"
            self.add(
                Figure("league-scale", f"{at}: the synthetic store written", read.fill_s, "s"),
                *(
                    Figure(
                        "league-scale",
                        f"… {kind}, p99 of {s.readers} readers, the ladder playing",
                        ms,
                        "ms",
                        f"≤ {PAGE_P99_MS:.0f} ms",
                        ms <= PAGE_P99_MS and not read.errors,
                    )
                    for kind, ms in read.p99_ms.items()
                ),
                Figure(
                    "league-scale",
                    "… from the server's start until its leaderboard is of every game",
                    read.board_s,
                    "s",
                ),
                *(
                    Figure("league-scale", f"… resident memory of {process}, most", mb, "MiB")
                    for process, mb in sorted(
                        (("the server" if name == "server" else f"its {name} child"), mb)
                        for name, mb in read.resident_mb.items()
                    )
                ),
                Figure(
                    "league-scale",
                    "… the server and its children together (proportional sets), most",
                    read.together_mb,
                    "MiB",
                    f"≤ {LEAGUE_MB:.0f} MiB",
                    read.together_mb <= LEAGUE_MB,
                ),
            )
            for error in sorted(set(read.errors)):
                self.progress(f"league-scale: a reader's error at {at}: {error}")
        for bots in s.coverage_bots:
            with tempfile.TemporaryDirectory(prefix="arena-bench-scale-") as tmp:
                self.progress(f"league-scale: the ladder of {bots} playing bots")
                met = league_scale.coverage(Path(tmp), bots, self.cores, self.progress)
            fewest = min(OPPONENTS, bots - 1)
            share = max(PAIR_SHARE, 2 / math.comb(bots, 2))
            self.add(
                Figure(
                    "league-scale",
                    f"{bots} playing bots ({where}): every one has a ladder game",
                    met.every_bot_s,
                    "s",
                    f"≤ {EVERY_BOT_S:.0f} s",
                    met.every_bot_s <= EVERY_BOT_S,
                ),
                Figure(
                    "league-scale",
                    f"… after {met.games:,} games, the fewest opponents a bot met",
                    met.fewest_opponents,
                    "bots",
                    f"≥ {fewest}",
                    met.fewest_opponents >= fewest,
                ),
                Figure(
                    "league-scale",
                    "… the leaderboard behind the store, at most",
                    met.board_behind_s,
                    "s",
                    f"≤ {BOARD_BEHIND_S:.0f} s",
                    met.board_behind_s <= BOARD_BEHIND_S,
                ),
                Figure(
                    "league-scale",
                    "… the largest share of the games one pair played",
                    met.largest_pair_share * 100,
                    "%",
                    f"≤ {share * 100:.1f}%",
                    met.largest_pair_share <= share,
                ),
            )


def run(
    only: Sequence[str] = (),
    *,
    quick: bool = False,
    progress: Progress | None = None,
    sizes: Sizes | None = None,
    cores: int | None = None,
) -> list[Figure]:
    """Measure the sections in `only` (all when empty), with what they are judged against, at
    `sizes` (the tests' smallest) or else the quick or the full ones, on `cores` (the
    machine's when None)."""
    wanted = set(only or SECTIONS)
    for section in list(wanted):
        wanted.update(NEEDS.get(section, ()))
    chosen = sizes or (QUICK if quick else FULL)
    bench = Bench(chosen, cores or os.cpu_count() or 1, progress or (lambda _: None))
    for section in SECTIONS:
        if section in wanted:
            getattr(bench, section.replace("-", "_"))()
    return bench.figures


HEADERS = ["section", "figure", "value", "target", "result"]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with_model = _cpu_model()
    return (
        f"{os.cpu_count()} cores ({with_model or cpu}), {platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""
    found = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return found[1].strip() if found else ""


CLOCKS_SECTION = "## Clocks under load"


def markdown(figures: Sequence[Figure], argv: Sequence[str], existing: str = "") -> str:
    """docs/benchmarks.md: the command, the machine, the table; a kept "Clocks under load"."""
    from tournaments.output import render_table

    table = render_table(HEADERS, [figure.row() for figure in figures], "github")
    command = shlex.join(["arena", "bench", *argv])
    text = f"""# Benchmarks

Regenerated from a real run by

```
{command}
```

on {machine()}. Every figure is a median over repetitions; a target that is a ratio compares
two figures of the same run (the machine is shared and noisy, so absolute figures move by
tens of per cent from run to run). `arena bench --help` lists the sections; `--quick` runs each
with tiny repetitions (a smoke test, not a measurement).

{table}

## What each figure measures

- **engine**: random playouts in-process, of every game (`referee.games.GAME_IDS`) with 2 and 4
  players — every decision asks the engine for the full legal list and applies a uniform
  choice, so legal-move generation and full validation are counted. CPU time of one core. A
  game whose playout takes over {PLAYOUT_MS:.0f} ms (Alhambra) plays fewer games per repetition.
- **floor**: one short line there and back between a parent and a Python child (`echo`, blocking
  reads and writes) over pipes; the trio parent is the referee's situation and the yardstick of
  the overhead figure. A round trip is mostly the time it takes to wake the other process, so it
  depends on whether the cores are idle or busy: compare it only with figures of the same run.
- **overhead**: two trivial bots (answer `index: 0` at once, decoding only `type` and `id`) play
  whole Azul games on reused processes. The target row: per decision, the game's wall time minus
  the think time the bots report themselves (each times, with `perf_counter_ns`, from having read
  an `act` line to just before writing its answer, and reports the game's total at `end`). What
  remains is everything but thinking — the referee (legal moves, observation, encoding, checking
  the answer, applying it, the record, scheduling), the pipe transfer both ways and the bots'
  reading and writing — and it is divided by the trio round trip of the same run. The last row
  is the narrower older figure: wall time minus the time the referee charged the bots (from
  writing `act` to reading the answer), i.e. the referee's own work without the pipe.
- **referee**: the same trivial bots; the first row is the referee's own CPU time per decision:
  the CPU time of the referee process (`time.process_time`: its threads, never the bots, which
  are its child processes) over whole games, game starts and ends included, divided by the
  decisions, the median over games (and its lower quartile: on a shared machine other processes
  only ever add to it). The bots are real processes, reused across games, so every check the
  referee makes per decision is the real one. Beside it, a game in turn on the same deals, the
  least loop (`tournaments.bench.matches`): only the engine's work, the `act` encoding, one
  write, one trio wait and read and the answer's bare decoding per decision, on two more
  trivial bots; the ratio is what the referee's own bookkeeping adds to that. The target (≤
  1.25×) is on the same two loops counted in instructions, which the machine's load does not
  move (`python -m tournaments.bench.instructions`: "The referee's CPU in instructions" below);
  the earlier ≤ 70 µs of CPU is withdrawn.
- **match**: the built-in random bot (SDK, typed decoding) in both seats, processes reused:
  median wall time of a whole game, and games/s one match at a time and one per core.
- **tournament**: the real runner and SQLite store on a temporary file (process starts per unit
  and one transaction per stored game included), concurrency = cores.
- **scale**: the executors (`tournaments.bench.scale`): a 4-bot Azul 2p round-robin of random
  bots on a fresh store, played by the local executor with 1 and 2 referee processes and by the
  in-process one with 2 matches at once, interleaved round by round (the ratio is the median of
  the per-round ratios); the same on a Dask `LocalCluster` of 2 workers, its start left out
  (without the `dask` extra that row is skipped, and the run says so).
  The cost rows feed the estimate in [scaling.md](scaling.md): the coordinator's CPU per game,
  the workers' (referee and bot processes, reaped children), and `Store.add_game` of a real
  game, one transaction each. Then the coordinator's check of what workers send: the replay of
  one quick game's record (`executors.verify`), its share of that game's CPU (the coordinator's
  and the workers' above), and games delivered to a runner — each replayed, then stored in
  batches — checked in the coordinator's own thread (the local executors' path) and in
  one checking process per core (`executors.checking`, Dask's path; the processes started
  before the clock): the most one coordinator stores from its workers.
- **primitives**: what a search bot lives on, per game as above, on one mid-game state (15
  random decisions in; in Azul 2p mid-round 2): `clone`, `clone` + `apply` of one action per
  acting seat, `legal`, and a random rollout of a clone to the end (`simulate`); and `clone` +
  `apply` averaged over every state of the same game, round ends (wall-tiling, the next deal)
  included. CPU time per call.
- **startup**: `python -m bots.random` (the SDK random bot) started, sent `start`, its `ready`
  read, its input closed: the CPU time the process used over its whole life (the target row:
  what a start costs on an idle machine, since waiting for a core is not counted; it includes
  exiting) and the wall time from spawn to `ready`; the same for a bare interpreter that reads
  a line and answers, for scale. An editable install adds its import hook to every start.
- **peer**: the same playout on the `azul-game-engine` package (optional, never a dependency:
  `pip install --ignore-requires-python azul-game-engine`), with the legal list enumerated from
  its public state in the harness and counted in its time: source × colour × every pattern line
  that may take the colour, plus all to the floor. The harness builds the game as the package's
  rules mean it, with one lid shared by the game and every floor; before each timing it plays
  the same number of games checking that 100 tiles are conserved after every decision and that
  every game ends by the peer's own end rule (the first row). Ours and the peer's playouts are
  timed alternately, and the ratio is the median of the per-pair ratios, so that the machine's
  load changing between sections cannot pass for a difference in speed. The row names the
  build of our engines that ran (pure Python, or compiled with mypyc: see setup.py). (An earlier
  harness gave each floor a private lid: discarded tiles never came back, and 42 % of 2-player
  and 99 % of 4-player games stopped early with an empty bag, which made the peer look about
  twice as slow.)
- **memory**: tracemalloc peak while walking every game of a lazily generated schedule.
- **search**: iterations per CPU second of the `mcts` bot's search (default parameters), each
  decision as the bot makes it (a state rebuilt from the observation, then 300 iterations), over
  30 positions of random games per game and player count, with the build that ran (the engines,
  and Alhambra's search knowledge, compiled or not). An iteration of Alhambra's flat search is
  one sampled world, in which each candidate is played.
- **standings**: CPU time of the leaderboard's kept standings (`rank.running`: the tallies, the
  Elo fit, 200 bootstrap refits spread over refreshes) on synthetic ladders where each bot
  started pairings with {standings.OPPONENTS} others (a few deals each, in both seat orders):
  pairs grow with the bots, as in a league. The first board counts every game but the last
  {standings.NEW_GAMES:,}; the refresh then adds those, refits and draws resamples for at most
  its budget; the rest of the bootstrap is drawn by the refreshes after it.
- **final-sim**: a season's final simulated without bots (`tournaments.bench.final_sim`):
  fields of finalists with normal strengths of the given spread (sd, in Elo) whose games are
  Plackett–Luce finishing orders; the sequential final (`rank.sequential`, `rank.certify`) and
  today's (every seat-set, doubling deals, neighbours at 95% likelihood of superiority) on the
  same fields. A figure is the share of fields where the final claimed its order and the claim
  is wrong (the family-wise error); its name says how often it claimed and the median games.
- **clones**: the copy check (`tournaments.bench.clones`) on its corpus (`bench.corpus`):
  every bot fingerprinted with the league's bank, each its own author; a copy pair (a bot and
  a copy of it, or two copies of one bot) is found when its verdict is a copy; an independent
  pair is flagged falsely when its verdict is a copy or worth a look. CPU per fingerprint is
  the referee's and every bot's (the house bot's included), the most over the corpus.
"""
    if CLOCKS_SECTION in existing:
        text += "\n" + existing[existing.index(CLOCKS_SECTION) :].rstrip() + "\n"
    return text


def print_progress(message: str) -> None:
    print(f"arena bench: {message}", file=sys.stderr, flush=True)
