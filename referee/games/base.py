"""The one interface every rules engine implements.

A rules engine is pure computation: no I/O, no clocks, no processes. The referee drives it,
search bots use it as a simulator, and `arena replay` re-runs it from a record, so the same
(game, options, seed, actions) must always give the same game.

States are plain mutable objects owned by the caller: `apply` changes the state in place (fast:
no copy per decision) and `clone` gives an independent copy for search.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import msgspec

State = TypeVar("State")


class IllegalAction(Exception):
    """A well-formed action that the rules do not allow here: the acting seat's fault.

    `rule` names the rule broken in words a bot author understands ("a pattern line may hold only
    one colour"), so the referee can record it as the reason for the forfeit.
    """

    def __init__(self, rule: str, detail: str = "") -> None:
        self.rule = rule
        self.detail = detail
        super().__init__(f"{rule}: {detail}" if detail else rule)


class GameResult(msgspec.Struct, frozen=True):
    """Final scores and ranks (1 = best; seats that tie share a rank, the next rank is skipped)."""

    scores: list[int]
    ranks: list[int]
    tiebreak: str = ""
    """The rule that separated (or failed to separate) tied scores, empty when none was needed."""


def ranks_from_keys(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Competition ranks ("1224") from per-seat sort keys where a larger key is better."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


class Game(ABC, Generic[State]):
    """A game's rules behind the interface the referee, the bots and the tools share.

    Subclasses set the class attributes and implement the methods; they are registered in
    `referee.games` by id. `Options`, `Action` and `Observation` are msgspec types so the
    protocol can encode and validate them without per-game code.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    Options: ClassVar[type[msgspec.Struct]]
    """Options struct: every field has a default; unknown keys are rejected when decoding."""
    Action: ClassVar[Any]
    """The type (usually a tagged union of Structs) that a bot's action decodes into."""
    Observation: ClassVar[type[msgspec.Struct]]

    @abstractmethod
    def new(self, players: int, seed: int, options: Any) -> State:
        """A fresh game: every later random draw comes from an RNG seeded here and kept."""

    @abstractmethod
    def to_act(self, state: State) -> tuple[int, ...]:
        """Seats that must decide now: one, several (a simultaneous decision), or none when over."""

    @abstractmethod
    def legal(self, state: State, seat: int) -> list[Any]:
        """Every legal action of `seat` now, without duplicates, in a deterministic order."""

    @abstractmethod
    def apply(self, state: State, actions: Mapping[int, Any]) -> None:
        """Apply one action per seat of `to_act` together; raise IllegalAction naming the rule."""

    @abstractmethod
    def observe(self, state: State, seat: int) -> msgspec.Struct:
        """Exactly what `seat` may know now: never the bag order, the RNG or another's hand."""

    @abstractmethod
    def scores(self, state: State) -> list[int]:
        """Current score of every seat (also mid-game: a forfeit ends a game early)."""

    @abstractmethod
    def result(self, state: State) -> GameResult | None:
        """The final result once the game is over, else None."""

    @abstractmethod
    def clone(self, state: State) -> State:
        """An independent deep copy (search bots simulate on copies)."""

    @abstractmethod
    def render(self, state: State) -> str:
        """A readable multi-line text picture of the whole state (for `arena replay --show`)."""

    def is_over(self, state: State) -> bool:
        return not self.to_act(state)
