"""Directories named in a bot's command, and scripts that are not there.

A directory argument (`java -cp DIR Main`, `python3 DIR` running DIR/__main__.py, a class path
`a:b`) is made absolute and bound read-only in the sandbox like a file argument, not resolved in
the bot's private directory (where the bot would crash without saying why). A script that does
not exist is refused before the game, naming where it was looked for, not at a path in the
bot's private directory. A directory holding the tournament's files cannot be a bot's own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tournaments.cli import main
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.entrants import entrant

JAVA_BOT = """
import java.io.*;
import java.util.regex.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        Pattern id = Pattern.compile("\\"id\\":(\\\\d+)");
        for (String line; (line = in.readLine()) != null; ) {
            if (line.startsWith("{\\"type\\":\\"start\\"")) {
                System.out.println("{\\"type\\":\\"ready\\",\\"name\\":\\"java-first\\"}");
            } else if (line.startsWith("{\\"type\\":\\"act\\"")) {
                Matcher m = id.matcher(line);
                m.find();
                String answer = "{\\"type\\":\\"action\\",\\"id\\":" + m.group(1);
                System.out.println(answer + ",\\"index\\":0}");
            } else if (line.startsWith("{\\"type\\":\\"quit\\"")) {
                return;
            }
            System.out.flush();
        }
    }
}
"""

PACKAGE_MAIN = """
from helper import choose  # a module beside it: the whole directory is the bot's
from bots.sdk import run

run(choose, name="package-bot")
"""


def play(capsys: pytest.CaptureFixture[str], *bots: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["match", "--game", "azul", *bots, "--sandbox", "bwrap", "--json", "-q"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_directory_words_are_made_absolute_and_are_the_bots_files(tmp_path: Path) -> None:
    (tmp_path / "classes").mkdir()
    (tmp_path / "lib").mkdir()
    spec = parse_bot("java -cp classes:lib Main fast", base=tmp_path)
    joined = f"{tmp_path / 'classes'}:{tmp_path / 'lib'}"
    assert list(spec.command) == ["java", "-cp", joined, "Main", "fast"]
    assert set(spec.files) == {str(tmp_path / "classes"), str(tmp_path / "lib")}
    assert list(parse_bot("python3 . ..", base=tmp_path).command) == ["python3", ".", ".."]


@pytest.mark.slow
@pytest.mark.needs("javac", "java")
def test_java_cp_dir_main_plays_in_the_sandbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "src" / "Main.java"
    source.parent.mkdir()
    source.write_text(JAVA_BOT)
    classes = tmp_path / "classes"
    subprocess.run(["javac", "-d", str(classes), str(source)], check=True, timeout=120)
    for path in (tmp_path, classes):
        path.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    code, out = play(capsys, "java -cp classes Main", "random")
    assert code == 0, out
    assert '"faults":[]' in out.replace(" ", "")


@pytest.mark.slow
def test_a_directory_run_by_its_interpreter_plays_in_the_sandbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "mybot"
    package.mkdir()
    (package / "__main__.py").write_text(PACKAGE_MAIN)
    (package / "helper.py").write_text("def choose(observation, legal, context):\n    return 0\n")
    for path in (tmp_path, package):
        path.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    code, out = play(capsys, f"{sys.executable} mybot", "random")
    assert code == 0, out
    assert '"faults":[]' in out.replace(" ", "")


WEIGHTS_BOT = """
from pathlib import Path
from bots.sdk import run

WEIGHT = int(Path("../data/weights.txt").read_text())  # a file its command does not name

run(lambda observation, legal, context: WEIGHT % len(legal), name="weighted")
"""


@pytest.mark.slow
def test_match_gives_a_seat_a_cwd_and_files_like_a_tournament_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena match --cwd 0=bot --files 0=data/weights.txt`: the bot runs in bot/ and reads a
    file its command does not name; without --files the sandbox hides that file."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text(WEIGHTS_BOT)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "weights.txt").write_text("7\n")
    for path in (tmp_path, tmp_path / "bot", tmp_path / "data"):
        path.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    command = f"{sys.executable} main.py"
    code, out = play(capsys, "--cwd", "0=bot", "--files", "0=data/weights.txt", command, "random")
    assert code == 0, out
    assert '"faults":[]' in out.replace(" ", "") and "weighted" in out
    code, out = play(capsys, "--cwd", "0=bot", command, "random")
    assert code != 0 and "weights.txt" in out  # its crash says what it could not read


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--cwd", "2=bot"], "there is no seat 2; the 2 bots sit in seats 0-1"),
        (["--cwd", "bot"], "expected SEAT=PATH"),
        (["--cwd", "0=bot", "--cwd", "0=other"], "seat 0 is given 2 directories"),
        (["--files", "0=nosuch.bin"], "files: 'nosuch.bin' does not exist"),
        (["--cwd", "0=nosuch"], "cwd 'nosuch' is not a directory"),
        (["--cwd", "1=bot"], "'random' is a built-in bot: cwd and files are for commands"),
    ],
)
def test_match_seat_flags_are_checked_before_the_game(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    said: str,
) -> None:
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text(WEIGHTS_BOT)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = main(["match", "--game", "azul", *flags, f"{sys.executable} bot/main.py", "random"])
    assert code == 2
    assert said in capsys.readouterr().err


def test_a_missing_script_is_refused_before_the_game_naming_where_it_was_looked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = play(capsys, "python3 nosuch_bot.py", "random")
    assert code == 2
    assert "'nosuch_bot.py' looks like a script but there is no such file" in out
    assert f"looked for {tmp_path / 'nosuch_bot.py'}" in out
    # Words that are not scripts are passed as written, present or not.
    assert list(parse_bot("python3 -m pkg.main weights.bin").command)[1:] == [
        "-m",
        "pkg.main",
        "weights.bin",
    ]


@pytest.mark.slow
def test_a_directory_holding_the_tournament_cannot_be_a_bots_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bot.py").write_text("raise SystemExit('never run')\n")
    file = tmp_path / "cup.toml"
    file.write_text(
        'game = "azul"\ndeals = 1\nsandbox = "bwrap"\n[participants]\nrandom = "random"\n'
        '[participants.mine]\ncommand = "python3 bot.py"\ncwd = "."\n'
    )
    capsys.readouterr()
    assert main(["run", str(file), "-q"]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path} holds the tournament's own files" in err
    assert "give the bot a directory of its own" in err


def test_a_file_changed_inside_a_named_directory_is_a_new_version(tmp_path: Path) -> None:
    classes = tmp_path / "classes"
    (classes / "bot").mkdir(parents=True)
    (classes / "bot" / "Main.class").write_bytes(b"one")
    first = entrant("java", "java -cp classes bot.Main", tmp_path).hash
    assert entrant("java", "java -cp classes bot.Main", tmp_path).hash == first
    (classes / "bot" / "Main.class").write_bytes(b"two")
    assert entrant("java", "java -cp classes bot.Main", tmp_path).hash != first


@pytest.mark.parametrize("source", ["/dev/zero", "big"])
def test_a_tournament_file_that_is_no_page_of_toml_is_refused_unread(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    path = Path(source) if source.startswith("/") else tmp_path / "big.toml"
    if source == "big":
        path.write_text("# " + "x" * (2 << 20) + '\ngame = "azul"\n')
    capsys.readouterr()
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "over 1048576 bytes, which no tournament file is" in err
