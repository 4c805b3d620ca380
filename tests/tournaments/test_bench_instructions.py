"""The callgrind instruction count (`tournaments.bench.instructions`), with a stand-in valgrind:
the real one takes minutes, and what is tested here is the plumbing and the arithmetic."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.bench import instructions

FAKE_VALGRIND = """#!/bin/sh
# Runs the command after the options like valgrind, then writes the totals callgrind would:
# 1000 instructions per decision, plus 7 million for the start.
out="${2#--callgrind-out-file=}"
shift 2
decisions=$("$@") || exit 1
echo "$decisions"
printf 'events: Ir\\nsummary: 1\\ntotals: %d\\n' $((decisions * 1000 + 7000000)) > "$out"
"""


def _play(*args: str) -> int:
    run = subprocess.run(
        [sys.executable, instructions.__file__, *args], capture_output=True, text=True, check=True
    )
    return int(run.stdout)


def test_the_referee_and_the_least_loop_play_the_same_games() -> None:
    """The referee's count is only comparable with the least loop's on the same deals."""
    referee, least = _play("referee", "--play=2"), _play("least", "--play=2")
    assert referee == least > 100


def test_the_count_per_decision_is_the_difference_of_two_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    valgrind = tmp_path / "valgrind"
    valgrind.write_text(FAKE_VALGRIND)
    valgrind.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    instructions.main(["least"])
    out, err = capsys.readouterr()
    assert out.startswith("least: 1.0k instructions per decision (")
    assert "25 games − 5" in out
    assert err.splitlines() == [
        f"counting {n} games under callgrind (a minute or two)…" for n in (5, 25)
    ]


def test_mistakes_are_told(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        instructions.main(["least", "--tree", str(tmp_path)])
    assert exit.value.code == 2
    assert "--tree is for `referee`" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind there
    with pytest.raises(SystemExit) as exit:
        instructions.main(["referee"])
    assert exit.value.code == 2
    assert "valgrind is not installed" in capsys.readouterr().err
