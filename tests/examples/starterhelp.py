"""The starter kits' tests' shared helpers: the kits and a game against them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def play(bot: str, game: str, players: int, tmp_path: Path) -> dict[str, object]:
    """One `arena match` of `bot` against random bots; its JSON outcome."""
    seats = [bot, *["random"] * (players - 1)]
    done = subprocess.run(
        [sys.executable, "-m", "tournaments", "match", "--game", game, "--seed", "11", *seats,
         "--record", str(tmp_path / f"{game}.jsonl"), "--json"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout  # the outcome says which fault
    outcome: dict[str, object] = json.loads(done.stdout)
    return outcome


def assert_normal_end(outcome: dict[str, object], players: int) -> None:
    assert outcome["faults"] == []
    assert outcome["tiebreak"] != "forfeit"
    assert isinstance(outcome["ranks"], list) and len(outcome["ranks"]) == players
    assert isinstance(outcome["decisions"], int) and outcome["decisions"] > 10
