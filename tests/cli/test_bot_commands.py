"""How what a user writes for a bot becomes the argv it runs, its files, name and directory.

The rules are in docs/protocol.md ("How a bot command runs") and `tournaments.plan.botcommands`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest

from protocol import TimeControl
from referee import Limits, run_match
from tournaments.errors import BotCommandError
from tournaments.plan.botcommands import parse_bot, participant_spec, written
from tournaments.plan.config import ConfigError, decode
from tournaments.plan.entrants import entrant

ARENA = [sys.executable, "-m", "tournaments"]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory holding `bot.py`, a directory `fast` and the executable `bin/engine`."""
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "fast").mkdir()
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/engine").write_text("")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---- the one-string form ---------------------------------------------------------------------


def test_builtin_names_run_with_this_interpreter() -> None:
    spec = parse_bot("random")
    assert spec.command == [sys.executable, "-m", "bots.random"]
    assert (spec.name, spec.files) == ("random", ())
    assert parse_bot("greedy", name="g1").name == "g1"


def test_a_script_argument_becomes_absolute_and_is_the_bots_file(here: Path) -> None:
    spec = parse_bot("python3 -u bot.py --depth 'two words'")
    script = str(here / "bot.py")
    assert spec.command == ["python3", "-u", script, "--depth", "two words"]
    assert spec.files == (script,)


def test_dot_and_dotdot_stay_as_written(here: Path) -> None:
    spec = parse_bot("python3 bot.py . ..")
    assert spec.command == ["python3", str(here / "bot.py"), ".", ".."]
    assert spec.files == (str(here / "bot.py"),)


def test_a_word_naming_a_directory_is_the_bots_directory(here: Path) -> None:
    """Like a file (`java -cp classes Main`); a word that only happens to name one is passed
    verbatim through a participant table's `args`."""
    spec = parse_bot("python3 bot.py fast slow")
    assert spec.command[2:] == [str(here / "fast"), "slow"]
    assert spec.files == (str(here / "bot.py"), str(here / "fast"))


def test_options_are_never_files(here: Path) -> None:
    (here / "-v").write_text("")
    assert parse_bot("python3 bot.py -v").command[2] == "-v"


def test_a_program_with_a_slash_becomes_absolute(here: Path) -> None:
    spec = parse_bot("./bin/engine -x")
    assert spec.command == [str(here / "bin/engine"), "-x"]
    assert spec.files == (str(here / "bin/engine"),)
    assert parse_bot("bin/../bin/engine").command == [str(here / "bin/engine")]
    missing = parse_bot("./nowhere/engine")
    assert (missing.command, missing.files) == ([str(here / "nowhere/engine")], ())
    assert parse_bot("python3").command == ["python3"]  # looked up on PATH


def test_paths_are_resolved_from_the_base_directory(
    here: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "other.py").write_text("")
    spec = parse_bot("python3 other.py bot.txt", base=elsewhere)
    assert spec.command == ["python3", str(elsewhere / "other.py"), "bot.txt"]


def test_a_name_is_derived_from_the_script_unless_given(here: Path) -> None:
    assert parse_bot("python3 bot.py fast").name == "bot.py"
    assert parse_bot("./bin/engine").name == "engine"
    assert parse_bot("python3 bot.py", name="mine").name == "mine"


@pytest.mark.parametrize(
    ("text", "construct"),
    [
        ("node bot.js | cat", "|"),
        ("python3 bot.py > out.txt", ">"),
        ("cd bots && python3 bot.py", "&"),
        ("python3 bot.py; echo done", ";"),
        ("python3 $HOME/bot.py", "$"),
        ("python3 `which bot`", "`"),
        ("python3 ~/bot.py", "~"),
        ("random | cat", "|"),
    ],
)
def test_shell_syntax_is_refused_with_a_hint(text: str, construct: str) -> None:
    with pytest.raises(BotCommandError) as caught:
        parse_bot(text)
    message = str(caught.value)
    assert f"shell syntax {construct!r}" in message
    assert "without a shell" in message and "wrapper script" in message


def test_quoted_shell_characters_are_plain_arguments(here: Path) -> None:
    assert parse_bot("python3 bot.py '|' \"a;b\" x\\>y a~b").command[2:] == [
        "|",
        "a;b",
        "x>y",
        "a~b",
    ]


@pytest.mark.parametrize("text", ["", "   ", "''"])
def test_empty_commands_are_refused(text: str) -> None:
    with pytest.raises(BotCommandError, match="empty bot command"):
        parse_bot(text)


def test_unbalanced_quotes_are_refused() -> None:
    with pytest.raises(BotCommandError, match="cannot parse bot command"):
        parse_bot("python 'bot.py")


# ---- the table form of a tournament file -----------------------------------------------------

TABLE = """
game = "azul"
[participants]
random = "random"
[participants.mine]
command = ["python3", "bot.py"]
args = ["fast", "bot.py", "--depth=3"]
name = "my-bot"
cwd = "mybot"
files = ["mybot/bot.py", "weights.bin"]
memory_mb = 512
"""


def test_the_table_form_gives_exact_control(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot/bot.py").write_text("")
    (tmp_path / "weights.bin").write_text("")
    (tmp_path / "fast").write_text("")  # args are verbatim even when they name a file
    tournament = decode(TABLE)
    table = tournament.participants["mine"]
    spec = participant_spec("mine", table, tmp_path)
    assert spec.command == ["python3", "bot.py", "fast", "bot.py", "--depth=3"]
    assert spec.cwd == str(tmp_path / "mybot")
    assert spec.files == (str(tmp_path / "mybot/bot.py"), str(tmp_path / "weights.bin"))
    assert spec.name == "my-bot"
    assert tournament.resources("mine").memory_mb == 512


def test_a_string_command_in_a_table_resolves_paths_in_its_cwd(tmp_path: Path) -> None:
    (tmp_path / "mybot").mkdir()
    (tmp_path / "mybot/bot.js").write_text("")
    tournament = decode(
        'game = "azul"\n[participants]\nr = "random"\n'
        '[participants.js]\ncommand = "node bot.js"\ncwd = "mybot"\n'
    )
    spec = participant_spec("js", tournament.participants["js"], tmp_path)
    assert spec.command == ["node", str(tmp_path / "mybot/bot.js")]
    assert spec.files == (str(tmp_path / "mybot/bot.js"),)
    assert (spec.name, spec.cwd) == ("js", str(tmp_path / "mybot"))


def test_a_participants_key_is_its_given_name(tmp_path: Path) -> None:
    (tmp_path / "bot.py").write_text("")
    spec = participant_spec("alpha", "python3 bot.py", tmp_path)
    assert (spec.name, spec.cwd) == ("alpha", None)


@pytest.mark.parametrize(
    ("table", "error"),
    [
        ('command = "python3 bot.py"\ncwd = "nowhere"', "cwd 'nowhere' is not a directory"),
        ('command = "python3 bot.py"\nfiles = ["gone.bin"]', "files: 'gone.bin' does not exist"),
        ('command = "node bot.js | cat"', "wrapper script"),
    ],
)
def test_table_mistakes_are_explained(tmp_path: Path, table: str, error: str) -> None:
    (tmp_path / "bot.py").write_text("")
    tournament = decode(f'game = "azul"\n[participants]\nr = "random"\n[participants.x]\n{table}\n')
    with pytest.raises(BotCommandError, match=error):
        participant_spec("x", tournament.participants["x"], tmp_path)


def test_an_empty_command_list_is_refused() -> None:
    with pytest.raises(ConfigError, match="command"):
        decode('game = "azul"\n[participants]\nr = "random"\n[participants.x]\ncommand = []\n')


def test_what_decides_a_bot_is_in_its_hash(tmp_path: Path) -> None:
    """Changing the cwd, the args or a marked file makes a new entry (a new hash)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "weights.bin").write_text("1")

    def entry(extra: str) -> str:
        tournament = decode(
            'game = "azul"\n[participants]\nr = "random"\n'
            f'[participants.x]\ncommand = ["python3", "bot.py"]\n{extra}\n'
        )
        table = tournament.participants["x"]
        return entrant("x", table, tmp_path).hash

    base = entry('cwd = "a"\nfiles = ["weights.bin"]')
    assert entry('cwd = "b"\nfiles = ["weights.bin"]') != base
    assert entry('cwd = "a"\nfiles = ["weights.bin"]\nargs = ["x"]') != base
    (tmp_path / "weights.bin").write_text("2")
    assert entry('cwd = "a"\nfiles = ["weights.bin"]') != base
    assert written("python3  bot.py ") == "python3  bot.py"


def test_a_built_in_with_arguments_is_hashed_with_its_sources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`mcts --ms 50` is the built-in `mcts`: a change of its code makes a new entry too."""
    import tournaments.plan.entrants as entrants

    before = entrant("m", "random --unused 1").hash
    real = entrants._builtin_files
    monkeypatch.setattr(entrants, "_builtin_files", lambda module: [])
    assert entrant("m", "random --unused 1").hash != before  # the sources were in the hash
    monkeypatch.setattr(entrants, "_builtin_files", real)
    assert entrant("m", "random --unused 1").hash == before


# ---- end to end ------------------------------------------------------------------------------

NAMED_BOT = """
import json, os, sys
name = os.path.basename(os.path.dirname(os.path.abspath(__file__)))
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        reply = {"type": "ready", "name": name}
    elif message["type"] == "act":
        reply = {"type": "action", "id": message["id"], "index": 0}
    elif message["type"] == "quit":
        break
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def _arena(*args: str, cwd: Path) -> dict[str, object]:
    done = subprocess.run(
        [*ARENA, *args, "--json"], capture_output=True, text=True, timeout=120, cwd=cwd, check=False
    )
    assert done.returncode == 0, done.stderr
    outcome: dict[str, object] = json.loads(done.stdout)
    return outcome


@pytest.fixture
def open_dir() -> Iterator[Path]:
    """A temporary directory any user may enter: a root referee runs sandboxed bots as an
    unprivileged uid, which cannot reach into pytest's private temporary directories."""
    directory = Path(tempfile.mkdtemp(prefix="arena-test-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory)


def test_bots_named_only_by_their_command_show_their_ready_names(open_dir: Path) -> None:
    """Two copies of one script show as the names they say they are ready as, not as
    `bot.py` twice; a given name is kept."""
    for name in ("alpha", "beta"):
        (open_dir / name).mkdir()
        (open_dir / name / "bot.py").write_text(NAMED_BOT)
    python = sys.executable
    outcome = _arena(
        "match", "--game", "azul", "--seed", "3",
        f"{python} alpha/bot.py", f"{python} beta/bot.py", "random",
        cwd=open_dir,
    )  # fmt: skip
    assert outcome["faults"] == []
    assert outcome["bots"] == ["alpha", "beta", "random"]


def test_the_sandbox_shows_a_bot_its_files_not_the_directory_it_was_started_from(
    open_dir: Path,
) -> None:
    """A bot started from a directory sees its own files in the sandbox, not that directory
    (`.` is not made absolute and bound): a secret beside it stays unread."""
    (open_dir / "secret.txt").write_text("the store")
    (open_dir / "bot").mkdir()
    (open_dir / "bot/bot.py").write_text(
        f"import os, sys\nif os.path.exists({str(open_dir / 'secret.txt')!r}):\n"
        "    sys.exit('I can read the secret')\n" + NAMED_BOT
    )
    outcome = _arena(
        "match", "--game", "azul", "--seed", "1", "--sandbox", "bwrap",
        f"{sys.executable} bot/bot.py .", "random",
        cwd=open_dir,
    )  # fmt: skip
    assert outcome["faults"] == []


CHECKING_BOT = """
import os, sys
seen = (os.getcwd(), sys.argv[1:], open("../data/weights.txt").read())
if seen != ({cwd!r}, ["fast", "."], "w"):
    sys.exit(f"ran with {{seen}}")
"""


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
async def test_a_table_bot_runs_in_its_cwd_with_its_args_and_reads_its_files(
    open_dir: Path, sandbox: Literal["none", "bwrap"]
) -> None:
    (open_dir / "home").mkdir()
    (open_dir / "data").mkdir()
    (open_dir / "data/weights.txt").write_text("w")
    (open_dir / "home/bot.py").write_text(
        CHECKING_BOT.format(cwd=os.path.realpath(open_dir / "home")) + NAMED_BOT
    )
    tournament = decode(
        'game = "azul"\n[participants]\nr = "random"\n'
        f'[participants.mine]\ncommand = ["{sys.executable}", "bot.py"]\n'
        'args = ["fast", "."]\ncwd = "home"\nfiles = ["data/weights.txt"]\n'
    )
    specs = [participant_spec("mine", tournament.participants["mine"], open_dir)]
    specs.append(parse_bot("random"))
    limits = Limits(log_dir=str(open_dir / "logs"), sandbox=sandbox)
    outcome = await run_match("azul", {}, 5, specs, TimeControl(startup_ms=20_000), limits=limits)
    assert outcome.faults == []


def test_arena_run_plays_a_table_participant(open_dir: Path) -> None:
    """The table goes from the file through the store's entry to the bot's process."""
    (open_dir / "home").mkdir()
    (open_dir / "data").mkdir()
    (open_dir / "data/weights.txt").write_text("w")
    (open_dir / "home/bot.py").write_text(
        CHECKING_BOT.format(cwd=os.path.realpath(open_dir / "home")) + NAMED_BOT
    )
    (open_dir / "t.toml").write_text(
        'game = "azul"\ndeals = 1\nconcurrency = 1\n[participants]\nr = "random"\n'
        f'[participants.mine]\ncommand = ["{sys.executable}", "bot.py"]\n'
        'args = ["fast", "."]\ncwd = "home"\nfiles = ["data/weights.txt"]\n'
    )
    done = subprocess.run(
        [*ARENA, "run", "t.toml", "--quiet", "--strict", "-t", "faults", "--json"],
        capture_output=True, text=True, timeout=300, cwd=open_dir, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr + done.stdout
    assert json.loads(done.stdout)["faults"] == []
