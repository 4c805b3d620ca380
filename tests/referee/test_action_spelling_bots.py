"""A real bot that sends legal actions with their lists in another order than `legal`'s plays
whole games without a fault, in every game with list-valued actions: an Alhambra take in offer
order, or a Summer Pavilion keep not ascending, is the same legal action, not a forfeit."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tournaments.cli import main

RESPELL = f"{sys.executable} {Path(__file__).resolve().parents[1] / 'bots' / 'respell.py'}"


@pytest.mark.parametrize(
    ("game", "options"),
    [("alhambra", []), ("summer-pavilion", []), ("5211", []), ("azul", ["special_factories=true"])],
)
def test_a_bot_spelling_lists_its_own_way_plays_without_fault(
    game: str, options: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["match", "--game", game, RESPELL, "random", "random", "--seed", "11", "--json"]
    argv += [word for option in options for word in ("--option", option)]
    capsys.readouterr()
    code = main([*argv, "--sandbox", "none"])
    result = json.loads(capsys.readouterr().out)
    assert result["faults"] == [] and code == 0
