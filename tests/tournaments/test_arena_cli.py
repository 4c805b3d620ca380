"""`arena run`, `arena add` and `arena table` end to end, with real bot processes.

The runner is started as a real subprocess wherever it matters (kill -9, Ctrl-C, SIGTERM) and
in-process everywhere else (`tourhelp.cli`), where what a command does and says is under test.
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from patience import Deadline
from tourhelp import ARENA, ARENA_CTRL_C, Gate, cli, stored_games

from tournaments.cli import main
from tournaments.output import FORMATS
from tournaments.rank.tables import TABLE_NAMES
from tournaments.store.store import Store

TOURNAMENT = """
game = "5211"
players = 2
deals = {deals}
seed = 11
concurrency = 2
sandbox = "none"              # scripts in pytest's private tmp dirs: not readable by a bot's uid

[participants]
greedy = "greedy"
random = "random"
random-twin = "random"
{extra}

[time]
move_ms = 5000
"""


def write(directory: Path, name: str = "cup", deals: int = 3, extra: str = "") -> Path:
    file = directory / f"{name}.toml"
    file.write_text(TOURNAMENT.format(deals=deals, extra=extra))
    return file


Outcome = tuple[tuple[str, ...], list[int], list[int]]


def results(db: Path) -> dict[tuple[str, int, int], Outcome]:
    """Every stored game by its key, with what must not depend on how the run went."""
    with Store(db) as store:
        return {
            (g.seat_set, g.deal, g.rotation): (g.bots, g.played.scores, g.played.ranks)
            for g in store.games()
        }


def without_timing(
    tables: dict[str, list[dict[str, object]]],
) -> dict[str, list[dict[str, object]]]:
    for row in tables["standings"]:
        del row["ms_per_decision"]
    return tables


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished three-bot tournament (18 games), shared by the tests that only read it."""
    file = write(tmp_path_factory.mktemp("played"))
    done = cli("run", file)
    assert "Standings" in done.stdout and "Crosstable" in done.stdout
    return file.with_suffix(".sqlite")


def test_run_prints_ladder_then_crosstable(played: Path) -> None:
    done = cli("run", played.with_suffix(".toml"), "--fmt", "github")
    out = done.stdout
    assert out.index("Standings") < out.index("Crosstable")
    ladder = out[: out.index("Crosstable")]
    assert ladder.index("greedy") < ladder.index("random")  # greedy on top
    assert "0 games played, 18 already stored, 18 in the schedule" in done.stderr
    assert len(results(played)) == 18


def test_table_renders_in_every_format(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in FORMATS:
        assert (
            main(["table", str(played), "--fmt", fmt, "--table", "all", "--bootstrap", "20"]) == 0
        )
        out = capsys.readouterr().out
        for title in ("Standings", "Crosstable", "Head to head", "Seat advantage", "Timing"):
            assert title in out, fmt
        assert "greedy" in out and "random-twin" in out, fmt


def test_table_json_and_csv_parse(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", str(played), "--json", "-t", "all"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert list(tables) == list(TABLE_NAMES)
    standings = tables["standings"]
    assert standings[0]["bot"] == "greedy"
    assert sum(row["games"] for row in standings) == 36
    assert standings[0]["elo"] > 1500 > standings[-1]["elo"]
    for name in TABLE_NAMES:
        assert main(["table", str(played), "--csv", "--table", name]) == 0
        rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
        assert len(rows) == len(tables[name])
    # The tournament file finds its store too.
    assert main(["table", str(played.with_suffix(".toml")), "--csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header.startswith("rank,bot,elo,ci,games")


def test_machine_output_has_numbers_and_every_table(
    played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["table", str(played), "--json", "-t", "all", "--bootstrap", "0"]) == 0
    tables = json.loads(capsys.readouterr().out)
    greedy = next(row for row in tables["crosstable"] if row["bot"] == "greedy")
    assert isinstance(greedy["random"], float) and greedy["random games"] == 6
    assert greedy["greedy"] is None
    for row in tables["standings"]:
        assert row["wins"] + row["losses"] + row["draws"] == row["games"]  # two players a game
    for row in tables["pairs"]:
        assert sum(row[key] for key in ("deals_0", "deals_0_5", "deals_1", "deals_1_5", "deals_2"))
        assert row["wins"] + row["losses"] + row["draws"] == row["games"]
    assert main(["table", str(played), "--csv-dir", str(tmp_path / "csv"), "--bootstrap", "0"]) == 0
    written = sorted(path.name for path in (tmp_path / "csv").iterdir())
    assert written == sorted(f"{name}.csv" for name in TABLE_NAMES)
    crosstable = list(
        csv.DictReader(io.StringIO((tmp_path / "csv" / "crosstable.csv").read_text()))
    )
    assert {row["bot"] for row in crosstable} == {"greedy", "random", "random-twin"}
    assert float(next(row for row in crosstable if row["bot"] == "greedy")["random"]) > 50


def test_table_mistakes_are_usage_errors(played: Path, tmp_path: Path) -> None:
    done = cli("table", played, "--csv", "-t", "standings", "-t", "pairs", code=2)
    assert "--csv prints one table" in done.stderr and "--csv-dir" in done.stderr
    assert "--csv-dir" in cli("table", played, "--csv", "-t", "all", code=2).stderr
    assert "no store at" in cli("table", tmp_path / "none.db", code=2).stderr
    assert (
        "anchor 'nobody' has no games" in cli("table", played, "--anchor", "nobody", code=2).stderr
    )


def test_anchor(played: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["table", str(played), "--json", "--anchor", "random=0", "--bootstrap", "0"]) == 0
    elos = {row["bot"]: row["elo"] for row in json.loads(capsys.readouterr().out)["standings"]}
    assert elos["random"] == 0
    assert elos["greedy"] > 0


@pytest.mark.slow
def test_resume_after_ten_kill_9s_gives_the_uninterrupted_result(tmp_path: Path) -> None:
    """kill -9 at ten seeded points (a number of stored games plus a random delay, so some
    kills land mid-game or mid-commit), resuming each time: the same store as without kills.
    The killed runs' bots wait at a gate before the last game can begin, so no kill comes after
    it, however slow the machine; the uninterrupted run's play the same, ungated."""
    killed = write(tmp_path, name="killed", deals=8)
    db = killed.with_suffix(".sqlite")
    gate = Gate(tmp_path)
    whole = write(tmp_path, name="whole", deals=8)
    for file, gated in ((whole, False), (killed, True)):
        text = file.read_text()
        for name, policy in (("greedy", "greedy"), ("random", "random"), ("random-twin", "random")):
            text = text.replace(f'{name} = "{policy}"', f"{name} = {gate.bot(policy, gated)}")
        file.write_text(text.replace("move_ms = 5000", "move_ms = 3600000"))
    Store(whole.with_suffix(".sqlite")).close()  # a new store and its secret, which keys the deals
    shutil.copyfile(whole.with_suffix(".sqlite"), db)  # the same secret: the same games
    cli("run", whole, "-q")
    expected = results(whole.with_suffix(".sqlite"))
    assert len(expected) == 3 * 8 * 2
    rng = random.Random(20261122)
    targets = sorted(rng.sample(range(1, len(expected) - 4), 10))
    for kills, target in enumerate(targets):
        gate.limit(2 * (len(expected) - 1 - stored_games(db)))  # two gated seats a game
        runner = subprocess.Popen([*ARENA, "run", str(killed), "-q"], stdout=subprocess.DEVNULL)
        deadline = Deadline(60)
        while stored_games(db) < target and not deadline.passed() and runner.poll() is None:
            time.sleep(0.005)
        time.sleep(rng.uniform(0, 0.05))
        os.kill(runner.pid, signal.SIGKILL)
        runner.wait()
        partial = stored_games(db)
        assert partial < len(expected), f"kill {kills + 1} came after the tournament ended"
        assert results(db).items() <= expected.items()  # whole games only, all as they should be

    gate.open()
    resumed = cli("run", killed, "--json")
    assert f"{partial} already stored" in resumed.stderr
    assert results(db) == expected  # same games, same results, nothing lost or doubled
    uninterrupted = cli("table", whole.with_suffix(".sqlite"), "--json")
    assert without_timing(json.loads(resumed.stdout)) == without_timing(
        json.loads(uninterrupted.stdout)
    )


def gated(directory: Path, deals: int) -> tuple[Path, Gate]:
    """The three-bot tournament with random-twin held after 5 games (the check's and four of
    the tournament's), at a move time no held decision reaches: a run that waits for the test."""
    file = write(directory, deals=deals)
    gate = Gate(directory)
    gate.limit(5)
    text = file.read_text().replace('random-twin = "random"', f"random-twin = {gate.bot('random')}")
    file.write_text(text.replace("move_ms = 5000", "move_ms = 3600000"))
    return file, gate


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    file, gate = gated(tmp_path, deals=8)
    db = file.with_suffix(".sqlite")
    runner = subprocess.Popen(
        [*ARENA_CTRL_C, "run", str(file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        gate.wait_held(db, games=4)
        runner.send_signal(signal.SIGINT)
        out, err = runner.communicate(timeout=30)
    finally:  # a failed test leaves no run behind
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 130, err
    assert "interrupted" in err and "again to resume" in err
    assert out == ""
    assert 4 <= stored_games(db) < 48
    gate.open()
    cli("run", file, "-q")
    assert len(results(db)) == 48


@pytest.mark.slow
def test_add_checks_the_bot_then_plays_only_its_games(tmp_path: Path) -> None:
    file = write(tmp_path, deals=2)
    cli("run", file, "-q")
    before = results(file.with_suffix(".sqlite"))

    broken = f"{sys.executable} -c \"import sys; sys.stdin.readline(); print('hello')\""
    rejected = cli("add", file, "broken", broken, code=1)
    assert "broken rejected: malformed during the handshake" in rejected.stderr
    assert "'hello'" in rejected.stderr
    missing = cli("add", file, "ghost", "no-such-program-anywhere", code=1)
    assert "spawn" in missing.stderr and "no-such-program-anywhere" in missing.stderr
    taken = cli("add", file, "random", "random", code=2).stderr
    assert taken.startswith("arena add: error: 'random' is already a participant")

    added = cli("add", file, "newbie", "greedy", "-q")
    assert "newbie" in added.stdout
    after = results(file.with_suffix(".sqlite"))
    new = {key: value for key, value in after.items() if key not in before}
    assert len(new) == 3 * 2 * 2  # three pairings with newbie, two deals, two rotations
    assert all("newbie" in bots for bots, _, _ in new.values())
    assert {key: after[key] for key in before} == before
    # Later runs of the file include the added bot, and have nothing left to play.
    assert "0 games played, 24 already stored" in cli("run", file).stderr


def test_a_changed_bot_is_a_new_entry(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text("from bots.random import choose\nfrom bots.sdk import run\nrun(choose)\n")
    file = write(tmp_path, deals=1, extra=f'mine = "{sys.executable} mine.py"')
    cli("run", file, "-q")
    script.write_text(script.read_text() + "# a new version\n")
    out = cli("run", file, "--json", "--bootstrap", "0").stdout
    bots = {row["bot"]: row["games"] for row in json.loads(out)["standings"]}
    old = next(bot for bot in bots if bot.startswith("mine@"))
    assert bots["mine"] == bots[old] == 6  # the new version played all its games again
    assert bots["greedy"] == 8  # 3 opponents, then the new mine: one deal, two seatings each


def test_mistakes_in_the_file_or_flags(tmp_path: Path) -> None:
    file = write(tmp_path, deals=1)
    file.write_text(file.read_text().replace("deals = 1", "deals = 1\nrounds = 3"))
    assert "unknown field `rounds`" in cli("run", file, code=2).stderr
    file = write(tmp_path, deals=1)
    assert "--deals: must be at least 1" in cli("run", file, "--deals", "0", code=2).stderr
    assert "move_ms = -1: must be from 1" in cli("run", file, "--move-ms", "-1", code=2).stderr
    file.write_text(file.read_text().replace("move_ms = 5000", "move_ms = -1"))
    assert "[time]: move_ms = -1" in cli("run", file, code=2).stderr
    file.write_text(file.read_text().replace("move_ms = -1", "move_ms = 5000"))
    file.write_text(file.read_text().replace("concurrency = 2", "concurency = 2"))
    assert "did you mean `concurrency`?" in cli("run", file, code=2).stderr
    file = write(tmp_path, deals=1)
    cli("run", file, "-q")
    mismatch = cli("run", file, "--seed", "12", code=1).stderr
    assert "seed: stored 11, now 12" in mismatch


CRASHY = """\
import itertools, json, sys
from bots.random import choose
from bots.sdk import run

start = sys.stdin.buffer.readline()
if json.loads(start)["seat"] == 0:
    run(choose, stdin=itertools.chain([start], sys.stdin.buffer))
print(json.dumps({"type": "ready"}), flush=True)
sys.stdin.readline()
sys.exit(3)
"""
"""Crashes at its first decision, but not in seat 0: where `arena run`'s check seats a new bot,
so it passes the check (a bot can fail later than any check can see)."""


def test_three_player_gauntlet_with_a_crashing_bot(tmp_path: Path) -> None:
    (tmp_path / "crashy.py").write_text(CRASHY)
    file = write(tmp_path, deals=1, extra=f'crashy = "{sys.executable} crashy.py"')
    text = file.read_text().replace("players = 2", 'players = 3\nschedule = "gauntlet"')
    file.write_text(text.replace("seed = 11", 'seed = 11\ncandidate = "greedy"'))
    tables = json.loads(cli("run", file, "-q", "--json", "-t", "all").stdout)
    with Store(file.with_suffix(".sqlite")) as store:
        games = store.games()
    assert len(games) == 3 * 3  # greedy with each pair of the other three, three rotations
    assert all("greedy" in game.bots for game in games)
    standings = {row["bot"]: row for row in tables["standings"]}
    assert standings["greedy"]["games"] == 9
    assert standings["crashy"]["faults"] == 4  # of its 6 games: not in seat 0
    assert standings["crashy"]["pl_mu"] < standings["greedy"]["pl_mu"]  # Plackett–Luce: 3 seats
    (fault,) = tables["faults"]
    assert (fault["bot"], fault["kind"], fault["count"]) == ("crashy", "crash", 4)
    assert "exit code 3" in fault["example"]
    assert [row["seat"] for row in tables["seats"]] == [0, 1, 2]


def test_match_takes_limits_sandbox_and_time_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "game.jsonl"
    flags = ["--memory-mb", "1024", "--processes", "16", "--sandbox", "bwrap"]
    argv = ["match", "--game", "5211", *flags, "--time-mode", "cpu", "--record", str(record)]
    assert main([*argv, "--json", "greedy", "random"]) == 0
    assert json.loads(capsys.readouterr().out)["faults"] == []
    assert (
        "--memory-mb: must be 0 (unlimited) or more"
        in cli("match", "--game", "5211", "--memory-mb", "-1", "random", "random", code=2).stderr
    )


@pytest.mark.slow
def test_run_checks_new_participants_and_plays_nothing_if_one_fails(tmp_path: Path) -> None:
    typo = f'typo = "{sys.executable} -m bots.bto"'
    file = write(tmp_path, deals=1, extra=typo)
    db = file.with_suffix(".sqlite")
    refused = cli("run", file, code=1).stderr
    assert "checking 4 new participants" in refused
    assert "typo rejected: crash during the handshake: " in refused and "bots.bto" in refused
    assert "(the process exited (exit code" not in refused  # the kind's documentation
    assert "nothing played" in refused
    assert stored_games(db) == 0
    # Fixed: it plays, and the broken version leaves no trace in the tables.
    file.write_text(file.read_text().replace(typo, 'typo = "random"'))
    out = cli("run", file, "--json", "--bootstrap", "0").stdout
    bots = {row["bot"] for row in json.loads(out)["standings"]}
    assert bots == {"greedy", "random", "random-twin", "typo"}
    # Everyone has games now: a resumed run checks nobody.
    again = cli("run", file, "--deals", "2", "-q").stderr
    assert "checking" not in again


@pytest.mark.slow
def test_remove_and_exclude_leave_a_bot_out_of_tables_and_runs(tmp_path: Path) -> None:
    file = write(tmp_path, deals=1)
    db = file.with_suffix(".sqlite")
    cli("run", file, "-q")

    def standings(*flags: str) -> dict[str, int]:
        out = cli("table", db, "--json", "--bootstrap", "0", *flags).stdout
        return {row["bot"]: row["games"] for row in json.loads(out)["standings"]}

    assert standings() == {"greedy": 4, "random": 4, "random-twin": 4}
    assert standings("--exclude", "random-twin") == {"greedy": 2, "random": 2}
    unknown = cli("table", db, "--exclude", "nobody", code=2).stderr
    assert "no bot 'nobody' in the store (bots: greedy, random, random-twin)" in unknown

    removed = cli("remove", file, "random-twin").stderr
    assert "random-twin removed; its 4 games no longer count" in removed
    assert standings() == {"greedy": 2, "random": 2}  # whole games gone, ratings without them
    assert stored_games(db) == 6  # nothing deleted
    rerun = cli("run", file, "--deals", "2")
    assert "not playing removed random-twin" in rerun.stderr
    assert "2 games played" in rerun.stderr  # only greedy–random's new deal
    assert "random-twin" not in rerun.stdout
    assert (
        "remove" in cli("remove", "--help").stdout and "free wins" in cli("remove", "--help").stdout
    )


@pytest.mark.slow
def test_progress_lines_without_a_terminal(tmp_path: Path) -> None:
    file = write(tmp_path, deals=2)
    lines = cli("run", file).stderr.splitlines()
    games = [line for line in lines if line.startswith("arena: game ")]
    assert len(games) == 12
    assert games[-1].startswith("arena: game 12/12: ")
    file = write(tmp_path, name="sparse", deals=2)
    lines = cli("run", file, "--progress-every", "5", "--ladder-every", "6").stderr.splitlines()
    assert [line.split(":")[1] for line in lines if line.startswith("arena: game ")] == [
        " game 5/12",
        " game 10/12",
    ]
    ladders = [line for line in lines if line.startswith("arena: ladder after")]
    assert len(ladders) == 2 and "1. greedy" in ladders[-1]
    file = write(tmp_path, name="quiet", deals=1)
    quiet = cli("run", file, "-q")
    assert all("warning" in line for line in quiet.stderr.splitlines())
    assert "Standings" in quiet.stdout


ARMED = """\
import sys
from pathlib import Path

if Path(__file__).with_name("armed").exists():
    sys.exit(3)
from bots.random import choose
from bots.sdk import run

run(choose)
"""


@pytest.mark.slow
def test_strict_makes_a_fault_exit_code_3(tmp_path: Path) -> None:
    (tmp_path / "flaky.py").write_text(ARMED)
    file = write(tmp_path, deals=1, extra=f'flaky = "{sys.executable} flaky.py"')
    cli("run", file, "-q", "--strict")  # no fault yet: 0
    (tmp_path / "armed").write_text("")  # not one of its files: same bot, now crashing
    cli("run", file, "-q", "--deals", "2")  # without --strict a fault is not an error
    failed = cli("run", file, "-q", "--deals", "3", "--strict", code=3)
    assert "games of this run had a faulty bot (--strict)" in failed.stderr
    assert "Standings" in failed.stdout


@pytest.mark.slow
def test_sigterm_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    file, gate = gated(tmp_path, deals=8)
    db = file.with_suffix(".sqlite")
    runner = subprocess.Popen(
        [*ARENA, "run", str(file), "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        gate.wait_held(db, games=4)
        runner.send_signal(signal.SIGTERM)
        out, err = runner.communicate(timeout=30)
    finally:  # a failed test leaves no run behind
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 143, err
    assert "terminated (SIGTERM)" in err and "again to resume" in err
    assert f"{stored_games(db)} games played and stored" in err
    assert out == ""
    partial = stored_games(db)
    assert 4 <= partial < 48
    gate.open()
    resumed = cli("run", file, "-q")
    assert resumed.returncode == 0
    assert len(results(db)) == 48
