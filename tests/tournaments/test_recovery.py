"""Recovery in a tournament: a referee bug voids one game with a reproducing command, and a bot
that keeps faulting is put on probation, while every other game is played and stored."""

from __future__ import annotations

import shlex
import sys
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.games import find_game
from tournaments.cli import main
from tournaments.plan.prepare import prepare
from tournaments.plan.schedule import deal_seed
from tournaments.play.runner import Runner, RunReport
from tournaments.store.store import Store

BOTS = Path(__file__).resolve().parents[1] / "bots"

TOURNAMENT = """
game = "azul"
deals = 2
seed = 5
concurrency = 2
probation_after = 2

[time]
move_ms = 30000                 # healthy bots on a loaded machine are never late

[participants]
a = "{python} {bots}/healthy.py {marker}"
b = "{python} {bots}/healthy.py pick=last {marker}"
c = "{python} {bots}/{third} {marker}"
"""


async def play(tmp_path: Path, third: str) -> tuple[RunReport, Path, list[tuple[str, str]]]:
    file = tmp_path / "cup.toml"
    marker = f"--marker=arena-recovery-{uuid.uuid4().hex}"
    file.write_text(TOURNAMENT.format(python=sys.executable, bots=BOTS, marker=marker, third=third))
    prepared = prepare(file)
    on_probation: list[tuple[str, str]] = []
    try:
        runner = Runner(
            prepared.tournament,
            prepared.store,
            prepared.players,
            limits=prepared.limits,
            on_probation=lambda label, fault: on_probation.append((label, fault)),
        )
        report = await runner.run()
    finally:
        prepared.close()
    return report, file.with_suffix(".sqlite"), on_probation


@pytest.mark.slow
def test_an_engine_bug_voids_the_game_and_prints_how_to_reproduce_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    azul = type(find_game("azul"))
    with Store(tmp_path / "cup.sqlite") as store:  # the store `play` will use: its secret
        # Deal 1 at every table (a, b, c are the store's bots 1, 2, 3).
        buggy_seeds = {deal_seed(store.secret(), 5, table, 1) for table in ("1,2", "1,3", "2,3")}
    buggy: list[Any] = []  # the states themselves: their ids are not reused while they live
    new, apply = azul.new, azul.apply

    def new_with_bug(self: Any, players: int, seed: int, options: Any = None) -> Any:
        state = new(self, players, seed, options)
        if seed in buggy_seeds:
            buggy.append(state)
        return state

    def apply_with_bug(self: Any, state: Any, actions: Mapping[int, Any]) -> None:
        if any(state is doomed for doomed in buggy):
            raise IndexError("a bug in the rules engine")
        apply(self, state, actions)

    monkeypatch.setattr(azul, "new", new_with_bug)
    monkeypatch.setattr(azul, "apply", apply_with_bug)
    report, db, _ = trio.run(play, tmp_path, "healthy.py")  # sync: `arena match` runs trio too

    # Deal 1 is voided in each of its 3 pairings × 2 seatings; deal 0 is played and stored.
    assert report.total == 12 and report.played == 6 and len(report.voided) == 6
    with Store(db) as store:
        games = store.games()
    assert {game.deal for game in games} == {0}
    assert all(game.played.faults == [] for game in games)  # no bot is blamed
    voided = report.voided[0]
    assert voided.deal == 1 and voided.error == "IndexError: a bug in the rules engine"
    words = shlex.split(voided.command)
    assert words[:5] == ["arena", "match", "--game", "azul", "--seed"]
    assert int(words[5]) in buggy_seeds
    # The command reproduces the bug (the patched engine is still in place).
    monkeypatch.chdir(tmp_path)
    with pytest.raises(IndexError, match="a bug in the rules engine"):
        main(words[1:])


@pytest.mark.slow
async def test_a_bot_faulting_game_after_game_is_put_on_probation(tmp_path: Path) -> None:
    report, db, on_probation = await play(tmp_path, "broken.py crash_start")
    assert report.probation == ["c"]
    [(label, fault)] = on_probation
    assert label == "c" and fault.startswith("crash: exited (exit code 3)")
    with Store(db) as store:
        games = store.games()
    assert len(games) == 12  # its games go on being played (and forfeited)
    assert sum(bool(game.played.faults) for game in games) == 8
