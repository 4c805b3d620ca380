"""The tournament file: decoding, clear errors, command-line overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from protocol import TimeControl
from referee import ResourceLimits
from referee.games import GAME_IDS
from tournaments.plan.config import (
    ConfigError,
    check,
    db_path,
    decode,
    fixed_settings,
    load,
    override,
)
from tournaments.plan.entrants import entrant

EXAMPLE = """
game = "azul"
players = 2
deals = 3
seed = 7
concurrency = 2

[participants]
random = "random"
greedy = "greedy"
mine = "python3 my_bot.py --depth 2"

[time]
move_ms = 500
"""

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_decode_example() -> None:
    tournament = decode(EXAMPLE)
    assert tournament.game == "azul"
    assert tournament.participants == {
        "random": "random",
        "greedy": "greedy",
        "mine": "python3 my_bot.py --depth 2",
    }
    assert tournament.deals == 3
    assert tournament.time.move_ms == 500
    assert tournament.time.bank_ms == 0
    assert tournament.schedule == "round-robin"
    assert tournament.workers == 2


def test_demo_file_is_valid() -> None:
    tournament = load(EXAMPLES / "demo.toml")
    assert len(tournament.participants) >= 3


STRATEGIES = sorted((EXAMPLES.parent / "docs" / "strategies").rglob("*.toml"))


@pytest.mark.parametrize("path", STRATEGIES, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_documented_tournament_files_are_valid(path: Path) -> None:
    """docs/strategies.md tells readers to run these: each must load and pass every check."""
    tournament = load(path)
    check(tournament, str(path))
    assert len(tournament.participants) >= tournament.players


def test_clock_files_cover_every_game_at_50_ms() -> None:
    """The 50 ms clock check plays every game, one match per core."""
    clock = [load(path) for path in STRATEGIES if path.parent.name == "clock-50ms"]
    assert sorted(t.game for t in clock) == sorted(GAME_IDS)
    assert all(t.time.move_ms == 50 and t.concurrency == 0 for t in clock)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            'game = "azul"\ndeal = 3\n[participants]\na = "random"\nb = "random"',
            "unknown field `deal`",
        ),
        (EXAMPLE + "\nblitz = 1\n", "unknown field `blitz` - at `$.time`"),
        (EXAMPLE.replace("deals = 3", "deals = 0"), "`$.deals`"),
        (
            EXAMPLE.replace("deals = 3", 'deals = "many"'),
            "Expected `int`, got `str` - at `$.deals`",
        ),
        (EXAMPLE.replace('game = "azul"', 'game = "chess"'), "unknown game 'chess'"),
        (EXAMPLE.replace("players = 2", "players = 9"), "azul is for 2–4 players"),
        (EXAMPLE + "\n[options]\nbogus = 1\n", "bad options for azul"),
        ('game = "azul"\n[participants]\nonly = "random"', "at least 2 participants"),
        (EXAMPLE.replace("seed = 7", 'schedule = "gauntlet"'), "a gauntlet needs candidate"),
        (EXAMPLE.replace("seed = 7", 'candidate = "mine"'), "candidate is only for"),
        (EXAMPLE.replace('random = "random"', '"my bot" = "random"'), "$.participants"),
        (EXAMPLE.replace('random = "random"', 'random = "  "'), "has an empty command"),
        ("game = [", "not valid TOML"),
    ],
)
def test_errors_say_what_and_where(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match="tournament file") as error:
        decode(text)
    assert message in str(error.value)


def test_gauntlet() -> None:
    tournament = decode(EXAMPLE.replace("seed = 7", 'schedule = "gauntlet"\ncandidate = "mine"'))
    assert tournament.candidate == "mine"


def test_flags_override_the_file() -> None:
    tournament = override(decode(EXAMPLE), deals=5, seed=None, move_ms=80, concurrency=0)
    assert tournament.deals == 5
    assert tournament.seed == 7  # None: not given
    assert tournament.time.move_ms == 80
    assert tournament.time.startup_ms == 10_000
    assert tournament.workers >= 1
    with pytest.raises(ConfigError, match="command line"):
        override(decode(EXAMPLE), deals=0)


def test_fixed_settings_fill_option_defaults() -> None:
    settings = fixed_settings(decode(EXAMPLE))
    assert settings["game"] == "azul"
    assert settings["seed"] == 7
    assert settings["time"]["move_ms"] == 500
    assert isinstance(settings["options"], dict)


def test_db_path_next_to_the_file(tmp_path: Path) -> None:
    file = tmp_path / "cup.toml"
    assert db_path(decode(EXAMPLE), file) == tmp_path / "cup.sqlite"
    assert db_path(decode('db = "x/y.sqlite"\n' + EXAMPLE), file) == tmp_path / "x/y.sqlite"


def test_limits_sandbox_and_per_bot_limits() -> None:
    text = EXAMPLE.replace(
        'mine = "python3 my_bot.py --depth 2"',
        '[participants.mine]\ncommand = "python3 my_bot.py"\nmemory_mb = 8192\nprocesses = 0',
    )
    text = text.replace("seed = 7", 'seed = 7\nsandbox = "bwrap"\ntime_mode = "cpu"')
    text += "\n[limits]\nmemory_mb = 1024\ncpu_s = 30\n"
    tournament = decode(text)
    assert (tournament.sandbox, tournament.time_mode) == ("bwrap", "cpu")
    assert tournament.command("mine") == "python3 my_bot.py"
    assert tournament.command("random") == "random"
    assert tournament.resources("random") == ResourceLimits(memory_mb=1024, cpu_s=30)
    assert tournament.resources("mine") == ResourceLimits(memory_mb=8192, cpu_s=30, processes=0)
    assert decode(EXAMPLE).limits == ResourceLimits()  # defaults without a [limits] table


@pytest.mark.parametrize(
    ("addition", "message"),
    [
        ("\n[limits]\nmemory_mb = -1\n", "Expected `int` >= 0 - at `$.limits.memory_mb`"),
        ("\n[limits]\nram = 1\n", "unknown field `ram` - at `$.limits`"),
        ("\n[participants.x]\nmemory_mb = 1\n", "missing required field `command`"),
        ('\n[participants.x]\ncommand = "random"\ncpu = 1\n', "unknown field `cpu`"),
    ],
)
def test_limit_errors_say_what_and_where(addition: str, message: str) -> None:
    with pytest.raises(ConfigError, match="tournament file") as error:
        decode(EXAMPLE + addition)
    assert message in str(error.value)


def test_a_missing_bwrap_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ConfigError, match="apt-get install bubblewrap"):
        decode(EXAMPLE.replace("seed = 7", 'seed = 7\nsandbox = "bwrap"'))


@pytest.mark.parametrize(
    ("time", "message"),
    [
        ("move_ms = -1", "move_ms = -1: must be from 1 to 3600000 ms (0 would forfeit at once)"),
        ("move_ms = 0", "move_ms = 0: must be from 1"),
        ("bank_ms = -3", "bank_ms = -3: must be from 0"),
        ("increment_ms = -1", "increment_ms = -1: must be from 0"),
        ("startup_ms = 0", "startup_ms = 0: must be from 1"),
    ],
)
def test_impossible_times_are_refused(time: str, message: str) -> None:
    with pytest.raises(ConfigError, match=r"tournament file: \[time\]") as error:
        decode(EXAMPLE.replace("move_ms = 500", time))
    assert message in str(error.value)


def test_impossible_times_from_flags_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"command line: .*move_ms = 0"):
        override(decode(EXAMPLE), move_ms=0)
    assert override(decode(EXAMPLE), bank_ms=0).time.bank_ms == 0  # 0: no bank


def test_per_participant_time_odds() -> None:
    text = EXAMPLE.replace(
        'mine = "python3 my_bot.py --depth 2"',
        '[participants.mine]\ncommand = "python3 my_bot.py"\ntime = {move_ms = 200, bank_ms = 50}',
    )
    tournament = decode(text)
    assert tournament.time_for("random") == tournament.time
    assert tournament.time_for("mine").move_ms == 200
    assert tournament.time_for("mine").bank_ms == 50
    assert tournament.time_for("mine").startup_ms == tournament.time.startup_ms
    assert tournament.time_for("added-later") == tournament.time  # not in the file: the default
    with pytest.raises(ConfigError, match="participant 'mine': time: move_ms = 0"):
        decode(text.replace("move_ms = 200", "move_ms = 0"))
    with pytest.raises(ConfigError, match="did you mean `move_ms`"):
        decode(text.replace("move_ms = 200", "mov_ms = 200"))


@pytest.mark.parametrize(
    ("text", "suggestion"),
    [
        (EXAMPLE.replace("concurrency = 2", "concurency = 2"), "did you mean `concurrency`?"),
        (EXAMPLE.replace("move_ms = 500", "move_sm = 500"), "did you mean `move_ms`?"),
        (EXAMPLE + "\n[limits]\nmemory = 1\n", "did you mean `memory_mb`?"),
    ],
)
def test_misspelt_keys_get_a_suggestion(text: str, suggestion: str) -> None:
    with pytest.raises(ConfigError) as error:
        decode(text)
    assert suggestion in str(error.value)
    with pytest.raises(ConfigError) as error:
        decode(EXAMPLE + "\nzzzzzz = 1\n")
    assert "did you mean" not in str(error.value)


def test_time_odds_make_a_bot_a_new_entry() -> None:
    """Games at other odds are other games: the odds are part of the bot's identity (hash)."""
    even = entrant("mine", "random")
    assert entrant("mine", "random", time=TimeControl(move_ms=200)).hash != even.hash
    assert entrant("mine", "random", time=None).hash == even.hash
