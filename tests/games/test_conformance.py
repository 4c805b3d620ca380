"""The conformance suite every registered game and variant passes; a new game is done when it
passes it too (docs/games/adding.md). Nothing here names a game: the games, their variants (every
combination of the options' Literal and bool fields) and their player counts come from the
registry, and each game's own invariants from its `broken_invariants` hook.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import typing
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from referee.games import (
    GAME_IDS,
    BadPlayerCount,
    Game,
    IllegalAction,
    WrongSeats,
    find_game,
    simulate,
)

MAX_DECISIONS = 5000
"""Far beyond any game of ours (Azul's 100-round cap is the longest): a playout that reaches it
does not end."""


def variants(game: Game[Any]) -> list[dict[str, Any]]:
    """Every combination of the values of the options' Literal and bool fields."""
    names, choices = [], []
    for field in msgspec.structs.fields(game.Options):
        if field.type is bool:
            values: tuple[Any, ...] = (False, True)
        elif typing.get_origin(field.type) is typing.Literal:
            values = typing.get_args(field.type)
        else:
            continue
        names.append(field.name)
        choices.append(values)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*choices)]


CASES = [
    pytest.param(
        game_id, options, players, id=f"{game_id}-{players}p-{'-'.join(map(str, options.values()))}"
    )
    for game_id in GAME_IDS
    for options in variants(find_game(game_id))
    for players in range(find_game(game_id).min_players, find_game(game_id).max_players + 1)
]
SEEDS = (1, 2)
conformance = pytest.mark.parametrize(("game_id", "options", "players"), CASES)


def start(game_id: str, options: dict[str, Any], players: int, seed: int) -> tuple[Game[Any], Any]:
    game = find_game(game_id)
    return game, game.new(players, seed, game.Options(**options))


def states(game: Game[Any], state: Any, rng: random.Random) -> Iterator[Any]:
    """Every state of a random playout of `state` (which it plays on), the last one over."""
    for _ in range(MAX_DECISIONS):
        yield state
        if not simulate(game, state, rng, limit=1):
            return
    raise AssertionError(f"no end after {MAX_DECISIONS} decisions")


PLAIN = frozenset({int, float, bool, str, bytes, type(None)})
"""The types of a state's values that have no fields (most of its values: a fast way out)."""


def snapshot(value: Any) -> Any:
    """Every field of a state, recursively, as plain comparable data."""
    if type(value) in PLAIN:
        return value
    if isinstance(value, list | tuple):
        return [snapshot(item) for item in value]
    if isinstance(value, dict):
        return {key: snapshot(item) for key, item in value.items()}
    slots = fields(value)
    if slots:
        return {slot: snapshot(getattr(value, slot)) for slot in slots}
    return value


def fields(value: Any) -> tuple[str, ...]:
    """The fields of a state object: its `__slots__`, or the attributes mypyc compiled (found
    once a type: every value of a state is looked at, many times a test)."""
    kind = type(value)
    found = FIELDS.get(kind)
    if found is None:
        found = FIELDS[kind] = fields_of(kind)
    return found


FIELDS: dict[type, tuple[str, ...]] = {}


def fields_of(kind: type) -> tuple[str, ...]:
    if issubclass(kind, msgspec.Struct):
        return ()  # immutable messages kept in a state (a round report) are shared safely
    compiled = getattr(kind, "__mypyc_attrs__", ())
    return tuple(compiled) or tuple(
        slot for cls in kind.__mro__ for slot in getattr(cls, "__slots__", ())
    )


def mutable_parts(value: Any) -> Iterator[Any]:
    """The lists, dicts and slotted objects inside a state (what a clone must not share)."""
    if isinstance(value, list | dict):
        yield value
    items = value.values() if isinstance(value, dict) else value
    if isinstance(value, list | tuple | dict):
        for item in items:
            yield from mutable_parts(item)
        return
    slots = fields(value)
    if slots:
        yield value
        for slot in slots:
            yield from mutable_parts(getattr(value, slot))


def seen(game: Game[Any], state: Any) -> list[bytes]:
    return [
        msgspec.json.encode(game.observe(state, seat)) for seat in range(players_of(game, state))
    ]


def players_of(game: Game[Any], state: Any) -> int:
    return len(game.scores(state))


# ---- the rules' own promises ----------------------------------------------------------------


@conformance
def test_the_interface_basics(game_id: str, options: dict[str, Any], players: int) -> None:
    game = find_game(game_id)
    assert isinstance(game.version, int) and game.version >= 1
    assert game.id == game_id and game.title
    for wrong in (game.min_players - 1, game.max_players + 1):
        with pytest.raises(BadPlayerCount, match=f"{game_id} is for"):
            game.new(wrong, 1, game.Options(**options))


@conformance
def test_playouts_keep_the_invariants_and_end(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    for seed in SEEDS:
        game, state = start(game_id, options, players, seed)
        for current in states(game, state, random.Random(seed)):
            assert game.broken_invariants(current) == []
            acting = game.to_act(current)
            for seat in range(players):
                legal = game.legal(current, seat)
                assert bool(legal) == (seat in acting)
                assert len(set(map(msgspec.json.encode, legal))) == len(legal)
        result = game.result(state)
        assert result is not None and result.scores == game.scores(state)
        returns = game.returns(state)
        assert all(0.0 <= value <= 1.0 for value in returns)
        assert sum(returns) == pytest.approx(players / 2)
        best = min(result.ranks)
        assert {returns[s] for s in range(players) if result.ranks[s] == best} == {max(returns)}


@conformance
def test_clones_share_nothing(game_id: str, options: dict[str, Any], players: int) -> None:
    game, state = start(game_id, options, players, 3)
    rng = random.Random(3)
    simulate(game, state, rng, limit=rng.randrange(5, 30))
    clone = game.clone(state)
    assert snapshot(clone) == snapshot(state)
    shared = {id(part) for part in mutable_parts(state)} & {id(p) for p in mutable_parts(clone)}
    assert not shared, "the clone shares mutable parts with the original"
    before = snapshot(state)
    simulate(game, clone, rng)
    assert snapshot(state) == before


@conformance
def test_same_seed_and_actions_replay_the_same_game(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    def play(recorded: list[dict[int, Any]] | None) -> tuple[list[list[bytes]], list[Any], Any]:
        game, state = start(game_id, options, players, 4)
        plays = iter(recorded or [])
        history: list[dict[int, Any]] = []
        observations = []
        while seats := game.to_act(state):
            observations.append(seen(game, state))
            rng = random.Random(len(history))
            actions = (
                next(plays) if recorded else {s: rng.choice(game.legal(state, s)) for s in seats}
            )
            game.apply(state, actions)
            history.append(actions)
        return observations, history, msgspec.json.encode(game.result(state))

    first = play(None)
    assert play(first[1]) == first


@conformance
def test_illegal_actions_are_refused_and_change_nothing(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    game, other = start(game_id, options, players, 6)
    pool: list[Any] = []  # actions legal somewhere in another game: mostly illegal here
    for current in states(game, other, random.Random(6)):
        for seat in game.to_act(current):
            pool.extend(game.legal(current, seat))
    pool = list({msgspec.json.encode(a): a for a in pool}.values())
    game, state = start(game_id, options, players, 5)
    rng = random.Random(5)
    refused = 0
    for current in states(game, state, rng):
        acting = game.to_act(current)
        if not acting:
            with pytest.raises(IllegalAction):
                game.apply(current, {0: pool[0]})
            continue
        before = snapshot(current)
        fine = {s: game.legal(current, s)[0] for s in acting}
        for seat in acting:
            legal = {msgspec.json.encode(a) for a in game.legal(current, seat)}
            for action in rng.sample(pool, min(len(pool), 6)):
                if msgspec.json.encode(action) not in legal:
                    with pytest.raises(IllegalAction):
                        game.apply(current, {**fine, seat: action})
                    refused += 1
                    assert snapshot(current) == before
        outsider = next(s for s in range(players + 1) if s not in acting)
        for wrong in ({**fine, outsider: fine[acting[0]]}, {s: fine[s] for s in acting[1:]}):
            with pytest.raises(WrongSeats):
                game.apply(current, wrong)
            assert snapshot(current) == before
    assert refused > 0


@conformance
def test_determinize_hides_nothing_seen_and_resamples_the_rest(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    """For every seat: the determinized state looks the same to it (secrecy: its observation
    does not depend on the hidden parts) and to a spectator (who sees only what is public), is
    sound, plays on to an end, and — so the test can fail — the hidden parts do change
    somewhere along the game."""
    game, state = start(game_id, options, players, 7)
    rng = random.Random(7)
    changed = False
    for current in states(game, state, rng):
        for seat in range(players):
            twin = game.determinize(current, seat, random.Random(rng.random()))
            assert msgspec.json.encode(game.observe(twin, seat)) == msgspec.json.encode(
                game.observe(current, seat)
            )
            assert msgspec.json.encode(game.spectate(twin)) == msgspec.json.encode(
                game.spectate(current)
            )
            assert game.broken_invariants(twin) == []
            assert game.to_act(twin) == game.to_act(current)
            assert game.legal(twin, seat) == game.legal(current, seat)
            changed = changed or snapshot(twin) != snapshot(current)  # once is enough
    assert changed
    twin = game.determinize(game.new(players, 8, game.Options(**options)), 0, rng)
    simulate(game, twin, rng)
    assert game.result(twin) is not None


def wire(game: Game[Any], state: Any, seat: int) -> Any:
    """`seat`'s observation as a bot receives it: encoded, then decoded into the game's type."""
    encoded = msgspec.json.encode(game.observe(state, seat))
    return msgspec.json.decode(encoded, type=game.Observation)


def future(game: Game[Any], state: Any) -> str:
    """A state's picture and that of the state one fixed random play of 60 decisions reaches
    from it: two states that differ in a hidden part (a hand, the order of a bag or deck, the
    seed of the draws to come) differ here, mostly."""
    later = game.clone(state)
    simulate(game, later, random.Random(0), limit=60)
    return game.render(state) + game.render(later)


REBUILT_PLAYOUTS = (0, 30)
"""The decisions at which the rebuilt state is also played out to its end."""


@conformance
def test_a_state_from_an_observation_gives_that_observation_back(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    """What a search bot simulates from: at every decision of a random game, for the seats to
    act and one other seat in turn, the state `from_observation` builds from the seat's
    observation (decoded as the protocol delivers it) observes the same, has the same seats to
    act and the same legal actions for that seat, and is sound; at a few decisions it is also
    played out to a sound end."""
    game, state = start(game_id, options, players, 10)
    rng = random.Random(10)
    for step, current in enumerate(states(game, state, random.Random(10))):
        acting = game.to_act(current)
        for seat in sorted({*acting, step % players}):
            observation = wire(game, current, seat)
            rebuilt = game.from_observation(observation, rng)
            assert game.observe(rebuilt, seat) == observation
            assert game.to_act(rebuilt) == acting
            assert game.legal(rebuilt, seat) == game.legal(current, seat)
            assert game.broken_invariants(rebuilt) == []
        if step in REBUILT_PLAYOUTS:
            simulate(game, rebuilt, rng)
            assert game.result(rebuilt) is not None
            assert game.broken_invariants(rebuilt) == []


@conformance
def test_from_observation_deals_the_hidden_parts_afresh(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    """The rebuilt state depends on the observation and the RNG alone: the true state and a
    re-deal of it that the seat cannot tell apart give the same state for the same RNG, so
    nothing hidden leaks into it. And the hidden parts are dealt, not copied: two RNGs give
    states that differ somewhere hidden, and the rebuilt state is not the true one, at most
    of 12 points of a game (the others: nothing left to hide or draw)."""
    game, state = start(game_id, options, players, 9)
    points = redealt = copied = 0
    for step, current in enumerate(states(game, state, random.Random(9))):
        if step % 7 or game.is_over(current):
            continue
        if points == 12:
            break
        seat = step // 7 % players
        twin = game.determinize(current, seat, random.Random(step))
        one, same = (
            game.from_observation(wire(game, true, seat), random.Random(1))
            for true in (current, twin)
        )
        assert snapshot(one) == snapshot(same)
        other = game.from_observation(wire(game, current, seat), random.Random(2))
        points += 1
        redealt += future(game, one) != future(game, other)
        copied += future(game, one) == future(game, current)
    assert redealt > points / 2
    assert copied < points / 2


# ---- an action spelled in another order -----------------------------------------------------
# An action that names the same choice in another order means that choice, in every game.
#
# The list fields of actions are sets or multisets (Alhambra's `take` cards, 5211's `play` cards,
# Summer Pavilion's `pass` keep, Azul's `split` left and right): `legal` lists each choice once,
# in one order, but a bot may list the same cards or colours in any other (the offer's draw
# order, say), and refusing it would forfeit a legal move. Every game of the registry is played
# out at random; at each decision, legal actions are submitted with each list reversed and must
# give exactly the state the legal spelling gives.

CHECKED_PER_DECISION = 3
"""Respelled actions tried at each decision (Summer Pavilion offers 210 passes at once)."""


def respelled(action: Any) -> Any | None:
    """`action` with every list field of two or more items reversed, or None if that changes
    nothing (no such field, or only palindromes like two equal cards)."""
    changes = {
        field: tuple(reversed(value))
        for field in action.__struct_fields__
        if isinstance(value := getattr(action, field), tuple) and len(value) > 1
    }
    if not changes or all(changes[field] == getattr(action, field) for field in changes):
        return None
    return msgspec.structs.replace(action, **changes)


def after(game: Game[Any], state: Any, actions: dict[int, Any]) -> Any:
    twin = game.clone(state)
    game.apply(twin, actions)
    return snapshot(twin)


@conformance
def test_a_list_in_another_order_is_the_same_action(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    game, state = start(game_id, options, players, seed=3)
    rng = random.Random(f"{game_id}/{players}")
    respelled_seen = 0
    while not game.is_over(state):
        joint = {seat: rng.choice(game.legal(state, seat)) for seat in game.to_act(state)}
        for seat in joint:
            others = [respelled(action) for action in game.legal(state, seat)]
            candidates = [
                (legal, other)
                for legal, other in zip(game.legal(state, seat), others, strict=True)
                if other is not None
            ]
            for legal, other in rng.sample(candidates, min(CHECKED_PER_DECISION, len(candidates))):
                assert after(game, state, {**joint, seat: other}) == after(
                    game, state, {**joint, seat: legal}
                ), f"{other!r} was not taken as {legal!r}"
                respelled_seen += 1
        game.apply(state, joint)
    if game_id in ("alhambra", "5211", "summer-pavilion"):
        assert respelled_seen > 0  # the game has such actions: some were tried


# ---- perft-style pinned counts --------------------------------------------------------------

PERFT: list[tuple[str, int, dict[str, Any], int, int, str, list[int]]] = [
    # (game, players, options, seed, decisions, hash of the legal counts, final scores)
    # Pinned on the engines as they were before the shared-layer refactor: never edit a row;
    # a rules change that moves one is a new rules `version`, with new rows beside the old.
    (
        "azul",
        2,
        {"variant": "standard", "special_factories": False},
        1,
        63,
        "9a0578b900df48c3",
        [7, 0],
    ),
    (
        "azul",
        2,
        {"variant": "standard", "special_factories": False},
        2,
        73,
        "8726d00301ad10cf",
        [5, 4],
    ),
    (
        "azul",
        2,
        {"variant": "standard", "special_factories": True},
        1,
        72,
        "686a422096539a3d",
        [2, 5],
    ),
    (
        "azul",
        2,
        {"variant": "standard", "special_factories": True},
        2,
        69,
        "4ec9e5fabe7b7211",
        [2, 7],
    ),
    ("azul", 2, {"variant": "grey", "special_factories": False}, 1, 83, "a31e920a7ad44176", [0, 2]),
    ("azul", 2, {"variant": "grey", "special_factories": False}, 2, 79, "e8cfc633fa801368", [1, 2]),
    ("azul", 2, {"variant": "grey", "special_factories": True}, 1, 95, "5a2a0e7248bdadf4", [2, 0]),
    ("azul", 2, {"variant": "grey", "special_factories": True}, 2, 99, "4c1660f1edaac26c", [5, 0]),
    (
        "azul",
        3,
        {"variant": "standard", "special_factories": False},
        1,
        128,
        "87127548e70a748e",
        [2, 0, 0],
    ),
    (
        "azul",
        3,
        {"variant": "standard", "special_factories": False},
        2,
        65,
        "e8d9165607a915ce",
        [0, 2, 0],
    ),
    (
        "azul",
        3,
        {"variant": "standard", "special_factories": True},
        1,
        70,
        "4197892dae9a1eb4",
        [6, 5, 0],
    ),
    (
        "azul",
        3,
        {"variant": "standard", "special_factories": True},
        2,
        70,
        "96a6fba0a145cc4f",
        [0, 0, 2],
    ),
    (
        "azul",
        3,
        {"variant": "grey", "special_factories": False},
        1,
        121,
        "f1e96c1af38613b3",
        [2, 0, 7],
    ),
    (
        "azul",
        3,
        {"variant": "grey", "special_factories": False},
        2,
        123,
        "e65a135ea03211d9",
        [14, 0, 0],
    ),
    (
        "azul",
        3,
        {"variant": "grey", "special_factories": True},
        1,
        165,
        "c236930a3f76b712",
        [0, 3, 0],
    ),
    (
        "azul",
        3,
        {"variant": "grey", "special_factories": True},
        2,
        101,
        "c721df2243f6fb08",
        [0, 2, 9],
    ),
    (
        "azul",
        4,
        {"variant": "standard", "special_factories": False},
        1,
        97,
        "f3d5065489229ca1",
        [0, 12, 0, 0],
    ),
    (
        "azul",
        4,
        {"variant": "standard", "special_factories": False},
        2,
        113,
        "d2bfec93268edff0",
        [8, 8, 2, 0],
    ),
    (
        "azul",
        4,
        {"variant": "standard", "special_factories": True},
        1,
        148,
        "30a5566596a21f43",
        [2, 0, 2, 0],
    ),
    (
        "azul",
        4,
        {"variant": "standard", "special_factories": True},
        2,
        110,
        "14de8a2ac5214e50",
        [0, 0, 0, 2],
    ),
    (
        "azul",
        4,
        {"variant": "grey", "special_factories": False},
        1,
        171,
        "9a607881b14f0972",
        [2, 0, 0, 0],
    ),
    (
        "azul",
        4,
        {"variant": "grey", "special_factories": False},
        2,
        138,
        "0ab8d2d66d13ab72",
        [0, 0, 6, 2],
    ),
    (
        "azul",
        4,
        {"variant": "grey", "special_factories": True},
        1,
        136,
        "26bdd0ceb845cef0",
        [0, 2, 2, 0],
    ),
    (
        "azul",
        4,
        {"variant": "grey", "special_factories": True},
        2,
        139,
        "80d59fe4225b3de1",
        [0, 2, 0, 0],
    ),
    ("5211", 2, {"variant": "standard"}, 1, 66, "41e9265f2b7f13bc", [42, 33]),
    ("5211", 2, {"variant": "standard"}, 2, 66, "6e1f426b16c925bc", [30, 37]),
    ("5211", 2, {"variant": "long"}, 1, 78, "f36ed32423b1fd84", [50, 40]),
    ("5211", 2, {"variant": "long"}, 2, 102, "8d6e8a82bf37e88e", [45, 53]),
    ("5211", 3, {"variant": "standard"}, 1, 63, "1229b2fc9f6b4f2d", [16, 8, 18]),
    ("5211", 3, {"variant": "standard"}, 2, 63, "82717582f136dcb2", [26, 15, 6]),
    ("5211", 3, {"variant": "long"}, 1, 171, "6b062690ce7bf5cb", [42, 44, 52]),
    ("5211", 3, {"variant": "long"}, 2, 162, "79c37046b45cab71", [50, 41, 31]),
    ("5211", 4, {"variant": "standard"}, 1, 72, "8680657f9333c149", [12, 9, 13, 6]),
    ("5211", 4, {"variant": "standard"}, 2, 72, "9e13a2f06334bebe", [12, 23, 7, 11]),
    ("5211", 4, {"variant": "long"}, 1, 228, "92ff4a6c577121bf", [43, 48, 50, 48]),
    ("5211", 4, {"variant": "long"}, 2, 192, "4a94e680d54b53b2", [39, 50, 38, 35]),
    ("5211", 5, {"variant": "standard"}, 1, 60, "4f4b5f0ff3a02c73", [10, 5, 21, 10, 11]),
    ("5211", 5, {"variant": "standard"}, 2, 60, "583a6e89aca46f9b", [6, 6, 18, 2, 12]),
    ("5211", 5, {"variant": "long"}, 1, 195, "eb0c68cacf962a40", [51, 20, 39, 31, 41]),
    ("5211", 5, {"variant": "long"}, 2, 195, "c2ebb591d6cf46cd", [27, 19, 52, 24, 42]),
    ("summer-pavilion", 2, {"variant": "standard"}, 1, 84, "3ec26dd91d6bb08e", [1, 1]),
    ("summer-pavilion", 2, {"variant": "standard"}, 2, 78, "1ea895e0b2a4bc3a", [1, 1]),
    ("summer-pavilion", 3, {"variant": "standard"}, 1, 106, "c0ee7779723890e4", [1, 1, 1]),
    ("summer-pavilion", 3, {"variant": "standard"}, 2, 109, "3e25c46a2508b98a", [1, 1, 5]),
    ("summer-pavilion", 4, {"variant": "standard"}, 1, 138, "07bd8d52fbbb5142", [1, 1, 1, 1]),
    ("summer-pavilion", 4, {"variant": "standard"}, 2, 132, "3f47487c9b33f8dc", [1, 1, 1, 1]),
    ("summer-pavilion", 2, {"variant": "grey"}, 1, 101, "079d903e16ebb26d", [1, 1]),
    ("summer-pavilion", 2, {"variant": "grey"}, 2, 100, "eec3e5ffc5f755e6", [2, 1]),
    ("summer-pavilion", 3, {"variant": "grey"}, 1, 126, "e75f42fa3fee3ec1", [1, 1, 2]),
    ("summer-pavilion", 3, {"variant": "grey"}, 2, 129, "4d6606f374b5e7d0", [1, 2, 1]),
    ("summer-pavilion", 4, {"variant": "grey"}, 1, 172, "9f30111db57e2e0b", [1, 10, 1, 1]),
    ("summer-pavilion", 4, {"variant": "grey"}, 2, 169, "c55366ddbee031c5", [1, 1, 1, 5]),
    ("alhambra", 2, {}, 1, 318, "0c2321aeb4a6c73b", [36, 70]),
    ("alhambra", 2, {}, 2, 346, "d7a90224b979331f", [65, 70]),
    ("alhambra", 3, {}, 1, 605, "fde069480e61401d", [83, 110, 119]),
    ("alhambra", 3, {}, 2, 579, "ea1b6fe37f526638", [78, 124, 106]),
    ("alhambra", 4, {}, 1, 635, "d780ac3afb46ee7f", [59, 61, 63, 83]),
    ("alhambra", 4, {}, 2, 566, "e175ac507df4c02b", [74, 66, 78, 91]),
    ("alhambra", 5, {}, 1, 536, "be4be88713460e4c", [74, 78, 39, 26, 77]),
    ("alhambra", 5, {}, 2, 576, "b2d6f1a6c287311f", [64, 82, 38, 72, 43]),
    ("alhambra", 6, {}, 1, 511, "fcae0eb1d25975f6", [61, 44, 37, 25, 42, 38]),
    ("alhambra", 6, {}, 2, 509, "f347e71a5d3163f0", [61, 89, 65, 32, 18, 33]),
]


def perft(
    game_id: str, players: int, options: dict[str, Any], seed: int
) -> tuple[int, str, list[int]]:
    """A fixed deterministic playout: each seat asked at step k plays its legal action at index
    (k * 7919 + seat) mod the list's length. The legal-list lengths along it, hashed, pin move
    generation; the final scores pin the rules."""
    game, state = start(game_id, options, players, seed)
    counts: list[int] = []
    step = 0
    while seats := game.to_act(state):
        actions = {}
        for seat in seats:
            legal = game.legal(state, seat)
            counts.append(len(legal))
            actions[seat] = legal[(step * 7919 + seat) % len(legal)]
        game.apply(state, actions)
        step += 1
    result = game.result(state)
    assert result is not None
    digest = hashlib.sha256(",".join(map(str, counts)).encode()).hexdigest()[:16]
    return len(counts), digest, result.scores


@pytest.mark.parametrize(
    ("game_id", "players", "options", "seed", "decisions", "digest", "scores"), PERFT
)
def test_perft_counts_are_unchanged(
    game_id: str,
    players: int,
    options: dict[str, Any],
    seed: int,
    decisions: int,
    digest: str,
    scores: list[int],
) -> None:
    assert perft(game_id, players, options, seed) == (decisions, digest, scores)


@conformance
def test_every_game_variant_and_player_count_has_pinned_counts(
    game_id: str, options: dict[str, Any], players: int
) -> None:
    """A new game is not done before its perft rows are pinned (run `perft` and paste them)."""
    pinned = {(row[0], row[1], tuple(sorted(row[2].items()))) for row in PERFT}
    assert (game_id, players, tuple(sorted(options.items()))) in pinned
