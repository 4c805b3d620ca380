"""`arena bench --quick`: every section runs and reports a figure (benchmarks never run in CI;
this only checks that the command works, so its pass/miss verdicts are not asserted)."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tourhelp import ARENA

from tournaments.bench.league_server import SAID_LINES, Server, rate
from tournaments.bench.playouts import playouts
from tournaments.bench.report import CLOCKS_SECTION, SECTIONS, Figure, markdown
from tournaments.commands.bench import exit_code


@pytest.mark.slow
def test_quick_bench_reports_every_section_and_writes_markdown(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# old\n\n{CLOCKS_SECTION}\n\nkept by the other benchmark.\n")
    command = [*ARENA, "bench", "--quick", "--json", "--write", str(doc)]
    # The league runs an uploaded `.py` with the `python3` on its PATH: here one without this
    # framework (the interpreter the virtual environment was made from), as on an author's host.
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    env = {**os.environ, "PATH": f"{bare}{os.pathsep}{os.environ['PATH']}"}
    # the league's sections start servers and tournaments: minutes on a loaded 2-core machine
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=420, check=False, env=env
    )
    assert done.returncode == 0, done.stderr  # a quick run's misses are shown, not judged
    figures = json.loads(done.stdout)
    sections = {figure["section"] for figure in figures}
    assert sections >= set(SECTIONS) - {"peer"}
    assert all(figure["value"] > 0 or figure["unit"] == "%" for figure in figures)
    assert all(figure["value"] >= 0 for figure in figures)  # a move in memory may be none
    text = doc.read_text()
    assert "arena bench --quick --json --write" in text
    assert text.endswith(f"{CLOCKS_SECTION}\n\nkept by the other benchmark.\n")
    assert "# old" not in text


def test_only_a_full_run_fails_on_a_missed_target_and_the_help_says_so() -> None:
    missed = [Figure("match", "game", 45.0, "ms", "≤ 30 ms", False), Figure("a", "b", 1.0, "ms")]
    met = [Figure("match", "game", 25.0, "ms", "≤ 30 ms", True), Figure("a", "b", 1.0, "ms")]
    assert (exit_code(missed, quick=False), exit_code(missed, quick=True)) == (1, 0)
    assert (exit_code(met, quick=False), exit_code(met, quick=True)) == (0, 0)
    done = subprocess.run([*ARENA, "bench", "--help"], capture_output=True, text=True, check=True)
    assert "exit codes:" in done.stdout
    assert "0    done: every target met, or a --quick run" in done.stdout
    assert "1    a target missed (a full run)" in done.stdout


def test_markdown_marks_misses() -> None:
    text = markdown([Figure("match", "game", 45.0, "ms", "≤ 30 ms", False)], ["--quick"])
    assert "| match     | game     | 45.0 ms | ≤ 30 ms  | MISS     |" in text


def test_playouts_run_as_a_file_play_whole_games() -> None:
    script = Path(__file__).parents[2] / "tournaments" / "bench" / "playouts.py"
    done = subprocess.run(
        [sys.executable, str(script), "azul", "2", "2"], capture_output=True, text=True, check=True
    )
    decisions = int(done.stdout)
    assert decisions == playouts("azul", 2, 2) > 2 * 40  # an Azul game has dozens of decisions


def test_a_league_that_stops_before_its_first_game_says_why(tmp_path: Path) -> None:
    """A served league that exits is reported with its exit and its last lines, at once (not
    after the 10-minute wait for a game)."""
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ladder: no worker can play', file=sys.stderr)"],
        stderr=subprocess.PIPE,
        text=True,
    )
    said: collections.deque[str] = collections.deque(maxlen=SAID_LINES)
    assert server.stderr is not None
    with server.stderr:
        said.extend(server.stderr)
    server.wait()
    with pytest.raises(RuntimeError, match=r"exited \(0\); its last lines:\nladder: no worker"):
        rate(tmp_path / "league.sqlite", 1, Server(server, "", said).exited)
