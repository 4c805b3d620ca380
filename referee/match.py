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

import contextlib
import math
import os
import random
import re
import secrets
from collections.abc import AsyncIterator, Sequence
from operator import attrgetter
from typing import Any

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
from referee import process
from referee.answers import decode_answer, decode_ready
from referee.backstop import Backstop
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


class _Seat:
    """The referee's view of one seat during a game, and of the request it was last sent (a seat
    has one request at a time): its clock's start and limits, and its answer or fault."""

    __slots__ = (
        "answer",
        "answered_at",
        "backstop",
        "began",
        "began_cpu_s",
        "channel",
        "clock",
        "deadline",
        "fault",
        "faulted",
        "handle",
        "index",
        "legal",
        "limit_ms",
        "moves",
        "next_look",
        "used_ms",
    )

    def __init__(self, index: int, handle: BotHandle, clock: SeatClock) -> None:
        self.index = index
        self.handle = handle
        self.clock = clock
        self.channel: BotChannel | None = None
        """The bot, once `start_seat` opened it; None again once killed."""
        self.faulted = False
        self.moves = 0
        self.next_look = 0.0
        """When its bot's resource counters are next looked at (`_Match.look`)."""
        # The last request (see `_Match.start_clock` and `_Match.answered`):
        self.legal: list[Any] = []
        self.limit_ms = 0.0
        self.began = 0.0
        self.began_cpu_s: float | None = None
        """The bot's CPU seconds when asked, in cpu time mode; None in wall time mode."""
        self.backstop: Backstop | None = None
        """What ends the wait in cpu time mode (`deadline` is then never reached)."""
        self.deadline = 0.0
        self.answered_at = 0.0
        self.used_ms = 0.0
        self.answer: Any = None
        """The action answered, when `fault` is None."""
        self.fault: BotFault | None = None

    async def kill(self) -> None:
        """Kill the seat's bot: through its handle, which then starts another for the next
        game, and through the channel, for a bot no handle holds (a test's fake; killing a
        process twice is a no-op)."""
        channel, self.channel = self.channel, None
        await self.handle.kill()
        if channel is not None:
            await channel.kill()


@contextlib.asynccontextmanager
async def watched(backstop: Backstop | None, scope: trio.CancelScope) -> AsyncIterator[None]:
    """The block, while `backstop` (if any: cpu time mode) watches the bot and cancels `scope`
    when the wait is over."""
    if backstop is None:
        yield
        return
    async with trio.open_nursery() as nursery:
        nursery.start_soon(backstop.watch, scope)
        yield
        nursery.cancel_scope.cancel()


class _Guard:
    """The cancel scope that the waits of sequential turns share (see `_Match.decisions`), its
    deadline as last set (reading the scope's costs more), and whether a bot's death cut it."""

    __slots__ = ("deadline", "died", "scope")

    def __init__(self) -> None:
        self.scope = trio.CancelScope()
        self.deadline = math.inf
        self.died = False

    def cancel(self) -> None:
        """The bot waited for died (`BotChannel.ask`)."""
        self.died = True
        self.scope.cancel()

    def cover(self, deadline: float) -> None:
        """Fire at `deadline`, or up to `GUARD_SLACK_S` later: moved only when it would fire
        before or later than that."""
        if not deadline <= self.deadline <= deadline + GUARD_SLACK_S:
            self.deadline = self.scope.deadline = deadline + GUARD_SLACK_S

    def disarm(self) -> None:
        if self.deadline != math.inf:
            self.deadline = self.scope.deadline = math.inf


_Pending = tuple[_Seat, tuple[int, ...], dict[int, list[Any]]]
"""The seat whose request waits under the guard, and its decision's seats and legal actions."""

SENDING = "being sent decision"
WAITING = "the referee waited for its answer to decision"
"""What the referee was doing, for a fault's reason (followed by the decision)."""


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


_index = attrgetter("index")


_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:40] or "bot"


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
            _Seat(seat, handle, SeatClock(times[seat], limits.grace_ms))
            for seat, handle in enumerate(handles)
        ]
        self.cpu_mode = limits.time_mode == "cpu"
        self.now = trio.lowlevel.current_clock().current_time
        """`trio.current_time`, read straight from the run's clock (at every decision)."""
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
        self.writer = RecordWriter(
            Header(
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
        )
        """Encoded at the game's end, so its header has the names the bots gave themselves in
        `ready`."""
        if limits.log_dir is not None and not os.path.isdir(limits.log_dir):
            os.makedirs(limits.log_dir, exist_ok=True)  # before the bots start: sandboxes hide it
        self.logs = []
        tag = _safe(log_tag)
        for seat, handle in enumerate(handles):
            log_dir = handle.log_dir if limits.log_dir is None else limits.log_dir
            path = os.path.join(log_dir, f"{tag}-seat{seat}-{_safe(handle.spec.name)}.log")
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
        fresh = [await self.open_seat(seat) for seat in range(len(self.seats))]
        if any(fresh):
            # A bot started just now takes its time (an interpreter's or a JIT's start): the
            # seats wait for their `ready` at once, each against its own startup limit.
            async with trio.open_nursery() as nursery:
                for seat in range(len(self.seats)):
                    nursery.start_soon(self.start_seat, seat, fresh[seat])
        else:
            # Bots that played the game before answer at once, and a task per seat would cost
            # more than the rest of the start: one seat after the other, each asked only once
            # the one before it is done, its limit counted from its own `start`.
            for seat in range(len(self.seats)):
                await self.start_seat(seat, False)
        writer = self.writer
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
            fault = channel.resource_fault("playing this game (seen at its end)")
            if fault is not None:
                await self.forfeit(seat, fault)

    # ---- startup --------------------------------------------------------------------------

    async def open_seat(self, seat: int) -> bool:
        """Open the seat's bot, a process started if need be (True; a seat whose process could
        not start forfeits); the seat's `began` is when that began."""
        state = self.seats[seat]
        state.began = self.now()
        try:
            state.channel, fresh = await self.open_channel(state.handle)
        except BotFault as spawn_fault:
            await self.forfeit(seat, spawn_fault)
            return False
        return fresh

    async def start_seat(self, seat: int, fresh: bool) -> None:
        """Send the seat's opened bot `start` and expect `ready` within the startup limit, from
        the process's start when it is `fresh`, else from `start`."""
        state = self.seats[seat]
        channel = state.channel
        if channel is None:  # its process could not start
            return
        time = self.times[seat]
        limit_ms = time.startup_ms + self.limits.grace_ms
        began = state.began if fresh else self.now()
        since = "its start" if fresh else "`start`"
        channel.start_game()
        state.next_look = self.now() + process.RESOURCE_CHECK_S
        message = Start(
            protocol=PROTOCOL_VERSION,
            game=self.game.id,
            options=self.options,
            seat=seat,
            players=len(self.seats),
            time=time,
            match=self.match_id,
            seed=self.bot_seeds[seat],
            time_mode=self.limits.time_mode,
        )
        self.writer.start(message)
        fault: BotFault | None = None  # what a wait cut by its deadline leaves
        backstop = None  # in cpu time mode, the startup limit is the bot's CPU time too
        if self.cpu_mode:
            backstop = Backstop(channel, limit_ms, began, channel.cpu_s())
        with trio.move_on_at(math.inf if backstop else began + limit_ms / 1000) as scope:
            async with watched(backstop, scope):
                line, fault = await channel.ask(
                    encode_line(message),
                    scope,
                    sending="being sent `start`",
                    waiting="the referee waited for `ready`",
                )
            if fault is None:
                try:
                    ready = decode_ready(line)
                except BotFault as exc:
                    fault = exc
                else:
                    if not state.handle.spec.name_given and ready.name:
                        self.names[seat] = display_name(ready.name) or self.names[seat]
        if (now := self.now()) >= state.next_look:  # a slow start (a process's, say)
            fault = self.look(state, now, "starting") or fault
        if scope.cancelled_caught:
            grace = f" (+{self.limits.grace_ms} ms grace)" if self.limits.grace_ms else ""
            deadline, reason = scope.deadline, f"no `ready` within {time.startup_ms} ms"
            if backstop is None:
                reason += f" of {since}{grace}"
            else:
                deadline = backstop.next_look
                reason += f" of CPU time after {since}{grace}: {backstop.verdict}"
            fault = await self.late(
                deadline, "startup_timeout", reason, "the referee waited for `ready`", channel
            )
        if fault is not None:
            await self.forfeit(seat, fault)

    def look(
        self, seat: _Seat, now: float, doing: str, decision: int | None = None
    ) -> BotFault | None:
        """The seat's resource fault, if any: the caller looks at most every `RESOURCE_CHECK_S`
        during a game, once `now` (the time it read) is past `_Seat.next_look` (and always at
        its end: `check_resources`)."""
        seat.next_look = now + process.RESOURCE_CHECK_S
        assert seat.channel is not None, "a seat looked at has a live channel"
        return seat.channel.resource_fault(doing, decision)

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
        it was). Whether it was spent is asked of the scope only when it may have been (asking
        reads the clock): not in the usual decision, whose answer was read before the guard's
        deadline — trio expires deadlines in each pass of its loop before it runs that pass's
        tasks, so none had expired it — with no death having cut the guard. The seats asked at
        once of a simultaneous decision have scopes of their own, the guard being disarmed
        first.
        """
        guard = _Guard()
        with guard.scope:
            game, state, last = self.game, self.state, len(self.seats) - 2
            while self.faulted_seats <= last and (to_act := game.to_act(state)):  # 2 healthy
                self.decision += 1
                if not await self.decide(to_act, guard) and guard.scope.cancel_called:
                    return False
            return True
        pending, self.pending = self.pending, None
        assert pending is not None, "the guard is armed only while a request waits"
        seat, to_act, legal = pending
        await self.answered(seat, b"", None, True)
        await self.conclude(to_act, legal, [seat])
        return False

    async def decide(self, to_act: tuple[int, ...], guard: _Guard) -> bool:
        """Ask for the decision, judge the answers, apply and record it; True when the guard
        was certainly not spent meanwhile (see `decisions`)."""
        game, state, seats = self.game, self.state, self.seats
        one = len(to_act) == 1 and not self.cpu_mode  # cpu time mode's backstop is a task
        if one and (channel := (seat := seats[to_act[0]]).channel) is not None:
            # One seat asked (every turn of a sequential game): no task to spawn, no nursery to
            # open and join, no cancel scope of its own (see `decisions`).
            index = seat.index
            legal = game.legal(state, index)
            line = self.act(seat, legal)
            self.start_clock(seat, legal)
            guard.cover(seat.deadline)
            legals = {index: legal}
            self.pending = (seat, to_act, legals)
            reply, fault = await channel.ask(
                line, guard, sending=SENDING, waiting=WAITING, decision=self.decision
            )
            self.pending = None
            answered = await self.answered(seat, reply, fault, False)
            if answered and seat.answer in legal and not self.sample_latency:
                # The usual decision: an answer from the legal list, no checkpoint since.
                seat.moves += 1
                actions = {index: seat.answer}
                game.apply(state, actions)
                self.applied += 1
                self.writer.turn(self.decision, actions, seat.used_ms)
                return seat.answered_at < guard.deadline and not guard.died
            await self.conclude(to_act, legals, [seat])
            return False
        # Several seats asked at once (or none: a faulty seat's turn), each against its own
        # clock in a cancel scope of its own, so that no answer waits for another's deadline.
        legals = {index: game.legal(state, index) for index in to_act}
        lines = [
            (seats[index], self.act(seats[index], legals[index]))
            for index in to_act
            if not seats[index].faulted
        ]
        if lines:
            guard.disarm()  # the nursery's checkpoints are inside the guard
            async with trio.open_nursery() as nursery:
                for seat, line in lines:
                    self.start_clock(seat, legals[seat.index])
                    nursery.start_soon(self.ask, seat, line)
        await self.conclude(to_act, legals, [seat for seat, _ in lines])
        return False

    def act(self, seat: _Seat, legal: list[Any]) -> bytes:
        """The `act` line asking `seat` for the current decision."""
        observation = self.game.observe(self.state, seat.index)
        return encode_act(self.decision, observation, legal, seat.clock.available)

    def start_clock(self, seat: _Seat, legal: list[Any]) -> None:
        """Start the clock of `seat`'s request for the current decision."""
        seat.legal = legal
        seat.fault = None
        seat.limit_ms = limit_ms = seat.clock.limit_ms
        seat.began = began = self.now()
        if self.cpu_mode:
            assert seat.channel is not None, "a healthy seat has a live channel"
            seat.began_cpu_s = cpu_s = seat.channel.cpu_s()
            seat.backstop = Backstop(seat.channel, limit_ms, began, cpu_s)
            seat.deadline = math.inf
        else:
            seat.deadline = began + limit_ms / 1000

    async def ask(self, seat: _Seat, line: bytes) -> None:
        """Ask one of the seats asked at once (see `decide`)."""
        assert seat.channel is not None, "a healthy seat has a live channel"
        reply, fault = b"", None  # what a request cut by its deadline leaves
        with trio.move_on_at(seat.deadline) as scope:
            async with watched(seat.backstop, scope):
                reply, fault = await seat.channel.ask(
                    line, scope, sending=SENDING, waiting=WAITING, decision=self.decision
                )
        await self.answered(seat, reply, fault, scope.cancelled_caught)

    async def answered(
        self, seat: _Seat, reply: bytes, fault: BotFault | None, cut_short: bool
    ) -> bool:
        """Charge the time of a request whose wait is over (`cut_short`: by its deadline or
        the bot's death) and turn the reply into the seat's answer (True) or its fault."""
        channel, decision = seat.channel, self.decision
        assert channel is not None, "a seat asked has a live channel"
        seat.answered_at = answered = self.now()
        used_ms = (answered - seat.began) * 1000
        if seat.began_cpu_s is not None and not cut_short:
            used_ms = (channel.cpu_s() - seat.began_cpu_s) * 1000
        seat.used_ms = used_ms
        if self.sample_latency:
            with trio.CancelScope(shield=True):  # a spent guard must not cut this short
                await trio.lowlevel.checkpoint()
            self.latency_ms.append(round((trio.current_time() - answered) * 1000, 3))
        clock = seat.clock
        limit_ms = seat.limit_ms
        in_time = clock.charge(used_ms)
        if cut_short:
            backstop, allowance = seat.backstop, _allowance(clock, limit_ms)
            if backstop is None:
                deadline = seat.deadline
                reason = f"no answer to decision {decision} within {limit_ms:.0f} ms ({allowance})"
            else:
                deadline = backstop.next_look
                reason = (
                    f"no answer to decision {decision} within its {limit_ms:.0f} ms of CPU "
                    f"time ({allowance}): {backstop.verdict}"
                )
            reason += f"; waited {used_ms:.0f} ms"
            fault = await self.late(deadline, "timeout", reason, f"{WAITING} {decision}", channel)
        elif fault is None and not in_time:
            fault = BotFault(
                "timeout",
                f"answered decision {decision} after {used_ms:.0f} ms; the limit was "
                f"{limit_ms:.0f} ms ({_allowance(clock, limit_ms)})",
            )
        if answered >= seat.next_look:
            fault = self.look(seat, answered, "answering decision", decision) or fault
        if fault is None:
            try:
                seat.answer = decode_answer(reply, decision, seat.legal, self.game.Action)
                return True
            except BotFault as exc:
                fault = exc
        seat.fault = fault
        await seat.kill()
        return False

    async def conclude(
        self, to_act: tuple[int, ...], legal: dict[int, list[Any]], asked: list[_Seat]
    ) -> None:
        """Judge the answers of the seats `asked`, forfeit the faulty seats, apply the decision
        and record it."""
        answers: dict[int, Any] = {}
        times: dict[int, float] = {}
        faults: dict[int, BotFault] = {}
        for seat in sorted(asked, key=_index):
            times[seat.index] = seat.used_ms
            if seat.fault is None:
                refusal = self.refusal(to_act, legal, seat.index, seat.answer)
                if refusal is None:
                    answers[seat.index] = seat.answer
                    continue
                seat.fault = refusal
            faults[seat.index] = seat.fault
        for index in sorted(faults):
            await self.forfeit(index, faults[index])
        if faults and self.healthy() < 2:
            return
        fallback: list[int] = []
        if len(answers) < len(to_act):  # the seats that faulted, now or before
            fallback = [index for index in to_act if index not in answers]
        for index in answers:
            self.seats[index].moves += 1
        for index in fallback:
            answers[index] = self.fallback_rng().choice(legal[index])
        self.game.apply(self.state, answers)
        self.applied += 1
        self.writer.decision(self.decision, answers, times, fallback)

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
