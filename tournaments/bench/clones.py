"""`arena bench --only clones`: the copy check on its corpus (`bench.corpus`). Every bot of the
corpus is fingerprinted with the league's bank (`league.fingerprint`) and each its own author;
a copy pair (two bots of one family) is found when its verdict is a copy, and an independent
pair is flagged falsely when its verdict is a copy or worth a look. Related pairs (one program
under both, `corpus.kind`) are counted apart, flagged or not, with no target."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import trio

from referee import Limits
from tournaments.bench.corpus import Entry, corpus, kind
from tournaments.league.clones import Pair, compare
from tournaments.league.fingerprint import DEALS, REPEATS, Fingerprint, fingerprint
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.config import Tournament


class Outcome(msgspec.Struct, frozen=True):
    game: str
    players: int
    bots: int
    copy_pairs: int
    found: int
    independent_pairs: int
    flagged: int
    related_pairs: int
    related_flagged: int
    cpu_s: list[float]
    """CPU seconds of each fingerprint: the referee's and every bot's, house bots included."""
    cut: int
    """Fingerprints cut short by their CPU (`league.fingerprint.CPU_S`)."""


def _cpu() -> float:
    """This process's CPU seconds: the referee's. Its bots' are the fingerprint's own count
    (`Fingerprint.cpu_s`, their processes' accounting): a bot killed in the sandbox is never
    reaped into this process's children's times."""
    times = os.times()
    return times.user + times.system


def fingerprint_corpus(
    game: str,
    players: int = 2,
    deals: int = DEALS,
    repeats: int = REPEATS,
    *,
    search: bool = True,
    progress: Callable[[str], None] = lambda _: None,
) -> tuple[list[Entry], dict[str, Fingerprint], list[float]]:
    """Fingerprint the corpus of `game` (without its mcts bots unless `search`): its entries,
    their fingerprints by name, and the CPU seconds of each."""
    tournament = Tournament(game=game, players=players)
    with tempfile.TemporaryDirectory(prefix="arena-bench-clones-") as folder:
        entries = [
            entry for entry in corpus(game, Path(folder)) if search or "mcts" not in entry.command
        ]

        async def fingerprints() -> tuple[dict[str, Fingerprint], list[float]]:
            made, cpu = {}, []
            for entry in entries:
                began, began_s = _cpu(), time.monotonic()
                spec = parse_bot(entry.command, entry.name)
                made[entry.name] = await fingerprint(
                    tournament, spec, Limits(), b"bench", deals, repeats
                )
                cpu.append(_cpu() - began + made[entry.name].cpu_s)
                progress(f"clones: {game} {entry.name} in {time.monotonic() - began_s:.0f} s")
            return made, cpu

        made, cpu = trio.run(fingerprints)
    return entries, made, cpu


def judge(
    game: str, players: int, entries: list[Entry], made: dict[str, Fingerprint], cpu: list[float]
) -> Outcome:
    """Every pair of the corpus compared, each bot its own author."""
    named = {entry.name: entry for entry in entries}
    pairs = compare(made, {name: name for name in made})
    kinds: dict[str, list[Pair]] = {"copy": [], "related": [], "independent": []}
    for pair in pairs:
        kinds[kind(named[pair.a], named[pair.b])].append(pair)
    return Outcome(
        game,
        players,
        len(entries),
        len(kinds["copy"]),
        sum(pair.verdict.startswith("copy") for pair in kinds["copy"]),
        len(kinds["independent"]),
        sum(pair.flagged for pair in kinds["independent"]),
        len(kinds["related"]),
        sum(pair.flagged for pair in kinds["related"]),
        cpu,
        sum(fingerprint.cut for fingerprint in made.values()),
    )


def measure(
    game: str,
    players: int = 2,
    deals: int = DEALS,
    repeats: int = REPEATS,
    **options: Any,
) -> Outcome:
    """Fingerprint the corpus of `game` (`fingerprint_corpus`, its keyword `options`) and
    judge every pair."""
    return judge(game, players, *fingerprint_corpus(game, players, deals, repeats, **options))
