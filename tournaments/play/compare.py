"""Comparing two strategies: A against B deal by deal until an SPRT decides.

Every deal is played in all seatings that make it fair: for two players A–B and B–A; for more,
A, B and the field in every cyclic rotation and again with A and B swapped, so neither always
sits just before the other. The deal's score is A's pairwise score against B over those games.

Deals are played concurrently (each worker keeps its bot processes across deals, one set of
processes per seating, so that no process plays two games of one deal and remembers its hidden
cards) but fed to the test strictly in deal order, so the decision — and the number of deals it
took — depends only on the deals, never on which worker was faster. Games in flight when the test
decides are dropped.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence

import msgspec
import trio

from protocol import TimeControl
from referee import BotHandle, Limits, MatchOutcome, open_bots, play_match
from tournaments.executors.work import played_from
from tournaments.output import plural
from tournaments.plan.config import Tournament
from tournaments.plan.entrants import Entrant
from tournaments.plan.schedule import bot_seeds, deal_seed, seating
from tournaments.rank.ratings import head_to_head, pair_score
from tournaments.rank.sprt import Decision, SprtBounds, decide, llr
from tournaments.store.results import FinishedGame

OnDeal = Callable[[int, float], None]
"""Called after each deal reaches the test, with (deals so far, LLR)."""


async def play_game(
    tournament: Tournament,
    handles: Sequence[BotHandle],
    deal: int,
    rotation: int,
    *,
    secret: bytes,
    table: str,
    limits: Limits,
    tag: str,
    times: Sequence[TimeControl] | None = None,
) -> tuple[MatchOutcome, float]:
    """Play deal `deal` of `table` with the seat-set's handles in `rotation`; the outcome and
    wall ms.

    `times` are the bots' time controls in the order of `handles` (the tournament's for all when
    None). The handles must not have played another rotation of this deal (see the module
    docstring).
    """
    began = time.perf_counter()
    seed = tournament.seed
    outcome = await play_match(
        tournament.game,
        tournament.options,
        deal_seed(secret, seed, table, deal),
        seating(handles, rotation),
        tournament.time if times is None else seating(times, rotation),
        limits=limits,
        bot_seeds=bot_seeds(secret, seed, deal, rotation, len(handles)),
        log_tag=f"{tag}.{deal}.{rotation}",
    )
    return outcome, (time.perf_counter() - began) * 1000


class Comparison(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of `arena compare`: the decision, what it cost, and the estimate."""

    a: str
    b: str
    field: list[str]
    decision: Decision | None
    """"H1": A is stronger by at least elo1; "H0": not stronger than elo0; None: undecided."""
    verdict: str
    deals: int
    games: int
    llr: float
    lower: float
    upper: float
    bounds: SprtBounds
    score: float
    """A's pairwise score against B."""
    elo: float
    elo_lo: float
    elo_hi: float
    los: float
    faulty_games: int = 0
    """Games in the test in which some bot faulted (forfeited)."""


def seatings(players: int) -> list[tuple[int, ...]]:
    """Indices into (A, B, field...) for each game of a deal (see the module docstring)."""
    base = tuple(range(players))
    orientations = [base] if players == 2 else [base, (1, 0, *base[2:])]
    return [seating(order, r) for order in orientations for r in range(players)]


class _Test:
    """The sequential test's state, shared by the workers."""

    def __init__(self, bounds: SprtBounds, max_deals: int, on_deal: OnDeal | None) -> None:
        self.bounds = bounds
        self.max_deals = max_deals
        self.on_deal = on_deal
        self.next_deal = 0
        self.pending: dict[int, list[FinishedGame]] = {}
        self.scores: list[float] = []
        self.games: list[FinishedGame] = []
        self.llr = 0.0
        self.decision: Decision | None = None
        self.stop = trio.CancelScope()
        self.ready: dict[int, str] = {}
        """Entrant index → the name its bot gave in `ready` (the referee's name for a seat)."""

    def take(self) -> int | None:
        """The next deal to play, or None when the test is over."""
        if self.decision is not None or self.next_deal >= self.max_deals:
            return None
        self.next_deal += 1
        return self.next_deal - 1

    def finish(self, deal: int, games: list[FinishedGame], a: str, b: str) -> None:
        """Feed finished deals to the test in order; stop everything once it decides."""
        self.pending[deal] = games
        while self.decision is None and len(self.scores) in self.pending:
            deal_games = self.pending.pop(len(self.scores))
            points = [
                pair_score(g.played.ranks[g.bots.index(a)], g.played.ranks[g.bots.index(b)])
                for g in deal_games
            ]
            self.scores.append(math.fsum(points) / len(points))
            self.games += deal_games
            self.llr = llr(self.scores, self.bounds)
            self.decision = decide(self.llr, self.bounds)
            if self.on_deal is not None:
                self.on_deal(len(self.scores), self.llr)
        if self.decision is not None:
            self.stop.cancel()


async def compare(
    tournament: Tournament,
    a: Entrant,
    b: Entrant,
    field: Sequence[Entrant],
    *,
    bounds: SprtBounds,
    max_deals: int,
    limits: Limits,
    secret: bytes,
    on_deal: OnDeal | None = None,
) -> Comparison:
    """Play A against B (and `field` in the other seats) until the SPRT decides or max_deals.

    `tournament` supplies the game, players, options, time control, seed and concurrency;
    `secret` keys the deals (see `tournaments.plan.schedule.deal_seed`).
    """
    entrants = [a, b, *field]
    names = [entrant.name for entrant in entrants]
    plan = seatings(tournament.players)
    test = _Test(bounds, max_deals, on_deal)

    async def worker() -> None:
        specs = [entrant.spec for entrant in entrants]
        times = [tournament.time_for(entrant.name) for entrant in entrants]
        async with contextlib.AsyncExitStack() as stack:
            per_seating = [await stack.enter_async_context(open_bots(specs, limits)) for _ in plan]
            while (deal := test.take()) is not None:
                games = []
                for index, order in enumerate(plan):
                    handles = per_seating[index]
                    outcome, wall_ms = await play_game(
                        tournament,
                        [handles[i] for i in order],
                        deal,
                        0,
                        secret=secret,
                        table=",".join(names),
                        limits=limits,
                        tag=f"compare.{index}",
                        times=[times[i] for i in order],
                    )
                    test.ready.update(zip(order, outcome.names, strict=True))
                    games.append(
                        FinishedGame(
                            seat_set=",".join(names),
                            deal=deal,
                            rotation=index,
                            bots=tuple(names[i] for i in order),
                            played=played_from(outcome, wall_ms),
                        )
                    )
                test.finish(deal, games, a.name, b.name)

    with test.stop:
        async with trio.open_nursery() as nursery:
            for _ in range(min(tournament.workers, max_deals)):
                nursery.start_soon(worker)
    return _report(test, names, tournament.players)


def shown_names(ready: Sequence[str | None], names: Sequence[str]) -> list[str]:
    """Each bot's `ready` name, as `arena match` shows it; where two bots gave the same one (or
    none was heard), the distinct names made from their commands (`random`, `random#2`)."""
    taken = Counter(ready)
    shown = [
        own if own and taken[own] == 1 else name for own, name in zip(ready, names, strict=True)
    ]
    return shown if len(set(shown)) == len(shown) else list(names)


def _report(test: _Test, entrants: list[str], players: int) -> Comparison:
    names = shown_names([test.ready.get(i) for i in range(len(entrants))], entrants)
    a, b = names[0], names[1]
    bounds = test.bounds
    match = head_to_head(test.games, entrants[0], entrants[1])  # the games name the entrants
    if test.decision == "H1":
        verdict = f"{a} is stronger than {b}: H1 (Elo ≥ {bounds.elo1:g}) accepted"
    elif test.decision == "H0":
        verdict = f"{a} is not stronger than {b} by {bounds.elo1:g}: H0 (Elo ≤ {bounds.elo0:g})"
        verdict += " accepted"
    else:
        verdict = (
            f"no decision after {plural(len(test.scores), 'deal')} (raise --max-deals to go on)"
        )
    return Comparison(
        a=a,
        b=b,
        field=names[2:players],
        decision=test.decision,
        verdict=verdict,
        deals=len(test.scores),
        games=len(test.games),
        llr=test.llr,
        lower=bounds.lower,
        upper=bounds.upper,
        bounds=bounds,
        score=match.score,
        elo=match.elo,
        elo_lo=match.lo,
        elo_hi=match.hi,
        los=match.los,
        faulty_games=sum(1 for game in test.games if game.played.faults),
    )
