"""Which versions play like copies of each other: agreement of fingerprints, measured against
the league's own population, a score and a verdict in plain words.

Likeness of two versions compares their choices where both reached a position past the
openings: each play of one against each play of the other there, the share of those twos that
chose the same action (the agreement), over what each version's plays agree with themselves,
two of its plays that reached one position at a time (`self_agreement`; the geometric mean of
the two): 1 when they play the same policy, whether a deterministic one or one that breaks its
ties at random, and lower as they part. Counting every two plays, not every position once, is
what tells a bot that breaks ties at random: its plays part at its first tie drawn otherwise,
so past the openings most of its positions are reached once, where one choice cannot tell a
tie broken otherwise from another policy; but the positions it reaches again, a few moves in,
where its ties are few, carry many twos, and there its copies agree with it as often as it
agrees with itself while an independent bot does not. The openings (`openings`) are left out:
every play reaches them, so they would outweigh the rest, and there every such bot spreads its
choices over the same many even moves. A pair of which one agrees seldom with itself and the
two seldom with each other (`MIN_SELF`: random players) gives no evidence either way: its
copies and every other random bot play alike. Likeness alone does not mean copying (two bots
that follow the obvious move are alike often), so each pair's likeness is set against the pairs of
versions by different authors and of different families (`baseline`: a family is the versions
joined by pairs as alike as copies, each family weighed as one, so that a league where many
versions copy one bot does not take the copies for the independent bots' norm) as a z-score
in fixed steps (`SPREAD`), and a pair is flagged only when it stands far out on enough shared
positions (`MIN_SHARED`), enough of them past the openings unless both versions are steady at
the openings and part there (`verdict`).

Computed with sparse matrices (versions × (position, action) choice counts), so a thousand
versions cost sparse products, not a loop over half a million pairs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec
import numpy as np

from tournaments.league.fingerprint import Answer, Fingerprint

if TYPE_CHECKING:  # scipy loads when versions are compared: the server imports this module
    from scipy import sparse

COPY_LIKENESS = 0.85
"""A pair this alike, and `COPY_Z` above the baseline, is called a copy; this alike but less
far above the baseline (a league whose independent bots are alike), worth a look."""
COPY_Z = 4.0
MIN_SHARED = 8
"""Fewer shared positions than this say nothing either way; past the openings, fewer say that
two bots steady at the openings part there, and nothing when one of them spreads its choices
there (`verdict`)."""
MIN_SELF = 0.25
"""A pair one of whose versions agrees with itself less often than this, and whose versions
agree with each other less often than `COPY_LIKENESS`, plays too much at random for its
likeness to mean anything (a copy that repeats its original's plays is compared whatever its
spread)."""
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
    """The chance that a choice of each is the same, at the positions both reached past the
    openings."""
    shared: int
    """Positions both reached, the openings included."""
    baseline: float
    """The median likeness of pairs by different authors and families (`baseline`)."""
    z: float
    """How far above the baseline, in steps of `SPREAD`."""
    verdict: str
    evidence: list[Evidence] = []
    cut: list[str] = []
    """Those of the two whose fingerprint its CPU budget cut short: fewer positions shared
    than the bank holds, so thinner evidence either way."""

    @property
    def flagged(self) -> bool:
        return self.verdict.startswith(("copy", "similar"))


@dataclass(frozen=True)
class Matrices:
    """The fingerprints as sparse rows (versions): by (position, action) column, how often
    each chose the action there past its openings (`openings`); by position column, whether it
    reached the position and how often past its openings; and each version's self-agreement
    (`self_agreement`)."""

    names: list[str]
    counts: sparse.csr_matrix
    freq: sparse.csr_matrix
    """`counts` over the plays that reached the position: the share of each action."""
    plays: sparse.csr_matrix
    """How often each version reached each position past its openings (0 at its openings)."""
    reached: sparse.csr_matrix
    """1 where a version reached a position, its openings included."""
    selves: np.ndarray
    opening_selves: np.ndarray
    """Each version's self-agreement at its openings."""
    columns: list[tuple[str, str]]
    """(position, action) of each column of `counts`."""
    positions: dict[str, int]
    """The column of each position in `plays` and `reached`."""
    where: dict[str, tuple[int, int, int]]
    """Each position's deal, seat and decision."""


def openings(made: Fingerprint) -> set[str]:
    """The positions of `made` at its first decision of each deal and seat. Every play of a
    deal reaches them, so counted like the others they would outweigh the rest by the square
    of the plays, and there every bot that breaks ties at random spreads its choices over the
    same many even moves."""
    first: dict[tuple[int, int], int] = {}
    for answer in made.answers.values():
        here = (answer.deal, answer.seat)
        first[here] = min(first.get(here, answer.decision), answer.decision)
    return {
        key
        for key, answer in made.answers.items()
        if answer.decision == first[(answer.deal, answer.seat)]
    }


def self_agreement(answers: Iterable[Answer]) -> float:
    """How often two plays of one version that reached the same position chose the same
    action there, over every such two (1 where it never reached a position twice: one choice
    shows nothing of a spread, and the most it can be only makes it look less like others)."""
    same = twice = 0
    for answer in answers:
        n = len(answer.choices)
        same += sum(count * count for count in Counter(answer.choices).values()) - n
        twice += n * (n - 1)
    return same / twice if twice else 1.0


def matrices(fingerprints: Mapping[str, Fingerprint]) -> Matrices:
    from scipy import sparse

    names = sorted(fingerprints)
    column: dict[tuple[str, str], int] = {}
    position: dict[str, int] = {}
    where: dict[str, tuple[int, int, int]] = {}
    rows, cols, values, shares = [], [], [], []
    reach_rows, reach_cols, plays = [], [], []
    selves, opening_selves = np.ones(len(names)), np.ones(len(names))
    for row, name in enumerate(names):
        made = fingerprints[name]
        first = openings(made)
        selves[row] = self_agreement(
            answer for key, answer in made.answers.items() if key not in first
        )
        opening_selves[row] = self_agreement(made.answers[key] for key in first)
        for key, answer in made.answers.items():
            reach_rows.append(row)
            reach_cols.append(position.setdefault(key, len(position)))
            where[key] = (answer.deal, answer.seat, answer.decision)
            plays.append(0 if key in first else len(answer.choices))
            if key in first:
                continue
            for action, count in Counter(answer.choices).items():
                rows.append(row)
                cols.append(column.setdefault((key, action), len(column)))
                values.append(count)
                shares.append(count / len(answer.choices))
    shape = (len(names), len(column))
    counts = sparse.csr_matrix((values, (rows, cols)), shape=shape, dtype=float)
    freq = sparse.csr_matrix((shares, (rows, cols)), shape=shape, dtype=float)
    shape = (len(names), len(position))
    played = sparse.csr_matrix((plays, (reach_rows, reach_cols)), shape=shape, dtype=float)
    ones = np.ones(len(reach_rows))
    reached = sparse.csr_matrix((ones, (reach_rows, reach_cols)), shape=shape)
    return Matrices(
        names, counts, freq, played, reached, selves, opening_selves, list(column), position, where
    )


class Likeness(msgspec.Struct):
    """Every pair's figures as dense version × version arrays."""

    likeness: np.ndarray
    agreement: np.ndarray
    shared: np.ndarray
    past: np.ndarray
    """Shared positions past the openings."""
    steady: np.ndarray
    """Both versions agree with themselves at least `MIN_SELF` of the time, or with each other
    at least `COPY_LIKENESS` of the time."""
    parted: np.ndarray
    """Both versions agree with themselves at their openings at least `MIN_SELF` of the time:
    if they share few positions past them, it is because they chose otherwise there."""


def likeness(m: Matrices) -> Likeness:
    """Every pair's likeness (see the module docstring), agreement and shared positions."""
    same = (m.counts @ m.counts.T).toarray()
    twos = (m.plays @ m.plays.T).toarray()  # each play of one with each play of the other
    shared = (m.reached @ m.reached.T).toarray()
    past = (m.plays.sign() @ m.plays.sign().T).toarray()
    root = np.sqrt(np.outer(m.selves, m.selves))
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(twos > 0, same / twos, 0.0)
        like = np.where(root > 0, np.minimum(agreement / root, 1.0), 0.0)
    steady = (np.minimum.outer(m.selves, m.selves) >= MIN_SELF) | (agreement >= COPY_LIKENESS)
    parted = np.minimum.outer(m.opening_selves, m.opening_selves) >= MIN_SELF
    return Likeness(like, agreement, shared, past, steady, parted)


TOO_FEW = "too few shared positions to tell"


def verdict(likeness: float, shared: int, past: int, steady: bool, parted: bool, z: float) -> str:
    """The plain-words verdict of a pair (`past`: its shared positions past the openings). Two
    bots that share fewer than `MIN_SHARED` there either chose otherwise at the openings, which
    bots steady there (`parted`) show in every play (independent), or met there seldom because
    one spreads its choices at the openings: a copy that answers one way every time meets its
    original's plays past them only where the original's draws fall its way, and how often
    that is says nothing of copying (too few to tell)."""
    if shared < MIN_SHARED:
        return TOO_FEW
    if not steady:
        return "plays too much at random to tell"
    if past < MIN_SHARED:
        return "independent" if parted else TOO_FEW
    if likeness >= COPY_LIKENESS:
        if z >= COPY_Z:
            return "copy: plays like the other far more than independent bots do"
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
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

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
    telling = (
        (figures.shared[pairs_i, pairs_j] >= MIN_SHARED)
        & figures.steady[pairs_i, pairs_j]
        & ((figures.past[pairs_i, pairs_j] >= MIN_SHARED) | figures.parted[pairs_i, pairs_j])
    )
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
        past, steady = int(figures.past[i, j]), bool(figures.steady[i, j])
        said = verdict(like, shared, past, steady, bool(figures.parted[i, j]), z)
        agreement = float(figures.agreement[i, j])
        a, b = m.names[i], m.names[j]
        cut = [name for name in (a, b) if fingerprints[name].cut]
        made.append(
            Pair(a, authors[a], b, authors[b], like, agreement, shared, centre, z, said, cut=cut)
        )
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
