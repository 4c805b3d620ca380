"""Which versions play like copies of each other: agreement of fingerprints, measured against
the league's own population, a score and a verdict in plain words.

Likeness of two versions compares their choices where both reached a position: the chance
that a choice of each is the same action, summed over those positions, over what each
version's choices agree with themselves there (both estimated without bias where it chose
more than once, from the repeats of `fingerprint.REPEATS`): 1 when they play the same policy,
whether a deterministic one or one that breaks its ties at random, and lower as they part.
Where a version chose once its self-agreement is taken as 1: a single choice shows nothing of
its spread, and taking the most it can be only makes a stochastic version look less like
others, never more (and it lets the positions past the openings count, which only copies
share in number: a copy that plays at random now and then leaves its original's games at its
first random move, and its repeats seldom reach a position twice). A bot whose choices rarely
agree with themselves (`MIN_SELF`: a random player) gives no evidence either way: its copies
and every other random bot play alike. Likeness alone does not mean copying (two bots that follow
the obvious move are alike often), so each pair's likeness is set against the pairs of
versions by different authors and of different families (`baseline`: a family is the versions
joined by pairs as alike as copies, each family weighed as one, so that a league where many
versions copy one bot does not take the copies for the independent bots' norm) as a z-score
in fixed steps (`SPREAD`), and a pair is flagged only when it stands far out on enough shared
positions (`MIN_SHARED`).

Computed with sparse matrices (versions × (position, action) choice frequencies), so a
thousand versions cost sparse products, not a loop over half a million pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import msgspec
import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from tournaments.league.fingerprint import Fingerprint

COPY_LIKENESS = 0.85
"""A pair this alike, and `COPY_Z` above the baseline, is called a copy."""
COPY_Z = 4.0
LOOK_Z = 7.0
"""From here on, less alike than a copy, the pair is worth a look."""
MIN_SHARED = 8
"""Fewer shared positions than this say nothing either way."""
MIN_SELF = 0.25
"""A version whose choices agree with themselves less often than this plays too much at
random for its likeness to mean anything."""
SPREAD = 0.1
"""The step that z counts above the baseline. Fixed, not the population's own spread:
independent families agree anywhere from never to half the time, so a league of a few
families shows a spread near 0 (every half-alike pair would stand out) or one as wide as the
gap to the copies (every copy would hide)."""
EVIDENCE = 5
"""Positions shown as evidence for a flagged pair."""


class Evidence(msgspec.Struct, frozen=True):
    """A position where both versions chose the same action, and how few others did."""

    deal: int
    seat: int
    decision: int
    action: str
    others: float
    """The share of the other versions that reached the position and chose this action."""


class Pair(msgspec.Struct, frozen=True):
    """Two versions by different authors, compared."""

    a: str
    author_a: str
    b: str
    author_b: str
    likeness: float
    agreement: float
    """The chance that a choice of each is the same, at the positions both reached."""
    shared: int
    """Positions both reached."""
    baseline: float
    """The median likeness of pairs by different authors and families (`baseline`)."""
    z: float
    """How far above the baseline, in steps of `SPREAD`."""
    verdict: str
    evidence: list[Evidence] = []

    @property
    def flagged(self) -> bool:
        return self.verdict.startswith(("copy", "similar"))


@dataclass(frozen=True)
class Matrices:
    """The fingerprints as sparse rows (versions), over the positions each reached: choice
    frequencies by (position, action) column, and by position column whether it was reached
    and how often its choices there agree with themselves (1 where it chose once)."""

    names: list[str]
    freq: sparse.csr_matrix
    reached: sparse.csr_matrix
    selves: sparse.csr_matrix
    columns: list[tuple[str, str]]
    """(position, action) of each column of `freq`."""
    positions: dict[str, int]
    """The column of each position in `reached` and `selves`."""
    where: dict[str, tuple[int, int, int]]
    """Each position's deal, seat and decision."""


def matrices(fingerprints: Mapping[str, Fingerprint]) -> Matrices:
    names = sorted(fingerprints)
    column: dict[tuple[str, str], int] = {}
    position: dict[str, int] = {}
    where: dict[str, tuple[int, int, int]] = {}
    rows, cols, values = [], [], []
    reach_rows, reach_cols, selves = [], [], []
    for row, name in enumerate(names):
        for key, answer in fingerprints[name].answers.items():
            n = len(answer.choices)
            counts = Counter(answer.choices)
            reach_rows.append(row)
            reach_cols.append(position.setdefault(key, len(position)))
            same = sum(c * c for c in counts.values()) - n
            selves.append(same / (n * (n - 1)) if n > 1 else 1.0)
            where[key] = (answer.deal, answer.seat, answer.decision)
            for action, count in counts.items():
                rows.append(row)
                cols.append(column.setdefault((key, action), len(column)))
                values.append(count / n)
    freq = sparse.csr_matrix((values, (rows, cols)), shape=(len(names), len(column)))
    shape = (len(names), len(position))
    reached = sparse.csr_matrix((np.ones(len(reach_rows)), (reach_rows, reach_cols)), shape=shape)
    self_matrix = sparse.csr_matrix((selves, (reach_rows, reach_cols)), shape=shape)
    return Matrices(names, freq, reached, self_matrix, list(column), position, where)


class Likeness(msgspec.Struct):
    """Every pair's figures as dense version × version arrays."""

    likeness: np.ndarray
    agreement: np.ndarray
    shared: np.ndarray
    steady: np.ndarray
    """Both versions' choices agree with themselves at least `MIN_SELF` of the time there."""


def likeness(m: Matrices) -> Likeness:
    """Every pair's likeness (see the module docstring), agreement and shared positions."""
    cross = (m.freq @ m.freq.T).toarray()
    shared = (m.reached @ m.reached.T).toarray()
    own = (m.selves @ m.reached.T).toarray()  # own[a, b]: a's self-agreement where b is too
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(shared > 0, cross / shared, 0.0)
        root = np.sqrt(own * own.T)
        like = np.where(root > 0, np.minimum(cross / root, 1.0), 0.0)
        steady = np.minimum(own, own.T) >= MIN_SELF * np.maximum(shared, 1)
    return Likeness(like, agreement, shared, steady)


def verdict(likeness: float, shared: int, steady: bool, z: float) -> str:
    """The plain-words verdict of a pair."""
    if shared < MIN_SHARED:
        return "too few shared positions to tell"
    if not steady:
        return "plays too much at random to tell"
    if z >= COPY_Z and likeness >= COPY_LIKENESS:
        return "copy: plays like the other far more than independent bots do"
    if z >= LOOK_Z:
        return "similar: worth a look"
    return "independent"


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, cumulative[-1] / 2)])


def baseline(versions: int, first: np.ndarray, second: np.ndarray, values: np.ndarray) -> float:
    """The likeness of independent versions: its median over the pairs (`first`, `second`,
    their `values`) of different families, each family weighed as one. A family is the
    versions joined by pairs at least `COPY_LIKENESS` alike: a league where many versions copy
    one bot would otherwise take the copies' likeness for what independent bots show. Without
    two families to compare (a league of one bot and its copies) the baseline is 0 and the
    verdicts rest on the fixed bars."""
    alike = values >= COPY_LIKENESS
    graph = sparse.coo_matrix(
        (np.ones(int(alike.sum())), (first[alike], second[alike])), shape=(versions, versions)
    )
    _, family = connected_components(graph, directed=False)
    size = np.bincount(family, minlength=versions).astype(float)
    apart = family[first] != family[second]
    if not apart.any():
        return 0.0
    first, second, values = first[apart], second[apart], values[apart]
    weights = 1.0 / (size[family[first]] * size[family[second]])
    return _weighted_median(values, weights)


def compare(fingerprints: Mapping[str, Fingerprint], authors: Mapping[str, str]) -> list[Pair]:
    """Every pair of versions (by name) of different `authors`, most suspicious first; pairs
    of one author are not compared (an author may upload many bots of theirs)."""
    m = matrices(fingerprints)
    figures = likeness(m)
    upper = np.triu_indices(len(m.names), 1)
    different = np.array(
        [authors[m.names[i]] != authors[m.names[j]] for i, j in zip(*upper, strict=True)],
        dtype=bool,
    )
    pairs_i, pairs_j = upper[0][different], upper[1][different]
    telling = (figures.shared[pairs_i, pairs_j] >= MIN_SHARED) & figures.steady[pairs_i, pairs_j]
    centre = baseline(
        len(m.names),
        pairs_i[telling],
        pairs_j[telling],
        figures.likeness[pairs_i, pairs_j][telling],
    )
    made = []
    for i, j in zip(pairs_i, pairs_j, strict=True):
        like, shared = float(figures.likeness[i, j]), int(figures.shared[i, j])
        z = (like - centre) / SPREAD
        said = verdict(like, shared, bool(figures.steady[i, j]), z)
        agreement = float(figures.agreement[i, j])
        a, b = m.names[i], m.names[j]
        made.append(Pair(a, authors[a], b, authors[b], like, agreement, shared, centre, z, said))
    made.sort(key=lambda pair: (not pair.flagged, -pair.z))
    return [
        msgspec.structs.replace(pair, evidence=evidence(m, pair.a, pair.b))
        if pair.flagged
        else pair
        for pair in made
    ]


def evidence(m: Matrices, a: str, b: str, count: int = EVIDENCE) -> list[Evidence]:
    """The positions where `a` and `b` chose the same action that the fewest other versions
    there chose (a position no other version reached comes first)."""
    ia, ib = m.names.index(a), m.names.index(b)
    fa, fb = m.freq.getrow(ia).toarray()[0], m.freq.getrow(ib).toarray()[0]
    chose = np.asarray(m.freq.sum(axis=0)).ravel() - fa - fb
    reached = np.asarray(m.reached.sum(axis=0)).ravel()
    found = []
    for col in np.flatnonzero((fa > 0) & (fb > 0)):
        key, action = m.columns[col]
        others = reached[m.positions[key]] - 2
        share = float(chose[col] / others) if others > 0 else 0.0
        found.append((share, -float(fa[col] * fb[col]), key, action))
    found.sort()
    return [Evidence(*m.where[key], action, share) for share, _, key, action in found[:count]]
