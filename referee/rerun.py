"""One seat of a recorded game played again by a bot process, to reproduce what its bot did.

The game is set up from the record (its game, options, seed, match id and the seat's own
recorded `start`, its seed included), the other seats answer as the record says (scripted fakes
of `referee.testing`, which crash where their bot faulted), and the real match loop asks the
bot: it is sent what the recorded bot was sent, request for request, for as long as it answers
the same, and what it sends is judged as in the game (a crash, a bad answer, an illegal action,
a timeout). The re-run's answers are then compared with the recorded ones: the first
difference, or the fault and its decision, is the report.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import msgspec
import trio

from protocol.messages import Answer, Ready, encode_line
from referee.channel import BotChannel
from referee.faults import Fault
from referee.match import MatchOutcome, play_match
from referee.process import BotHandle, BotSpec, Limits, open_bots
from referee.record import BadRecord, ParsedRecord, parse_record
from referee.testing import Crash, FakeTable, Reply, Script, Step, plays

Verdict = Literal["same", "fault", "diverges"]


class RerunReport(msgspec.Struct):
    """What a bot did on a seat's recorded requests, beside what the recorded bot did."""

    seat: int
    verdict: Verdict
    """"same": every answer as recorded, no fault; "fault": the recorded fault again, of the
    same kind at the same decision; "diverges": anything else (`divergence` says what)."""
    answered: int
    """The recorded answers the bot gave again, in order, before any difference."""
    recorded: int
    """The seat's answers in the record."""
    decision: int | None
    """Where it first differs, or where it faulted; None when "same"."""
    fault: Fault | None
    """The bot's fault in the re-run (its reason as the referee words it)."""
    recorded_fault: Fault | None
    divergence: str | None
    logs: str
    """The bot's stderr log of the re-run (no file if it wrote nothing)."""


def seat_of(record: bytes, seat: int | None) -> int:
    """The seat to re-run: `seat`, or the one seat whose `start` the record holds (a seat
    record's); `BadRecord` when the record cannot say, or holds no `start` of that seat."""
    starts = [start.seat for start in parse_record(record).header.starts]
    if seat is None:
        if len(starts) != 1:
            raise BadRecord(
                f"the record holds the `start` of seats {starts}: say which seat to re-run"
                if starts
                else "the record holds no seat's `start` (its seed): a seat record downloaded "
                "with the author's token (`arena fetch --out`) does"
            )
        return starts[0]
    if seat not in starts:
        raise BadRecord(f"the record holds no `start` of seat {seat} (its seed)")
    return seat


async def rerun_seat(record: bytes, seat: int | None, spec: BotSpec, limits: Limits) -> RerunReport:
    """Play the recorded game again with `spec`'s bot in `seat` (None: the record's one seat
    with a `start`; see the module docstring).

    `BadRecord` if the record cannot be read, or holds no `start` of `seat` (`seat_of`)."""
    parsed = parse_record(record)
    header = parsed.header
    seat = seat_of(record, seat)
    [start] = [one for one in header.starts if one.seat == seat]
    players = len(header.names)
    times = header.seat_times or [header.time] * players
    scripts = [plays() if other == seat else _stand_in(parsed, other) for other in range(players)]
    specs = [
        spec if other == seat else BotSpec(f"seat{other}", ["recorded"]) for other in range(players)
    ]
    seeds = [start.seed if other == seat else 0 for other in range(players)]
    async with open_bots(specs, limits) as handles, trio.open_nursery() as nursery:
        table = FakeTable(handles, scripts, nursery)

        async def open_channel(handle: BotHandle) -> tuple[BotChannel, bool]:
            if handle is handles[seat]:
                return await handle.ensure_started()
            return await table.open(handle)

        try:
            outcome = await play_match(
                header.game,
                header.options,
                header.seed,
                handles,
                times,
                limits=limits,
                match_id=header.match,
                bot_seeds=seeds,
                open_channel=open_channel,
            )
        finally:
            for bot in table.bots.values():
                await bot.kill()
    return compare(parsed, outcome, seat)


def _answers(parsed: ParsedRecord, seat: int) -> dict[int, Any]:
    """The actions `seat`'s bot answered, by decision (not the fallback policy's)."""
    return {
        line.n: msgspec.json.decode(line.actions[seat])
        for line in parsed.decisions
        if seat in line.actions and seat not in line.fallback
    }


def _first_fault(faults: Sequence[Fault], seat: int) -> Fault | None:
    return next((fault for fault in faults if fault.seat == seat), None)


def _stand_in(parsed: ParsedRecord, seat: int) -> Script:
    """A fake in `seat` answering as its recorded bot did, crashing where that one faulted
    (after it, the fallback policy plays the seat as it did in the game); a request the record
    has no answer to (the re-run went elsewhere) gets the first legal action."""
    answers = {
        line.n: line.actions[seat]
        for line in parsed.decisions
        if seat in line.actions and seat not in line.fallback
    }
    fault = _first_fault(parsed.faults, seat)
    crash = Crash(1, "the stand-in for a bot that faulted here")

    def script(message: dict[str, Any], acts: int) -> Step:
        if message["type"] == "start":
            faulted = fault is not None and fault.decision < 1
            return crash if faulted else Reply(encode_line(Ready()))
        n = message["id"]
        if n in answers:
            return Reply(encode_line(Answer(id=n, action=answers[n])))
        if fault is not None and n >= fault.decision:
            return crash
        return Reply(encode_line(Answer(id=n, index=0)))

    return script


def compare(parsed: ParsedRecord, outcome: MatchOutcome, seat: int) -> RerunReport:
    """The re-run's answers and fault beside the recorded ones: the first difference."""
    rerun_parsed = parse_record(outcome.record)
    recorded, again = _answers(parsed, seat), _answers(rerun_parsed, seat)
    recorded_fault = _first_fault(parsed.faults, seat)
    fault = _first_fault(outcome.faults, seat)
    answered = 0
    verdict: Verdict = "diverges"
    decision: int | None = None
    divergence: str | None = None
    for n, action in sorted(recorded.items()):
        if n not in again:
            break
        if again[n] != action:
            decision = n
            divergence = (
                f"answered decision {n} with {_shown(again[n])}; the recorded bot answered "
                f"{_shown(action)}"
            )
            break
        answered += 1
    if divergence is None:
        divergence, decision = _fault_difference(recorded_fault, fault, recorded)
        if divergence is None:
            verdict = "same" if fault is None else "fault"
    return RerunReport(
        seat=seat,
        verdict=verdict,
        answered=answered,
        recorded=len(recorded),
        decision=decision,
        fault=fault,
        recorded_fault=recorded_fault,
        divergence=divergence,
        logs=outcome.logs[seat],
    )


def _fault_difference(
    recorded: Fault | None, fault: Fault | None, answers: dict[int, Any]
) -> tuple[str | None, int | None]:
    """How the re-run's fault differs from the recorded one (None: it does not), and where;
    the answers before both agree."""
    if fault is None and recorded is None:
        return None, None
    if fault is None:
        assert recorded is not None
        return (
            f"did not fault where the recorded bot did ({recorded.kind} at decision "
            f"{recorded.decision})",
            recorded.decision,
        )
    if recorded is not None and (recorded.decision, recorded.kind) == (fault.decision, fault.kind):
        return None, fault.decision
    was = "answered it"
    if recorded is not None and recorded.decision == fault.decision:
        was = f"faulted otherwise ({recorded.kind})"
    elif fault.decision not in answers:
        was = "was not asked it" if recorded is None else f"faulted at {recorded.decision}"
    return (
        f"faulted at decision {fault.decision} ({fault.kind}); the recorded bot {was}",
        fault.decision,
    )


def _shown(action: Any) -> str:
    return msgspec.json.encode(action).decode()
