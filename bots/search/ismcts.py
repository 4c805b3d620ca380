"""Single-observer information-set MCTS with determinization and decoupled UCT.

One search for every game, through the engine interface only (`determinize`, `to_act`,
`legal`, `apply`, `returns`, `simulate`):

- Each iteration samples a world with `Game.determinize(root, seat, rng)`: the hidden parts
  (others' hands, the deck, the bag's future draws) are re-dealt, so the tree never uses what the
  searching seat cannot see, and chance (refills, draws) is whatever that world's seed makes it.
- The tree is keyed by the actions taken, as the searching seat sees them (one tree for all
  worlds: SO-ISMCTS). Because an action may be legal in one world and not in another, UCB counts
  how often an action was *available* rather than how often its node was visited (ISUCT).
- Simultaneous decisions (5211) use decoupled UCT: every seat asked at a node selects its own
  action from its own statistics, by UCB on its own returns, and the joint action leads to the
  child. Chosen over EXP3 or regret matching because it needs no extra tuning and learns from
  the few iterations a decision's budget gives a Python search; its known weakness (it may not
  converge to a mixed equilibrium) matters little against opponents that do not exploit it, and
  its root choice is the most played action.
- The other seats may instead be *modelled* (`Params.opponents`; per game, like everything
  below, in its `policies.SearchProfile`): they play the game's model or the heuristic's best,
  and only the searching seat's choices are searched. A game may also give a prior estimate of
  the root actions, counted as a few iterations' worth of evidence when the answer is chosen.
  The default for 5211: with decoupled UCT the simulated opponents learn to answer the
  searcher's plays, a cautious view that real opponents, who do not see its cards, cannot take;
  a best response to a heuristic player scores more against greedy (docs/strategies.md). Flat
  Monte Carlo is what this becomes at the root when the tree stays shallow.
- Where the game has a heuristic, a node first widens to its best actions by that heuristic and
  admits more as its visits grow (progressive widening), and the "greedy" rollout plays the
  heuristic's best of a few random legal actions. Rollouts stop at the game's horizon (or
  `depth` decisions) and are valued by the game's evaluation (or its scores): every seat gets
  the mean, over the other seats, of a logistic of its score margin, mixed with `Game.returns`
  once the game is over, and, where the game asks for it, a little for every point of its own.
- A game whose other seats are modelled may ask for a flat search with common worlds instead
  (`SearchProfile.playout`, 5211 and Alhambra): no tree; every root action is played in each
  sampled world, against the same modelled actions of the other seats, and followed to the
  horizon by the game's playout model for every seat (see `Search._flat`).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bots.search.budget import Timer
from bots.search.policies import Horizon, Opponents, SearchProfile, profile
from referee.games import Game, Policy, simulate

Rollout = Literal["greedy", "random"]
ROLLOUT_STEP = 16
"""Rollout decisions between two looks at the clock."""


@dataclass(frozen=True)
class Params:
    """What a user may tune per participant (`python -m bots.mcts --help` lists them)."""

    c: float | None = None
    """UCB exploration constant (values are in [0, 1], plus a game's `own_points`); None: the
    game's (`SearchProfile.exploration`)."""
    rollout: Rollout = "greedy"
    """"greedy": the heuristic's best of `sample` random legal actions; "random": uniform (also
    what "greedy" means for a game without a heuristic)."""
    depth: int | None = None
    """Decisions played by a rollout before its leaf is evaluated (0: to the end; None: the
    game's horizon)."""
    sample: int | None = None
    """A greedy rollout picks the best of this many random legal actions: random enough to
    sample many futures, cheap (a handful of heuristic calls), and still mostly sensible; None:
    the game's (`SearchProfile.sample`, default 8)."""
    opponents: Opponents | None = None
    """How the other seats choose in the tree: "search" (UCB, by their own statistics; decoupled
    in a simultaneous decision) or "heuristic" (the heuristic's best: a model of a greedy
    opponent; a game without a heuristic is searched); None: the game's
    (`SearchProfile.opponents`)."""
    widen: float = 2.0
    """Progressive widening: a node with n visits considers its best 2 + widen·√n actions."""


class Node:
    """One node of the tree: per seat asked here, [visits, total value, times available] per
    action; children keyed by the action (one seat) or the tuple of actions (several)."""

    __slots__ = ("children", "order", "stats", "visits")

    def __init__(self) -> None:
        self.children: dict[Any, Node] = {}
        self.stats: dict[int, dict[Any, list[float]]] = {}
        self.order: dict[int, tuple[list[Any], list[Any]]] = {}
        """Per seat, the legal actions of the first world here, and those by heuristic value,
        best first."""
        self.visits = 0


class Search:
    """A search for one game; `run` answers one decision."""

    def __init__(self, game: Game[Any], params: Params, known: SearchProfile | None = None) -> None:
        """`known`: the game's search knowledge; None: its `PROFILE` (`policies.profile`)."""
        self.game = game
        self.params = params
        if known is None:
            known = profile(game.id)
        self.heuristic = known.heuristic
        self.evaluation = game.scores if known.evaluation is None else known.evaluation
        self.scale = known.scale
        self.own_points = known.own_points
        self.c = known.exploration if params.c is None else params.c
        self.sample = known.sample if params.sample is None else params.sample
        horizon = known.horizon
        if params.depth is not None or horizon is None:
            depth = params.depth or 0
            self.horizon: Horizon = lambda state: depth
        else:
            self.horizon = horizon
        self.iterations = 0
        """Iterations of the last `run`."""
        self.seat = -1
        """The searching seat of the current `run`."""
        opponents = params.opponents or known.opponents
        self.model = known.model
        self.modelled = opponents == "heuristic" and (
            self.heuristic is not None or self.model is not None
        )
        self.prior = known.prior
        self.legal: list[Any] = []
        """The root actions the answer is chosen among (set by `run`): the searching seat's
        legal actions, or the flat search's candidates (`_candidates`)."""
        self.points: list[float] = []
        """The prior's estimate of each of `legal` (empty without a prior)."""
        self.cap = known.iterations
        """The game's cap on a decision's iterations (`SearchProfile.iterations`), or None."""
        self.playout = known.playout
        self.width = known.width
        self.stage = known.stage
        self.stage_seconds = known.stage_ms / 1000
        self.timer: Timer = time.perf_counter
        """The clock of the current `run`'s deadline (`bots.search.budget`)."""
        self.past_stage: Callable[[Any], bool] | None = None
        """Whether a state is past the root's stage (`SearchProfile.stage`) in the current
        `run`; None without a stage, or in a search too long for it (`SearchProfile.stage_ms`)."""

    def run(
        self,
        root: Any,
        seat: int,
        rng: random.Random,
        deadline: float,
        iterations: int | None = None,
        *,
        timer: Timer = time.perf_counter,
        seconds: float | None = None,
    ) -> Any:
        """The action for `seat` in `root`, after `iterations` (None: the game's cap, else as
        many as fit) iterations, stopping at `deadline` (a value of `timer`) in any case.
        `seconds` is the search's length for its shape (the game's stage: `SearchProfile.
        stage_ms`); None: the time left to the deadline. A search of a fixed number of
        iterations gives one, so that its shape, and so its answer, does not depend on how fast
        the machine runs it."""
        game = self.game
        self.seat = seat
        self.timer = timer
        if iterations is None:
            iterations = self.cap
        self.legal = game.legal(root, seat)
        # The prior first, so that the search's deadline counts its time (Alhambra's takes
        # milliseconds a placement; computed after the search, it could make the answer late).
        self.points = [] if self.prior is None else self.prior[0](root, seat, self.legal)
        if self.playout is not None and self.modelled:
            return self._flat(root, seat, rng, deadline, iterations)
        tree = Node()
        done = 0
        now = timer()
        stage = self.stage
        self.past_stage = None
        length = deadline - now if seconds is None else seconds
        if stage is not None and length < self.stage_seconds:
            root_stage = stage(root)
            self.past_stage = lambda state: stage(state) != root_stage
        slowest = 0.0
        # An iteration starts only if the slowest one so far would still end by the deadline,
        # and a rollout stops at the deadline: a late iteration cannot push the answer past it.
        while (iterations is None or done < iterations) and now + slowest < deadline:
            self._iterate(tree, game.determinize(root, seat, rng), rng, deadline)
            done += 1
            began, now = now, timer()
            slowest = max(slowest, now - began)
        self.iterations = done
        return self._best(tree, root, seat, rng)

    def _flat(
        self, root: Any, seat: int, rng: random.Random, deadline: float, iterations: int | None
    ) -> Any:
        """Flat Monte Carlo with common worlds: each sampled world (an iteration) plays every
        root action of `seat` against the same actions of the other seats (their model's: in a
        simultaneous decision they do not depend on its own) and the same draws, then every seat
        plays the game's playout model (`SearchProfile.playout`) up to the horizon counted from the
        root. The actions' values then differ by what the actions change, not by the luck of
        their worlds: paired comparisons, which a few dozen worlds a decision can tell apart
        where a tree's independent samples cannot. Only the game's `width` best actions by the
        prior (else by the heuristic) are valued: more worlds for the likely ones. The answer
        is chosen as a tree's root (`_best`); the deadline is checked between worlds and, in the
        first world and once it is less than two of the slowest worlds away, between a world's
        actions (a look at the clock can cost a system call: `bots.search.budget`), a world left
        unfinished by it being dropped (a playout does not look at the clock: this is for games
        with short horizons, 5211's rest of a round, Alhambra's next turns)."""
        game = self.game
        legal = self._candidates(root, seat)
        tree = Node()
        stats = tree.stats[seat] = {}
        playout = self.playout
        assert playout is not None

        def policy(state: Any, s: int, actions: list[Any]) -> Any:
            return playout(state, s, actions, rng)

        horizon = self.horizon(root)
        done = 0
        clock = self.timer
        now = clock()
        slowest = 0.0
        while (
            len(legal) > 1
            and (iterations is None or done < iterations)
            and now + slowest < deadline
        ):
            world = game.determinize(root, seat, rng)
            joint = {
                s: self._modelled(world, s, game.legal(world, s), rng)
                for s in game.to_act(world)
                if s != seat
            }
            values: list[float] = []
            watch = not slowest or now + 2 * slowest >= deadline
            for action in legal:
                if values and watch and clock() > deadline:
                    break
                twin = game.clone(world)
                joint[seat] = action
                game.apply(twin, joint)
                if horizon != 1:
                    simulate(game, twin, rng, policy, horizon - 1 if horizon else None)
                values.append(self._values(twin)[seat])
            if len(values) < len(legal):  # past the deadline mid-world: no pairs to compare
                break
            for action, value in zip(legal, values, strict=True):
                stat = stats.setdefault(action, [0, 0.0, 1])
                stat[0] += 1
                stat[1] += value
            done += 1
            began, now = now, clock()
            slowest = max(slowest, now - began)
        self.iterations = done
        return self._best(tree, root, seat, rng)

    def _candidates(self, root: Any, seat: int) -> list[Any]:
        """The flat search's root actions, which `legal` and `points` are narrowed to: the
        `width` best (a number, or one per root state) by the prior, or by the heuristic without
        one (all of them without either); a single one is answered without a search."""
        legal = self.legal
        width = self.width if isinstance(self.width, int) else self.width(root)
        if self.prior is not None:
            points = self.points
            ranked = sorted(range(len(legal)), key=lambda i: -points[i])[:width]
            self.points = [points[i] for i in ranked]
            self.legal = [legal[i] for i in ranked]
        elif self.heuristic is not None:
            heuristic = self.heuristic
            self.legal = sorted(legal, key=lambda action: -heuristic(root, seat, action))[:width]
        return self.legal

    def _iterate(self, tree: Node, world: Any, rng: random.Random, deadline: float) -> None:
        game = self.game
        path: list[tuple[Node, dict[int, Any]]] = []
        node = tree
        past_stage = self.past_stage
        while True:
            seats = game.to_act(world)
            if not seats or (past_stage is not None and past_stage(world)):
                break
            choices = {}
            searched = {}
            for s in seats:
                legal = game.legal(world, s)
                if s == self.seat or not self.modelled:
                    choices[s] = searched[s] = self._select(node, s, legal, world, rng)
                else:
                    choices[s] = self._modelled(world, s, legal, rng)
            node.visits += 1
            path.append((node, searched))
            game.apply(world, choices)
            key = choices[seats[0]] if len(seats) == 1 else tuple(choices[s] for s in seats)
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node()
                break
            node = child
        self._rollout(world, rng, deadline)
        values = self._values(world)
        for node, choices in path:
            for s, action in choices.items():
                stat = node.stats[s][action]
                stat[0] += 1
                stat[1] += values[s]

    def _select(
        self, node: Node, seat: int, legal: list[Any], world: Any, rng: random.Random
    ) -> Any:
        """Decoupled ISUCT for one seat: an untried admitted action first (the heuristic's best,
        or a random one without a heuristic), else the best UCB."""
        stats = node.stats.get(seat)
        if stats is None:
            stats = node.stats[seat] = {}
        candidates = self._admitted(node, seat, legal, world, rng)
        best, best_value, untried, seen = None, -math.inf, None, 0
        ranked = self.heuristic is not None
        c = self.c
        for action in candidates:
            stat = stats.get(action)
            if stat is None:
                seen += 1
                if untried is None or (not ranked and rng.random() * seen < 1):
                    untried = action
                continue
            stat[2] += 1
            visits = stat[0]
            value = stat[1] / visits + c * math.sqrt(math.log(stat[2]) / visits)
            if value > best_value:
                best, best_value = action, value
        if untried is not None:
            stats[untried] = [0, 0.0, 1]
            return untried
        return best

    def _modelled(self, world: Any, seat: int, legal: list[Any], rng: random.Random) -> Any:
        """Another seat's action by the opponent model: the game's (`SearchProfile.model`), else
        the heuristic's best (ties broken at random)."""
        if self.model is not None:
            return self.model(world, seat, legal, rng)
        heuristic = self.heuristic
        assert heuristic is not None
        return max(legal, key=lambda action: (heuristic(world, seat, action), rng.random()))

    def _admitted(
        self, node: Node, seat: int, legal: list[Any], world: Any, rng: random.Random
    ) -> Sequence[Any]:
        """The actions a node considers now: all of them without a heuristic; with one, the best
        few by heuristic value, more as the node's visits grow. The ranking is kept while the
        worlds reaching the node offer the same actions, in the same order (Azul within a round:
        one comparison of lists), and made afresh when they do not (another seat's hand in 5211
        differs from world to world)."""
        heuristic = self.heuristic
        if heuristic is None:
            return legal
        cached = node.order.get(seat)
        if cached is not None and cached[0] == legal:
            order = cached[1]
        else:
            keyed = sorted(
                ((heuristic(world, seat, a), rng.random(), a) for a in legal), reverse=True
            )
            order = [action for _, _, action in keyed]
            if cached is None:
                node.order[seat] = (legal, order)
        width = 2 + int(self.params.widen * math.sqrt(node.visits))
        return order[:width]

    def _rollout(self, world: Any, rng: random.Random, deadline: float) -> int:
        """Play `world` on to the horizon (or the root's stage's end), by `ROLLOUT_STEP`
        decisions at a time so that a long rollout (a game without a horizon, played to its end)
        stops at the deadline; the leaf is then valued where it stopped. Returns the decisions
        played."""
        limit = self.horizon(world)
        policy = self._policy(rng)
        game, clock = self.game, self.timer
        until = self.past_stage
        done = 0
        while True:
            step = min(ROLLOUT_STEP, limit - done) if limit else ROLLOUT_STEP
            played = simulate(game, world, rng, policy, step, until)
            done += played
            if played < step or done == limit or clock() > deadline:
                return done

    def _policy(self, rng: random.Random) -> Policy[Any, Any] | None:
        """The rollout policy: None (uniform) for "random" or a game without a heuristic."""
        params = self.params
        heuristic = self.heuristic
        if params.rollout == "random" or heuristic is None:
            return None
        sample = self.sample

        def greedy(state: Any, seat: int, legal: list[Any]) -> Any:
            size = len(legal)
            if size <= sample:
                picks = legal
            else:
                picks = [legal[int(rng.random() * size)] for _ in range(sample)]
            best, best_value = picks[0], -math.inf
            for action in picks:
                value = heuristic(state, seat, action)
                if value > best_value:
                    best, best_value = action, value
            return best

        return greedy

    def _values(self, world: Any) -> list[float]:
        """Per seat: the mean over the others of a logistic of the score margin, averaged with
        the rank-based `returns` once the game is over (in [0, 1]), plus the game's value of a
        point times the seat's own score (`SearchProfile.own_points`)."""
        game = self.game
        scores = self.evaluation(world)
        others = len(scores) - 1
        scale = self.scale
        own_points = self.own_points
        values = [
            sum(
                1.0 / (1.0 + math.exp((other - mine) / scale))
                for j, other in enumerate(scores)
                if j != i
            )
            / others
            for i, mine in enumerate(scores)
        ]
        if game.is_over(world):
            returns = game.returns(world)
            values = [(v + r) / 2 for v, r in zip(values, returns, strict=True)]
        if own_points:
            values = [v + own_points * mine for v, mine in zip(values, scores, strict=True)]
        return values

    def _best(self, tree: Node, root: Any, seat: int, rng: random.Random) -> Any:
        """The most played root action (the best mean breaks ties), or with a game's prior the
        best mean once the prior is counted in; before any iteration, the heuristic's favourite
        or a random one. Among `legal`."""
        stats = tree.stats.get(seat, {})
        played = [(s[0], s[1] / s[0], a) for a, s in stats.items() if s[0]]
        legal = self.legal
        if played and self.prior is not None:
            return self._blended(stats)
        if played:
            return max(played, key=lambda entry: entry[:2])[2]
        heuristic = self.heuristic
        if heuristic is not None:
            return max(legal, key=lambda action: heuristic(root, seat, action))
        return legal[int(rng.random() * len(legal))]

    def _blended(self, stats: dict[Any, list[float]]) -> Any:
        """The root action with the best mean value when the prior's estimate counts as `weight`
        iterations: the estimate's differences from its mean, in points, are turned into value
        by the slope of the leaf's logistic at an even margin (1 / (4 scale) a point), around
        the mean value of all the root's iterations."""
        assert self.prior is not None
        weight = self.prior[1]
        legal, points = self.legal, self.points
        centre = sum(points) / len(points)
        base = sum(s[1] for s in stats.values()) / max(1.0, sum(s[0] for s in stats.values()))
        slope = 1.0 / (4.0 * self.scale)

        def blended(index: int) -> float:
            visits, total = stats.get(legal[index], (0, 0.0))[:2]
            guess = base + slope * (points[index] - centre)
            return (weight * guess + total) / (weight + visits)

        return legal[max(range(len(legal)), key=blended)]
