"""Without the optional `dask` extra (a plain `pip install .`), what needs Dask says which extra to
install and everything else works: no traceback (issue 23, item 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.cli import main

WITHOUT_DASK = [
    sys.executable,
    "-c",
    # As on a machine where Dask was never installed: both imports fail.
    "import sys; sys.modules['distributed'] = sys.modules['dask'] = None; "
    "from tournaments.cli import main; sys.exit(main())",
]
EXTRA = "pip install '.[dask]'"

TOURNAMENT = """
game = "5211"
deals = 1
sandbox = "none"
{executor}

[participants]
greedy = "greedy"
random = "random"
"""


@pytest.mark.slow
def test_quick_bench_skips_the_dask_row_and_says_which_extra(tmp_path: Path) -> None:
    done = subprocess.run(
        [*WITHOUT_DASK, "bench", "--quick", "--only", "scale", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: a target missed, as quick runs may
    assert "Traceback" not in done.stderr
    skipped = [line for line in done.stderr.splitlines() if "Dask" in line and "skipped" in line]
    assert len(skipped) == 1 and EXTRA in skipped[0], done.stderr
    names = [figure["name"] for figure in json.loads(done.stdout)]
    assert not any("Dask" in name for name in names)
    assert any("local executor, 2 workers" in name for name in names)  # the rest still runs


@pytest.mark.parametrize(
    ("executor", "flags"),
    [('executor = "dask"', []), ("", ["--dask", "tcp://127.0.0.1:1"])],
)
def test_a_dask_tournament_without_dask_names_the_extra_before_checking_bots(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    executor: str,
    flags: list[str],
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "dask", None)
    file = tmp_path / "cup.toml"
    file.write_text(TOURNAMENT.format(executor=executor))
    assert main(["run", str(file), *flags]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        'arena run: error: executor = "dask" needs Dask; install it with: '
        f"pip install 'tile-arena[dask]' (from a source tree: {EXTRA})"
    ]  # one line, and no participant was checked (that plays games) before it
