"""The tournament's tables as data: standings, rank probabilities, crosstable, head-to-head,
significant cycles, seats, faults, timing.

Each function turns finished games into a `Table` (machine keys, display headers, rows of
plain values: numbers stay numbers for CSV and JSON); rendering to text, CSV or JSON is the CLI's
job (`tournaments.output`), so these stay testable without parsing printed text. A table whose
people-facing form differs (the crosstable's "75% (8)" cells) carries that form in `display`.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

import msgspec
import numpy as np
import numpy.typing as npt

from tournaments.rank.columns import grown
from tournaments.rank.cycles import find_cycles
from tournaments.rank.ratings import (
    BASE_ELO,
    DealTally,
    EloFit,
    Pair,
    Rating,
    deal_totals,
    elo_fit,
    estimate_score,
    pair_outcomes,
    pair_score,
    plackett_luce,
    versus,
)
from tournaments.store.results import FinishedGame, GameKey


class Table(msgspec.Struct, frozen=True):
    name: str
    title: str
    keys: list[str]
    """Column names for CSV and JSON."""
    headers: list[str]
    """Column names for people."""
    rows: list[list[Any]]
    display: tuple[list[str], list[list[Any]]] | None = None
    """Headers and rows for people when they differ from `headers` and `rows`."""
    notes: list[str] = []
    """Lines for people under the table: what its rows would hide (under the standings, the
    bots that beat one another in a circle)."""

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.keys, row, strict=True)) for row in self.rows]

    def for_people(self) -> tuple[list[str], list[list[Any]]]:
        return self.display if self.display is not None else (self.headers, self.rows)


def _table(
    name: str, title: str, columns: Sequence[tuple[str, str]], rows: list[list[Any]]
) -> Table:
    return Table(name, title, [key for key, _ in columns], [head for _, head in columns], rows)


def _round(value: float | None, digits: int = 0) -> float | int | None:
    """Rounded for display; None (blank, JSON null) for a missing or infinite value."""
    if value is None or not math.isfinite(value):
        return None
    return round(value) if digits == 0 else round(value, digits)


def _wins(ranks: Sequence[int], seat: int) -> float:
    """Share of the win: 1 for a sole winner, 1/k when k seats tie for first, else 0."""
    if ranks[seat] != 1:
        return 0.0
    return 1 / ranks.count(1)


Key = TypeVar("Key")


def _renamed_keys(counts: dict[Key, list[int]], name: Callable[[Key], Key]) -> dict[Key, list[int]]:
    """W/L/D counts under their keys' new names (missing keys still start at zero)."""
    renamed_counts: dict[Key, list[int]] = defaultdict(lambda: [0, 0, 0])
    renamed_counts.update((name(key), value) for key, value in counts.items())
    return renamed_counts


def _outcome(score: float) -> int:
    """A pair's score as an index of [wins, losses, draws]."""
    return 0 if score == 1 else 1 if score == 0 else 2


def _wld(games: Sequence[FinishedGame], into: dict[str, list[int]]) -> None:
    """Each bot's pairwise W/L/D in `games`, added to `into` (a running count, missing bots
    starting at zero)."""
    for game in games:
        for (a, b), score in pair_outcomes(game):
            outcome = _outcome(score)
            into[a][outcome] += 1
            into[b][(1, 0, 2)[outcome]] += 1


class _Totals:
    """Per-bot sums over games, the raw material of the standings and timing tables."""

    def __init__(self) -> None:
        self.games = 0
        self.wins = 0.0
        self.score = 0
        self.rank = 0
        self.moves = 0
        self.think_ms = 0.0
        self.faults = 0
        self.slowest_ms = 0.0

    def add(self, game: FinishedGame, seat: int) -> None:
        played = game.played
        self.games += 1
        self.wins += _wins(played.ranks, seat)
        self.score += played.scores[seat]
        self.rank += played.ranks[seat]
        self.moves += played.moves[seat]
        self.think_ms += played.think_ms[seat]
        self.faults += sum(1 for fault in played.faults if fault.seat == seat)
        if played.moves[seat]:
            self.slowest_ms = max(self.slowest_ms, played.think_ms[seat] / played.moves[seat])

    @property
    def ms_per_decision(self) -> float | None:
        return self.think_ms / self.moves if self.moves else None


def _totals(
    games: Sequence[FinishedGame], into: dict[str, _Totals] | None = None
) -> dict[str, _Totals]:
    """Every bot's sums over `games`, added to `into` when given (a running sum)."""
    totals: dict[str, _Totals] = {} if into is None else into
    for game in games:
        for seat, bot in enumerate(game.bots):
            totals.setdefault(bot, _Totals()).add(game, seat)
    return totals


def standings(
    games: Sequence[FinishedGame],
    *,
    anchor: str | None = None,
    anchor_elo: float = BASE_ELO,
    bootstrap: int = 200,
) -> Table:
    """The ladder, strongest first: Elo ± 95% interval, pairwise W/L/D against every opponent
    (a 4-player game counts three pairs per bot) and the per-bot averages.

    For games of three or more seats, Plackett–Luce mu and sigma are added: a second opinion
    from a model of whole finishing orders.
    """
    fitted = elo_fit(games, anchor=anchor, anchor_elo=anchor_elo, bootstrap=bootstrap)
    return _ladder(games, fitted.ratings())


def _ladder(games: Sequence[FinishedGame], ratings: dict[str, Rating]) -> Table:
    sums = BotSums()
    sums.add(games)
    return sums.table(ratings, plackett_luce(games) if sums.multi else {})


class BotSums:
    """The standings' per-bot sums (`_Totals`, pairwise W/L/D), added to game by game: the
    ladder of a league kept up to date without going over its games again."""

    def __init__(self) -> None:
        self.totals: dict[str, _Totals] = {}
        self.wld: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        self.multi = False
        """Whether a game had three or more seats (the table then has Plackett–Luce columns)."""

    def add(self, games: Sequence[FinishedGame]) -> None:
        _totals(games, self.totals)
        _wld(games, self.wld)
        self.multi = self.multi or any(len(game.bots) > 2 for game in games)

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new `names` (old → new)."""
        self.totals = {names.get(bot, bot): sums for bot, sums in self.totals.items()}
        self.wld = _renamed_keys(self.wld, lambda bot: names.get(bot, bot))

    def table(self, ratings: dict[str, Rating], luce: dict[str, tuple[float, float]]) -> Table:
        """The standings with these Elo ratings and (three or more seats) Plackett–Luce
        (mu, sigma), strongest first."""
        totals, multi = self.totals, self.multi
        columns = [
            ("rank", "#"),
            ("bot", "bot"),
            ("elo", "Elo"),
            ("ci", "±"),
            ("games", "games"),
            ("wins", "W"),
            ("losses", "L"),
            ("draws", "D"),
            ("win_pct", "win %"),
            ("mean_score", "score"),
            ("mean_rank", "rank"),
            ("ms_per_decision", "ms/decision"),
            ("faults", "faults"),
        ]
        if multi:
            columns += [("pl_mu", "PL μ"), ("pl_sigma", "PL σ")]
        rows = []
        order = sorted(totals, key=lambda bot: (-ratings[bot].elo if bot in ratings else 0, bot))
        for place, bot in enumerate(order, 1):
            total = totals[bot]
            rating = ratings.get(bot)
            row: list[Any] = [
                place,
                bot,
                _round(rating.elo) if rating else None,
                _round(rating.margin) if rating else None,
                total.games,
                *self.wld[bot],
                round(100 * total.wins / total.games, 1),
                round(total.score / total.games, 1),
                round(total.rank / total.games, 2),
                _round(total.ms_per_decision, 1),
                total.faults,
            ]
            if multi:
                mu, sigma = luce.get(bot, (math.nan, math.nan))
                row += [_round(mu, 1), _round(sigma, 1)]
            rows.append(row)
        return _table("standings", "Standings", columns, rows)


def ranking(table: Table) -> list[str]:
    """The bots of a standings table in ladder order (other tables list bots in this order)."""
    return [row[table.keys.index("bot")] for row in table.rows]


def ranks(fitted: EloFit, order: Sequence[str]) -> Table:
    """How settled the ladder is: each bot's probability (%) of each place, the share of the
    bootstrap's resamples — those the Elo intervals come from — in which it held that place
    (see `EloFit.rank_probabilities`). Blank without a bootstrap, or for a bot never rated."""
    shares = fitted.rank_probabilities()
    places = range(1, len(fitted.point) + 1)
    columns = [
        ("rank", "#"),
        ("bot", "bot"),
        *((f"rank_{place}_pct", f"#{place} %") for place in places),
    ]
    rows: list[list[Any]] = []
    for place, bot in enumerate(order, 1):
        percents: list[float | None] = [round(100 * share, 1) for share in shares.get(bot, [])]
        rows.append([place, bot, *(percents or [None] * len(places))])
    return _table("ranks", "Rank probabilities (% of bootstrap resamples)", columns, rows)


def crosstable(games: Sequence[FinishedGame], order: Sequence[str]) -> Table:
    """Row bot's pairwise score % against each column bot, with the number of games.

    For CSV and JSON each opponent has two number columns, `<opponent>` (score %, empty when
    they never met) and `<opponent> games`; people see one "75% (8)" cell per opponent.
    """
    points: dict[tuple[str, str], float] = defaultdict(float)
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for game in games:
        for (a, b), score in pair_outcomes(game):
            points[a, b] += score
            points[b, a] += 1 - score
            counts[a, b] += 1
            counts[b, a] += 1

    def pct(a: str, b: str) -> float | None:
        return round(100 * points[a, b] / counts[a, b], 1) if a != b and counts[a, b] else None

    def cell(a: str, b: str) -> str:
        if a == b:
            return "—"
        if not counts[a, b]:
            return ""
        return f"{100 * points[a, b] / counts[a, b]:.0f}% ({counts[a, b]})"

    columns = [("bot", "bot")]
    for bot in order:
        columns += [(bot, f"{bot} %"), (f"{bot} games", f"{bot} games")]
    rows = [[a, *itertools.chain(*((pct(a, b), counts[a, b]) for b in order))] for a in order]
    display = (["bot", *order], [[a, *(cell(a, b) for b in order)] for a in order])
    table = _table("crosstable", "Crosstable (row's score %, games)", columns, rows)
    return msgspec.structs.replace(table, display=display)


def pentanomial(deals: Sequence[tuple[float, int]]) -> list[int]:
    """Of the deals played in both seatings (two games), how many scored 0, ½, 1, 1½ and 2
    points: the pentanomial counts, whose spread shows how much the deal decided the game."""
    counts = [0] * 5
    for points, games in deals:
        if games == 2:
            counts[round(points * 2)] += 1
    return counts


def pairs(games: Sequence[FinishedGame], order: Sequence[str]) -> Table:
    """Head-to-head for every pair that met: W/L/D, score, Elo difference ± 95%, LOS; for
    two-player games also the pentanomial counts of the deals (see `pentanomial`)."""
    sums = PairSums()
    sums.add(games)
    return sums.table(order)


def other_side(row: dict[str, Any]) -> dict[str, Any]:
    """A head-to-head row as its opponent sees it."""

    def negated(value: float | None) -> float | None:
        return None if value is None else -value

    return {
        **row,
        "bot": row["opponent"],
        "opponent": row["bot"],
        "wins": row["losses"],
        "losses": row["wins"],
        "score_pct": round(100 - row["score_pct"], 1),
        "elo": negated(row["elo"]),
        "elo_lo": negated(row["elo_hi"]),
        "elo_hi": negated(row["elo_lo"]),
        "los_pct": round(100 - row["los_pct"], 1),
        **{mine: row[theirs] for mine, theirs in _DEALS_SEEN_FROM_THE_OTHER_SIDE if theirs in row},
    }


_DEALS_SEEN_FROM_THE_OTHER_SIDE = [
    ("deals_0", "deals_2"),
    ("deals_0_5", "deals_1_5"),
    ("deals_1_5", "deals_0_5"),
    ("deals_2", "deals_0"),
]
"""A two-player pair's deals by points scored (the pentanomial) read from the opponent."""


_ROWS_AT_ONCE = 1024
"""Pairs whose changed rows `PairSums.take_touched` makes at a time."""


class PairSums:
    """The head-to-head table's sums (each pair's totals deal by deal, its W/L/D), added to
    game by game; a pair's row is made again only once it has new games, so a league's table
    costs its new games rather than all of them. The rows changed since they were last taken
    (`take_touched`) are what a kept copy of the rows must write.

    The deals are a `DealTally`'s (the Elo fit's own input: `tally`), the W/L/D a column of
    three counts per pair, from the side of its lower id, as the tally keeps its points."""

    def __init__(self) -> None:
        self.tally = DealTally()
        self.two_player = True
        self._wld = np.zeros((0, 3), dtype=np.int32)
        self._touched = np.zeros(0, dtype=np.bool_)
        """Per pair: its row changed since the rows were last taken."""
        self._rows: dict[Pair, list[Any]] = {}
        """Rows made, by (bot, opponent) as the table ordered them."""

    def add(self, games: Sequence[FinishedGame]) -> None:
        outcomes = self.tally.add(games)
        size = self.tally.pairs()
        self._wld = grown(self._wld, size)
        self._touched = grown(self._touched, size)
        won = np.where(outcomes.points == 1, 0, np.where(outcomes.points == 0, 1, 2))
        self._wld[:size] += np.bincount(3 * outcomes.pair + won, minlength=3 * size).reshape(-1, 3)
        self._touched[outcomes.pair] = True
        if self.two_player and any(len(game.bots) != 2 for game in games):
            self.two_player = False  # every row loses its pentanomial columns
            self._rows.clear()
            self._touched[:size] = True
        for game in games if self._rows else ():
            for a, b in itertools.permutations(game.bots, 2):
                self._rows.pop((a, b), None)

    def rename(self, names: Mapping[str, str]) -> None:
        """Call bots by new `names` (old → new): in the pairs, their deals' seat sets, and as
        a pair's first bot (if its new name orders it second, its points become the other's)."""
        self.tally.rename(names)
        self._rows = {
            pair: row for pair, row in self._rows.items() if names.keys().isdisjoint(pair)
        }
        self._touched[self._with(names.values())] = True

    def _with(self, bots: Iterable[str]) -> npt.NDArray[np.int64]:
        """The ids of the pairs with one of `bots`."""
        ids = [found for bot in bots if (found := self.tally.bot_id(bot)) is not None]
        low, high = self.tally.ends()
        return np.flatnonzero(np.isin(low, ids) | np.isin(high, ids))

    def columns(self) -> list[tuple[str, str]]:
        """The rows' columns: (key, header)."""
        columns = [
            ("bot", "bot"),
            ("opponent", "opponent"),
            ("games", "games"),
            ("wins", "W"),
            ("losses", "L"),
            ("draws", "D"),
            ("score_pct", "score %"),
            ("elo", "Elo diff"),
            ("elo_lo", "low"),
            ("elo_hi", "high"),
            ("los_pct", "LOS %"),
        ]
        if self.two_player:
            columns += [
                ("deals_0", "deals 0"),
                ("deals_0_5", "½"),
                ("deals_1", "1"),
                ("deals_1_5", "1½"),
                ("deals_2", "2"),
            ]
        return columns

    def table(self, order: Sequence[str], among: Collection[str] | None = None) -> Table:
        """The rows of the pairs that met among `order`'s bots (only those with a bot of
        `among`, if given), the higher in `order` first."""
        place = {bot: i for i, bot in enumerate(order)}
        low, high = self.tally.ends()
        found = np.arange(len(low)) if among is None else self._with(among)
        names = self.tally.names
        met = sorted(
            {
                (place[a], place[b]) if place[a] < place[b] else (place[b], place[a])
                for a, b in ((names[low[pair]], names[high[pair]]) for pair in found.tolist())
                if a in place and b in place
            }
        )
        rows = []
        for first, second in met:
            pair = (order[first], order[second])
            if pair not in self._rows:
                self._rows[pair] = self._row(*pair)
            rows.append(self._rows[pair])
        return _table("pairs", "Head to head", self.columns(), rows)

    def take_touched(self) -> Iterator[dict[str, Any]]:
        """The changed rows, each from its bot's side (the changes forgotten at once): each
        pair's made once, the first by name as its bot, and seen from the other side
        (`other_side`); pairs in name order."""
        size = self.tally.pairs()
        touched = np.flatnonzero(self._touched[:size]).astype(np.int32)  # 32-bit: a first
        self._touched[:size] = False  # board's are half a million pairs
        low, high = self.tally.ends()
        low, high = low[touched], high[touched]
        places = self.tally.name_places().astype(np.int32)
        first = np.where(places[low] < places[high], low, high)
        second = low + high - first
        del low, high
        ordered = np.lexsort((places[second], places[first]))
        return self._rows_of(first[ordered], second[ordered], touched[ordered])

    def _rows_of(
        self,
        first: npt.NDArray[np.integer[Any]],
        second: npt.NDArray[np.integer[Any]],
        pairs: npt.NDArray[np.integer[Any]],
    ) -> Iterator[dict[str, Any]]:
        """The rows of the pairs (ids) of bots `first` and `second` (ids), a few thousand made
        into Python objects at a time: a first board has half a million."""
        keys = [key for key, _ in self.columns()]
        names = self.tally.names
        for start in range(0, len(first), _ROWS_AT_ONCE):
            end = start + _ROWS_AT_ONCE
            for a, b, pair in zip(
                first[start:end].tolist(),
                second[start:end].tolist(),
                pairs[start:end].tolist(),
                strict=True,
            ):
                row = dict(zip(keys, self._row_of(names[a], names[b], pair, a > b), strict=True))
                yield row
                yield other_side(row)
        self.tally.forget_grouping()  # made again with the next new games anyway

    def _row(self, a: str, b: str) -> list[Any]:
        found = self.tally.pair_of(a, b)
        assert found is not None, f"{a} and {b} never met"
        return self._row_of(a, b, *found)

    def _row_of(self, a: str, b: str, pair: int, turned: bool) -> list[Any]:
        """The row of bots `a` and `b`, of the pair `pair` (`turned`: its points are `b`'s)."""
        deals = self.tally.deals_of(pair)
        wld = self._wld[pair].tolist()
        if turned:
            deals = [(count - points, count) for points, count in deals]
            wld = [wld[1], wld[0], wld[2]]
        match = estimate_score(deals)
        row = [
            a,
            b,
            match.games,
            *wld,
            round(100 * match.score, 1),
            _round(match.elo),
            _round(match.lo),
            _round(match.hi),
            round(100 * match.los, 1),
        ]
        if self.two_player:
            row += pentanomial(deals)
        return row

    def nbytes(self) -> int:
        """The columns' bytes (the tally's included)."""
        return self.tally.nbytes() + self._wld.nbytes + self._touched.nbytes


CYCLE_LOS = 0.95
"""How sure each step of a reported cycle must be: the winner's likelihood of superiority."""


def cycles(games: Sequence[FinishedGame], order: Sequence[str]) -> Table:
    """Significant cycles: bots that beat one another in a circle, each step with an LOS of
    at least `CYCLE_LOS` (as in the head-to-head table), so that no single ranking of them is
    right. One shortest cycle per group of such bots (see `tournaments.rank.cycles`), a row per
    step: the bot, the one it beats, their games, its score and LOS."""
    totals = deal_totals(games)
    beats: dict[str, list[str]] = defaultdict(list)
    for a, b in itertools.permutations(order, 2):
        if tuple(sorted((a, b))) in totals and versus(totals, a, b).los >= CYCLE_LOS:
            beats[a].append(b)
    columns = [
        ("cycle", "cycle"),
        ("bot", "bot"),
        ("beats", "beats"),
        ("games", "games"),
        ("score_pct", "score %"),
        ("los_pct", "LOS %"),
    ]
    rows = []
    for number, cycle in enumerate(find_cycles(beats, order), 1):
        for bot, beaten in zip(cycle, [*cycle[1:], cycle[0]], strict=True):
            match = versus(totals, bot, beaten)
            rows.append(
                [
                    number,
                    bot,
                    beaten,
                    match.games,
                    round(100 * match.score, 1),
                    round(100 * match.los, 1),
                ]
            )
    title = f"Significant cycles (each bot beats the next with LOS ≥ {CYCLE_LOS:.0%})"
    return _table("cycles", title, columns, rows)


def cycle_notes(table: Table) -> list[str]:
    """A line per cycle of a `cycles` table, to read under the standings."""
    found: dict[int, list[str]] = defaultdict(list)
    for row in table.records():
        found[row["cycle"]].append(row["bot"])
    return [
        f"Cycle {' > '.join([*bots, bots[0]])}: each beats the next (LOS ≥ {CYCLE_LOS:.0%}), "
        "so no single ranking of these bots is right (see the cycles table)."
        for bots in found.values()
    ]


def seats(games: Sequence[FinishedGame]) -> Table:
    """How each seat fares whoever sits in it: with rotations, every bot sits in every seat
    equally often, so differences here are the game's seat advantage, not the bots'."""
    by_seat: dict[int, list[FinishedGame]] = defaultdict(list)
    for game in games:
        for seat in range(len(game.bots)):
            by_seat[seat].append(game)
    columns = [
        ("seat", "seat"),
        ("games", "games"),
        ("win_pct", "win %"),
        ("mean_score", "score"),
        ("mean_rank", "rank"),
        ("score_pct", "score % vs other seats"),
        ("elo", "Elo"),
        ("ci", "±"),
    ]
    rows = []
    for seat, played in sorted(by_seat.items()):
        deals: dict[tuple[str, int], tuple[float, int]] = {}
        for game in played:
            ranks = game.played.ranks
            points = sum(pair_score(ranks[seat], rank) for rank in ranks) - 0.5  # not itself
            before = deals.get(game.deal_key, (0.0, 0))
            deals[game.deal_key] = (before[0] + points, before[1] + len(ranks) - 1)
        found = estimate_score(list(deals.values()))
        rows.append(
            [
                seat,
                len(played),
                round(100 * statistics.fmean(_wins(g.played.ranks, seat) for g in played), 1),
                round(statistics.fmean(g.played.scores[seat] for g in played), 1),
                round(statistics.fmean(g.played.ranks[seat] for g in played), 2),
                round(100 * found.score, 1),
                _round(found.elo),
                _round((found.hi - found.lo) / 2),
            ]
        )
    return _table("seats", "Seat advantage", columns, rows)


def faults(games: Sequence[FinishedGame]) -> Table:
    """Faults by bot and kind, most frequent first, with the latest reason as an example."""
    counts: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    for game in games:
        for fault in game.played.faults:
            key = (game.bots[fault.seat], fault.kind)
            counts[key] += 1
            example[key] = fault.reason
    columns = [("bot", "bot"), ("kind", "kind"), ("count", "count"), ("example", "example")]
    rows: list[list[Any]] = [
        [bot, kind, count, _shorten(example[bot, kind])]
        for (bot, kind), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]
    return _table("faults", "Faults", columns, rows)


def _shorten(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timing(games: Sequence[FinishedGame], order: Sequence[str]) -> Table:
    """Thinking time per bot: the mean per decision and the slowest game's mean."""
    totals = _totals(games)
    columns = [
        ("bot", "bot"),
        ("games", "games"),
        ("decisions", "decisions"),
        ("ms_per_decision", "ms/decision"),
        ("slowest_game_ms", "slowest game ms/decision"),
        ("think_s", "total think s"),
    ]
    rows: list[list[Any]] = [
        [
            bot,
            totals[bot].games,
            totals[bot].moves,
            _round(totals[bot].ms_per_decision, 2),
            round(totals[bot].slowest_ms, 2),
            round(totals[bot].think_ms / 1000, 1),
        ]
        for bot in order
        if bot in totals
    ]
    return _table("timing", "Timing", columns, rows)


def game_list(games: Sequence[FinishedGame], keys: Sequence[GameKey]) -> Table:
    """Every game with the id that `arena replay STORE GAME` and `arena export` take: who sat
    where, the scores, ranks and faults. `keys` are the store's, in the order of `games`."""
    if len(keys) != len(games):
        raise ValueError("the games table needs the store's key of every game")
    columns = [
        ("id", "id"),
        ("bots", "bots (by seat)"),
        ("deal", "deal"),
        ("rotation", "rotation"),
        ("seed", "seed"),
        ("scores", "scores"),
        ("ranks", "ranks"),
        ("decisions", "decisions"),
        ("faults", "faults"),
    ]
    rows: list[list[Any]] = [
        [
            key.id,
            " ".join(game.bots),
            game.deal,
            game.rotation,
            key.seed,
            " ".join(map(str, game.played.scores)),
            " ".join(map(str, game.played.ranks)),
            key.decisions,
            "; ".join(f"{game.bots[f.seat]} {f.kind}" for f in game.played.faults),
        ]
        for game, key in zip(games, keys, strict=True)
    ]
    return _table("games", "Games", columns, rows)


TABLE_NAMES = (
    "standings",
    "ranks",
    "crosstable",
    "pairs",
    "cycles",
    "seats",
    "faults",
    "timing",
)
GAMES_TABLE = "games"
"""The list of games: asked by name only (it is as long as the tournament), never in "all"."""


def build(
    names: Sequence[str],
    games: Sequence[FinishedGame],
    *,
    anchor: str | None = None,
    anchor_elo: float = BASE_ELO,
    bootstrap: int = 200,
    keys: Sequence[GameKey] | None = None,
) -> list[Table]:
    """The named tables, in the order asked, bots ordered as on the ladder (`keys`, the store's
    game keys in the order of `games`, only for the games table). The standings carry a note
    per significant cycle, and the rank probabilities come from the intervals' own bootstrap."""
    fitted = elo_fit(games, anchor=anchor, anchor_elo=anchor_elo, bootstrap=bootstrap)
    ladder = _ladder(games, fitted.ratings())
    order = ranking(ladder)
    circles = functools.cache(lambda: cycles(games, order))
    made: dict[str, Callable[[], Table]] = {
        "standings": lambda: msgspec.structs.replace(ladder, notes=cycle_notes(circles())),
        "ranks": lambda: ranks(fitted, order),
        "crosstable": lambda: crosstable(games, order),
        "pairs": lambda: pairs(games, order),
        "cycles": circles,
        "seats": lambda: seats(games),
        "faults": lambda: faults(games),
        "timing": lambda: timing(games, order),
        GAMES_TABLE: lambda: game_list(games, keys or []),
    }
    return [made[name]() for name in names]
