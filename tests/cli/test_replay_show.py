"""`arena replay --show` says, before each state, which seat played what: the seat, its bot and
the action as the protocol writes it (the JSON a bot sends), and when the fallback policy chose
it. Real records of `arena match`, replayed through `tournaments.cli.main`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tournaments.cli import main

BROKEN = Path(__file__).parent.parent / "bots" / "broken.py"


def record_of(tmp_path: Path, game: str, *bots: str, seed: int) -> list[dict[str, Any]]:
    """Play a match into a record file; its lines, decoded."""
    path = tmp_path / "game.jsonl"
    argv = ["match", "--game", game, *bots, "--seed", str(seed), "--sandbox", "none"]
    code = main([*argv, "--record", str(path)])
    assert code in (0, 3)
    return [json.loads(line) for line in path.read_text().splitlines()]


def shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["replay", str(tmp_path / "game.jsonl"), "--show"]) == 0
    return capsys.readouterr().out


def expected_blocks(lines: list[dict[str, Any]]) -> list[str]:
    """What must stand between the state before decision n and the state after it."""
    names = lines[0]["names"]
    blocks = []
    for line in lines:
        if line["type"] != "decision":
            continue
        said = []
        for seat, action in sorted(line["actions"].items(), key=lambda item: int(item[0])):
            words = json.dumps(action, separators=(",", ":"))
            fallback = " (chosen by the fallback policy)" if int(seat) in line["fallback"] else ""
            said.append(f"decision {line['n']}: seat {seat} ({names[int(seat)]}) plays {words}")
            said[-1] += fallback
        blocks.append("\n".join(said) + f"\n=== after decision {line['n']} ===\n")
    return blocks


def test_show_names_the_seat_bot_and_action_before_each_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = record_of(tmp_path, "5211", "random", "greedy", "random", seed=4)
    out = shown(tmp_path, capsys)
    blocks = expected_blocks(lines)
    assert len(blocks) > 3
    assert max(len(block.splitlines()) for block in blocks) == 4  # simultaneous: 3 seats at once
    position = out.index("=== start ===")
    for block in blocks:
        found = out.index("\n\n" + block, position)
        position = found + len(block)
    assert out.count(" plays ") == sum(len(block.splitlines()) - 1 for block in blocks)


def test_show_marks_the_moves_of_the_fallback_policy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = f"{sys.executable} {BROKEN} garbage"
    lines = record_of(tmp_path, "azul", broken, "random", "random", seed=2)
    out = shown(tmp_path, capsys)
    fallback = [block for block in expected_blocks(lines) if "fallback policy" in block]
    assert fallback, "the broken bot's seat is played by the fallback policy after its fault"
    assert f"seat 0 ({lines[0]['names'][0]}) plays" in fallback[0]
    for block in fallback:
        assert block in out
