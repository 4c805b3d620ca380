"""Azul's search: it values a leaf as the wall-tiling and the end bonuses will, and its rollouts
run on into the next round."""

from __future__ import annotations

import json
import random
import time
from importlib.resources import files

import pytest

from bots.search import azul as knowledge
from bots.search.ismcts import Params, Search
from referee.games import simulate
from referee.games.azul import Azul, AzulOptions, AzulState, wall_column

GAME = Azul()
FAR = 600.0
"""A deadline no test reaches: the searches here stop at their iteration counts."""


def _blank(players: int = 2) -> AzulState:
    """A fresh game with every factory and the centre emptied (tiles placed by hand after)."""
    state = GAME.new(players, 1)
    for group in state.offer.factories:
        group[:] = [0] * 5
    state.offer.centre[:] = [0] * 5
    state.sync()
    return state


def _mid_round(seed: int, takes: int) -> AzulState:
    state = GAME.new(2, seed)
    simulate(GAME, state, random.Random(seed), limit=takes)
    return state


def test_a_finished_game_is_valued_at_its_scores() -> None:
    state = GAME.new(2, 3)
    simulate(GAME, state, random.Random(3))
    assert knowledge.evaluation(state) == [float(score) for score in state.score]


def test_a_complete_line_is_tiled_and_the_floor_scored_before_the_estimate() -> None:
    """One tile on an empty wall: its point now, less a floor space's penalty; the estimate of
    what is still to come is `WEIGHTS` of the phase (1: one tile in a row) on the features."""
    state = _blank()
    state.line_colour[0][0], state.line_count[0][0] = 2, 1
    state.floor[0].append(4)
    state.sync()
    boards = knowledge.board_features(state)
    assert boards.values == [1 - 1, 0.0]
    assert boards.phase == 1
    feature = dict(zip(knowledge.FEATURES, boards.features[0], strict=True))
    assert feature["wall tiles"] == 1
    assert feature["row shares"] == pytest.approx(2 / 25)
    assert feature["longest row"] == 1 and feature["others' longest row"] == 0
    assert boards.features[1][knowledge.FEATURES.index("others' longest row")] == 1
    weights = knowledge.WEIGHTS[1]
    expected = [
        value + sum(w * f for w, f in zip(weights, features, strict=True))
        for value, features in zip(boards.values, boards.features, strict=True)
    ]
    assert knowledge.evaluation(state) == pytest.approx(expected)


def test_the_fitted_weights_load_from_the_installed_package() -> None:
    """The weights ship as package data (CI runs this on a regular install too), and the
    evaluation weighs by them unless told otherwise."""
    shipped = files("bots.search").joinpath(knowledge.WEIGHTS_FILE).read_bytes()
    assert knowledge.load_weights(shipped) == knowledge.WEIGHTS
    assert knowledge.WEIGHTS != knowledge.HAND_WEIGHTS
    state = _blank()
    state.line_colour[0][0], state.line_count[0][0] = 2, 1
    state.sync()
    assert knowledge.evaluation(state) == knowledge.evaluation(state, knowledge.WEIGHTS)
    assert knowledge.evaluation(state) != knowledge.evaluation(state, knowledge.HAND_WEIGHTS)


def _weights_file(phases: int = 5, features: tuple[str, ...] = knowledge.FEATURES) -> str:
    """A weights file of zeros."""
    return json.dumps(
        {"features": list(features), "phases": [[0.0] * len(knowledge.FEATURES)] * phases}
    )


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("not json", "not a weights file"),
        ('{"features": [], "phases": [], "extra": 1}', "not a weights file"),
        (_weights_file(features=knowledge.FEATURES[:-1]), "other features"),
        (_weights_file(phases=4), "5 phases of 18 numbers"),
    ],
)
def test_a_weights_file_that_does_not_fit_is_refused(text: str, refusal: str) -> None:
    assert knowledge.load_weights(_weights_file().encode())  # the shape these break
    with pytest.raises(ValueError, match=refusal):
        knowledge.load_weights(text.encode())


def test_a_partial_line_is_measured_on_the_wall_as_tiled() -> None:
    """2 of 4 tiles whose wall space touches one tile (2 points there): half of those 2 points,
    half full, 2 tiles missing, one partial line."""
    state = _blank()
    column = wall_column(3, 1)
    beside = column - 1 if column else 1
    state.wall[0][3 * 5 + beside] = (beside + 3) % 5  # any colour: only the run counts
    state.line_colour[0][3], state.line_count[0][3] = 1, 2
    state.sync()
    feature = dict(
        zip(knowledge.FEATURES, knowledge.board_features(state).features[0], strict=True)
    )
    assert feature["line points"] == pytest.approx(2 * 2 / 4)
    assert feature["line fill"] == pytest.approx(0.5)
    assert feature["line gaps"] == 2
    assert feature["partial lines"] == 1


def test_a_row_completed_by_the_tiling_ends_the_game_with_its_exact_bonuses() -> None:
    """A wall row of 4 tiles and the line that fills it: the game ends with the round, so the
    evaluation is the final score: 5 points for the tile, 2 for the row, no estimate."""
    state = _blank()
    colours = [0, 1, 2, 3, 4]
    missing = colours.pop()
    for colour in colours:
        state.wall[0][wall_column(0, colour)] = colour
    state.line_colour[0][0], state.line_count[0][0] = missing, 1
    state.score[0] = 10
    state.sync()
    assert knowledge.board_features(state).phase == 5
    assert knowledge.evaluation(state) == [10 + 5 + 2, 0.0]


def test_the_first_player_marker_counts_for_its_holder() -> None:
    """The marker taken from the centre: its holder starts the next round."""
    state = _blank()
    state.offer.marker = 1
    first = knowledge.FEATURES.index("first player")
    assert [board[first] for board in knowledge.board_features(state).features] == [0.0, 1.0]
    state.offer.marker = -1
    state.start = 0
    assert [board[first] for board in knowledge.board_features(state).features] == [1.0, 0.0]


def test_a_grey_wall_is_valued_by_its_shares() -> None:
    """A complete line on a grey wall, its space not chosen yet: `_GREY_TILE`, no bonus share."""
    state = GAME.new(2, 1, AzulOptions(variant="grey"))
    for group in state.offer.factories:
        group[:] = [0] * 5
    state.offer.centre[:] = [0] * 5
    state.line_colour[0][1], state.line_count[0][1] = 3, 2
    state.sync()
    assert knowledge.evaluation(state) == [knowledge._GREY_TILE, 0.0]


def _leaves(
    monkeypatch: pytest.MonkeyPatch, search: Search, state: AzulState
) -> list[tuple[int, int]]:
    """The round and the tiles on the table of every leaf a 300-iteration search values."""
    seen: list[tuple[int, int]] = []
    evaluation = search.evaluation

    def recording(world: AzulState) -> list[float]:
        seen.append((world.round, world.offer.table))
        return [float(value) for value in evaluation(world)]

    monkeypatch.setattr(search, "evaluation", recording)
    search.run(state, GAME.to_act(state)[0], random.Random(0), time.perf_counter() + FAR, 300)
    assert len(seen) == 300
    return seen


FRESH = GAME.new(2, 4).offer.table
"""The tiles of a full deal: 4 on each factory."""


def test_a_long_search_runs_on_into_the_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    """Late in a round, most leaves lie in the next round, after takes from its deal (each
    world's own): a search of `STAGE_MS` or more does not stop at the wall-tiling."""
    state = _mid_round(4, 3)
    leaves = _leaves(monkeypatch, Search(GAME, Params()), state)
    after = [table for round_, table in leaves if round_ == state.round + 1]
    assert len(after) > 150  # most rollouts pass the round's end within the horizon
    assert sum(table < FRESH for table in after) > 100  # and take from the next deal


def test_a_short_search_stops_at_the_rounds_end(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `STAGE_MS` every leaf lies in the root's round or right after its wall-tiling,
    before a take of the next round, whose deal is chance the search does not sample."""
    state = _mid_round(4, 3)
    search = Search(GAME, Params())
    assert search.stage_seconds == knowledge.STAGE_MS / 1000
    search.stage_seconds = 2 * FAR  # the test's far deadline counts as a short search
    leaves = _leaves(monkeypatch, search, state)
    assert {round_ for round_, _ in leaves} <= {state.round, state.round + 1}
    after = [table for round_, table in leaves if round_ == state.round + 1]
    assert len(after) > 150  # most rollouts reach the round's end within the horizon
    assert all(table == FRESH for table in after)


def test_a_search_over_a_grey_wall_with_special_factories_answers_legally() -> None:
    """Place and split decisions come in the tree and the rollouts too: every answer is legal,
    decision after decision."""
    state = GAME.new(2, 9, AzulOptions(variant="grey", special_factories=True))
    searches = [Search(GAME, Params()), Search(GAME, Params())]
    rng = random.Random(9)
    while seats := GAME.to_act(state):
        seat = seats[0]
        root = GAME.from_observation(GAME.observe(state, seat), rng)
        action = searches[seat].run(root, seat, rng, time.perf_counter() + FAR, 30)
        assert action in GAME.legal(state, seat)
        GAME.apply(state, {seat: action})
    assert GAME.is_over(state)


def test_a_leaf_is_worth_more_for_more_points_of_ones_own_at_the_same_margin() -> None:
    """Azul's leaf adds `own_points` a point of the seat's own score to the margin's logistic:
    of two leaves with the same margin, the higher-scoring one is worth more to its leader,
    so a search far ahead (the logistic flat) still scores; at an equal margin, equal value."""
    search = Search(GAME, Params())
    state = _mid_round(5, 4)
    margins = iter([[40.0, 10.0], [70.0, 40.0], [20.0, 20.0]])
    search.evaluation = lambda world: next(margins)
    low, high, even = (search._values(state) for _ in range(3))
    assert knowledge.PROFILE.own_points > 0
    assert high[0] - low[0] == pytest.approx(30 * knowledge.PROFILE.own_points)
    assert high[0] - high[1] == pytest.approx(low[0] - low[1])
    assert even[0] == even[1]
