"""The clocks-under-load measurement (docs/benchmarks.md) runs and reports what it says."""

from __future__ import annotations

from pathlib import Path

import pytest

from tournaments.bench.clockcheck import measure
from tournaments.cli import main


@pytest.mark.alone  # real processes against a wall-clock limit: run without the others' load
async def test_clockcheck_counts_decisions_timeouts_and_latency() -> None:
    """Bots thinking 5 ms against 300 ms a move are never timed out, and are charged their time."""
    report = await measure(40, move_ms=300, think_ms=5, concurrency=2)
    assert report.decisions >= 40
    assert report.false_timeouts == 0
    assert 5 <= report.charged_ms["p50"] < 300
    assert set(report.latency_ms) == {"p50", "p99", "max"}


def test_more_matches_than_cores_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(
        'game = "5211"\ndeals = 1\nconcurrency = 64\n[participants]\na = "random"\nb = "random"\n'
    )
    assert main(["run", str(file), "-q"]) == 0
    assert "64 matches at once on" in capsys.readouterr().err
