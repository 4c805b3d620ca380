"""Small everyday defects of the `arena` command line (issue 23, item 14), as a user meets them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from clihelp import arena

from tournaments.cli import main
from tournaments.plan.config import ConfigError, decode

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo.toml"


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """The one-line error of a command refused before anything runs (exit code 2)."""
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_misspelt_option_value_lists_the_choices_and_suggests_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = usage_error(
        capsys, "match", "--game", "azul", "--option", "variant=gray", "greedy", "random"
    )
    assert 'variant = "gray" is not one of "standard", "grey"; did you mean "grey"?' in err
    # Far from every choice: the choices, and no guess.
    err = usage_error(
        capsys, "match", "--game", "5211", "--option", "variant=x", "random", "random"
    )
    assert 'variant = "x" is not one of "standard", "long"' in err and "did you mean" not in err
    # In a tournament file, the same words, after the file's name.
    text = DEMO.read_text().replace("players = 2", 'players = 2\noptions = {variant = "gray"}')
    with pytest.raises(ConfigError, match=r'^cup.toml: .*did you mean "grey"\?'):
        decode(text, "cup.toml")


def test_a_misspelt_option_key_is_suggested_as_tournament_keys_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = usage_error(
        capsys, "match", "--game", "azul", "--option", "varient=grey", "greedy", "random"
    )
    assert "unknown option `varient`; did you mean `variant`?" in err


def test_one_bot_is_one_bot(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "match", "--game", "azul", "greedy")
    assert err.endswith("azul takes 2-4 players, got 1 bot\n")
    err = usage_error(capsys, "match", "--game", "azul", *["random"] * 5)
    assert err.endswith("got 5 bots\n")


def test_match_quiet_prints_only_the_result_table(tmp_path: Path) -> None:
    args = ("match", "--game", "5211", "greedy", "random", "--seed", "3", "--sandbox", "none")
    loud = arena(*args, cwd=tmp_path).stdout
    quiet = arena(*args, "-q", cwd=tmp_path)
    assert quiet.stderr == ""
    lines = quiet.stdout.splitlines()
    assert lines[0].split() == [
        "seat",
        "bot",
        "score",
        "rank",
        "decisions",
        "ms/decision",
        "faults",
    ]
    assert len(lines) == 4  # header, rule, two seats
    assert "record:" in loud and "options:" in loud and "seed 3" in loud
    assert not any(word in quiet.stdout for word in ("record:", "options:", "seed 3"))
    # The record is still written; --json is unchanged by -q (it names the record).
    assert len(list((tmp_path / "arena-records").iterdir())) == 2
    assert "record" in json.loads(arena(*args, "-q", "--json", cwd=tmp_path).stdout)


def test_match_help_lists_every_built_in_bot_and_the_real_memory_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["match", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a built-in bot (random, greedy, mcts, expert)" in text
    memory = text[text.index("--memory-mb") :]
    assert "total memory of all the bot's processes" in memory
    assert "cgroup" in memory and "address space per process" in memory


def test_compare_names_a_bot_by_its_ready_name_as_match_does(tmp_path: Path) -> None:
    other = f"{sys.executable} -m bots.random"
    args = ("--game", "5211", "--seed", "1", "--sandbox", "none")
    match = arena("match", *args, "greedy", other, "--json", cwd=tmp_path).stdout
    assert json.loads(match)["bots"] == ["greedy", "random"]
    compare = arena(
        "compare", "greedy", other, *args, "--max-deals", "1", "-j", "1", "--json", cwd=tmp_path
    ).stdout
    result = json.loads(compare)
    assert (result["a"], result["b"]) == ("greedy", "random")
    assert result["verdict"] == "no decision after 1 deal (raise --max-deals to go on)"


def test_the_demo_does_not_call_a_command_a_shell_command() -> None:
    comments = " ".join(line.partition("#")[2].strip() for line in DEMO.read_text().splitlines())
    assert "shell command" not in comments
    built_in = "built-in bot (random, greedy, mcts, expert) or a command line, run without a shell"
    assert built_in in comments
