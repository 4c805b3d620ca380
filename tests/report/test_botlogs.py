"""`arena match --logs DIR` keeps the bots' stderr logs there and names each one."""

from __future__ import annotations

import sys
from pathlib import Path

from reporthelp import cli

NOISY = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    print("thinking about", message["type"], file=sys.stderr, flush=True)
    if message["type"] == "start":
        print(json.dumps({"type": "ready", "name": "noisy"}), flush=True)
    elif message["type"] == "act":
        print(json.dumps({"type": "action", "id": message["id"], "index": 0}), flush=True)
"""


def test_match_names_the_log_of_a_bot_that_wrote_to_stderr(tmp_path: Path) -> None:
    bot = tmp_path / "noisy.py"
    bot.write_text(NOISY)
    logs = tmp_path / "logs"
    done = cli(
        "match", "--game", "azul", f"{sys.executable} {bot}", "random", "--seed", "1",
        "--sandbox", "none", "--record", tmp_path / "game.jsonl", "--logs", logs,
    )  # fmt: skip
    named = [line for line in done.stderr.splitlines() if "stderr log:" in line]
    assert len(named) == 1 and "seat 0" in named[0]  # random writes nothing: not named
    path = Path(named[0].split("stderr log: ", 1)[1])
    assert path.parent == logs and "thinking about act" in path.read_text()
