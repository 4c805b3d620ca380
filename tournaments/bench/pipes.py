"""The protocol floor: one short line there and back between a parent and a Python child.

`trio_round_trip_us` is the floor the referee's overhead is compared with: a trio parent (as the
referee is) writing a line to the `echo` child and reading it back, with nothing else done.
`blocking_round_trip_us` is the same with blocking reads and writes on both ends, for scale.
"""

from __future__ import annotations

import statistics
import subprocess
import time

import trio

from tournaments.bench.children import command

LINE = b'{"type":"ping","id":1}\n'


def trio_round_trip_us(round_trips: int, repeats: int) -> float:
    """Median over `repeats` of the mean µs per round trip (trio parent, blocking child)."""

    async def main() -> float:
        process = await trio.lowlevel.open_process(
            command("echo"), stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert process.stdin is not None and process.stdout is not None
        send, receive = process.stdin.send_all, process.stdout.receive_some
        try:
            samples = []
            for _ in range(repeats + 1):  # the first round warms the child up and is dropped
                began = time.perf_counter()
                for _ in range(round_trips):
                    await send(LINE)
                    reply = await receive(1 << 16)
                    while not reply.endswith(b"\n"):
                        reply += await receive(1 << 16)
                samples.append((time.perf_counter() - began) / round_trips * 1e6)
            return statistics.median(samples[1:])
        finally:
            await process.stdin.aclose()
            await process.wait()

    return trio.run(main)


def blocking_round_trip_us(round_trips: int, repeats: int) -> float:
    """The same round trip with a blocking Python parent."""
    with subprocess.Popen(command("echo"), stdin=subprocess.PIPE, stdout=subprocess.PIPE) as child:
        assert child.stdin is not None and child.stdout is not None
        write, flush, readline = child.stdin.write, child.stdin.flush, child.stdout.readline
        samples = []
        for _ in range(repeats + 1):
            began = time.perf_counter()
            for _ in range(round_trips):
                write(LINE)
                flush()
                readline()
            samples.append((time.perf_counter() - began) / round_trips * 1e6)
        child.stdin.close()
    return statistics.median(samples[1:])
