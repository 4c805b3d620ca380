"""The ladder's choice of games: which seat-sets play next, and which of their deals.

A round first places the bots with no game yet, then plays again what an earlier round planned
and did not store (handed back unplayed when a change ended it, voided, refused), then a lap of
picks, as many as there are playing bots, each made when the runner takes it (a round ended by
a change plans no more). Each pick is one seat-set and a block of its next deals, played in
every seat rotation:

- the bot it is about: a bot with no game yet first (a new version is placed at once); then
  any bot below the floor (half the mean games of the playing bots); then a bot with a pair
  that has something to teach first (below); then the bot furthest below its share, its games
  divided by its rating's uncertainty (openskill's sigma, clamped between a quarter of the
  starting sigma and the starting sigma): new and surprising bots play more, and none less
  than a quarter of the most uncertain's rate;
- its opponents: first those of a pair that has never met, or of a bot–benchmark pair whose
  score's interval does not yet decide its side of each grade threshold (a benchmark with no
  threshold has nothing to decide; house bots are not graded); then those it has met least
  (deals); then the one furthest below its share;
- the deals: from the seat-set's last deal onwards, as many again (deal 0, deal 1, deals 2-3,
  4-7, …), at most the league's `batch` and what its games take in `UNIT_S`. A bot meets every
  opponent at deal 0 before any at deal 1; a pair's units (one rotation of a block, on one set
  of bot processes) grow as it is repeated, so repeated pairs amortise their bots' starts, yet
  none holds a worker for long; and no pair soaks up the ladder, since the least met come
  first.

Counts include the deals planned and not yet stored, so overlapping rounds spread as well.
Every deal of a seat-set is played in every rotation (the runner leaves out what is stored or
in hand when a block is played again).
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from itertools import permutations

import msgspec
import numpy as np
import numpy.typing as npt
from openskill.models import PlackettLuce

from tournaments.plan.config import LeagueSettings
from tournaments.plan.schedule import lap
from tournaments.rank.columns import CHUNK, grown
from tournaments.rank.ratings import (
    OnlinePlackettLuce,
    estimate_score,
    pair_outcomes,
    score_from_elo,
)
from tournaments.store.results import FinishedGame

SeatSet = tuple[int, ...]
"""A seat-set by its bots' store ids, ascending (the runner's order, rotation 0)."""
Table = tuple[SeatSet, range]
"""A seat-set and the deals a round plays of it."""

FLOOR = 0.5
"""A playing bot with fewer games than this share of the mean is chosen before the others
(a new version excepted)."""
START_SIGMA = PlackettLuce().sigma
"""openskill's sigma before any game: the largest weight of a bot's share."""
LEAST_WEIGHT = START_SIGMA / 4
"""The smallest weight of a bot's share, however certain its rating."""
UNIT_S = 60.0
"""A unit plays at most as many deals as its seat-set's games take about this long (and at
most `batch`): long enough to amortise its bots' starts (a Python bot's start costs as much as
some tens of quick games), short enough that slow bots do not keep a pair at one worker."""
MERGED = 1 / 8
"""`SeatSets` merges its recent rows once they are this share of its rows: a few merges as it
doubles, each one sort."""
RESOLUTION = 5.0
"""A benchmark score's interval this narrow (score points, 95%) counts as deciding: a bot
this close to a threshold would need more games than a season holds to tell its side, and
its pairs would soak up the ladder."""


def thresholds(settings: LeagueSettings) -> dict[str, list[float]]:
    """Each benchmark's grade thresholds (score %), from the organiser's grades."""
    found: dict[str, list[float]] = {name: [] for name in settings.benchmarks}
    for grade in settings.grades:
        for name, least in grade.beats.items():
            if name in found:
                found[name].append(least)
    return found


def decides(low_pct: float, high_pct: float, thresholds: Iterable[float]) -> bool:
    """Whether a score's interval puts it on one side of every threshold (`grades.grade_of`
    reaches a threshold at a score equal to it)."""
    return all(low_pct >= least or high_pct < least for least in thresholds)


class SeatSets:
    """Every seat-set `Focus` knows, a row each of numpy columns (its bots, its next deal, its
    first deal that may lack a game, its games' wall time and number), found by its tuple's
    hash in a sorted column: a league holds about as many
    seat-sets as games, and a dict entry with its tuple key and boxed values costs several times
    a row. Seat-sets added lately wait in a small dict, merged into the sorted column once it
    holds `MERGED` of the rows, so adding one costs no copy of the columns. A column grows into
    a new array: take a row before reading the columns to write into it."""

    def __init__(self) -> None:
        self.size = 0
        """The rows in use (the columns hold more, to grow geometrically)."""
        self.bots = np.zeros((0, 0), dtype=np.int32)
        """Each row's bots, ascending (every seat-set of a `Focus` has as many)."""
        self.next = np.zeros(0, dtype=np.int32)
        """The deal after the last one stored or planned (a league's deals are numbered from
        0, one by one: 32 bits hold them, and numpy refuses a value they do not)."""
        self.low = np.zeros(0, dtype=np.int32)
        """The first deal that may lack a game (0 when unknown)."""
        self.wall_ms = np.zeros(0, dtype=float)
        """The wall time of the games stored."""
        self.timed = np.zeros(0, dtype=np.int32)
        """The number of the games stored."""
        self._hashes = np.zeros(0, dtype=np.int64)
        """The merged rows' seat-sets' hashes, ascending."""
        self._rows = np.zeros(0, dtype=np.int32)
        """The row of each of `_hashes`."""
        self._recent: dict[SeatSet, int] = {}
        """The rows added since the last merge, by seat-set."""

    def find(self, seat_set: SeatSet) -> int:
        """`seat_set`'s row, -1 when it has none."""
        row = self._recent.get(seat_set)
        if row is not None:
            return row
        key = hash(seat_set)
        at = int(np.searchsorted(self._hashes, key))
        while at < len(self._hashes) and self._hashes[at] == key:  # equal hashes: compare
            row = int(self._rows[at])
            if self.seat_set(row) == seat_set:
                return row
            at += 1
        return -1

    def row(self, seat_set: SeatSet) -> int:
        """`seat_set`'s row, added (its columns zero) when it has none."""
        row = self.find(seat_set)
        if row >= 0:
            return row
        if not self.size:
            self.bots = np.zeros((0, len(seat_set)), dtype=np.int32)
        elif len(seat_set) != self.bots.shape[1]:
            raise ValueError(f"seat-set {seat_set} is not of {self.bots.shape[1]} bots")
        row = self.size
        self.size += 1
        if self.size > len(self.next):
            for name in ("bots", "next", "low", "wall_ms", "timed"):
                setattr(self, name, grown(getattr(self, name), max(16, self.size)))
        self.bots[row] = seat_set
        self._recent[seat_set] = row
        if len(self._recent) > MERGED * self.size:
            self._merge()
        return row

    def _merge(self) -> None:
        """Move the recent rows into the sorted column."""
        hashes = np.fromiter(map(hash, self._recent), dtype=np.int64, count=len(self._recent))
        rows = np.fromiter(self._recent.values(), dtype=np.int32, count=len(self._recent))
        hashes = np.concatenate([self._hashes, hashes])
        order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[order]
        self._rows = np.concatenate([self._rows, rows])[order]
        self._recent = {}

    def seat_set(self, row: int) -> SeatSet:
        """`row`'s seat-set."""
        return tuple(self.bots[row].tolist())

    def table(self, column: npt.NDArray[np.generic]) -> dict[SeatSet, object]:
        """`column`'s non-zero values by seat-set: a `Focus` read whole, as a mapping."""
        rows = np.flatnonzero(column[: self.size])
        return {self.seat_set(row): column[row].item() for row in rows.tolist()}

    def nbytes(self) -> int:
        """The bytes the columns and the recent rows' dict take (not its tuples)."""
        columns = (self.bots, self.next, self.low, self.wall_ms, self.timed)
        held = sum(column.nbytes for column in (*columns, self._hashes, self._rows))
        return held + sys.getsizeof(self._recent)


class Focus:
    """What the ladder knows of every bot's games — how many, each seat-set's deals, openskill's
    sigma, each benchmark pair's score deal by deal, each seat-set's time a game — by store id:
    a new version takes over its bot's label (the old one's becomes `name@hash`) but never its
    id, so it is placed afresh. From the store once, then from each game as it is stored and
    each block as it is planned: a round's choice costs nothing however many games the league
    holds. (Sigma is over every game a bot played, in the order seen: a scheduling hint, not
    the tables' rating.)"""

    def __init__(
        self,
        games: Iterable[FinishedGame] = (),
        ids: Mapping[str, int] = {},
        benchmarks: Iterable[str] = (),
    ) -> None:
        self.benchmarks = frozenset(benchmarks)
        """The benchmarks' labels: their pairs' scores are kept deal by deal."""
        self.played: Counter[int] = Counter()
        """Games stored, by bot."""
        self.games: Counter[int] = Counter()
        """Games stored or planned, by bot (every rotation of every deal up to the next)."""
        self.seat_sets = SeatSets()
        """Each seat-set's deals and time a game."""
        self.holes: set[SeatSet] = set()
        """The seat-sets with a deal planned and not stored (`missed`)."""
        self.scores: defaultdict[tuple[int, int], dict[tuple[SeatSet, int], tuple[float, int]]]
        self.scores = defaultdict(dict)
        """(bot, benchmark) → the bot's points and games against it, by (seat-set, deal)."""
        self.ratings = OnlinePlackettLuce()
        self.wall_ms = 0.0
        """The wall time of all the games stored."""
        self.timed = 0
        """The number of all the games stored."""
        self._noted = np.zeros(0, dtype=np.int32)
        """Each seat-set's games `note`d, by row, until `settle`."""
        self.note(games, ids)
        self.settle()

    def note(self, games: Iterable[FinishedGame], ids: Mapping[str, int]) -> None:
        """Add the store's `games` (a slice of them at a time, in the order stored; `settle`
        once every one is noted)."""
        for game in games:
            row = self.add(game, ids)
            self._noted = grown(self._noted, row + 1)
            self._noted[row] += 1

    def settle(self) -> None:
        """Every stored game noted: a seat-set complete up to its last deal has none to look
        for."""
        rows = self.seat_sets
        used = slice(0, rows.size)
        noted = grown(self._noted, rows.size)[used]
        complete = noted == rows.next[used].astype(np.int64) * rows.bots.shape[1]
        complete &= noted > 0
        rows.low[used][complete] = rows.next[used][complete]
        self._noted = np.zeros(0, dtype=np.int32)

    def add(self, game: FinishedGame, ids: Mapping[str, int]) -> int:
        """Note `game`, its labels read as store ids by `ids` (those of the round that played
        it: a label may name a newer version by the time it is stored); its seat-set's row."""
        bots = tuple(ids[label] for label in game.bots)
        seat_set = tuple(sorted(bots))
        for bot in bots:
            self.played[bot] += 1
        row = self.seat_sets.row(seat_set)
        self._advance(row, game.deal + 1)
        self.seat_sets.wall_ms[row] += game.played.wall_ms
        self.seat_sets.timed[row] += 1
        self.wall_ms += game.played.wall_ms
        self.timed += 1
        by_id = msgspec.structs.replace(game, bots=tuple(map(str, bots)))
        self.ratings.add(by_id)
        marks = {str(ids[label]) for label in game.bots if label in self.benchmarks}
        for (first, second), points in pair_outcomes(by_id) if marks else ():
            if (first in marks) != (second in marks):
                flip = first in marks  # the score is kept from the bot's side
                pair = (int(second), int(first)) if flip else (int(first), int(second))
                self._score(pair, (seat_set, game.deal), 1 - points if flip else points)
        return row

    def _score(self, pair: tuple[int, int], deal: tuple[SeatSet, int], points: float) -> None:
        deals = self.scores[pair]
        total, count = deals.get(deal, (0.0, 0))
        deals[deal] = (total + points, count + 1)

    def missed(self, seat_set: SeatSet, deal: int) -> None:
        """A game of `seat_set`'s `deal` was planned and not stored (handed back unplayed,
        voided, refused, or never handed out): the next round plays it again first."""
        row = self.seat_sets.row(seat_set)
        self.seat_sets.low[row] = min(int(self.seat_sets.low[row]), deal)
        self.holes.add(seat_set)

    def block(self, seat_set: SeatSet, batch: int) -> range:
        """`seat_set`'s next deals: as many again as it has (`schedule.lap`), at most `batch`
        and what its games take in `UNIT_S` (timed by all games while it has none stored)."""
        rows, row = self.seat_sets, self.seat_sets.find(seat_set)
        total, games = self.wall_ms, self.timed
        if row >= 0 and rows.timed[row]:
            total, games = float(rows.wall_ms[row]), int(rows.timed[row])
        most = batch if not total else max(1, min(batch, int(UNIT_S * 1000 * games / total)))
        return lap(int(rows.next[row]) if row >= 0 else 0, most)

    def _advance(self, row: int, stop: int) -> None:
        """Count the deals of the seat-set at `row` up to `stop` as stored or planned."""
        more = stop - int(self.seat_sets.next[row])
        if more <= 0:
            return
        self.seat_sets.next[row] = stop
        seat_set = self.seat_sets.bots[row].tolist()
        for bot in seat_set:
            self.games[bot] += more * len(seat_set)

    def decided(self, bot: int, benchmark: int, thresholds: Sequence[float]) -> bool:
        """Whether `bot`'s score against `benchmark` is on a known side of every threshold
        (its 95% interval, as the benchmarks page shows it), or known to `RESOLUTION`."""
        if not thresholds:
            return True
        deals = self.scores.get((bot, benchmark))
        if not deals:
            return False
        estimate = estimate_score(list(deals.values()))
        low, high = 100 * score_from_elo(estimate.lo), 100 * score_from_elo(estimate.hi)
        return high - low <= RESOLUTION or decides(round(low, 1), round(high, 1), thresholds)

    def choose(
        self,
        bots: Mapping[int, str],
        players: int,
        batch: int,
        benchmarks: Mapping[str, Sequence[float]] = {},
        house: Collection[str] = (),
    ) -> Iterator[Table]:
        """A round of the playing bots (their store ids → names) at tables of `players`: the
        picks of bots with no game yet, the deals `missed`, then a lap of picks (the module
        docstring), each a seat-set and its deals, made as they are taken (a round ended early
        plans no more) and counted as planned. `benchmarks`: each benchmark's name → its grade
        thresholds, against which every bot but the `house` bots is graded."""
        if len(bots) < players:
            return
        pick = Pick(self, bots, benchmarks, house)
        while pick.placing():  # a new version plays first, before what is played again
            yield pick.next(players, batch)
        yield from self._again(bots)
        for _ in bots:
            yield pick.next(players, batch)

    def _again(self, bots: Mapping[int, str]) -> list[Table]:
        """The deals `missed` of the seat-sets of playing bots, from the first missing."""
        tables = []
        rows = self.seat_sets
        for seat_set in sorted(self.holes):
            if all(bot in bots for bot in seat_set):
                self.holes.discard(seat_set)
                row = rows.row(seat_set)
                tables.append((seat_set, range(int(rows.low[row]), int(rows.next[row]))))
                rows.low[row] = rows.next[row]
        return tables


class Pick:
    """One round's choice: `Focus`'s counts of the playing bots as arrays (index: the bots by
    name), kept up to date as the lap plans its blocks."""

    def __init__(
        self,
        focus: Focus,
        bots: Mapping[int, str],
        benchmarks: Mapping[str, Sequence[float]],
        house: Collection[str],
    ) -> None:
        self.focus = focus
        self.order = sorted(bots, key=lambda bot: (bots[bot], bot))
        index = {bot: at for at, bot in enumerate(self.order)}
        size = len(self.order)
        self.games = np.array([focus.games[bot] for bot in self.order], dtype=float)
        sigmas = [focus.ratings.sigma(str(bot)) for bot in self.order]
        self.weight = np.clip(sigmas, LEAST_WEIGHT, START_SIGMA)
        self.met = _met(focus.seat_sets, self.order)
        """Deals stored or planned of each pair (over every seat-set holding both)."""
        self.open = np.zeros((size, size), dtype=bool)
        """The bot–benchmark pairs whose score does not yet decide a grade, both ways."""
        for mark, name in bots.items():
            if name in benchmarks:
                for at, bot in enumerate(self.order):
                    if bots[bot] not in benchmarks and bots[bot] not in house:
                        undecided = not focus.decided(bot, mark, benchmarks[name])
                        self.open[at, index[mark]] = self.open[index[mark], at] = undecided
        self.fresh = (self.met == 0) | self.open
        """The pairs with something to teach first: never met, or an undecided benchmark's."""
        np.fill_diagonal(self.fresh, False)
        self.teaching = self.fresh.sum(axis=1)
        """Each bot's fresh pairs."""

    def placing(self) -> bool:
        """Whether a playing bot has no game yet."""
        return bool((self.games == 0).any())

    def next(self, players: int, batch: int) -> Table:
        """The next pick, counted before the one after is made."""
        seated = [self.about()]
        while len(seated) < players:
            seated.append(self.opponent(seated))
        return self.plan(sorted(seated), batch)

    def about(self) -> int:
        """The index of the bot the next pick is about."""
        games = self.games
        floor = FLOOR * games.mean()
        return _first(
            (games > 0).astype(int),
            (games >= floor).astype(int),
            (self.teaching == 0).astype(int),
            games / self.weight,
        )

    def opponent(self, seated: Sequence[int]) -> int:
        """The index of the next bot at the table of `seated`."""
        stale = (~self.fresh[seated].any(axis=0)).astype(int)
        met = self.met[seated].sum(axis=0)
        taken = np.zeros(len(self.order), dtype=int)
        taken[seated] = 1
        return _first(taken, stale, met, self.games / self.weight)

    def plan(self, seated: Sequence[int], batch: int) -> Table:
        """The next block of the seat-set at `seated`, counted as planned."""
        focus = self.focus
        seat_set = tuple(sorted(self.order[at] for at in seated))
        block = focus.block(seat_set, batch)
        row = focus.seat_sets.row(seat_set)
        focus._advance(row, block.stop)
        deals = range(int(focus.seat_sets.low[row]), block.stop)
        focus.seat_sets.low[row] = block.stop
        table = np.ix_(seated, seated)
        self.met[table] += len(block)
        self.fresh[table] &= self.open[table]
        self.teaching[seated] = self.fresh[seated].sum(axis=1)
        self.games[seated] += len(block) * len(seated)
        np.fill_diagonal(self.met, 0)
        return seat_set, deals


def _met(rows: SeatSets, order: Sequence[int]) -> npt.NDArray[np.int32]:
    """The deals of each pair of `order`'s bots (by index), summed over the seat-sets of
    `rows` whose bots are all in `order`, a `CHUNK` of seat-sets at a time: a league of a
    thousand bots has half a million, and a round must not hold columns of them all."""
    size = len(order)
    met = np.zeros((size, size), dtype=np.int32)
    if not size:
        return met
    ids = np.array(order, dtype=np.int64)
    by_id = np.argsort(ids)
    known = ids[by_id]
    cells = met.reshape(-1)
    for start in range(0, rows.size, CHUNK):
        bots = rows.bots[start : min(start + CHUNK, rows.size)]
        at = np.minimum(np.searchsorted(known, bots), size - 1)
        inside = (known[at] == bots).all(axis=1)
        seats = by_id[at[inside]]
        deals = rows.next[start : start + len(bots)][inside]
        for first, second in permutations(range(bots.shape[1]), 2):
            np.add.at(cells, seats[:, first] * size + seats[:, second], deals)
    np.fill_diagonal(met, 0)
    return met


def _first(*keys: npt.NDArray[np.floating] | npt.NDArray[np.integer]) -> int:
    """The index of the smallest of the keys compared in order (ties: the lowest index)."""
    chosen = np.arange(len(keys[0]))
    for key in keys:
        values = key[chosen]
        chosen = chosen[values == values.min()]
    return int(chosen[0])
