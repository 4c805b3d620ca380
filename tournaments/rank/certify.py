"""Certificates of a final's order: what its games prove about the finalists' places, with an
error rate that holds for every statement at once.

- Strengths: the maximum-likelihood Plackett–Luce model of whole finishing orders (a pair's
  game is Bradley–Terry), so a 4-player game counts as its three choices of a winner among the
  seats left, not as six pairs that would double-count it. Tied seats count as each of their
  orders, equally weighted. A faint Gaussian prior keeps a clean sweep finite.
- Errors: each difference of two strengths gets the larger of two variances: the model's
  (the inverse information) and the cluster-robust sandwich over deals (the rotations of one
  seed at one table share its luck).
- Simultaneity: every statement is a contrast — bot i above bot j, or bot i's strength against
  a benchmark's past a threshold — and the whole family is tested with Holm's step-down, which
  holds its family-wise error rate under any dependence between the contrasts (Mogstad,
  Romano, Shaikh and Wilhelm, arXiv 2401.15205, build simultaneous confidence sets for ranks
  the same way). A bot's place interval is 1 + the bots proven above it to n − those proven
  below.
- Looks: a sequential final looks after every round, as often as it likes, and look t
  spends α·6/(π²t²) of the error rate; these sum to α over any number of looks (Bonferroni
  over the looks), so the statements published when it stops hold at level α whenever it
  stops (docs/research.md says why the adaptive choice of games needs nothing more). Its
  rounds give each step they seat what its estimated gap lacks (up to a few times the
  information it has), so the looks are few.
- Evidence: a finalist's contrasts are decided only once it has played `LEAST_GAMES` games
  (undecided before: never a wrong statement), so no statement rests on the normal
  approximation of a handful of games.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import sparse, special

from tournaments.rank.certificate import Certificate, Claim, Place, Side
from tournaments.rank.ratings import BASE_ELO, ELO_PER_NAT
from tournaments.store.results import FinishedGame

CONFIDENCE = 0.95
PRIOR = 1e-2
"""Precision of the Gaussian prior on each strength (natural log-odds units): a clean sweep
stays finite, and a bot with a few games is barely moved."""
LEAST_GAMES = 24
"""Games a finalist plays before any statement about it is made."""
RIVALS = 3
"""First place's fragility is its distance to each of this many bots below it."""

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.intp]


class Block(NamedTuple):
    """Finishing orders of tables of one size: per row the bots' indices winner first, the
    row's weight (tied orders share a game) and its deal (the unit of shared luck)."""

    order: Ints
    weight: Floats
    deal: Ints


class Orders(NamedTuple):
    """A final's games as the fit reads them."""

    bots: list[str]
    blocks: list[Block]
    deals: int
    games: int


def orders_of(games: Sequence[FinishedGame], bots: Sequence[str] | None = None) -> Orders:
    """The finishing orders of `games` (all of `bots` rated, those that played when None)."""
    names = sorted({bot for game in games for bot in game.bots}) if bots is None else list(bots)
    index = {bot: i for i, bot in enumerate(names)}
    deals: dict[tuple[str, int], int] = {}
    rows: dict[int, tuple[list[list[int]], list[float], list[int]]] = {}
    for game in games:
        deal = deals.setdefault(game.deal_key, len(deals))
        tied = _tied_orders(game)
        order, weight, of = rows.setdefault(len(game.bots), ([], [], []))
        for seats in tied:
            order.append([index[game.bots[seat]] for seat in seats])
            weight.append(1 / len(tied))
            of.append(deal)
    blocks = [
        Block(np.array(o, dtype=np.intp), np.array(w), np.array(d, dtype=np.intp))
        for o, w, d in rows.values()
    ]
    return Orders(names, blocks, len(deals), len(games))


def _tied_orders(game: FinishedGame) -> list[tuple[int, ...]]:
    """The seats in every finishing order the ranks allow (one unless seats tied)."""
    ranks = game.played.ranks
    groups = [
        [seat for seat in range(len(ranks)) if ranks[seat] == rank] for rank in sorted(set(ranks))
    ]
    return [
        tuple(itertools.chain.from_iterable(parts))
        for parts in itertools.product(*map(itertools.permutations, groups))
    ]


def joined(first: Orders, then: Orders) -> Orders:
    """Two sets of orders of the same bots as one, `then`'s deals after `first`'s."""
    blocks = {len(block.order[0]): block for block in first.blocks}
    for block in then.blocks:
        moved = block._replace(deal=block.deal + first.deals)
        size = len(block.order[0])
        old = blocks.get(size)
        blocks[size] = moved if old is None else _concatenated(old, moved)
    return Orders(
        first.bots, list(blocks.values()), first.deals + then.deals, first.games + then.games
    )


def _concatenated(first: Block, then: Block) -> Block:
    return Block(
        np.concatenate([first.order, then.order]),
        np.concatenate([first.weight, then.weight]),
        np.concatenate([first.deal, then.deal]),
    )


class _Terms(NamedTuple):
    """The log-likelihood's gradient and information at a strength."""

    gradient: Floats
    information: Floats


def _choices(
    orders: Orders, strength: Floats, keep: Floats
) -> Iterator[tuple[Block, Ints, Floats, Floats]]:
    """Each place of each row as Plackett–Luce sees it, a softmax choice of the winner among
    the seats left: the block, the seats left, their chances and the row's weight."""
    for block in orders.blocks:
        weight = block.weight * keep[block.deal]
        for place in range(block.order.shape[1] - 1):
            left = block.order[:, place:]
            chance = np.exp(strength[left] - strength[left].max(axis=1, keepdims=True))
            chance /= chance.sum(axis=1, keepdims=True)
            yield block, left, chance, weight


def _terms(orders: Orders, strength: Floats, keep: Floats) -> _Terms:
    size = len(orders.bots)
    gradient = np.zeros(size)
    information = np.zeros(size * size)
    for _, left, chance, weight in _choices(orders, strength, keep):
        gradient += np.bincount(left.ravel(), _scores(chance, weight).ravel(), size)
        spread = chance[:, :, None] * (np.eye(left.shape[1]) - chance[:, None, :])
        cells = left[:, :, None] * size + left[:, None, :]
        information += np.bincount(
            cells.ravel(), (spread * weight[:, None, None]).ravel(), size * size
        )
    return _Terms(gradient, information.reshape(size, size))


def _scores(chance: Floats, weight: Floats) -> Floats:
    """Each seat's share of a choice's gradient: the winner's 1 less every seat's chance."""
    score = -chance * weight[:, None]
    score[:, 0] += weight
    return score


def deal_scores(orders: Orders, strength: Floats) -> sparse.csr_array:
    """Each deal's gradient (a row per deal, a column per bot): what the sandwich and the
    deals' influence read. Sparse: a deal touches only its table's bots."""
    rows, columns, values = [], [], []
    for block, left, chance, weight in _choices(orders, strength, np.ones(orders.deals)):
        rows.append(np.repeat(block.deal, left.shape[1]))
        columns.append(left.ravel())
        values.append(_scores(chance, weight).ravel())
    shape = (orders.deals, len(orders.bots))
    if not rows:
        return sparse.csr_array(shape)
    found = (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns)))
    return sparse.coo_array(found, shape=shape).tocsr()


def played(orders: Orders) -> Ints:
    """The games each bot played."""
    seats = [block.order.ravel() for block in orders.blocks]
    counts = [
        np.bincount(seat, block.weight.repeat(block.order.shape[1]), len(orders.bots))
        for seat, block in zip(seats, orders.blocks, strict=True)
    ]
    return (
        np.rint(np.sum(counts, axis=0)).astype(np.intp)
        if counts
        else np.zeros(len(orders.bots), np.intp)
    )


def strengths(
    orders: Orders, keep: Floats | None = None, start: Floats | None = None
) -> tuple[Floats, _Terms]:
    """Maximum a posteriori strengths (natural log-odds units, near mean 0) of the deals kept
    (`keep`: a weight per deal, all 1 when None), by Newton's method from `start` (0 when
    None): the log-likelihood is concave, the prior makes it strictly so."""
    size = len(orders.bots)
    kept = np.ones(orders.deals) if keep is None else keep
    strength = np.zeros(size) if start is None else start.copy()
    for _ in range(100):
        terms = _terms(orders, strength, kept)
        step = np.linalg.solve(
            terms.information + PRIOR * np.eye(size), terms.gradient - PRIOR * strength
        )
        largest = float(np.abs(step).max(initial=0.0))
        strength += min(1.0, 2.0 / largest) * step if largest else step
        if largest < 1e-9:
            break
    return strength, _terms(orders, strength, kept)


class Contrast(NamedTuple):
    """A statement to test: bot `upper`'s strength minus bot `lower`'s is above `margin`
    (natural log-odds) — or, if the data say so, below it."""

    upper: int
    lower: int
    margin: float


def spent(confidence: float, look: int) -> float:
    """The error rate look `look` (from 1) of a sequential final may spend: α·6/(π²·look²),
    which sum to α over every look there could ever be (0: a final of fixed games, α)."""
    alpha = 1 - confidence
    return alpha if look == 0 else alpha * 6 / (math.pi**2 * look**2)


def decided(
    estimate: Floats,
    variance: Floats,
    contrasts: Sequence[Contrast],
    alpha: float,
    ready: npt.NDArray[np.bool_] | None = None,
) -> list[int]:
    """Each contrast's verdict (+1 above, −1 below, 0 undecided) by Holm's step-down at
    family-wise rate `alpha` (`variance`: of each difference of two strengths; `ready`: the
    bots whose contrasts may be decided, all when None — the others' stay in the family,
    undecided)."""
    if not contrasts:
        return []
    upper = np.array([c.upper for c in contrasts], dtype=np.intp)
    lower = np.array([c.lower for c in contrasts], dtype=np.intp)
    gap = estimate[upper] - estimate[lower] - np.array([c.margin for c in contrasts])
    error = np.sqrt(np.maximum(variance[upper, lower], 1e-300))
    chance = 2 * special.ndtr(-np.abs(gap) / error)  # the normal's two tails
    if ready is not None:
        chance[~(ready[upper] & ready[lower])] = 1.0
    order = np.argsort(chance, kind="stable")
    bars = alpha / (len(contrasts) - np.arange(len(contrasts)))
    passed = chance[order] <= bars
    rejected = len(passed) if passed.all() else int(np.argmin(passed))
    verdict = np.zeros(len(contrasts), dtype=np.intp)
    verdict[order[:rejected]] = np.sign(gap[order[:rejected]]).astype(np.intp)
    return verdict.tolist()


def difference_variances(orders: Orders, inverse: Floats, by_deal: sparse.csr_array) -> Floats:
    """The variance of each difference of two strengths (row minus column): the larger of the
    model's (from the `inverse` information) and the sandwich's clustered by deal (`by_deal`:
    the deals' gradients)."""
    deals = max(orders.deals, 2)
    meat = (by_deal.T @ by_deal).toarray() * deals / (deals - 1)
    return np.maximum(_differences(inverse), _differences(inverse @ meat @ inverse))


def _differences(covariance: Floats) -> Floats:
    diagonal = np.diag(covariance)
    return diagonal[:, None] + diagonal[None, :] - 2 * covariance


def certify(
    orders: Orders,
    claim: Claim,
    *,
    look: int = 0,
    confidence: float = CONFIDENCE,
    fragility: bool = True,
    start: Floats | None = None,
) -> Certificate:
    """The certificate of `orders` at look `look` (from 1) of a sequential final (0: a final of
    fixed games): every finalist's place interval, the neighbours proven apart, the sides of
    the claim's thresholds, and (when `fragility`) how many deals first place rests on.
    (`start`: strengths to begin the fit from, the last look's.)"""
    size = len(orders.bots)
    strength, terms = strengths(orders, start=start)
    inverse = np.asarray(np.linalg.inv(terms.information + PRIOR * np.eye(size)), np.float64)
    by_deal = deal_scores(orders, strength)
    variance = difference_variances(orders, inverse, by_deal)
    pairs = [Contrast(i, j, 0.0) for i, j in itertools.combinations(range(size), 2)]
    index = {bot: i for i, bot in enumerate(orders.bots)}
    thresholds = [
        (index[bench], least, Contrast(bot, index[bench], _log_odds(least)))
        for bench, least in claim.thresholds
        if bench in index
        for bot in range(size)
        if bot != index[bench]
    ]
    verdicts = decided(
        strength,
        variance,
        pairs + [c for *_, c in thresholds],
        spent(confidence, look),
        played(orders) >= LEAST_GAMES,
    )
    above = np.zeros((size, size), dtype=bool)
    for contrast, verdict in zip(pairs, verdicts, strict=False):
        if verdict > 0:
            above[contrast.upper, contrast.lower] = True
        elif verdict < 0:
            above[contrast.lower, contrast.upper] = True
    ranking = np.argsort(-strength, kind="stable")
    places = [
        Place(
            orders.bots[bot],
            place + 1,
            round(BASE_ELO + ELO_PER_NAT * float(strength[bot] - strength.mean()), 1),
            1 + int(above[:, bot].sum()),
            size - int(above[bot, :].sum()),
        )
        for place, bot in enumerate(ranking.tolist())
    ]
    sides = [
        Side(
            orders.bots[c.upper],
            orders.bots[bench],
            least,
            None if verdict == 0 else verdict > 0,
        )
        for (bench, least, c), verdict in zip(thresholds, verdicts[len(pairs) :], strict=True)
    ]
    return Certificate(
        claim.describe(),
        holds(claim, places, sides),
        confidence,
        look,
        orders.games,
        orders.deals,
        places,
        [bool(above[a, b]) for a, b in itertools.pairwise(ranking.tolist())],
        sides,
        first_fragility(orders, strength, inverse, by_deal) if fragility and size > 1 else None,
        [
            round(math.sqrt(max(float(variance[a, b]), 0.0)), 6)
            for a, b in itertools.pairwise(ranking.tolist())
        ],
    )


def _log_odds(percent: float) -> float:
    share = min(max(percent / 100, 1e-6), 1 - 1e-6)
    return math.log(share / (1 - share))


def holds(claim: Claim, places: Sequence[Place], sides: Sequence[Side]) -> bool:
    """Whether the places and sides prove the claim."""
    if claim.kind == "grades":
        return all(side.above is not None for side in sides)
    wanted = places if claim.kind == "order" else places[: claim.top]
    return all(place.low == place.high == place.place for place in wanted)


def first_fragility(
    orders: Orders, strength: Floats, inverse: Floats, by_deal: sparse.csr_array
) -> int | None:
    """The fewest deals found whose removal puts another bot first: for each of the `RIVALS`
    next bots, the deals are taken away most damaging first (by their one-step influence on
    the gap), and refits check the count; the least over the rivals (an upper bound on the
    true fewest, which is a combinatorial search)."""
    size = len(orders.bots)
    ranking = np.argsort(-strength, kind="stable")
    first = int(ranking[0])
    best: int | None = None
    for rival in ranking[1 : 1 + RIVALS].tolist():
        direction = np.zeros(size)
        direction[first], direction[rival] = 1.0, -1.0
        influence = -(by_deal @ (inverse @ direction))  # the gap's change without a deal
        order = np.argsort(influence, kind="stable")
        gap = float(strength[first] - strength[rival])
        needed = int(np.searchsorted(-np.cumsum(influence[order]), gap, side="right")) + 1
        count = _confirmed(orders, order, min(max(needed, 1), orders.deals), first)
        if count is not None and (best is None or count < best):
            best = count
    return best


def _confirmed(orders: Orders, order: Ints, start: int, first: int) -> int | None:
    """The fewest of the deals in `order`, from `start` on, doubling, whose removal changes
    first place; None if removing them all does not."""
    count = start
    while True:
        keep = np.ones(orders.deals)
        keep[order[:count]] = 0.0
        if _dethroned(orders, keep, first):
            return _narrowed(orders, order, count, first)
        if count >= orders.deals:
            return None
        count = min(2 * count, orders.deals)


def _dethroned(orders: Orders, keep: Floats, first: int) -> bool:
    """Whether the deals kept leave `first` no longer alone at the top."""
    refit, _ = strengths(orders, keep)
    return bool(np.delete(refit, first).max() >= refit[first])


def _narrowed(orders: Orders, order: Ints, count: int, first: int) -> int:
    """The least count up to `count` (known to change first place) that does, by bisection
    over the prefix (removing more of the most damaging deals only helps, near enough)."""
    low, high = count // 2, count
    while high - low > 1:
        middle = (low + high) // 2
        keep = np.ones(orders.deals)
        keep[order[:middle]] = 0.0
        if _dethroned(orders, keep, first):
            high = middle
        else:
            low = middle
    return high
