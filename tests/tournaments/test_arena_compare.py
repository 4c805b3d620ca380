"""`arena compare`: the SPRT stops early with the right verdict when the gap is large."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

from tourhelp import arena

BOTS = Path(__file__).resolve().parents[1] / "bots"


def compare(*args: str) -> str:
    return arena("compare", *args, "--move-ms", "5000").stdout


def test_greedy_beats_random_early() -> None:
    result = json.loads(compare("greedy", "random", "--game", "azul", "--elo1", "50", "--json"))
    assert result["decision"] == "H1"
    assert result["verdict"].startswith("greedy is stronger than random")
    assert 3 <= result["deals"] <= 60  # stops early: far below --max-deals
    assert result["games"] == 2 * result["deals"]  # every deal in both seatings
    assert result["llr"] >= result["upper"]
    assert result["elo"] > 50 and result["elo_lo"] > 0
    assert result["score"] > 0.8 and result["los"] > 0.99


def test_random_is_not_stronger_than_greedy() -> None:
    out = compare("random", "greedy", "--game", "azul", "--elo0", "-20", "--elo1", "20")
    assert "random is not stronger than greedy by 20: H0 (Elo ≤ -20) accepted" in out
    assert "Elo difference   -" in out


def test_three_players_with_a_field_and_csv() -> None:
    out = compare("greedy", "random", "--game", "5211", "--players", "3", "--elo1", "100", "--csv")
    (row,) = csv.DictReader(io.StringIO(out))
    assert row["verdict"].startswith("greedy is stronger")
    assert row["field"] == "random#2"
    # Each deal: three rotations, then again with greedy and random swapped.
    assert int(row["games"]) == 6 * int(row["deals"])


def test_undecided_at_max_deals() -> None:
    out = compare("random", "random", "--game", "5211", "--max-deals", "2", "--json")
    result = json.loads(out)
    assert result["decision"] is None
    assert result["deals"] == 2
    assert "no decision after 2 deals" in result["verdict"]
    assert result["b"] == "random#2"


def test_strict_exits_3_when_a_bot_faulted() -> None:
    crasher = f"{sys.executable} {BOTS}/broken.py crash_mid after=1"
    args = ("random", crasher, "--game", "azul", "--max-deals", "2", "--json")
    lenient = arena("compare", *args, "--move-ms", "5000")
    assert json.loads(lenient.stdout)["faulty_games"] == 4
    strict = arena("compare", *args, "--move-ms", "5000", "--strict", code=3)
    assert "4 games had a faulty bot" in strict.stderr


def test_cpu_time_mode_charges_only_what_a_bot_computes() -> None:
    """A bot that sleeps past its move time answers late on the wall clock, never on its CPU
    clock."""
    sleeper = f"{sys.executable} {BOTS}/broken.py sleepy ms=150"
    args = ("random", sleeper, "--game", "azul", "--max-deals", "1", "--move-ms", "100", "--json")
    assert json.loads(arena("compare", *args).stdout)["faulty_games"] == 2
    cpu = json.loads(arena("compare", *args, "--time-mode", "cpu").stdout)
    assert cpu["faulty_games"] == 0 and cpu["games"] == 2


def test_a_built_in_with_arguments_gets_a_one_word_name() -> None:
    result = json.loads(
        compare("random", "random --unused 1", "--game", "azul", "--max-deals", "1", "--json")
    )
    assert (result["a"], result["b"]) == ("random", "random-unused-1")
