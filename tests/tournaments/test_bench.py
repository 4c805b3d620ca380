"""`arena bench`: every section runs and reports a figure, at the tests' smallest sizes, and
`--quick --write` writes Markdown (benchmarks never run in CI; this only checks that the
command works, so its pass/miss verdicts are not asserted)."""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from patience import Deadline
from tourhelp import ARENA

from tournaments.bench.league_server import SAID_LINES, Server, rate
from tournaments.bench.playouts import playouts
from tournaments.bench.report import CLOCKS_SECTION, SECTIONS, Figure, markdown
from tournaments.commands.bench import exit_code


def bare_python3(tmp_path: Path) -> str:
    """A PATH whose `python3` is one without this framework (the interpreter the virtual
    environment was made from), as on an author's host: the league runs an uploaded `.py` with
    the `python3` on its PATH."""
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "python3").symlink_to(Path(sys.base_prefix) / "bin" / "python3")
    return f"{bare}{os.pathsep}{os.environ['PATH']}"


@pytest.mark.slow
@pytest.mark.parametrize("section", [section for section in SECTIONS if section != "peer"])
def test_each_section_reports_its_figures(section: str, tmp_path: Path) -> None:
    """(`peer` needs an engine CI does not install: it says so and reports nothing.)"""
    env = {**os.environ, "PATH": bare_python3(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("benchhelp.py")), section],
        capture_output=True,
        text=True,
        timeout=Deadline(600).left(),
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert section in {figure["section"] for figure in figures}
    assert all(figure["value"] > 0 or figure["unit"] == "%" for figure in figures), figures
    assert all(figure["value"] >= 0 for figure in figures)  # a move in memory may be none


def test_quick_bench_writes_markdown(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(f"# old\n\n{CLOCKS_SECTION}\n\nkept by the other benchmark.\n")
    command = [*ARENA, "bench", "--quick", "--only", "memory", "--json", "--write", str(doc)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr  # a quick run's misses are shown, not judged
    figures = json.loads(done.stdout)
    assert {figure["section"] for figure in figures} == {"memory"}
    text = doc.read_text()
    assert "arena bench --quick --only memory --json --write" in text
    assert "| memory " in text
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
