"""From a trained policy, and from an OpenSpiel search, to a bot that plays a real `arena match`
(sandboxed where bubblewrap works, as every match is)."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bots.research.policy_bot import choose_with
from bots.research.spaces import spaces
from bots.sdk import Context
from protocol import TimeControl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "research"


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A directory any user may read: a root referee runs sandboxed bots as an unprivileged
    uid, which cannot reach into pytest's private temporary directories."""
    directory = Path(tempfile.mkdtemp(prefix="arena-research-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory)


def run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True, text=True, timeout=300, cwd=cwd, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    return done.stdout


def match(game: str, bots: list[str], cwd: Path) -> dict[str, Any]:
    """One `arena match` with seed 5; its JSON outcome."""
    out = run("-m", "tournaments", "match", "--game", game, "--seed", "5", *bots, "--json", cwd=cwd)
    outcome: dict[str, Any] = json.loads(out)
    return outcome


@pytest.mark.slow
def test_a_trained_policy_plays_an_arena_match(open_dir: Path) -> None:
    weights = open_dir / "weights.npz"
    run(EXAMPLES / "train.py", "--game", "5211", "--players", "3", "--episodes", "2",
        "--out", weights, cwd=open_dir)  # fmt: skip
    bot = f"{sys.executable} {EXAMPLES / 'policy_bot.py'} {weights}"
    outcome = match("5211", [bot, "random", "random"], open_dir)
    assert outcome["faults"] == []
    assert outcome["bots"] == ["linear", "random", "random"]
    assert outcome["decisions"] > 10
    replayed = run("-m", "tournaments", "replay", outcome["record"], cwd=open_dir)
    assert "result identical" in replayed


def test_an_openspiel_mcts_search_plays_an_arena_match(open_dir: Path) -> None:
    bot = f"{sys.executable} {EXAMPLES / 'mcts_bot.py'} 5"
    outcome = match("azul", [bot, "random"], open_dir)
    assert outcome["faults"] == []
    assert outcome["bots"] == ["openspiel-mcts", "random"]
    assert outcome["decisions"] > 10


def context(game: str, players: int) -> Context:
    return Context(game, 0, players, {}, TimeControl(), random.Random(0))


def test_the_policy_sees_the_encoding_and_the_mask_and_its_index_is_played() -> None:
    setup = spaces("azul", 2)
    state = setup.game.new(2, 4)
    observation, legal = setup.game.observe(state, 0), setup.game.legal(state, 0)
    seen: list[Any] = []

    def last_legal(vector: np.ndarray, mask: np.ndarray) -> int:
        seen.append((vector, mask))
        return int(np.flatnonzero(mask)[-1])

    chosen = choose_with(last_legal)(observation, legal, context("azul", 2))
    ((vector, mask),) = seen
    assert np.array_equal(vector, setup.encoder.encode(observation))
    assert mask.sum() == len(legal)
    assert setup.actions.index(chosen) == max(setup.actions.by_index(legal))
    assert chosen in legal


def test_a_policy_choosing_an_illegal_index_is_an_error() -> None:
    setup = spaces("5211", 2)
    state = setup.game.new(2, 4)
    observation, legal = setup.game.observe(state, 0), setup.game.legal(state, 0)
    illegal = int(np.flatnonzero(setup.actions.mask(setup.actions.by_index(legal)) == 0)[0])
    with pytest.raises(ValueError, match=f"chose action {illegal}, which is not legal"):
        choose_with(lambda vector, mask: illegal)(observation, legal, context("5211", 2))
