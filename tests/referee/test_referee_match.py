"""The match loop with real engines: clocks, forfeits with fallback, simultaneous decisions,
outcomes, records, and the line between a bot's fault and an engine bug."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from refhelp import Bots

from protocol.messages import Act, Clock, TimeControl, encode_act, encode_line
from referee import Limits, open_bots, parse_record, play_match, replay, run_match
from referee.games import GAME_IDS, find_game, parse_options
from referee.games.azul import Azul
from referee.match import display_name


def decisions_of(record: bytes) -> list[dict[str, Any]]:
    return [line for line in map(json.loads, record.splitlines()) if line["type"] == "decision"]


async def test_a_normal_game(bots: Bots, tmp_path: Path) -> None:
    specs = [bots.healthy(name="first"), bots.healthy("pick=last", name="last")]
    limits = Limits(log_dir=str(tmp_path))
    outcome = await run_match("azul", {}, 11, specs, TimeControl(), limits=limits, match_id="m1")
    engine = find_game("azul")
    assert outcome.faults == []
    assert outcome.names == ["first", "last"]
    assert outcome.options == {"variant": "standard", "special_factories": False}
    assert outcome.match_id == "m1"
    assert outcome.logs == [
        str(tmp_path / "m1-seat0-first.log"),
        str(tmp_path / "m1-seat1-last.log"),
    ]
    assert outcome.result.tiebreak != "forfeit"
    assert sum(outcome.moves) == outcome.decisions == len(decisions_of(outcome.record))
    assert all(0 < ms < 2000 for ms in outcome.think_ms)
    # the bots' choices, replayed by hand, give the same result
    state = engine.new(2, 11, parse_options(engine, {}))
    while to_act := engine.to_act(state):
        [seat] = to_act
        legal = engine.legal(state, seat)
        engine.apply(state, {seat: legal[0] if seat == 0 else legal[-1]})
    assert engine.result(state) == outcome.result
    bots.assert_none_left()


@pytest.mark.alone
async def test_a_bot_is_charged_the_time_it_takes(bots: Bots, tmp_path: Path) -> None:
    specs = [bots.healthy("sleep_ms=200", "slow_decisions=2"), bots.healthy()]
    time = TimeControl(move_ms=1000)
    limits = Limits(log_dir=str(tmp_path), sandbox="none")  # the slow bot writes into tmp_path
    outcome = await run_match("azul", {}, 1, specs, time, limits=limits)
    assert outcome.faults == []
    seat0 = [line["ms"]["0"] for line in decisions_of(outcome.record) if "0" in line["ms"]]
    assert all(200 <= ms <= 250 for ms in seat0[:2]), seat0
    assert all(ms < 50 for ms in seat0[2:]), seat0
    assert 400 <= outcome.think_ms[0] <= 400 + 50 + 10 * len(seat0)
    assert outcome.think_ms[1] < 200, "the other seat is never charged this seat's time"


@pytest.mark.alone
async def test_the_bank_pays_for_overruns_and_grows_by_the_increment(
    bots: Bots, tmp_path: Path
) -> None:
    acts = tmp_path / "acts"
    specs = [bots.healthy("sleep_ms=250", "slow_decisions=2", f"act_file={acts}"), bots.healthy()]
    time = TimeControl(move_ms=100, bank_ms=300, increment_ms=50)
    limits = Limits(log_dir=str(tmp_path), sandbox="none")  # the slow bot writes into tmp_path
    outcome = await run_match("azul", {}, 1, specs, time, limits=limits)
    assert outcome.faults == []
    clocks = [json.loads(line)["clock"] for line in acts.read_text().splitlines()]
    banks = [clock["bank_ms"] for clock in clocks]
    assert all(clock["move_ms"] == 100 for clock in clocks)
    assert banks[0] == 300
    assert 150 <= banks[1] <= 200  # 300 - (250 - 100) + 50, less the jitter over 250 ms
    assert 50 <= banks[2] <= 100
    assert banks[3] == banks[2] + 50  # a quick answer leaves the bank and adds the increment


@pytest.mark.alone
async def test_the_bank_runs_out(bots: Bots, tmp_path: Path) -> None:
    # every answer takes 220 ms: 100 from the move, 120 (and the jitter) from the bank, which
    # leaves the third (decision 5) a limit of 100 ms + about 55 ms: the wait is cut ~60 ms
    # before the answer comes (a margin well beyond the deadline's granularity)
    specs = [bots.healthy("sleep_ms=220"), bots.healthy()]
    time = TimeControl(move_ms=100, bank_ms=300)
    limits = Limits(log_dir=str(tmp_path), sandbox="none")  # the slow bot writes into tmp_path
    outcome = await run_match("azul", {}, 1, specs, time, limits=limits)
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (0, "timeout", 5)
    assert re.fullmatch(
        r"no answer to decision 5 within 1\d\d ms \(move 100 ms \+ bank \d\d ms\); "
        r"waited \d\d\d ms",
        fault.reason,
    ), fault.reason
    assert outcome.result.ranks == [2, 1]


async def test_grace_is_tolerated(bots: Bots, tmp_path: Path) -> None:
    specs = [bots.healthy("sleep_ms=150", "slow_decisions=2"), bots.healthy()]
    limits = Limits(log_dir=str(tmp_path), grace_ms=200)
    outcome = await run_match("azul", {}, 1, specs, TimeControl(move_ms=100), limits=limits)
    assert outcome.faults == []
    assert outcome.think_ms[0] >= 300


@pytest.mark.parametrize("game", ["azul", "5211"])
async def test_three_seats_go_on_with_the_fallback(bots: Bots, tmp_path: Path, game: str) -> None:
    specs = [bots.healthy(), bots.broken("crash_mid", "after=2"), bots.healthy("pick=last")]
    outcome = await run_match(
        game, {}, 4, specs, TimeControl(), limits=Limits(log_dir=str(tmp_path))
    )
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "crash")
    assert outcome.result.ranks[1] == 3
    assert sorted(outcome.result.ranks[::2]) in ([1, 2], [1, 1])
    assert outcome.result.tiebreak == "forfeit"
    lines = decisions_of(outcome.record)
    assert len(lines) == outcome.decisions
    assert find_game(game).is_over(_replayed_state(game, 4, 3, outcome.record))
    fallback = [line for line in lines if line["fallback"]]
    assert fallback and all(line["fallback"] == [1] for line in fallback)
    assert fallback[0]["n"] == fault.decision, (
        "the faulty decision itself is played by the fallback"
    )
    assert all("1" not in line["ms"] for line in fallback[1:]), "not asked again"
    assert outcome.moves[1] == 2
    report = replay(outcome.record)
    assert report.identical, report.divergence
    bots.assert_none_left()


async def test_a_hang_in_a_simultaneous_decision_is_a_timeout_and_the_others_play_on(
    bots: Bots, tmp_path: Path
) -> None:
    """A seat asked together with others (5211) and cut by its own deadline: its wait ends
    without an answer, which must be its timeout, not a referee error."""
    specs = [bots.healthy(), bots.broken("hang"), bots.healthy("pick=last")]
    time = TimeControl(move_ms=300, startup_ms=5000)
    outcome = await run_match("5211", {}, 5, specs, time, limits=Limits(log_dir=str(tmp_path)))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "timeout"), fault.reason
    assert find_game("5211").is_over(_replayed_state("5211", 5, 3, outcome.record))
    assert outcome.result.ranks[1] == 3
    bots.assert_none_left()


async def test_the_fallback_is_deterministic(bots: Bots, tmp_path: Path) -> None:
    records = []
    for _ in range(2):
        specs = [bots.healthy(), bots.broken("crash_start"), bots.healthy()]
        outcome = await run_match(
            "azul", {}, 9, specs, TimeControl(), limits=Limits(log_dir=str(tmp_path))
        )
        records.append([line["actions"] for line in decisions_of(outcome.record)])
    assert records[0] == records[1]


async def test_the_game_ends_when_fewer_than_two_seats_are_healthy(
    bots: Bots, tmp_path: Path
) -> None:
    specs = [bots.broken("crash_start"), bots.healthy(), bots.broken("garbage")]
    outcome = await run_match(
        "azul", {}, 2, specs, TimeControl(), limits=Limits(log_dir=str(tmp_path))
    )
    assert [(fault.seat, fault.kind) for fault in outcome.faults] == [
        (0, "crash"),
        (2, "malformed"),
    ]
    assert outcome.result.ranks == [2, 1, 2]
    assert replay(outcome.record).identical


def _replayed_state(game_id: str, seed: int, players: int, record: bytes) -> Any:
    game = find_game(game_id)
    parsed = parse_record(record)
    state = game.new(players, seed, parse_options(game, parsed.header.options))
    for line in parsed.decisions:
        game.apply(
            state,
            {
                seat: msgspec.json.decode(raw, type=game.Action)
                for seat, raw in line.actions.items()
            },
        )
    return state


@pytest.mark.alone
async def test_simultaneous_decisions_each_on_its_own_clock_and_blind(
    bots: Bots, tmp_path: Path
) -> None:
    acts = tmp_path / "acts"
    specs = [
        bots.healthy(name="fast"),
        bots.healthy("sleep_ms=400", "slow_decisions=3", f"act_file={acts}", name="slow"),
    ]
    time = TimeControl(move_ms=600)
    limits = Limits(log_dir=str(tmp_path), sandbox="none")  # the slow bot writes into tmp_path
    outcome = await run_match("5211", {}, 7, specs, time, limits=limits)
    assert outcome.faults == []
    lines = decisions_of(outcome.record)
    assert all(set(line["actions"]) == {"0", "1"} for line in lines), "every decision is joint"
    for line in lines[:3]:
        assert line["ms"]["0"] < 100, line
        assert 400 <= line["ms"]["1"] <= 460, line
    assert outcome.think_ms[0] < 300
    # what the slow seat saw at decision n is the state before decision n: the fast seat's
    # answer, given long before, had not been applied
    game = find_game("5211")
    state = game.new(2, 7, parse_options(game, {}))
    parsed = parse_record(outcome.record)
    seen = [json.loads(line) for line in acts.read_text().splitlines()]
    assert [act["id"] for act in seen] == [line.n for line in parsed.decisions]
    for act, decision in zip(seen, parsed.decisions, strict=True):
        expected = json.loads(msgspec.json.encode(game.observe(state, 1)))
        assert act["observation"] == expected
        fast_play = json.loads(bytes(decision.actions[0]))
        game.apply(
            state,
            {
                seat: msgspec.json.decode(raw, type=game.Action)
                for seat, raw in decision.actions.items()
            },
        )
        if decision.n == 1:
            # the fast seat's cards were in the referee's hands 400 ms before the slow seat
            # answered, yet the slow seat saw them only after the joint reveal
            revealed = json.loads(msgspec.json.encode(game.observe(state, 1)))["played"][0]
            assert expected["played"][0] == []
            assert sorted(map(str, revealed)) == sorted(map(str, fast_play["cards"]))
    assert replay(outcome.record).identical


class _BuggyAzul(Azul):
    """Azul whose engine breaks at decision 3: the referee must not take it for a bot fault."""

    calls = 0

    def apply(self, state: Any, actions: Mapping[int, Any]) -> None:
        type(self).calls += 1
        if type(self).calls == 3:
            raise ZeroDivisionError("engine bug")
        super().apply(state, actions)


async def test_an_engine_bug_propagates_and_kills_the_bots(
    bots: Bots, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import referee.games

    monkeypatch.setitem(referee.games._loaded, "azul", _BuggyAzul())
    with pytest.raises(ZeroDivisionError, match="engine bug"):
        await run_match(
            "azul",
            {},
            1,
            [bots.healthy(), bots.healthy()],
            TimeControl(),
            limits=Limits(log_dir=str(tmp_path)),
        )
    bots.assert_none_left()


async def test_a_fault_does_not_disturb_another_match(bots: Bots, tmp_path: Path) -> None:
    outcomes: dict[str, Any] = {}
    limits = Limits(log_dir=str(tmp_path))

    async def play(key: str, broken: bool) -> None:
        other = bots.broken("crash_mid", "after=3") if broken else bots.healthy()
        outcomes[key] = await run_match(
            "azul", {}, 3, [bots.healthy(), other], TimeControl(), limits=limits, match_id=key
        )

    async with trio.open_nursery() as nursery:
        nursery.start_soon(play, "bad", True)
        nursery.start_soon(play, "good", False)
    assert [fault.kind for fault in outcomes["bad"].faults] == ["crash"]
    assert outcomes["good"].faults == []
    assert outcomes["good"].result.tiebreak != "forfeit"
    bots.assert_none_left()


async def test_bad_setups_are_refused_before_any_bot_starts(bots: Bots, tmp_path: Path) -> None:
    async with open_bots([bots.healthy()] * 1, Limits(log_dir=str(tmp_path))) as handles:
        with pytest.raises(ValueError, match="azul is for 2-4 players, not 1"):
            await play_match("azul", {}, 1, handles, TimeControl())
        assert handles[0].pid is None
    with pytest.raises(Exception, match="unknown game 'chess'"):
        await run_match("chess", {}, 1, [bots.healthy()] * 2, TimeControl())
    with pytest.raises(Exception, match="bad options for azul"):
        await run_match("azul", {"colour": 3}, 1, [bots.healthy()] * 2, TimeControl())
    bots.assert_none_left()


async def test_time_odds_give_each_seat_its_own_clock(bots: Bots, tmp_path: Path) -> None:
    """Per-seat time controls (time odds): the same slow answer is a timeout on the short clock
    only; each bot is told its own clock, and the record keeps both."""
    specs = [bots.healthy("sleep_ms=300", "slow_decisions=1", name=f"s{seat}") for seat in (0, 1)]
    short, long = TimeControl(move_ms=100), TimeControl(move_ms=3000)
    outcome = await run_match(
        "azul", {}, 1, specs, [short, long], limits=Limits(log_dir=str(tmp_path))
    )
    assert [(fault.seat, fault.kind) for fault in outcome.faults] == [(0, "timeout")]
    header = json.loads(outcome.record.splitlines()[0])
    assert header["seat_times"] == [msgspec.to_builtins(short), msgspec.to_builtins(long)]
    bots.assert_none_left()


@pytest.mark.alone
async def test_the_shared_deadline_is_moved_whenever_it_would_be_early_or_late(
    bots: Bots, tmp_path: Path
) -> None:
    """Sequential requests share one cancel scope whose deadline is kept only while it is within
    `GUARD_SLACK_S` after the request's own: a long clock's deadline is not kept for a hung bot
    on a short clock (cut at its 150 ms, not the other's 20 s), nor an earlier request's for a
    bot that takes most of its time on every decision (never cut short)."""
    specs = [bots.healthy(), bots.broken("hang")]
    long, short = TimeControl(move_ms=20_000), TimeControl(move_ms=150)
    with trio.fail_after(10):  # a hung bot kept waiting for the long clock's deadline fails here
        outcome = await run_match(
            "azul", {}, 1, specs, [long, short], limits=Limits(log_dir=str(tmp_path))
        )
    assert [(fault.seat, fault.kind, fault.decision) for fault in outcome.faults] == [
        (1, "timeout", 2)
    ]
    assert 150 <= outcome.think_ms[1] < 150 + 500, outcome.think_ms
    specs = [bots.healthy("sleep_ms=250", "slow_decisions=6", name=f"s{seat}") for seat in (0, 1)]
    slow = TimeControl(move_ms=400)
    outcome = await run_match("azul", {}, 1, specs, slow, limits=Limits(log_dir=str(tmp_path)))
    assert outcome.faults == []
    assert outcome.moves[0] > 6 and min(decisions_of(outcome.record)[5]["ms"].values()) >= 250
    bots.assert_none_left()


@given(st.text())
def test_a_bots_own_name_is_shown_printable_and_short(name: str) -> None:
    """The `ready` name of a bot named only by its command is hostile text: no control
    characters or escapes reach a table or terminal, and it is at most 40 characters."""
    shown = display_name(name)
    assert len(shown) <= 40 and shown == shown.strip()
    assert all(char.isprintable() for char in shown)


def test_a_bots_own_name_loses_escapes_and_length() -> None:
    assert display_name("\x1b[31mred\x1b[0m\n") == "[31mred[0m"
    assert display_name("  \t\n ") == ""  # then the command's name stays
    assert display_name("x" * 1000) == "x" * 40


@pytest.mark.parametrize("game_id", GAME_IDS)
def test_the_act_line_is_the_act_message_byte_for_byte(game_id: str) -> None:
    """`encode_act` (constant parts written once) sends what `Act` encodes to, at every
    decision of a random game of every registered game, banks and ids of several digits too."""
    game = find_game(game_id)
    state = game.new(game.min_players, 7, parse_options(game, {}))
    rng = random.Random(7)
    decision = 0
    while (to_act := game.to_act(state)) and decision < 400:
        decision += 1
        for seat in to_act:
            legal = game.legal(state, seat)
            observation = game.observe(state, seat)
            clock = Clock(move_ms=rng.choice([1, 1000]), bank_ms=rng.choice([0, 123456]))
            expected = encode_line(Act(decision * 997, observation, legal, clock))
            assert encode_act(decision * 997, observation, legal, clock) == expected
        game.apply(state, {seat: rng.choice(game.legal(state, seat)) for seat in to_act})
    assert decision > 10


async def test_after_a_timeout_the_others_play_on_against_their_own_clocks(
    bots: Bots, tmp_path: Path
) -> None:
    """A wait cut short by its deadline ends the cancel scope the sequential requests share
    (`_Match.decisions`); the game goes on under a fresh one, every other request still held to
    its own deadline and charged its own time."""
    specs = [bots.healthy(), bots.broken("hang"), bots.healthy("sleep_ms=150", "pick=last")]
    time = TimeControl(move_ms=1000, startup_ms=5000)
    outcome = await run_match("azul", {}, 6, specs, time, limits=Limits(log_dir=str(tmp_path)))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (1, "timeout", 2), fault.reason
    assert "no answer to decision 2 within 1000 ms" in fault.reason
    assert find_game("azul").is_over(_replayed_state("azul", 6, 3, outcome.record))
    lines = decisions_of(outcome.record)
    asked_last = [line["ms"]["2"] for line in lines if "2" in line["ms"]]
    assert len(asked_last) == outcome.moves[2] > 5
    assert all(150 <= ms < 1000 for ms in asked_last), asked_last
    assert replay(outcome.record).identical
    bots.assert_none_left()
