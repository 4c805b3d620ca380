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

import os
import random
import re
import secrets
from collections.abc import Sequence
from typing import Any

import msgspec
import trio

from protocol.messages import PROTOCOL_VERSION, Act, End, Start, TimeControl, encode_line
from referee.answers import decode_answer, decode_ready
from referee.clock import SeatClock
from referee.faults import BotFault, Fault, describe_exit, excerpt, forfeit_result
from referee.games import Game, GameResult, IllegalAction, find_game, parse_options
from referee.process import BotHandle, BotProcess, BotSpec, Limits, open_bots
from referee.record import Header, RecordWriter

END_WRITE_TIMEOUT_S = 1.0
"""How long writing `end` to a bot may take; a bot that does not read it is restarted later."""

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
    """Per-seat stderr log paths of this game."""
    match_id: str = ""
    latency_ms: list[float] = []
    """The referee's scheduling latency sampled after every answer when `play_match` was asked
    to (`sample_latency`; see `_Match.latency_ms`), else empty."""


class _Seat:
    """The referee's view of one seat during a game."""

    def __init__(self, handle: BotHandle, clock: SeatClock) -> None:
        self.handle = handle
        self.clock = clock
        self.faulted = False
        self.moves = 0


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
) -> MatchOutcome:
    """Play one game with `handles[i]` in seat i; their processes stay alive for the next game.

    `time` is one time control for every seat, or one per seat (time odds).
    `bot_seeds` are the seeds sent to the seats in `start` (random when None); `match_id` the id
    sent to them (random when empty). Neither may be derived from `seed`: a bot would learn the
    game's draws. `log_tag` names the stderr log files (the match id when empty); bots never see
    it.

    `sample_latency` fills `MatchOutcome.latency_ms` (one extra pass through the event loop per
    answer, which is why it is off unless a measurement asks for it).

    Raises `UnknownGame`/`BadOptions`/`ValueError` for a bad setup (before any bot is asked),
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
        sample_latency,
    )
    for handle in handles:
        handle.busy = True
    try:
        return await runner.run()
    except BaseException:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for handle in handles:
                    nursery.start_soon(handle.kill)
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
    if not game.min_players <= players <= game.max_players:
        raise ValueError(
            f"{game.id} is for {game.min_players}-{game.max_players} players, not {players}"
        )
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
        sample_latency: bool = False,
    ) -> None:
        self.game = game
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
        self.sample_latency = sample_latency
        self.latency_ms: list[float] = []
        """Per answer (when `sample_latency`): one round trip through the event loop right after
        it was read, a sample of how late the referee notices a reply (time a bot may be charged
        for our delays)."""
        self.decision = -1
        """The decision being asked: -1 during startup, then 1, 2, ... (the `act` ids)."""
        self.applied = 0
        self.fallback_rng = random.Random(f"arena-fallback-{seed}")
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
        self.logs = []
        for seat, handle in enumerate(handles):
            if limits.log_dir is None:
                log_dir = handle.log_dir
            else:
                log_dir = limits.log_dir
                os.makedirs(log_dir, exist_ok=True)
            name = f"{_safe(log_tag)}-seat{seat}-{_safe(handle.spec.name)}.log"
            path = os.path.join(log_dir, name)
            handle.stderr.open(path)
            self.logs.append(path)

    def healthy(self) -> int:
        return sum(not seat.faulted for seat in self.seats)

    async def run(self) -> MatchOutcome:
        async with trio.open_nursery() as nursery:
            for seat in range(len(self.seats)):
                nursery.start_soon(self.start_seat, seat)
        self.writer = writer = RecordWriter(self.header)
        for fault in self.faults:  # at startup
            writer.fault(fault)
        self.decision = 0
        while self.healthy() >= 2 and (to_act := self.game.to_act(self.state)):
            self.decision += 1
            await self.decide(to_act)
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
        self.seats[seat].faulted = True
        await self.seats[seat].handle.kill()

    # ---- startup --------------------------------------------------------------------------

    async def start_seat(self, seat: int) -> None:
        """Start the process if needed, send `start`, expect `ready` within the startup limit."""
        handle = self.seats[seat].handle
        time = self.times[seat]
        limit_ms = time.startup_ms + self.limits.grace_ms
        began = trio.current_time()
        try:
            process, fresh = await handle.ensure_started()
        except BotFault as spawn_fault:
            await self.forfeit(seat, spawn_fault)
            return
        since = "its start" if fresh else "`start`"
        process.start_game()
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
            process.cancel_on_exit(scope)
            try:
                await process.send(encode_line(message), doing="being sent `start`")
                ready = decode_ready(
                    await process.receive(doing="the referee waited for `ready`")
                )
                if not handle.spec.name_given and ready.name:
                    self.names[seat] = display_name(ready.name) or self.names[seat]
            except BotFault as exc:
                fault = exc
        process.cancel_on_exit(None)
        fault = process.resource_fault("starting") or fault
        if scope.cancelled_caught:
            fault = await self.late(
                scope,
                "startup_timeout",
                f"no `ready` within {time.startup_ms} ms of {since}"
                + (f" (+{self.limits.grace_ms} ms grace)" if self.limits.grace_ms else ""),
                "the referee waited for `ready`",
                process,
            )
        if fault is not None:
            await self.forfeit(seat, fault)

    async def late(
        self, scope: trio.CancelScope, kind: str, reason: str, doing: str, process: BotProcess
    ) -> BotFault:
        """A wait cut short: by the bot's death (a crash, seen at once even while a child of it
        holds its stdout open) or by its deadline (`kind`, or a crash if it died meanwhile)."""
        code = process.exit_status()
        if code is None:
            return BotFault(kind, reason)
        tail = await process.stderr_tail()
        if trio.current_time() < scope.deadline:
            return process.death_fault(code, f"exited ({describe_exit(code)}) while {doing}{tail}")
        return process.death_fault(code, f"exited ({describe_exit(code)}); {reason}{tail}")

    # ---- one decision ---------------------------------------------------------------------

    async def decide(self, to_act: tuple[int, ...]) -> None:
        game, state = self.game, self.state
        legal = {seat: game.legal(state, seat) for seat in to_act}
        lines = {
            seat: encode_line(
                Act(
                    id=self.decision,
                    observation=game.observe(state, seat),
                    legal=legal[seat],
                    clock=self.seats[seat].clock.available(),
                )
            )
            for seat in to_act
            if not self.seats[seat].faulted
        }
        answers: dict[int, Any] = {}
        times: dict[int, float] = {}
        faults: dict[int, BotFault] = {}
        if len(lines) == 1:
            # One seat asked (every turn of a sequential game): no task to spawn, no nursery to
            # open and join — they cost about as much as the pipe round trip itself.
            ((seat, line),) = lines.items()
            await self.ask(seat, line, legal[seat], answers, times, faults)
        else:
            async with trio.open_nursery() as nursery:
                for seat, line in lines.items():
                    nursery.start_soon(self.ask, seat, line, legal[seat], answers, times, faults)
        for seat in sorted(answers):
            refusal = self.refusal(to_act, legal, seat, answers[seat])
            if refusal is not None:
                faults[seat] = refusal
                del answers[seat]
        for seat in sorted(faults):
            await self.forfeit(seat, faults[seat])
        if faults and self.healthy() < 2:
            return
        fallback = [seat for seat in to_act if seat not in answers]
        for seat in fallback:
            answers[seat] = self.fallback_rng.choice(legal[seat])
        for seat in answers:
            if seat not in fallback:
                self.seats[seat].moves += 1
        game.apply(state, answers)
        self.applied += 1
        assert self.writer is not None, "decisions come after startup"
        self.writer.decision(self.decision, answers, times, fallback)

    async def ask(
        self,
        seat: int,
        line: bytes,
        legal: list[Any],
        answers: dict[int, Any],
        times: dict[int, float],
        faults: dict[int, BotFault],
    ) -> None:
        """Send one seat its `act` and read its answer against its own clock."""
        clock = self.seats[seat].clock
        process = self.seats[seat].handle.process
        assert process is not None, "a healthy seat has a live process"
        decision = self.decision
        limit_ms = clock.limit_ms()
        fault: BotFault | None = None
        reply = b""
        cpu_mode = self.limits.time_mode == "cpu"
        began_cpu_s = process.cpu_s() if cpu_mode else 0.0
        wall_limit_ms = limit_ms * CPU_MODE_WALL_FACTOR if cpu_mode else limit_ms
        began = trio.current_time()
        with trio.move_on_at(began + wall_limit_ms / 1000) as scope:
            process.cancel_on_exit(scope)
            try:
                await process.send(line, doing=f"being sent decision {decision}")
                reply = await process.receive(
                    doing=f"the referee waited for its answer to decision {decision}"
                )
            except BotFault as exc:
                fault = exc
        process.cancel_on_exit(None)
        answered = trio.current_time()
        used_ms = (answered - began) * 1000
        if cpu_mode and not scope.cancelled_caught:
            used_ms = (process.cpu_s() - began_cpu_s) * 1000
        times[seat] = used_ms
        if self.sample_latency:
            await trio.lowlevel.checkpoint()
            self.latency_ms.append(round((trio.current_time() - answered) * 1000, 3))
        in_time = clock.charge(used_ms)
        if scope.cancelled_caught:
            allowance = _allowance(clock, limit_ms)
            fault = await self.late(
                scope,
                "timeout",
                f"no answer to decision {decision} within {wall_limit_ms:.0f} ms ({allowance}"
                + (f", times {CPU_MODE_WALL_FACTOR} in cpu time mode" if cpu_mode else "")
                + f"); waited {used_ms:.0f} ms",
                f"the referee waited for its answer to decision {decision}",
                process,
            )
        elif fault is None and not in_time:
            fault = BotFault(
                "timeout",
                f"answered decision {decision} after {used_ms:.0f} ms; the limit was "
                f"{limit_ms:.0f} ms ({_allowance(clock, limit_ms)})",
            )
        fault = process.resource_fault("answering decision", decision) or fault
        if fault is None:
            try:
                answers[seat] = decode_answer(reply, decision, legal, self.game.Action)
            except BotFault as exc:
                fault = exc
        if fault is not None:
            faults[seat] = fault
            await self.seats[seat].handle.kill()

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
        """Tell the healthy bots the result; one that does not take it is restarted next game."""
        reason = "; ".join(
            f"seat {fault.seat} ({self.names[fault.seat]}) forfeits: {fault.kind}"
            for fault in self.faults
        )
        line = encode_line(End(scores=result.scores, ranks=result.ranks, reason=reason or "over"))

        async def tell(seat: _Seat) -> None:
            process = seat.handle.process
            if seat.faulted or process is None:
                return
            with trio.move_on_after(END_WRITE_TIMEOUT_S) as scope:
                try:
                    await process.send(line, doing="being sent `end`")
                except BotFault:
                    await seat.handle.kill()
            if scope.cancelled_caught:
                await seat.handle.kill()

        async with trio.open_nursery() as nursery:
            for seat in self.seats:
                nursery.start_soon(tell, seat)
