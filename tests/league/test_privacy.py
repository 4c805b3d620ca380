"""What an author keeps private stays private: the published final's report holds what every
other public page holds (a fault's kind and decision, each seat by its name); scrimmage games
are their authors' and the organisers'; a bot's scores against the benchmarks (its grade) are
its author's and the organisers'; the leaderboard's kept page never carries one browser's note
to another."""

from __future__ import annotations

import base64
import os
import re
import sys
import zlib
from pathlib import Path

from tourhelp_league import LEAGUE as BASE

from tournaments.league.service import LeagueService
from tournaments.server.testing import in_process, until
from tournaments.store.store import Store

MARK = os.urandom(6).hex()
STDERR_LINE = f"REPORT-STDERR-{MARK}"

LEAGUE = (
    BASE
    + """benchmarks = ["random"]

[[league.grades]]
grade = "passed"
beats = { random = 0 }
"""
)
"""The helpers' league, with its house bot `random` as a benchmark that every bot passes."""
CRASHER = f"""\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready", "name": "crasher"}}), flush=True)
    elif message["type"] == "act":
        print("{STDERR_LINE}", file=sys.stderr, flush=True)
        sys.exit(3)
"""
"""A house bot that crashes at its first decision, saying `STDERR_LINE` on its stderr."""


def league_file(tmp_path: Path, house: str = "") -> Path:
    """The league, with the house bots `house` (TOML lines) beside `random`."""
    file = tmp_path / "cup.toml"
    file.write_text(LEAGUE.replace('random = "random"\n', f'random = "random"\n{house}\n'))
    return file


def report_texts(folder: Path) -> dict[str, str]:
    """Every file of a written report as text, each block of games unpacked (base64 of zlib:
    what the page reads)."""
    texts = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        for packed in re.findall(r'arenaGames\("[^"]*","([^"]*)"\)', text):
            text += zlib.decompress(base64.b64decode(packed)).decode("utf-8")
        texts[str(path.relative_to(folder))] = text
    return texts


async def test_the_published_report_shows_a_faults_kind_but_no_reason_and_no_command(
    tmp_path: Path,
) -> None:
    crasher = tmp_path / "crasher.py"
    crasher.write_text(CRASHER)
    command = f"{sys.executable} {crasher}"
    file = league_file(tmp_path, f'crasher = "{command}"')
    with LeagueService.opened(file) as service:
        service.freeze_offline(2)
    async with in_process(file) as (service, _):
        await until(lambda: service.league.season.number == 2, "the final's publication")
    league = service.league
    with Store(league.final_store(1), readonly=True) as store:
        faults = [fault for game in store.games() for fault in game.played.faults]
    assert faults and all(STDERR_LINE in fault.reason for fault in faults)  # the raw store's
    texts = report_texts(league.report_dir(1))
    assert "index.html" in texts and any(name.startswith("games/") for name in texts)
    for name, text in texts.items():
        assert STDERR_LINE not in text, name
        assert str(crasher) not in text and sys.executable not in text, name
        for fault in faults:
            assert fault.reason not in text and fault.reason.split(";")[0] not in text, name
    everything = "".join(texts.values())
    assert '"crash"' in everything  # what happened, for everyone
    assert '"crasher"' in everything and '"random"' in everything  # each seat by its name
