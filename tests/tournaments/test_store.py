"""The SQLite store: settings binding, bot versions, atomic idempotent games, reading back."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from storehelp import craft

from tournaments.store.results import FaultRow, Played
from tournaments.store.store import Store, StoreError, seat_set_key

SETTINGS = {"game": "azul", "players": 2, "options": {}, "time": {"move_ms": 100}, "seed": 1}


def played(ranks: list[int], faults: list[FaultRow] | None = None) -> Played:
    return Played(
        scores=[30 - 10 * rank for rank in ranks],
        ranks=ranks,
        moves=[12, 11],
        think_ms=[24.0, 55.0],
        faults=faults or [],
        wall_ms=120.5,
    )


def add(store: Store, ids: list[int], deal: int, rotation: int, result: Played) -> bool:
    seats = ids[rotation:] + ids[:rotation]
    return store.add_game(
        seat_set=seat_set_key(ids),
        deal=deal,
        rotation=rotation,
        seed=99,
        bots=seats,
        played=result,
        decisions=23,
        record=b'{"type":"header"}\n' * 50,
    )


def test_settings_bind_once_and_mismatch_is_explained(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        assert store.settings() is None
        store.bind(SETTINGS)
        store.bind(SETTINGS)
    with Store(tmp_path / "t.db") as store:
        assert store.settings() == SETTINGS
        with pytest.raises(StoreError, match=r"seed: stored 1, now 2.*--db"):
            store.bind({**SETTINGS, "seed": 2})


def test_not_a_store(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a usable tournament store"):
        Store(path)
    with pytest.raises(StoreError, match="cannot open"):
        Store(tmp_path / "missing-dir" / "t.db")


def test_changed_bot_is_a_new_entry_with_its_own_label(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        old = store.bot("mine", "python3 mine.py", "aaaaaaaa11112222")
        assert store.bot("mine", "python3 mine.py", "aaaaaaaa11112222") == old
        other = store.bot("random", "random", "ffff")
        new = store.bot("mine", "python3 mine.py", "bbbbbbbb33334444")
        assert new.id != old.id
        assert store.labels() == {old.id: "mine@aaaaaaa", other.id: "random", new.id: "mine"}
        added = store.bot("extra", "python3 /x/extra.py", "cc", added=True)
        assert store.added_bots() == [added]


def test_games_are_stored_once_and_read_back(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        a = store.bot("a", "random", "1").id
        b = store.bot("b", "greedy", "2").id
        fault = FaultRow(seat=1, kind="timeout", reason="no answer within 100 ms", decision=7)
        assert add(store, [a, b], 0, 0, played([1, 2]))
        assert add(store, [a, b], 0, 1, played([1, 2], [fault]))
        assert not add(store, [a, b], 0, 1, played([2, 1]))  # already stored: ignored
        assert add(store, [a, b], 1, 0, played([1, 1]))
        key = seat_set_key([a, b])
        assert set(store.stored(key, range(1))) == {(0, 0), (0, 1)}
        assert store.count(key, range(2)) == 3
        assert store.count(key, range(1, 5)) == 1
        games = store.games()
        assert [(g.deal, g.rotation, g.bots) for g in games] == [
            (0, 0, ("a", "b")),
            (0, 1, ("b", "a")),
            (1, 0, ("a", "b")),
        ]
        assert games[1].played == played([1, 2], [fault])
        assert games[0].seat_set == "a,b"
        assert store.record(key, 0, 1) == b'{"type":"header"}\n' * 50
        assert store.record(key, 5, 0) is None


def test_each_games_finish_time_is_read_back(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Store(path) as store:
        a, b = store.bot("a", "random", "1").id, store.bot("b", "greedy", "2").id
        began = datetime.datetime.now(datetime.UTC) - datetime.timedelta(milliseconds=1)
        add(store, [a, b], 0, 0, played([1, 2]))
        add(store, [a, b], 0, 1, played([2, 1]))
        ended = datetime.datetime.now(datetime.UTC)
        first, second = (game_id for game_id, _ in store.games_as_stored())
        times = store.finish_times([second, first, 99])  # 99 names no game
        assert list(times) == [first, second]
        assert began <= times[first] <= times[second] <= ended
        assert store.finish_times([]) == {}
    craft(path, f"UPDATE games SET finished = 'soon' WHERE id = {second}")
    with Store(path, readonly=True) as store, pytest.raises(StoreError, match="is damaged"):
        store.finish_times([first, second])


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as store:
        a = store.bot("a", "random", "1").id
        with pytest.raises(ValueError, match="zip"):
            # One seat's bot missing: the seats insert fails after the game row was written.
            store.add_game(
                seat_set=seat_set_key([a, a]),
                deal=0,
                rotation=0,
                seed=1,
                bots=[a],
                played=played([1, 2]),
                decisions=1,
                record=b"",
            )
        assert store.games() == []
        assert store.count(seat_set_key([a, a]), range(1)) == 0


def test_games_read_while_a_game_is_stored_are_one_state_of_the_store(tmp_path: Path) -> None:
    """A reader's queries (seats, faults, games) see one snapshot: a game committed between
    them is not read without its seats (a league's leaderboard reads as its ladder writes)."""
    with Store(tmp_path / "t.db") as writer, Store(tmp_path / "t.db", readonly=True) as reader:
        a, b = writer.bot("a", "random", "1").id, writer.bot("b", "random", "2").id
        add(writer, [a, b], 0, 0, played([1, 2]))
        real = reader._db

        class StoresAfterTheSeats:  # the writer commits right after the reader read the seats
            def __getattr__(self, name: str) -> object:
                return getattr(real, name)

            def execute(self, sql: str, *args: object) -> object:
                cursor = real.execute(sql, *args)
                if "FROM seats" in sql and not writer.count(seat_set_key([a, b]), range(9)) > 1:
                    add(writer, [a, b], 1, 0, played([2, 1]))
                return cursor

        reader._db = StoresAfterTheSeats()  # type: ignore[assignment]
        assert [game.deal for game in reader.games()] == [0]  # not "game 2 has no seats"
        assert [game.deal for game in reader.games()] == [0, 1]  # the next read sees it


def test_readers_see_committed_games_while_a_writer_is_open(tmp_path: Path) -> None:
    with Store(tmp_path / "t.db") as writer:
        a, b = writer.bot("a", "random", "1").id, writer.bot("b", "random", "2").id
        add(writer, [a, b], 0, 0, played([1, 2]))
        with Store(tmp_path / "t.db") as reader:
            assert len(reader.games()) == 1
