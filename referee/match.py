"""The match loop: one game between bot processes, under a time control, with forfeits.

For every decision the seats in `to_act` are asked concurrently, each against its own clock (a
slow bot never eats another's time); their actions are applied together once every one of them
has answered or faulted, so in a simultaneous game no answer can leak into another seat's
observation. Everything a bot sends is checked (`referee.answers`), and an action object is
finally judged by the engine, whose `IllegalAction` names the rule broken.

A bot's fault is recorded with a reason and costs the game: the faulty seat is ranked last
(faulty seats share the last rank). While at least two seats are healthy the game goes on, the
faulty seats played by a fallback policy (a uniformly random legal action from an RNG seeded by
the match seed); when fewer than two remain — at once in a two-player game — the game ends and
the others are ranked by the current scores. Any other exception from the engine is a bug and
propagates.

Secrecy: nothing sent to a bot is derived from the game's seed. The match id is random, and each
seat's own seed (for the bot's randomness) is either given by the caller (a tournament derives it
from its secret, independently of the deal seed) or drawn at random.
"""

from __future__ import annotations

import math
import os
import random
import re
import secrets
from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec
import trio

from protocol.messages import (
    PROTOCOL_VERSION,
    End,
    Start,
    TimeControl,
    encode_act,
    encode_line,
)
from referee.answers import decode_answer, decode_ready
from referee.channel import BotChannel, OpenChannel
from referee.clock import SeatClock
from referee.faults import BotFault, Fault, describe_exit, excerpt, forfeit_result
from referee.games import Game, GameResult, IllegalAction, find_game, parse_options
from referee.process import BotHandle, BotSpec, Limits, open_bots
from referee.record import Header, RecordWriter

END_WRITE_TIMEOUT_S = 1.0
"""How long writing `end` to a bot may take; a bot that does not read it is restarted later."""

GUARD_SLACK_S = 0.01
"""How much later than a request's deadline the shared guard of sequential turns may fire (see
`_Match.decisions`): moving a cancel scope's deadline costs more than a fast decision's engine
work, and within this slack one deadline serves the next requests for as long as they take
10 ms together (about 70 decisions of fast bots; at 1 ms, one in five decisions moved it). No
verdict depends on it (the time charged is measured, and an answer after the limit is a timeout
however late it is read): a hung bot is only cut at most 10 ms later."""

CPU_MODE_WALL_FACTOR = 3
"""In cpu time mode, the wall-clock backstop is this many times the decision's limit: a bot that
sleeps or blocks uses no CPU and would otherwise never time out."""


class MatchOutcome(msgspec.Struct):
    """Everything a tournament needs to know about one played game."""

    game: str
    options: dict[str, Any]
    """The options as the engine understood them (defaults filled in)."""
    seed: int
    names: list[str]
    result: GameResult
    """Ranks already adjusted for forfeits (`tiebreak` is "forfeit" when a seat faulted)."""
    faults: list[Fault]
    decisions: int
    """Decisions applied (a simultaneous decision counts once)."""
    think_ms: list[float]
    """Total time charged per seat."""
    moves: list[int]
    """Decisions each seat answered (validly)."""
    record: bytes
    """The game record, JSON lines (see `referee.record`)."""
    logs: list[str]
    """Per-seat stderr log paths of this game. A log is created by the bot's first byte on
    stderr in the game: a bot that wrote nothing has no file at its path."""
    match_id: str = ""
    latency_ms: list[float] = []
    """The referee's scheduling latency sampled after every answer when `play_match` was asked
    to (`sample_latency`; see `_Match.latency_ms`), else empty."""


class _Request:
    """One seat's `act` in flight: whom, for which decision, and its clock's start and limits."""

    __slots__ = (
        "began",
        "began_cpu_s",
        "channel",
        "deadline",
        "decision",
        "legal",
        "limit_ms",
        "seat",
        "wall_limit_ms",
    )

    def __init__(
        self,
        *,
        seat: int,
        channel: BotChannel,
        legal: list[Any],
        decision: int,
        limit_ms: float,
        wall_limit_ms: float,
        began_cpu_s: float | None,
        began: float,
        deadline: float,
    ) -> None:
        self.seat = seat
        self.channel = channel
        self.legal = legal
        self.decision = decision
        self.limit_ms = limit_ms
        self.wall_limit_ms = wall_limit_ms
        self.began_cpu_s = began_cpu_s
        """The bot's CPU seconds when asked, in cpu time mode; None in wall time mode."""
        self.began = began
        self.deadline = deadline


class _Outcome:
    """What the seats asked for one decision came back with: answers, times and faults."""

    __slots__ = ("answers", "faults", "times")

    def __init__(self) -> None:
        self.answers: dict[int, Any] = {}
        self.times: dict[int, float] = {}
        self.faults: dict[int, BotFault] = {}


class _Pending(NamedTuple):
    """The decision whose one request waits under the shared guard (see `_Match.decisions`)."""

    request: _Request
    to_act: tuple[int, ...]
    legal: dict[int, list[Any]]
    outcome: _Outcome


class _Seat:
    """The referee's view of one seat during a game."""

    def __init__(self, handle: BotHandle, clock: SeatClock) -> None:
        self.handle = handle
        self.clock = clock
        self.channel: BotChannel | None = None
        """The bot, once `start_seat` opened it; None again once killed."""
        self.faulted = False
        self.moves = 0

    async def kill(self) -> None:
        """Kill the seat's bot: through its handle, which then starts another for the next
        game, and through the channel, for a bot no handle holds (a test's fake; killing a
        process twice is a no-op)."""
        channel, self.channel = self.channel, None
        await self.handle.kill()
        if channel is not None:
            await channel.kill()


async def play_match(
    game_id: str,
    options: dict[str, Any] | None,
    seed: int,
    handles: Sequence[BotHandle],
    time: TimeControl | Sequence[TimeControl],
    *,
    limits: Limits | None = None,
    match_id: str = "",
    bot_seeds: Sequence[int] | None = None,
    log_tag: str = "",
    sample_latency: bool = False,
    open_channel: OpenChannel = BotHandle.ensure_started,
) -> MatchOutcome:
    """Play one game with `handles[i]` in seat i; their processes stay alive for the next game.

    `time` is one time control for every seat, or one per seat (time odds).
    `bot_seeds` are the seeds sent to the seats in `start` (random when None); `match_id` the id
    sent to them (random when empty). Neither may be derived from `seed`: a bot would learn the
    game's draws. `log_tag` names the stderr log files (the match id when empty); bots never see
    it.

    `sample_latency` fills `MatchOutcome.latency_ms` (one extra pass through the event loop per
    answer, which is why it is off unless a measurement asks for it).

    `open_channel` gives a handle's bot for the game (see `referee.channel`): its process,
    started if need be, unless a test puts a scripted bot in its place.

    Raises `UnknownGame`/`BadOptions`/`BadPlayerCount` for a bad setup (before any bot is asked),
    and whatever the engine raises other than `IllegalAction` (an engine bug). On any exception
    or cancellation the match's bot processes are killed, since they are in mid-protocol.
    """
    game, parsed_options = _setup(game_id, options, len(handles))
    players = len(handles)
    if len({id(handle) for handle in handles}) != players:
        raise ValueError("a bot handle can play only one seat of a match; open one per seat")
    if any(handle.busy for handle in handles):
        raise RuntimeError("a bot handle is already playing another match")
    limits = limits or handles[0].limits
    match_id = match_id or secrets.token_hex(8)
    if bot_seeds is None:
        bot_seeds = [secrets.randbits(63) for _ in handles]
    elif len(bot_seeds) != players:
        raise ValueError(f"{len(bot_seeds)} bot seeds for {players} seats")
    times = [time] * players if isinstance(time, TimeControl) else list(time)
    if len(times) != players:
        raise ValueError(f"{len(times)} time controls for {players} seats")
    runner = _Match(
        game,
        parsed_options,
        seed,
        handles,
        times,
        limits,
        match_id,
        list(bot_seeds),
        log_tag or match_id,
        open_channel,
        sample_latency,
    )
    for handle in handles:
        handle.busy = True
    try:
        return await runner.run()
    except BaseException:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for seat in runner.seats:
                    nursery.start_soon(seat.kill)
        raise
    finally:
        for handle in handles:
            handle.busy = False


async def run_match(
    game_id: str,
    options: dict[str, Any] | None,
    seed: int,
    specs: Sequence[BotSpec],
    time: TimeControl | Sequence[TimeControl],
    *,
    limits: Limits | None = None,
    match_id: str = "",
    bot_seeds: Sequence[int] | None = None,
) -> MatchOutcome:
    """Start the bots, play one game, and kill every process: the one-off convenience."""
    _setup(game_id, options, len(specs))  # a bad setup fails before any process starts
    async with open_bots(specs, limits) as handles:
        return await play_match(
            game_id,
            options,
            seed,
            handles,
            time,
            limits=limits,
            match_id=match_id,
            bot_seeds=bot_seeds,
        )


def _setup(game_id: str, options: dict[str, Any] | None, players: int) -> tuple[Game[Any], Any]:
    """The engine and its parsed options, or the error that says why this match cannot be."""
    game = find_game(game_id)
    parsed = parse_options(game, options)
    game.check_players(players)
    return game, parsed


def _allowance(clock: SeatClock, limit_ms: float) -> str:
    """A decision's limit in words, for a timeout's reason (built only when one happens)."""
    bank_ms = int(limit_ms - clock.move_ms - clock.grace_ms)
    allowance = f"move {clock.move_ms} ms + bank {bank_ms} ms"
    if clock.grace_ms:
        allowance += f" + grace {clock.grace_ms} ms"
    return allowance


def display_name(name: str) -> str:
    """A bot's self-chosen name as shown in tables: printable, trimmed, at most 40 characters."""
    return "".join(char for char in name if char.isprintable()).strip()[:40].strip()


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"


class _Match:
    """One game in progress (the state `play_match` needs between decisions)."""

    def __init__(
        self,
        game: Game[Any],
        options: Any,
        seed: int,
        handles: Sequence[BotHandle],
        times: list[TimeControl],
        limits: Limits,
        match_id: str,
        bot_seeds: list[int],
        log_tag: str,
        open_channel: OpenChannel,
        sample_latency: bool = False,
    ) -> None:
        self.game = game
        self.open_channel = open_channel
        self.bot_seeds = bot_seeds
        self.seed = seed
        self.times = times
        self.limits = limits
        self.match_id = match_id
        self.options = msgspec.to_builtins(options)
        self.state = game.new(len(handles), seed, options)
        self.seats = [
            _Seat(handle, SeatClock(times[seat], limits.grace_ms))
            for seat, handle in enumerate(handles)
        ]
        self.faults: list[Fault] = []
        self.faulted_seats = 0
        self.sample_latency = sample_latency
        self.latency_ms: list[float] = []
        """Per answer (when `sample_latency`): one round trip through the event loop right after
        it was read, a sample of how late the referee notices a reply (time a bot may be charged
        for our delays)."""
        self.decision = -1
        """The decision being asked: -1 during startup, then 1, 2, ... (the `act` ids)."""
        self.applied = 0
        self.pending: _Pending | None = None
        self._fallback_rng: random.Random | None = None
        self.names = [handle.spec.name for handle in handles]
        self.header = Header(
            record=1,
            protocol=PROTOCOL_VERSION,
            game=game.id,
            options=self.options,
            seed=seed,
            match=match_id,
            names=self.names,
            commands=[list(handle.spec.command) for handle in handles],
            time=times[0],
            rules=game.version,
            seat_times=None if len(set(times)) == 1 else times,
        )
        self.writer: RecordWriter | None = None
        """Made once every seat has answered `ready` (a bot may name itself there)."""
        if limits.log_dir is not None and not os.path.isdir(limits.log_dir):
            os.makedirs(limits.log_dir, exist_ok=True)  # before the bots start: sandboxes hide it
        self.logs = []
        for seat, handle in enumerate(handles):
            log_dir = handle.log_dir if limits.log_dir is None else limits.log_dir
            name = f"{_safe(log_tag)}-seat{seat}-{_safe(handle.spec.name)}.log"
            path = os.path.join(log_dir, name)
            handle.stderr.open(path)
            self.logs.append(path)

    def healthy(self) -> int:
        return len(self.seats) - self.faulted_seats

    def fallback_rng(self) -> random.Random:
        """The fallback policy's RNG, seeded by the match seed (made when first needed: seeding
        one costs more than a decision, and most games never need it)."""
        if self._fallback_rng is None:
            self._fallback_rng = random.Random(f"arena-fallback-{self.seed}")
        return self._fallback_rng

    async def run(self) -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            for seat in range(len(self.seats)):
                nursery.start_soon(self.start_seat, seat)
        self.writer = writer = RecordWriter(self.header)
        for fault in self.faults:  # at startup
            writer.fault(fault)
        self.decision = 0
        while not await self.decisions():
            pass
        await self.check_resources()
        faulty = {fault.seat for fault in self.faults}
        result = forfeit_result(self.game.result(self.state), self.game.scores(self.state), faulty)
        writer.result(result, self.applied)
        await self.send_end(result)
        return MatchOutcome(
            game=self.game.id,
            options=self.options,
            seed=self.seed,
            names=self.names,
            result=result,
            faults=self.faults,
            decisions=self.applied,
            think_ms=[round(seat.clock.used_ms, 3) for seat in self.seats],
            latency_ms=self.latency_ms,
            moves=[seat.moves for seat in self.seats],
            record=writer.data(),
            logs=self.logs,
            match_id=self.match_id,
        )

    # ---- faults ---------------------------------------------------------------------------

    async def forfeit(self, seat: int, fault: BotFault) -> None:
        """Record the fault, take the seat out of the game, kill its process (restarted lazily)."""
        record = Fault(seat=seat, kind=fault.kind, reason=fault.reason, decision=self.decision)
        self.faults.append(record)
        if self.writer is not None:  # else written with the header, once startup is over
            self.writer.fault(record)
        if not self.seats[seat].faulted:
            self.seats[seat].faulted = True
            self.faulted_seats += 1
        await self.seats[seat].kill()

    async def check_resources(self) -> None:
        """Look at every healthy bot's resource counters now (during the game they are looked
        at on a timer): an excess not reported yet happened in this game."""
        for seat, state in enumerate(self.seats):
            channel = state.channel
            if state.faulted or channel is None:
                continue
            fault = channel.resource_fault("playing this game (seen at its end)", now=True)
            if fault is not None:
                await self.forfeit(seat, fault)

    # ---- startup --------------------------------------------------------------------------

    async def start_seat(self, seat: int) -> None:
        """Open the seat's bot (a process started if need be), send `start`, expect `ready`
        within the startup limit."""
        handle = self.seats[seat].handle
        time = self.times[seat]
        limit_ms = time.startup_ms + self.limits.grace_ms
        began = trio.current_time()
        try:
            channel, fresh = await self.open_channel(handle)
        except BotFault as spawn_fault:
            await self.forfeit(seat, spawn_fault)
            return
        self.seats[seat].channel = channel
        since = "its start" if fresh else "`start`"
        channel.start_game()
        message = Start(
            protocol=PROTOCOL_VERSION,
            game=self.game.id,
            options=self.options,
            seat=seat,
            players=len(self.seats),
            time=time,
            match=self.match_id,
            seed=self.bot_seeds[seat],
        )
        fault: BotFault | None = None
        with trio.move_on_at(began + limit_ms / 1000) as scope:
            channel.cancel_on_exit(scope)
            try:
                await channel.send(encode_line(message), doing="being sent `start`")
                ready = decode_ready(await channel.receive(doing="the referee waited for `ready`"))
                if not handle.spec.name_given and ready.name:
                    self.names[seat] = display_name(ready.name) or self.names[seat]
            except BotFault as exc:
                fault = exc
        channel.cancel_on_exit(None)
        fault = channel.resource_fault("starting") or fault
        if scope.cancelled_caught:
            fault = await self.late(
                scope.deadline,
                "startup_timeout",
                f"no `ready` within {time.startup_ms} ms of {since}"
                + (f" (+{self.limits.grace_ms} ms grace)" if self.limits.grace_ms else ""),
                "the referee waited for `ready`",
                channel,
            )
        if fault is not None:
            await self.forfeit(seat, fault)

    async def late(
        self, deadline: float, kind: str, reason: str, doing: str, channel: BotChannel
    ) -> BotFault:
        """A wait cut short: by the bot's death (a crash, seen at once even while a child of it
        holds its stdout open) or by its deadline (`kind`, or a crash if it died meanwhile)."""
        code = channel.exit_status()
        if code is None:
            return BotFault(kind, reason)
        tail = await channel.stderr_tail()
        if trio.current_time() < deadline:
            return channel.death_fault(code, f"exited ({describe_exit(code)}) while {doing}{tail}")
        return channel.death_fault(code, f"exited ({describe_exit(code)}); {reason}{tail}")

    # ---- decisions ------------------------------------------------------------------------

    async def decisions(self) -> bool:
        """Play decisions until the game is over (True), or until the cancel scope they share
        is spent (False: the caller calls again, and a fresh scope is made).

        A cancel scope per request cost more than the rest of a fast decision, so the requests
        of one seat at a time (every turn of a sequential game) share one `guard`, given each
        request's deadline just before its wait (and the bot's death as a reason to cancel,
        during the wait only). The guard's deadline is moved only when it would fire before
        the request's deadline or more than `GUARD_SLACK_S` after it. A wait it cuts short
        unwinds to here, where its decision is concluded. Between waits the guard keeps the
        last deadline (resetting it costs as much as setting it): nothing there is a checkpoint
        that is not shielded, so it cannot cut anything short, and a guard it spent anyway — a
        deadline that passed, or a bot that died, just as the answer arrived or during a
        shielded wait — is replaced after the decision (the answer counts, charged as late if
        it was). The seats asked at once of a simultaneous decision have scopes of their own,
        the guard being disarmed first.
        """
        with trio.CancelScope() as guard:
            while self.healthy() >= 2 and (to_act := self.game.to_act(self.state)):
                self.decision += 1
                await self.decide(to_act, guard)
                if guard.cancel_called:
                    return False
            return True
        pending, self.pending = self.pending, None
        assert pending is not None, "the guard is armed only while a request waits"
        await self.answered(pending.request, b"", None, True, pending.outcome)
        await self.conclude(pending.to_act, pending.legal, pending.outcome)
        return False

    async def decide(self, to_act: tuple[int, ...], guard: trio.CancelScope) -> None:
        game, state = self.game, self.state
        legal = {seat: game.legal(state, seat) for seat in to_act}
        lines = [
            (seat, self.act(seat, legal[seat])) for seat in to_act if not self.seats[seat].faulted
        ]
        outcome = _Outcome()
        if len(lines) == 1:
            # One seat asked (every turn of a sequential game): no task to spawn, no nursery to
            # open and join, no cancel scope of its own (see `decisions`).
            [(seat, line)] = lines
            request = self.request(seat, legal[seat])
            self.pending = _Pending(request, to_act, legal, outcome)
            if not request.deadline <= guard.deadline <= request.deadline + GUARD_SLACK_S:
                guard.deadline = request.deadline + GUARD_SLACK_S
            reply, fault = await self.exchange(request, line, guard)
            self.pending = None
            await self.answered(request, reply, fault, False, outcome)
        else:
            guard.deadline = math.inf  # the nursery's checkpoints are inside the guard
            async with trio.open_nursery() as nursery:
                for seat, line in lines:
                    nursery.start_soon(self.ask, self.request(seat, legal[seat]), line, outcome)
        await self.conclude(to_act, legal, outcome)

    def act(self, seat: int, legal: list[Any]) -> bytes:
        """The `act` line asking `seat` for the current decision."""
        observation = self.game.observe(self.state, seat)
        return encode_act(self.decision, observation, legal, self.seats[seat].clock.available())

    async def conclude(
        self, to_act: tuple[int, ...], legal: dict[int, list[Any]], outcome: _Outcome
    ) -> None:
        """Judge the answers, forfeit the faulty seats, apply the decision and record it."""
        answers, faults = outcome.answers, outcome.faults
        if not faults and len(to_act) == 1:
            # The usual decision: one seat asked, an answer from its legal list.
            [seat] = to_act
            action = answers.get(seat)
            if action is not None and action in legal[seat]:
                self.seats[seat].moves += 1
                self.settle(answers, outcome.times, [])
                return
        for seat in sorted(answers):
            refusal = self.refusal(to_act, legal, seat, answers[seat])
            if refusal is not None:
                faults[seat] = refusal
                del answers[seat]
        for seat in sorted(faults):
            await self.forfeit(seat, faults[seat])
        if faults and self.healthy() < 2:
            return
        fallback: list[int] = []
        if len(answers) < len(to_act):  # the seats that faulted, now or before
            fallback = [seat for seat in to_act if seat not in answers]
        for seat in fallback:
            answers[seat] = self.fallback_rng().choice(legal[seat])
        for seat in answers:
            if seat not in fallback:
                self.seats[seat].moves += 1
        self.settle(answers, outcome.times, fallback)

    def settle(self, answers: dict[int, Any], times: dict[int, float], fallback: list[int]) -> None:
        """Apply the decision's actions and record them."""
        self.game.apply(self.state, answers)
        self.applied += 1
        assert self.writer is not None, "decisions come after startup"
        self.writer.decision(self.decision, answers, times, fallback)

    def request(self, seat: int, legal: list[Any]) -> _Request:
        """Start the clock of `seat`'s request for the current decision."""
        clock = self.seats[seat].clock
        channel = self.seats[seat].channel
        assert channel is not None, "a healthy seat has a live channel"
        limit_ms = clock.limit_ms()
        cpu_mode = self.limits.time_mode == "cpu"
        wall_limit_ms = limit_ms * CPU_MODE_WALL_FACTOR if cpu_mode else limit_ms
        began = trio.current_time()
        return _Request(
            seat=seat,
            channel=channel,
            legal=legal,
            decision=self.decision,
            limit_ms=limit_ms,
            wall_limit_ms=wall_limit_ms,
            began_cpu_s=channel.cpu_s() if cpu_mode else None,
            began=began,
            deadline=began + wall_limit_ms / 1000,
        )

    async def ask(self, request: _Request, line: bytes, outcome: _Outcome) -> None:
        """Send one seat its `act` and read its answer against its own clock, in a cancel
        scope of its own (several seats are asked at once)."""
        reply, fault = b"", None  # what a request cut by its deadline leaves
        with trio.move_on_at(request.deadline) as scope:
            reply, fault = await self.exchange(request, line, scope)
        await self.answered(request, reply, fault, scope.cancelled_caught, outcome)

    async def exchange(
        self, request: _Request, line: bytes, scope: trio.CancelScope
    ) -> tuple[bytes, BotFault | None]:
        """Write the request and read the reply line, `scope` being cancelled if the bot dies
        meanwhile (its deadline is the caller's business)."""
        channel = request.channel
        decision = request.decision
        channel.cancel_on_exit(scope)
        try:
            await channel.send(line, doing="being sent decision", decision=decision)
            reply = await channel.receive(
                doing="the referee waited for its answer to decision", decision=decision
            )
        except BotFault as exc:
            return b"", exc
        finally:
            channel.cancel_on_exit(None)
        return reply, None

    async def answered(
        self,
        request: _Request,
        reply: bytes,
        fault: BotFault | None,
        cut_short: bool,
        outcome: _Outcome,
    ) -> None:
        """Charge the time of a request whose wait is over (`cut_short`: by its deadline or
        the bot's death) and turn the reply into an answer or a fault."""
        seat, channel, decision = request.seat, request.channel, request.decision
        clock = self.seats[seat].clock
        answered = trio.current_time()
        used_ms = (answered - request.began) * 1000
        if request.began_cpu_s is not None and not cut_short:
            used_ms = (channel.cpu_s() - request.began_cpu_s) * 1000
        outcome.times[seat] = used_ms
        if self.sample_latency:
            with trio.CancelScope(shield=True):  # a spent guard must not cut this short
                await trio.lowlevel.checkpoint()
            self.latency_ms.append(round((trio.current_time() - answered) * 1000, 3))
        limit_ms = request.limit_ms
        in_time = clock.charge(used_ms)
        if cut_short:
            allowance = _allowance(clock, limit_ms)
            cpu_mode = request.began_cpu_s is not None
            fault = await self.late(
                request.deadline,
                "timeout",
                f"no answer to decision {decision} within {request.wall_limit_ms:.0f} ms "
                f"({allowance}"
                + (f", times {CPU_MODE_WALL_FACTOR} in cpu time mode" if cpu_mode else "")
                + f"); waited {used_ms:.0f} ms",
                f"the referee waited for its answer to decision {decision}",
                channel,
            )
        elif fault is None and not in_time:
            fault = BotFault(
                "timeout",
                f"answered decision {decision} after {used_ms:.0f} ms; the limit was "
                f"{limit_ms:.0f} ms ({_allowance(clock, limit_ms)})",
            )
        fault = channel.resource_fault("answering decision", decision) or fault
        if fault is None:
            try:
                outcome.answers[seat] = decode_answer(
                    reply, decision, request.legal, self.game.Action
                )
            except BotFault as exc:
                fault = exc
        if fault is not None:
            outcome.faults[seat] = fault
            await self.seats[seat].kill()

    def refusal(
        self, to_act: tuple[int, ...], legal: dict[int, list[Any]], seat: int, action: Any
    ) -> BotFault | None:
        """None if the engine accepts `seat`'s action, else the `illegal` fault naming the rule.

        An action in the legal list is accepted as is; any other (say, the same cards in another
        order) is tried on a copy of the state with the other seats' first legal actions.
        """
        if action in legal[seat]:
            return None
        probe = self.game.clone(self.state)
        trial = {other: action if other == seat else legal[other][0] for other in to_act}
        try:
            self.game.apply(probe, trial)
        except IllegalAction as exc:
            shown = excerpt(msgspec.json.encode(action), 120)
            detail = f" ({exc.detail})" if exc.detail else ""
            return BotFault(
                "illegal",
                f"sent the action {shown} for decision {self.decision}, which breaks the rule "
                f"'{exc.rule}'{detail}",
            )
        return None

    # ---- the end --------------------------------------------------------------------------

    async def send_end(self, result: GameResult) -> None:
        """Tell the healthy bots the result; one that does not take it is restarted next game.

        The line goes into each pipe at once, normally: only a bot whose pipe is full gets a
        task that waits (at most `END_WRITE_TIMEOUT_S`) for it to read."""
        reason = "; ".join(
            f"seat {fault.seat} ({self.names[fault.seat]}) forfeits: {fault.kind}"
            for fault in self.faults
        )
        line = encode_line(End(scores=result.scores, ranks=result.ranks, reason=reason or "over"))
        waiting: list[tuple[_Seat, BotChannel, bytes]] = []
        for seat in self.seats:
            channel = seat.channel
            if seat.faulted or channel is None:
                continue
            rest = channel.offer(line)
            if rest is None:
                await seat.kill()
            elif rest:
                waiting.append((seat, channel, rest))
        if not waiting:
            return

        async def tell(seat: _Seat, channel: BotChannel, rest: bytes) -> None:
            with trio.move_on_after(END_WRITE_TIMEOUT_S) as scope:
                try:
                    await channel.send(rest, doing="being sent `end`")
                except BotFault:
                    await seat.kill()
            if scope.cancelled_caught:
                await seat.kill()

        async with trio.open_nursery() as nursery:
            for seat, channel, rest in waiting:
                nursery.start_soon(tell, seat, channel, rest)
