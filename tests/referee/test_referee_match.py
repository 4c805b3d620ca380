"""The match loop with real engines: clocks, forfeits with fallback, simultaneous decisions,
outcomes, records, and the line between a bot's fault and an engine bug.

The clock and fallback rules are played by scripted fake bots (`referee.testing`) on trio's virtual
clock (pytest-trio's `autojump_clock`), so their times are asserted exactly; what needs bot
processes (a whole game of them, killing them on an engine bug or a fault) runs real ones.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st
from patience import stretch
from refhelp import UNHURRIED, Bots
from trio.testing import MockClock

from protocol.messages import Act, Answer, Clock, TimeControl, encode_act, encode_line
from referee import Limits, open_bots, parse_record, play_match, replay, run_match
from referee.games import GAME_IDS, BadPlayerCount, find_game, parse_options
from referee.games.azul import Azul
from referee.match import GUARD_SLACK_S, display_name
from referee.testing import Crash, Hang, Reply, Step, fake_bots, misbehaves, plays

SLACK_MS = GUARD_SLACK_S * 1000
"""How long after its limit a sequential turn's wait is cut (see `_Match.decisions`)."""


def decisions_of(record: bytes) -> list[dict[str, Any]]:
    return [line for line in map(json.loads, record.splitlines()) if line["type"] == "decision"]


async def test_a_normal_game(bots: Bots, tmp_path: Path) -> None:
    specs = [bots.healthy(name="first"), bots.healthy("pick=last", name="last")]
    limits = Limits(log_dir=str(tmp_path))
    outcome = await run_match("azul", {}, 11, specs, UNHURRIED, limits=limits, match_id="m1")
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
    assert all(0 < ms < 2000 * stretch() for ms in outcome.think_ms)  # a loaded machine's longer
    # the bots' choices, replayed by hand, give the same result
    state = engine.new(2, 11, parse_options(engine, {}))
    while to_act := engine.to_act(state):
        [seat] = to_act
        legal = engine.legal(state, seat)
        engine.apply(state, {seat: legal[0] if seat == 0 else legal[-1]})
    assert engine.result(state) == outcome.result
    bots.assert_none_left()


async def test_a_bot_is_charged_the_time_it_takes(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    scripts = [plays(after_ms=200, slow=2), plays()]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 1, TimeControl(move_ms=1000))
    assert outcome.faults == []
    seat0 = [line["ms"]["0"] for line in decisions_of(outcome.record) if "0" in line["ms"]]
    assert seat0[:2] == [200, 200] and set(seat0[2:]) == {0}, seat0
    assert outcome.think_ms == [400, 0], "the other seat is never charged this seat's time"


async def test_the_bank_pays_for_overruns_and_grows_by_the_increment(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    scripts = [plays(after_ms=250, slow=2), plays()]
    time = TimeControl(move_ms=100, bank_ms=300, increment_ms=50)
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 1, time)
    assert outcome.faults == []
    clocks = [act["clock"] for act in table.bots[0].received_of("act")]
    assert all(clock["move_ms"] == 100 for clock in clocks)
    # 300 - (250 - 100) + 50, twice; then a quick answer leaves the bank and adds the increment
    assert [clock["bank_ms"] for clock in clocks[:4]] == [300, 200, 100, 150]


async def test_the_bank_runs_out(autojump_clock: MockClock, tmp_path: Path) -> None:
    """Answering after 250 ms on a 100 ms move with a 200 ms bank leaves exactly 50 ms of bank;
    the next such answer is past move + bank: a timeout at exactly that decision, which the
    fallback plays (three seats: the others play on)."""
    scripts = [plays(after_ms=250), plays(), plays()]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 1, TimeControl(move_ms=100, bank_ms=200))
    first, second = table.bots[0].received_of("act")
    assert (first["clock"], second["clock"]) == (
        {"move_ms": 100, "bank_ms": 200},
        {"move_ms": 100, "bank_ms": 50},
    )
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (0, "timeout", second["id"])
    waited = 150 + SLACK_MS
    assert fault.reason == (
        f"no answer to decision {fault.decision} within 150 ms (move 100 ms + bank 50 ms); "
        f"waited {waited:.0f} ms"
    )
    [played] = [line for line in decisions_of(outcome.record) if line["n"] == fault.decision]
    assert (played["fallback"], played["ms"]) == ([0], {"0": waited})
    assert outcome.think_ms[0] == 250 + waited
    assert outcome.result.ranks[0] == 3
    assert find_game("azul").is_over(_replayed_state("azul", 1, 3, outcome.record))


async def test_grace_is_tolerated(autojump_clock: MockClock, tmp_path: Path) -> None:
    scripts = [plays(after_ms=150, slow=2), plays()]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path), grace_ms=200)) as table:
        outcome = await table.play("azul", 1, TimeControl(move_ms=100))
    assert outcome.faults == []
    assert outcome.think_ms[0] == 300
    clocks = [act["clock"] for act in table.bots[0].received_of("act")]
    assert all(clock == {"move_ms": 100, "bank_ms": 0} for clock in clocks), "never announced"


@pytest.mark.parametrize("game", ["azul", "5211"])
async def test_three_seats_go_on_with_the_fallback(
    autojump_clock: MockClock, tmp_path: Path, game: str
) -> None:
    crash = misbehaves(3, Crash(7, "fatal: the bot broke"))
    scripts = [plays(), crash, plays(pick="last")]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play(game, 4, TimeControl())
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "crash")
    assert fault.decision == table.bots[1].received_of("act")[2]["id"]
    assert fault.reason == (
        f"exited (exit code 7) while the referee waited for its answer to decision "
        f"{fault.decision}; last stderr lines: fatal: the bot broke"
    )
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


async def test_a_hang_in_a_simultaneous_decision_is_a_timeout_and_the_others_play_on(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """A seat asked together with others (5211) and cut by its own deadline: its wait ends
    without an answer, which must be its timeout, not a referee error."""
    scripts = [plays(), misbehaves(1, Hang()), plays(pick="last")]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("5211", 5, TimeControl(move_ms=300))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (1, "timeout", 1), fault.reason
    assert fault.reason == (
        "no answer to decision 1 within 300 ms (move 300 ms + bank 0 ms); waited 300 ms"
    ), "a seat asked with others is cut by its own scope, at its deadline"
    assert find_game("5211").is_over(_replayed_state("5211", 5, 3, outcome.record))
    assert outcome.result.ranks[1] == 3


async def test_the_fallback_is_deterministic(autojump_clock: MockClock, tmp_path: Path) -> None:
    """Two games of one seed, a seat crashing at its start in both (restarted for the second,
    the others playing on in their bots of the first): the fallback plays the same."""
    scripts = [plays(), misbehaves(0, Crash(3, "boom")), plays()]
    records = []
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        for _ in range(2):
            outcome = await table.play("azul", 9, TimeControl())
            assert [(fault.seat, fault.kind) for fault in outcome.faults] == [(1, "crash")]
            records.append([line["actions"] for line in decisions_of(outcome.record)])
    assert records[0] == records[1]
    assert [len(table.bots[seat].received_of("start")) for seat in range(3)] == [2, 1, 2]


async def test_the_game_ends_when_fewer_than_two_seats_are_healthy(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    scripts = [
        misbehaves(0, Crash(3, "boom")),
        plays(),
        misbehaves(1, Reply(b"this is not json\n")),
    ]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 2, TimeControl())
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


async def test_simultaneous_decisions_each_on_its_own_clock_and_blind(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    scripts = [plays(), plays(after_ms=400, slow=3)]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("5211", 7, TimeControl(move_ms=600))
    assert outcome.faults == []
    lines = decisions_of(outcome.record)
    assert all(set(line["actions"]) == {"0", "1"} for line in lines), "every decision is joint"
    assert [line["ms"] for line in lines[:4]] == [{"0": 0, "1": 400}] * 3 + [{"0": 0, "1": 0}]
    assert outcome.think_ms == [0, 1200]
    # what the slow seat saw at decision n is the state before decision n: the fast seat's
    # answer, given long before, had not been applied
    game = find_game("5211")
    state = game.new(2, 7, parse_options(game, {}))
    parsed = parse_record(outcome.record)
    seen = table.bots[1].received_of("act")
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
            "azul", {}, 3, [bots.healthy(), other], UNHURRIED, limits=limits, match_id=key
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
        with pytest.raises(BadPlayerCount, match="azul is for 2-4 players, not 1"):
            await play_match("azul", {}, 1, handles, TimeControl())
        assert handles[0].pid is None
    with pytest.raises(Exception, match="unknown game 'chess'"):
        await run_match("chess", {}, 1, [bots.healthy()] * 2, TimeControl())
    with pytest.raises(Exception, match="bad options for azul"):
        await run_match("azul", {"colour": 3}, 1, [bots.healthy()] * 2, TimeControl())
    bots.assert_none_left()


async def test_time_odds_give_each_seat_its_own_clock(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """Per-seat time controls (time odds): the same slow answer is in time on the long clock and
    a timeout on the short one; each bot is told its own clock, and the record keeps both."""
    scripts = [plays(after_ms=300, slow=1)] * 2
    long, short = TimeControl(move_ms=3000), TimeControl(move_ms=100)
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 1, [long, short])
    assert [(fault.seat, fault.kind, fault.decision) for fault in outcome.faults] == [
        (1, "timeout", 2)
    ]
    assert outcome.think_ms[0] == 300
    for seat, time in enumerate([long, short]):
        [start] = table.bots[seat].received_of("start")
        assert start["time"] == msgspec.to_builtins(time)
        assert table.bots[seat].received_of("act")[0]["clock"]["move_ms"] == time.move_ms
    header = json.loads(outcome.record.splitlines()[0])
    assert header["seat_times"] == [msgspec.to_builtins(long), msgspec.to_builtins(short)]


async def test_the_shared_deadline_is_moved_whenever_it_would_be_early_or_late(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """Sequential requests share one cancel scope whose deadline is kept only while it is within
    `GUARD_SLACK_S` after the request's own: a long clock's deadline is not kept for a hung bot
    on a short clock (cut at its 150 ms and the slack, not the other's 20 s), nor an earlier
    request's for a bot that takes most of its time on every decision (never cut short)."""
    scripts = [plays(), misbehaves(1, Hang())]
    long, short = TimeControl(move_ms=20_000), TimeControl(move_ms=150)
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        with trio.fail_after(10):  # a hung bot kept waiting for the long clock's deadline fails
            outcome = await table.play("azul", 1, [long, short])
    assert [(fault.seat, fault.kind, fault.decision) for fault in outcome.faults] == [
        (1, "timeout", 2)
    ]
    assert outcome.think_ms[1] == 150 + SLACK_MS
    scripts = [plays(after_ms=250, slow=6)] * 2
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 1, TimeControl(move_ms=400))
    assert outcome.faults == []
    assert outcome.moves[0] > 6
    assert [list(line["ms"].values()) for line in decisions_of(outcome.record)[:12]] == [[250]] * 12


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
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """A wait cut short by its deadline ends the cancel scope the sequential requests share
    (`_Match.decisions`); the game goes on under a fresh one, every other request still held to
    its own deadline and charged its own time."""
    scripts = [plays(), misbehaves(1, Hang()), plays(pick="last", after_ms=150)]
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        outcome = await table.play("azul", 6, TimeControl(move_ms=1000))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind, fault.decision) == (1, "timeout", 2), fault.reason
    assert fault.reason == (
        "no answer to decision 2 within 1000 ms (move 1000 ms + bank 0 ms); "
        f"waited {1000 + SLACK_MS:.0f} ms"
    )
    assert find_game("azul").is_over(_replayed_state("azul", 6, 3, outcome.record))
    lines = decisions_of(outcome.record)
    asked_last = [line["ms"]["2"] for line in lines if "2" in line["ms"]]
    assert len(asked_last) == outcome.moves[2] > 5
    assert set(asked_last) == {150}, asked_last
    assert replay(outcome.record).identical


async def test_a_bot_that_dies_as_it_answers_costs_no_one_else_a_wait(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """A bot that exits right after writing its answer cuts the shared guard's wait
    (`_Match.decisions`) once the answer is there: the answer counts, the death is the bot's
    crash at its next turn, and the next seat asked is not cut short by the spent guard."""

    def dies_answering(message: dict[str, Any], acts: int) -> Step:
        if message["type"] == "act" and acts == 1:
            return Reply(encode_line(Answer(id=message["id"], index=0)), exit_code=5)
        return plays()(message, acts)

    async with fake_bots(
        [plays(), dies_answering, plays()], Limits(log_dir=str(tmp_path))
    ) as table:
        outcome = await table.play("azul", 6, TimeControl(move_ms=1000))
    [fault] = outcome.faults
    assert (fault.seat, fault.kind) == (1, "crash"), fault.reason
    first, second = (act["id"] for act in table.bots[1].received_of("act"))
    answered = [line for line in decisions_of(outcome.record) if "1" in line["ms"]]
    assert [(line["n"], line["fallback"]) for line in answered[:2]] == [(first, []), (second, [])]
    assert fault.decision > second
    assert outcome.moves[1] == 2 and outcome.moves[2] > 5
    assert find_game("azul").is_over(_replayed_state("azul", 6, 3, outcome.record))


async def test_bots_that_played_before_are_started_in_turn_each_on_its_own_limit(
    autojump_clock: MockClock, tmp_path: Path
) -> None:
    """From the second game on the bots are alive and answer `start` at once, so the seats are
    started one after the other (`_Match.run`): one that never answers times out on its own
    limit, counted from its `start`, and the next is started then, on a limit of its own."""

    def hangs_at_its_second_start(message: dict[str, Any], acts: int) -> Step:
        return Hang() if message["type"] == "start" and acts else plays()(message, acts)

    started: list[float] = []

    def notes_its_starts(message: dict[str, Any], acts: int) -> Step:
        if message["type"] == "start":
            started.append(trio.current_time())
        return plays()(message, acts)

    scripts = [hangs_at_its_second_start, notes_its_starts, plays()]
    time = TimeControl(startup_ms=500)
    async with fake_bots(scripts, Limits(log_dir=str(tmp_path))) as table:
        first = await table.play("azul", 1, time)
        began = trio.current_time()
        second = await table.play("azul", 2, time)
    assert first.faults == []
    assert [(fault.seat, fault.kind, fault.decision, fault.reason) for fault in second.faults] == [
        (0, "startup_timeout", -1, "no `ready` within 500 ms of `start`")
    ]
    assert started[1] - began == 0.5, "seat 1 is sent `start` once seat 0 is done"
    assert [len(table.bots[seat].received_of("start")) for seat in range(3)] == [2, 2, 2]
    assert second.moves[1] > 5 and second.moves[2] > 5, "the others play the game"
