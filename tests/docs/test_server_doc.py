"""docs/server.md's league file is a league file this arena accepts (its keys, its values)."""

from __future__ import annotations

import re
from pathlib import Path

from tournaments.plan.config import load_league

DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def test_the_class_league_example_loads(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.DOTALL)
    (example,) = [block for block in blocks if "[league]" in block and "game =" in block]
    file = tmp_path / "azul-class.toml"
    file.write_text("\n".join(line.removeprefix("   ") for line in example.splitlines()))
    league = load_league(file)
    assert league.league is not None and league.time_mode == "cpu"
    assert league.sandbox == "bwrap" and league.league.log_kb == 64


def test_the_benchmarks_example_loads_in_a_league_file(tmp_path: Path) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.DOTALL)
    (example,) = [block for block in blocks if "benchmarks =" in block]
    file = tmp_path / "graded.toml"
    file.write_text('game = "azul"\nplayers = 2\n' + example)
    league = load_league(file).league
    assert league is not None and league.benchmarks == ["staff-easy", "staff-hard"]
    assert [(g.grade, g.beats) for g in league.grades] == [
        ("A", {"staff-hard": 50}),
        ("B", {"staff-easy": 75}),
    ]
