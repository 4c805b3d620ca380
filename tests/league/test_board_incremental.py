"""The kept board: fed the games stored since its last refresh, batch after batch, it equals
the board made from scratch (`compute`), a removed bot and a bot's new version (its older one
renamed in every game) included; with
its bootstrap spread over refreshes, the Elo is always of every game and the intervals catch
up."""

from __future__ import annotations

import math
import random
from array import array
from pathlib import Path

import msgspec
import pytest
import trio

from tournaments.league import board as board_module
from tournaments.league import board_keeper
from tournaments.league.board import (
    Board,
    Keeping,
    Refresh,
    Running,
    compute,
    head_to_head,
    history,
)
from tournaments.league.board_keeper import BoardKeeper
from tournaments.league.shelf import Shelf, shelf_path
from tournaments.rank.ratings import mu_series
from tournaments.rank.tables import pairs, standings
from tournaments.store.exclusion import hidden, visible
from tournaments.store.results import FinishedGame, Played
from tournaments.store.store import Store, bot_of, seat_set_key


def _add_games(
    store: Store, names: list[str], seats: int, deals: range, rng: random.Random
) -> None:
    """Every rotation of `deals` deals of random seat sets of `names` (their newest versions),
    with random finishing orders."""
    ids = {row.name: row.id for row in store.bots()}
    for deal in deals:
        chosen = [ids[name] for name in rng.sample(names, seats)]
        for rotation in range(seats):
            sitting = chosen[rotation:] + chosen[:rotation]
            ranks = [rng.randint(1, seats) for _ in sitting]
            store.add_game(
                seat_set=seat_set_key(chosen),
                deal=deal,
                rotation=rotation,
                seed=deal,
                bots=sitting,
                played=Played(
                    scores=[10 * (seats - rank) for rank in ranks],
                    ranks=ranks,
                    moves=[5] * seats,
                    think_ms=[rng.random() * 9 for _ in sitting],
                ),
                decisions=5 * seats,
                record=b"{}\n",
            )


def _without_time(board: Board) -> bytes:
    return msgspec.json.encode(msgspec.structs.replace(board, made=0.0))


def _assert_shelf_from_scratch(path: Path) -> None:
    """The shelf holds every bot's head-to-head rows, from its side, its opponents by their
    place, and its rating over time, as made from scratch from the store."""
    with Store(path, readonly=True) as store:
        shown = visible([game for _, game in store.games_as_stored()], hidden(store, []))
    order = [str(row["bot"]) for row in standings(shown).records()]
    everything = Board(len(shown), [], pairs(shown, order).records())
    place = {bot: n for n, bot in enumerate(order)}
    with Shelf(shelf_path(path)) as shelf:
        for bot in order:
            rows = sorted(head_to_head(everything, bot), key=lambda row: place[row["opponent"]])
            assert rows and shelf.opponents(bot, 0, len(order)).rows == rows
            middle = shelf.opponents(bot, 1, 2)
            assert middle.rows == rows[1:3] and middle.more == (len(rows) > 3)
        series = mu_series(shown, bot_of)
        assert {bot: shelf.history(bot) for bot in series} == {
            bot: history(values) for bot, values in series.items()
        }


class _CountedStore(Store):
    opened = 0

    def __init__(self, path: Path | str, *, readonly: bool = False) -> None:
        _CountedStore.opened += 1
        super().__init__(path, readonly=readonly)


@pytest.mark.parametrize("seats", [2, 3])
def test_the_kept_board_equals_the_board_from_scratch_batch_after_batch(
    tmp_path: Path, seats: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_module, "Store", _CountedStore)
    monkeypatch.setattr(_CountedStore, "opened", 0)
    path = tmp_path / "league.sqlite"
    names = ["ann", "ann-x", "bob", "dee", "eve"]  # ann@… orders after ann-x, ann before
    rng = random.Random(seats)
    keeping = Keeping()
    with Store(path) as store:
        store.bind({"game": "azul", "players": seats})
        for name in names:
            store.bot(name, name, f"{name}-1")
    runnings = []
    for batch in range(4):
        with Store(path) as store:
            if batch == 2:
                store.exclude([store.bot("dee", "dee", "dee-1").id])  # removed: games left out
            if batch == 3:
                store.bot("ann", "ann", "ann-2")  # a new version: the older one is ann@ann-1
            _add_games(store, names, seats, range(10 * batch, 10 * batch + 7), rng)
        refreshed = keeping.refresh(Refresh(str(path), budget_s=math.inf, keep=["bob"]))
        runnings.append(keeping.running)
        scratch = compute(path, keep=["bob"])
        assert not refreshed.drawing and refreshed.board.resampled == refreshed.board.games
        assert _without_time(refreshed.board) == _without_time(scratch)
        assert scratch.pairs and all(
            "bob" in (row["bot"], row["opponent"]) for row in scratch.pairs
        )
        _assert_shelf_from_scratch(path)
        assert scratch.games > 0 and all(row["elo"] is not None for row in scratch.standings)
    assert "dee" not in {row["bot"] for row in scratch.standings}
    assert {"ann", "ann@ann-1"} <= {row["bot"] for row in scratch.standings}
    kept_on = [runnings[k] is runnings[k - 1] for k in range(1, 4)]
    assert kept_on == [True, False, True]  # anew at the removal; the version renamed in place
    assert _CountedStore.opened == 4 + 1  # `compute` after each batch; the kept board once
    keeping.refresh(Refresh(str(path), budget_s=math.inf))  # nothing new: the shelf is the same
    _assert_shelf_from_scratch(path)


def _games(rng: random.Random, deals: range) -> list[tuple[int, FinishedGame]]:
    names = ["ann", "bob", "cid", "dee"]
    games = []
    for deal in deals:
        pair = rng.sample(names, 2)
        for rotation, bots in enumerate((pair, pair[::-1])):
            ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
            played = Played(
                scores=[3 - r for r in ranks], ranks=ranks, moves=[1, 1], think_ms=[1, 1]
            )
            game = FinishedGame(
                seat_set=",".join(pair),
                deal=deal,
                rotation=rotation,
                bots=tuple(bots),
                played=played,
            )
            games.append((2 * deal + rotation + 1, game))
    return games


def _elos(board: Board) -> dict[str, tuple[int, int | None]]:
    return {row["bot"]: (row["elo"], row["ci"]) for row in board.standings}


def test_new_games_move_the_elo_at_once_while_the_intervals_catch_up() -> None:
    rng = random.Random(7)
    first, second, third = (
        _games(rng, range(40)),
        _games(rng, range(40, 70)),
        _games(rng, range(70, 80)),
    )
    running = Running(Path("unused"), set(), {})
    running.add(first)
    alone = standings([game for _, game in first]).records()
    board, drawing = running.board(0.0)  # one resample a refresh
    assert drawing and board.resampled == 0 and board.games == len(first)
    assert _elos(board) == {row["bot"]: (row["elo"], None) for row in alone}
    board, drawing = running.board(math.inf)
    assert not drawing and board.standings == alone and board.resampled == len(first)

    running.add(second)
    board, drawing = running.board(0.0)
    both = standings([game for _, game in first + second]).records()
    assert drawing and board.resampled == len(first) and board.games == len(first + second)
    now, before = _elos(board), {row["bot"]: row["ci"] for row in alone}
    assert {bot: elo for bot, (elo, _) in now.items()} == {row["bot"]: row["elo"] for row in both}
    assert all(abs(ci - before[bot]) <= 1 for bot, (_, ci) in now.items() if ci is not None)
    assert now != {row["bot"]: (row["elo"], row["ci"]) for row in both}

    running.add(third)  # while the bootstrap of first + second is drawn
    board, drawing = running.board(0.0)
    assert drawing and board.resampled == len(first)
    board, drawing = running.board(math.inf)
    everything = standings([game for _, game in first + second + third]).records()
    assert not drawing and board.standings == everything and board.resampled == board.games


async def test_the_keeper_refreshes_from_its_child_after_new_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(board_keeper, "MIN_REFRESH_S", 0.05)
    path = tmp_path / "league.sqlite"
    rng = random.Random(3)
    with Store(path) as store:
        store.bind({"game": "azul", "players": 2})
        for name in ("ann", "bob", "cid"):
            store.bot(name, name, name)
        _add_games(store, ["ann", "bob", "cid"], 2, range(5), rng)
    keeper = BoardKeeper(path)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keeper.run)
        with trio.fail_after(60):
            while keeper.board.games < 10:
                await keeper.refreshed.wait()
        with Store(path) as store:
            _add_games(store, ["ann", "bob", "cid"], 2, range(5, 9), rng)
        keeper.on_game()
        with trio.fail_after(60):
            while keeper.board.games < 18:
                await keeper.refreshed.wait()
        assert keeper._child._process is not None  # a kept child, not a thread
        nursery.cancel_scope.cancel()
    assert _without_time(keeper.board) == _without_time(compute(path))


@pytest.mark.parametrize("seats", [[2], [3], [2, 3]])
def test_a_board_read_a_slice_at_a_time_equals_the_board_from_scratch(
    tmp_path: Path, seats: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """[2, 3]: a mixed store, its first three-seat game in a later slice than its first game.
    The ratings over time go to the shelf every few games (and anew with the count)."""
    monkeypatch.setattr(board_module, "READ_SLICE", 4)
    monkeypatch.setattr(board_module, "SERIES_HELD", 3)
    path = tmp_path / "league.sqlite"
    names = ["ann", "bob", "dee", "eve"]
    rng = random.Random(len(seats))
    with Store(path) as store:
        store.bind({"game": "azul", "players": max(seats)})
        for name in names:
            store.bot(name, name, f"{name}-1")
        for n, count in enumerate(seats):
            _add_games(store, names, count, range(10 * n, 10 * n + 5), rng)
    keeping = Keeping()
    refreshed = keeping.refresh(Refresh(str(path), budget_s=math.inf))
    with Store(path, readonly=True) as store:
        last = store.last_game()
    assert last > 2 * board_module.READ_SLICE
    assert keeping.running is not None and keeping.running.last == last
    assert (keeping.running.tables.schedule is not None) == (max(seats) > 2)
    assert _without_time(refreshed.board) == _without_time(compute(path))
    assert refreshed.board.games == last
    _assert_shelf_from_scratch(path)


def test_the_shelf_keeps_each_bots_whole_series_across_extensions(tmp_path: Path) -> None:
    """Values appended in SQL come back as the doubles they were (their bytes hold zeros and
    invalid UTF-8); `anew` drops every series kept before."""
    with Shelf(tmp_path / "league.board.sqlite") as shelf:
        shelf.extend({"ann": array("d", [1.5, math.pi]), "bob": array("d")})
        shelf.extend({"ann": array("d", [-2.25]), "bob": array("d", [1e-300])})
        assert shelf.series("ann") == array("d", [1.5, math.pi, -2.25])
        assert shelf.series("bob") == array("d", [1e-300]) and shelf.series("dee") == array("d")
        shelf.extend({"bob": array("d", [4.0])}, anew=True)
        assert shelf.series("ann") == array("d") and shelf.series("bob") == array("d", [4.0])
