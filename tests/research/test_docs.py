"""docs/research.md's Python examples run as written, in order (a bot script's `run_policy` is
behind its `__main__` guard), and its table of sizes is the adapters' own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from bots.research.spaces import spaces
from referee.games import GAME_IDS, find_game

PAGE = Path(__file__).resolve().parents[2] / "docs" / "research.md"


def test_the_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)
    assert len(blocks) == 3
    namespace: dict[str, Any] = {"__name__": "docs"}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)
    assert not namespace["environment"].agents, "the random game was played to its end"
    assert sum(namespace["returns"]) == pytest.approx(1.0)
    assert callable(namespace["policy"])


def test_the_table_of_sizes_is_the_adapters() -> None:
    cells = r"^\| ([a-z0-9-]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|$"
    rows = [row for row in re.findall(cells, PAGE.read_text(), re.M) if row[0] != "game"]
    assert {row[0] for row in rows} == set(GAME_IDS)
    for game_id, actions, floats in rows:
        game = find_game(game_id)
        setups = [spaces(game_id, n) for n in range(game.min_players, game.max_players + 1)]
        listed = [int(n.replace(" ", "")) for n in actions.split(" / ")]
        counts = [len(setup.actions) for setup in setups]
        assert listed in (counts, counts[:1]) and len(set(counts)) in (1, len(listed))
        assert [int(n) for n in floats.split(" / ")] == [setup.encoder.size for setup in setups]
