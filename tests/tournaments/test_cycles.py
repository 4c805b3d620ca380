"""Cycles in hand-made "beats" relations."""

from __future__ import annotations

from tournaments.rank.cycles import find_cycles


def test_rock_paper_scissors_is_a_cycle_from_the_first_bot_in_order() -> None:
    beats = {"rock": ["scissors"], "scissors": ["paper"], "paper": ["rock"]}
    assert find_cycles(beats, ["rock", "paper", "scissors"]) == [["rock", "scissors", "paper"]]
    assert find_cycles(beats, ["scissors", "rock", "paper"]) == [["scissors", "paper", "rock"]]


def test_a_transitive_relation_has_no_cycle() -> None:
    beats = {"a": ["b", "c", "d"], "b": ["c", "d"], "c": ["d"]}
    assert find_cycles(beats, ["a", "b", "c", "d"]) == []
    assert find_cycles({}, ["a", "b"]) == []


def test_a_cycle_of_four_without_chords_is_found_whole() -> None:
    # a > b > c > d > a, and neither a–c nor b–d significant.
    beats = {"a": ["b"], "b": ["c"], "c": ["d"], "d": ["a"]}
    assert find_cycles(beats, ["a", "b", "c", "d"]) == [["a", "b", "c", "d"]]


def test_one_shortest_cycle_per_group() -> None:
    # a > b > c > d > a with the chord c > a: the group {a, b, c, d} has the 3-cycle a > b > c.
    # Apart, x > y > z > x; and e, beaten by everyone in the first group, is in no cycle.
    beats = {
        "a": ["b", "e"],
        "b": ["c", "e"],
        "c": ["d", "a", "e"],
        "d": ["a", "e"],
        "x": ["y"],
        "y": ["z"],
        "z": ["x"],
    }
    order = ["x", "d", "a", "b", "c", "e", "y", "z"]
    assert find_cycles(beats, order) == [["x", "y", "z"], ["a", "b", "c"]]
