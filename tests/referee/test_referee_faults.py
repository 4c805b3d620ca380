"""Forfeit ranking and exit descriptions."""

from __future__ import annotations

from referee.faults import FORFEIT, describe_exit, forfeit_result
from referee.games import GameResult


def test_no_fault_keeps_the_engine_result() -> None:
    result = GameResult([3, 5], [2, 1], "")
    assert forfeit_result(result, [3, 5], set()) is result


def test_a_forfeit_mid_game_ranks_by_current_scores_with_the_faulty_last() -> None:
    result = forfeit_result(None, [10, 2, 7], {0})
    assert result == GameResult([10, 2, 7], [3, 2, 1], FORFEIT)


def test_faulty_seats_share_the_last_rank() -> None:
    assert forfeit_result(None, [10, 2, 7], {0, 2}).ranks == [2, 1, 2]
    assert forfeit_result(None, [1, 2], {0, 1}).ranks == [1, 1]


def test_a_finished_game_keeps_the_engine_order_among_the_healthy() -> None:
    final = GameResult([20, 20, 30, 5], [2, 2, 1, 4], "most complete rows")
    result = forfeit_result(final, [0, 0, 0, 0], {2})
    assert result == GameResult([20, 20, 30, 5], [1, 1, 4, 3], FORFEIT)


def test_describe_exit() -> None:
    assert describe_exit(3) == "exit code 3"
    assert describe_exit(-11) == "killed by signal SIGSEGV"
    assert describe_exit(-200) == "killed by signal signal 200"
