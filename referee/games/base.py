"""The one interface every rules engine implements.

A rules engine is pure computation: no I/O, no clocks, no processes. The referee drives it,
search bots use it as a simulator, and `arena replay` re-runs it from a record, so the same
(game, options, seed, actions) must always give the same game — under the same rules
`version`, which every record and store keeps.

States are plain mutable objects owned by the caller: `apply` changes the state in place (fast:
no copy per decision) and `clone` gives an independent copy for search.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic

import msgspec

from protocol.errors import RequestError

if TYPE_CHECKING:
    # PEP 696 defaults (native from Python 3.13) only for the type checker: `Game[Any]` keeps
    # meaning "some game" without spelling out its three type parameters.
    from typing_extensions import TypeVar

    StateT = TypeVar("StateT", default=Any)
    ActionT = TypeVar("ActionT", default=Any)
    ObsT = TypeVar("ObsT", default=Any)
else:
    from typing import TypeVar

    StateT, ActionT, ObsT = TypeVar("StateT"), TypeVar("ActionT"), TypeVar("ObsT")

__all__ = [
    "BadPlayerCount",
    "Game",
    "GameResult",
    "IllegalAction",
    "Policy",
    "WrongSeats",
    "ranks_from_keys",
    "simulate",
]


class IllegalAction(Exception):
    """A well-formed action that the rules do not allow here: the acting seat's fault.

    `rule` names the rule broken in words a bot author understands ("a pattern line may hold only
    one colour"), so the referee can record it as the reason for the forfeit.
    """

    def __init__(self, rule: str, detail: str = "") -> None:
        self.rule = rule
        self.detail = detail
        super().__init__(f"{rule}: {detail}" if detail else rule)


class WrongSeats(IllegalAction):
    """`apply` got actions from another set of seats than `to_act` names (every game, one type).

    An `IllegalAction`, so a replayed record whose seats drift is reported like any refused
    action; the referee itself only ever asks the seats of `to_act`.
    """

    def __init__(self, acting: Iterable[int], given: Iterable[int]) -> None:
        super().__init__(
            "actions must come from exactly the seats to act",
            f"seats {sorted(acting)} act now, got actions of seats {sorted(given)}",
        )


class BadPlayerCount(RequestError):
    """`new` was asked for a number of players the game is not for (a set-up error)."""


class GameResult(msgspec.Struct, frozen=True):
    """Final scores and ranks (1 = best; seats that tie share a rank, the next rank is skipped)."""

    scores: list[int]
    ranks: list[int]
    tiebreak: str = ""
    """The rule that separated (or failed to separate) tied scores, empty when none was needed."""


def ranks_from_keys(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Competition ranks ("1224") from per-seat sort keys where a larger key is better."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class Game(ABC, Generic[StateT, ActionT, ObsT]):
    """A game's rules behind the interface the referee, the bots and the tools share.

    Type parameters: the state, the action and the observation types. Subclasses set the class
    attributes and implement the abstract methods; they are registered in `referee.games` by
    id. `Options`, `Action` and `Observation` are msgspec types so the protocol can encode and
    validate them without per-game code. docs/games/adding.md says how to add a game.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[int]
    """The rules version: bumped whenever the same (options, seed, actions) could play out
    differently, so records and stores never mix games of two rule sets unnoticed."""
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type[msgspec.Struct]]
    """Options struct: every field has a default; unknown keys are rejected when decoding."""
    Action: ClassVar[Any]
    """The type (usually a tagged union of Structs) that a bot's action decodes into."""
    Observation: ClassVar[type[msgspec.Struct]]
    reference: ClassVar[dict[str, list[dict[str, Any]]]] = {}
    """Tables of the game's pieces that a bot needs and no message carries (Alhambra's
    buildings: type, price, walls by id), by name: published by `arena games GAME`, made from
    the data the engine plays with."""

    def check_players(self, players: int) -> None:
        """Raise `BadPlayerCount` unless the game is for `players` players."""
        if not self.min_players <= players <= self.max_players:
            raise BadPlayerCount(
                f"{self.id} is for {self.min_players}-{self.max_players} players, not {players}"
            )

    def new(self, players: int, seed: int, options: Any = None) -> StateT:
        """A fresh game: every later random draw comes from an RNG seeded here and kept.

        `options` is the game's Options struct (None: the defaults).
        """
        self.check_players(players)
        return self.setup(players, seed, options if options is not None else self.Options())

    @abstractmethod
    def setup(self, players: int, seed: int, options: Any) -> StateT:
        """`new` after its checks: `players` is in range and `options` an Options struct."""

    @abstractmethod
    def to_act(self, state: StateT) -> tuple[int, ...]:
        """Seats that must decide now: one, several (a simultaneous decision), or none when over."""

    @abstractmethod
    def legal(self, state: StateT, seat: int) -> list[ActionT]:
        """Every legal action of `seat` now, without duplicates, in a deterministic order."""

    @abstractmethod
    def apply(self, state: StateT, actions: Mapping[int, ActionT]) -> None:
        """Apply one action per seat of `to_act` together; raise IllegalAction naming the rule
        (WrongSeats for another set of seats), leaving the state unchanged."""

    @abstractmethod
    def observe(self, state: StateT, seat: int) -> ObsT:
        """Exactly what `seat` may know now: never the bag order, the RNG or another's hand."""

    @abstractmethod
    def spectate(self, state: StateT) -> ObsT:
        """What everyone may know (no seat's hidden part): for reports, viewers and logs."""

    @abstractmethod
    def determinize(self, state: StateT, seat: int, rng: random.Random) -> StateT:
        """A new state that `seat` cannot tell from `state` (its observation is the same) with
        every part hidden from it re-sampled from `rng`: the bag and deck order, the future
        draws, the others' hands. Information-set search samples worlds with it."""

    @abstractmethod
    def from_observation(self, observation: ObsT, rng: random.Random) -> StateT:
        """A fresh state that gives back `observation` (`observe(state, observation.seat)`
        equals it; the same seats act, and the observing seat has the true state's legal
        actions), with every part hidden from that seat dealt at random from `rng`.

        A bot sees only its observation, never the referee's state: this is how a search bot
        gets a state to simulate. It reads nothing but `observation`, so it cannot leak."""

    @abstractmethod
    def scores(self, state: StateT) -> list[int]:
        """Current score of every seat (also mid-game: a forfeit ends a game early)."""

    @abstractmethod
    def result(self, state: StateT) -> GameResult | None:
        """The final result once the game is over, else None."""

    @abstractmethod
    def clone(self, state: StateT) -> StateT:
        """An independent deep copy (search bots simulate on copies)."""

    @abstractmethod
    def render(self, state: StateT) -> str:
        """A readable multi-line text picture of the whole state (for `arena replay --show`)."""

    def is_over(self, state: StateT) -> bool:
        return not self.to_act(state)

    def broken_invariants(self, state: StateT) -> list[str]:
        """What is wrong with `state` (conservation of tiles or cards, bounds), in words.

        Empty for a sound state. The conformance suite calls it after every decision of its
        playouts; a game overrides it with the invariants its rules promise.
        """
        return []

    def returns(self, state: StateT) -> list[float]:
        """Per seat, in [0, 1]: the share of the other seats it beats, a tie counting half.

        From the final ranks once the game is over (tie-breaks included), else from the
        current scores (a leaf value for a search cut short). The values sum to players / 2,
        so in two-player games they are zero-sum around 0.5.
        """
        result = self.result(state)
        if result is not None:
            keys = [(-rank,) for rank in result.ranks]
        else:
            keys = [(score,) for score in self.scores(state)]
        others = len(keys) - 1
        shares = []
        for seat, key in enumerate(keys):
            beaten = sum(
                1.0 if key > other else 0.5 if key == other else 0.0
                for other_seat, other in enumerate(keys)
                if other_seat != seat
            )
            shares.append(beaten / others)
        return shares


Policy = Callable[[StateT, int, list[ActionT]], ActionT]
"""Chooses `seat`'s action in `state` among `legal` (a playout policy)."""


def simulate(
    game: Game[StateT, ActionT, ObsT],
    state: StateT,
    rng: random.Random,
    policy: Policy[StateT, ActionT] | None = None,
    limit: int | None = None,
    until: Callable[[StateT], bool] | None = None,
) -> int:
    """Play `state` on to the end (or `limit` decisions, or a state where `until` holds): the
    decisions played.

    Every seat asked picks with `policy`, or uniformly at random from `rng` without one; the
    actions of a simultaneous decision are applied together. The one playout loop of the
    tests, the benchmarks and the bots.
    """
    to_act, legal, apply, uniform = game.to_act, game.legal, game.apply, rng.random
    decisions = 0
    while (
        (limit is None or decisions < limit)
        and (seats := to_act(state))
        and (until is None or not until(state))
    ):
        choices: dict[int, ActionT] = {}
        for seat in seats:
            actions = legal(state, seat)
            if policy is None:
                choices[seat] = actions[int(uniform() * len(actions))]
            else:
                choices[seat] = policy(state, seat, actions)
        apply(state, choices)
        decisions += 1
    return decisions
