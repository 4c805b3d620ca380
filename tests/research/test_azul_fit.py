"""Fitting Azul's evaluation to self-play (`bots.research.azul_fit`): the samples a game gives,
the least squares per phase, and the weights file it writes for bots/search/azul.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bots.research import azul_fit
from bots.search import azul as knowledge
from referee.games.azul import Azul


def test_a_game_gives_reproducible_samples_at_its_rounds_starts() -> None:
    samples = azul_fit.play(7, 3)
    assert samples == azul_fit.play(7, 3)
    assert len(samples) % 2 == 0 and len(samples) >= 8  # two seats, four rounds or more
    for phase, features, _ in samples:
        assert 1 <= phase <= 4  # a tile on some wall after round 1; 5 ends the game
        assert len(features) == len(knowledge.FEATURES) and features[0] == 1.0


def test_the_fit_recovers_each_phases_weights_and_pools_a_thin_phase() -> None:
    rng = random.Random(1)
    width = len(knowledge.FEATURES)
    truth = {phase: [rng.uniform(-5, 5) for _ in range(width)] for phase in (1, 2)}
    samples = []
    for phase, count in ((1, azul_fit.MIN_SAMPLES), (2, azul_fit.MIN_SAMPLES), (3, 5)):
        for _ in range(count):
            features = [1.0] + [rng.uniform(0, 10) for _ in range(width - 1)]
            weights = truth.get(phase, truth[1])
            samples.append(
                (phase, features, sum(w * f for w, f in zip(weights, features, strict=True)))
            )
    weights, report = azul_fit.fit(samples, [i % 5 == 0 for i in range(len(samples))])
    assert weights[1] == pytest.approx(truth[1], abs=1e-6)
    assert weights[2] == pytest.approx(truth[2], abs=1e-6)
    assert weights[0] == weights[3] == weights[4]  # pooled: too few samples there
    assert "held-out R² 1.000" in report[1] and "pooled" in report[3]


def test_a_short_run_writes_weights_the_evaluation_can_take(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "weights.json"
    azul_fit.main(["--games", "3", "--iterations", "3", "-j", "1", "--out", str(out)])
    err = capsys.readouterr().err
    weights = knowledge.load_weights(out.read_bytes())
    assert len(weights) == knowledge.PHASES
    assert "3/3 games" in err and "phase 4" in err and f"wrote {out}" in err
    azul_fit.main(["--games", "3", "--iterations", "3", "-j", "1"])
    assert capsys.readouterr().out == out.read_text()  # the seed alone makes the weights


def test_the_self_play_is_the_search_before_any_fit() -> None:
    assert azul_fit.SELF_PLAY.evaluation is azul_fit.by_hand
    assert azul_fit.SELF_PLAY.own_points == 0.0 < knowledge.PROFILE.own_points
    game = Azul()
    state = game.new(2, 5)
    rng = random.Random(5)
    while state.round < 3:  # a wall tile or two: the estimate has features to weigh
        seat = game.to_act(state)[0]
        game.apply(state, {seat: rng.choice(game.legal(state, seat))})
    assert azul_fit.by_hand(state) == knowledge.evaluation(state, knowledge.HAND_WEIGHTS)
    assert azul_fit.by_hand(state) != knowledge.evaluation(state)


def test_bad_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        azul_fit.main(["--games", "0"])
    assert stopped.value.code == 2
    assert "--games and --iterations must be positive" in capsys.readouterr().err


def test_an_unwritable_out_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        azul_fit.main(["--out", str(tmp_path / "missing" / "weights.json")])
    assert stopped.value.code == 2
    assert "--out: no folder" in capsys.readouterr().err
