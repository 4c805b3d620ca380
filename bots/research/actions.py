"""A game's actions as a fixed index space, which RL libraries and OpenSpiel both need.

The engines answer `legal` with a list that changes from state to state; a network's output layer
or OpenSpiel's `num_distinct_actions` needs every action to keep one index for the whole game.
The space is a list of every action the game could ever offer (its *universe*, built from a small
per-game table in `specs`, validated through the game's own `Action` type), and an action's index
is found through a *key*: the action with every tuple sorted (the tuples of our actions are sets:
the colours of a split, the cards of a play), further normalised by the game where needed
(Alhambra's cells wrap round, see `specs`). Two legal actions with one key would share an index:
that is refused loudly rather than resolved by a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

__all__ = ["ActionSpace", "OutsideSpace", "sort_tuples"]

Mask = npt.NDArray[np.int8]


class OutsideSpace(LookupError):
    """A legal action the index space has no place for: the game's table in `specs` is short."""


def _order(item: Any) -> Any:
    """A sort key for the items of an action's tuple (ints, or Structs such as cards)."""
    return msgspec.structs.astuple(item) if isinstance(item, msgspec.Struct) else item


def sort_tuples(action: Any) -> Any:
    """`action` with each tuple field sorted: the default key (a set keeps one index)."""
    changes = {
        name: tuple(sorted(value, key=_order))
        for name in action.__struct_fields__
        if isinstance(value := getattr(action, name), tuple)
    }
    return msgspec.structs.replace(action, **changes) if changes else action


class ActionSpace:
    """Every action of one game set-up, numbered; `index` maps a legal action to its number."""

    def __init__(
        self,
        action_type: Any,
        universe: Iterable[Mapping[str, Any]],
        key: Callable[[Any], Any] = sort_tuples,
    ) -> None:
        self.actions: tuple[Any, ...] = tuple(
            msgspec.convert(list(universe), type=list[action_type])
        )
        self._key = key
        self._by_key = {key(action): index for index, action in enumerate(self.actions)}
        if len(self._by_key) != len(self.actions):
            raise ValueError("the action table lists an action twice")
        self._index: dict[Any, int] = {}
        """Indices by the engines' own action objects (most are pre-built and recur)."""

    def __len__(self) -> int:
        return len(self.actions)

    def index(self, action: Any) -> int:
        """The index of `action` (any order inside its tuples)."""
        found = self._index.get(action)
        if found is None:
            found = self._by_key.get(self._key(action))
            if found is None:
                raise OutsideSpace(f"no index for {action!r}: extend the game's table in specs")
            self._index[action] = found
        return found

    def by_index(self, legal: Sequence[Any]) -> dict[int, Any]:
        """The legal actions by index (refusing two that would share one)."""
        found = {self.index(action): action for action in legal}
        if len(found) != len(legal):
            raise OutsideSpace(f"two legal actions share an index among {legal!r}")
        return found

    def mask(self, indices: Iterable[int]) -> Mask:
        """1 at each of `indices` (those of `by_index`), else 0 (int8, as gymnasium masks are)."""
        mask = np.zeros(len(self.actions), dtype=np.int8)
        mask[list(indices)] = 1
        return mask

    def text(self, index: int) -> str:
        """The action at `index` as the protocol's JSON (for logs and OpenSpiel's strings)."""
        return msgspec.json.encode(self.actions[index]).decode()
