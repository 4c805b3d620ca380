"""No game is stored unchecked: the coordinator replays each game a worker sends back from the
deal it sent, refuses one that does not replay (kept for inspection, its worker sent no more
units, the game played again), and records which worker played every stored game."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import msgspec
import pytest
import trio
from tourhelp import ARENA, run

from referee import Limits
from tournaments.executors.checking import checking
from tournaments.executors.inprocess import InProcess
from tournaments.executors.local import Local
from tournaments.executors.verify import refusal
from tournaments.executors.work import (
    TAMPER,
    Deal,
    GameDone,
    Result,
    Seat,
    UnitWork,
    play_games,
    play_unit,
)
from tournaments.plan.botcommands import parse_bot
from tournaments.plan.prepare import Prepared, prepare
from tournaments.play.runner import PASSES, Runner, in_batches
from tournaments.store.results import FaultRow
from tournaments.store.store import Store

TOURNAMENT = """
game = "azul"
deals = 2
seed = 5
concurrency = 2

[participants]
random = "random"
greedy = "greedy"
"""
GAMES = 4
"""1 seat-set × 2 deals × 2 rotations."""


@pytest.fixture
def file(tmp_path: Path) -> Path:
    path = tmp_path / "cup.toml"
    path.write_text(TOURNAMENT)
    return path


def one_game() -> tuple[UnitWork, GameDone]:
    """A unit of one deal of two random bots, and its game as a worker sends it back."""
    seats = [Seat(parse_bot("random"), "random", "unchecked") for _ in range(2)]
    unit = UnitWork(
        game="azul",
        options={},
        seat_set=(1, 2),
        seats=seats,
        rotation=0,
        deals=[Deal(0, 1234, [1, 2])],
        limits=Limits(sandbox="none"),
        tag="1,2",
    )
    results: list[Result] = []
    trio.run(play_games, unit, results.append)  # `play_unit` but for the hash check
    (game,) = results
    assert isinstance(game, GameDone)
    return unit, game


def test_a_game_as_played_passes_and_every_alteration_is_refused_saying_what() -> None:
    unit, game = one_game()
    assert refusal(unit, game) is None
    played = game.played
    altered = {
        "score": msgspec.structs.replace(
            game, played=msgspec.structs.replace(played, scores=[99, *played.scores[1:]])
        ),
        "rank": msgspec.structs.replace(
            game, played=msgspec.structs.replace(played, ranks=list(reversed(played.ranks)))
        ),
        "decisions": msgspec.structs.replace(game, decisions=game.decisions - 1),
        "seed": msgspec.structs.replace(game, seed=game.seed + 1),
        "deal": msgspec.structs.replace(game, deal=7),
        "fault": msgspec.structs.replace(
            game,
            played=msgspec.structs.replace(
                played, faults=[*played.faults, FaultRow(1, "timeout", "invented", 3)]
            ),
        ),
        "record": msgspec.structs.replace(game, record=game.record[: len(game.record) // 2]),
        "garbage": msgspec.structs.replace(game, record=b"\xff not a record"),
    }
    reasons = {what: refusal(unit, bad) for what, bad in altered.items()}
    assert all(reasons.values()), reasons
    assert "replays to" in str(reasons["score"]) and "faults" in str(reasons["fault"])
    assert "not sent" in str(reasons["deal"]) and "seed" in str(reasons["seed"])
    other_deal = msgspec.structs.replace(unit, deals=[Deal(0, 999, [1, 2])])
    assert "seed" in str(refusal(other_deal, game))  # the record of another deal


@pytest.mark.parametrize("how", ["score", "action"])
def test_a_tampering_worker_has_every_game_refused_and_kept_then_an_honest_one_stores_them(
    file: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TAMPER, how)
    report = run(file, InProcess(2))
    assert report.played == 0 and len(report.refused) == GAMES * (PASSES + 1)
    with Store(file.with_suffix(".sqlite"), readonly=True) as store:
        assert store.games() == []
        refused = store.refused_games()
        (worker,) = store.workers()
    assert len(refused) == len(report.refused) and worker.refused == len(refused)
    assert worker.worker.endswith("(in process)") and worker.games == 0
    expected = "replays to" if how == "score" else "does not replay"
    assert all(expected in reason for _, reason, _ in refused), refused[0][1]
    assert all(record.startswith(b'{"type":"header"') for _, _, record in refused)

    monkeypatch.delenv(TAMPER)
    report = run(file, InProcess(2))
    assert report.played == GAMES and report.refused == []
    with Store(file.with_suffix(".sqlite"), readonly=True) as store:
        (worker,) = store.workers()
    assert (worker.games, worker.refused) == (GAMES, len(refused))


def test_a_refused_referee_process_gets_no_more_units(
    file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The local executor's referee processes all tamper (they inherit the variable): each one
    whose game is refused is replaced before its next unit, so no process sends the games of
    more than one unit (of at most 2 deals)."""
    monkeypatch.setenv(TAMPER, "score")
    executor = Local(1)
    report = run(file, executor)
    workers = [refused.worker for refused in report.refused]
    assert len(workers) == GAMES * (PASSES + 1)
    assert max(Counter(workers).values()) <= 2 and len(set(workers)) >= 2 * (PASSES + 1)
    assert executor.refused == set(workers)


def test_arena_workers_lists_who_played_and_what_was_refused(
    file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TAMPER, "score")
    run(file, InProcess(1))
    monkeypatch.delenv(TAMPER)
    run(file, Local(2))
    shown = subprocess.run(
        [*ARENA, "workers", str(file), "--refused"], capture_output=True, text=True, check=True
    ).stdout
    assert "timeouts/1k decisions" in shown and "(in process)" in shown and " pid " in shown
    assert "refused from" in shown and "its record replays to" in shown
    saved = tmp_path / "refused"
    subprocess.run([*ARENA, "workers", str(file), "--save", str(saved)], check=True)
    replayed = subprocess.run(
        [*ARENA, "replay", str(saved / "refused-1.jsonl")], capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stderr  # the record itself replays: the score lied
    rows = json.loads(
        subprocess.run(
            [*ARENA, "workers", str(file), "--json"], capture_output=True, text=True, check=True
        ).stdout
    )
    assert sum(row["games"] for row in rows) == GAMES
    assert sum(row["refused"] for row in rows) == GAMES * (PASSES + 1)
    assert all(row["decisions"] > 0 for row in rows if row["games"])


def test_play_unit_still_checks_the_bots_it_does_not_bundle() -> None:
    """A seat whose files do not travel (a built-in) must hash here as on the coordinator."""
    unit, _ = one_game()
    with pytest.raises(Exception, match="hash to"):
        play_unit(unit)


def test_checking_processes_settle_every_game_once_storing_or_refusing_it(
    tmp_path: Path,
) -> None:
    """Games from other machines are replayed in processes of their own: each is settled
    once, by its own check, whatever batch it travelled in."""
    unit, game = one_game()
    units = [msgspec.structs.replace(unit, deals=[Deal(n, game.seed, [1, 2])]) for n in range(40)]
    games = [msgspec.structs.replace(game, deal=n) for n in range(40)]
    lying = msgspec.structs.replace(games[7], decisions=game.decisions + 1)
    prepared = prepare_pair(tmp_path)
    try:
        runner = Runner(
            prepared.tournament, prepared.store, prepared.players, limits=prepared.limits
        )

        async def deliver_all() -> None:
            for work, done in zip(units, [*games[:7], lying, *games[8:]], strict=True):
                runner.deliver(work, done)
                await trio.lowlevel.checkpoint()

        with checking(2) as checker:
            runner.checker = checker
            trio.run(in_batches, prepared.store, deliver_all, checker)
        assert runner.played == 39 and [r.deal for r in runner.refused] == [7]
        assert "decisions" in runner.refused[0].reason
        assert sorted(g.deal for g in prepared.store.games()) == [n for n in range(40) if n != 7]
    finally:
        prepared.close()


def prepare_pair(tmp_path: Path) -> Prepared:
    """Two random bots on a store whose ids are 1 and 2 (the seat-set of `one_game`)."""
    file = tmp_path / "pair.toml"
    file.write_text(TOURNAMENT.replace('greedy = "greedy"', 'twin = "random"'))
    return prepare(file)
