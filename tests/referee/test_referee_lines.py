"""LineReader: lines across arbitrary chunk boundaries, the length limit, end of stream."""

from __future__ import annotations

import itertools
import os

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from protocol.messages import DEFAULT_MAX_LINE_BYTES
from referee.lines import LineReader, LineTooLong


async def reader_over(chunks: list[bytes], limit: int) -> LineReader:
    send, receive = trio.testing.memory_stream_one_way_pair()
    for chunk in chunks:
        await send.send_all(chunk)
    await send.aclose()
    return LineReader(receive, limit)


async def read_all(reader: LineReader) -> list[bytes]:
    lines = []
    while (line := await reader.readline()) is not None:
        lines.append(line)
    return lines


async def test_lines_split_at_newlines_and_unterminated_tail_is_dropped() -> None:
    reader = await reader_over([b"ab", b"c\nde\n\nf", b"g\nunterminated"], 100)
    assert await read_all(reader) == [b"abc", b"de", b"", b"fg"]
    assert await reader.readline() is None


async def test_a_line_of_exactly_the_limit_passes_and_one_more_byte_fails() -> None:
    reader = await reader_over([b"x" * 9 + b"\n" + b"y" * 10 + b"\n"], 10)
    assert await reader.readline() == b"x" * 9
    with pytest.raises(LineTooLong, match="longer than 10 bytes"):
        await reader.readline()


@pytest.mark.parametrize("extra", [0, 1])
@pytest.mark.parametrize("cut", ["none", "before_newline", "after_limit"])
async def test_the_limit_counts_the_newline(extra: int, cut: str) -> None:
    """A line of max_line_bytes bytes, its newline included, passes; one more byte is too long,
    wherever the chunks end."""
    limit = 10
    data = b"x" * (limit - 1 + extra) + b"\n"
    at = {"none": len(data), "before_newline": limit - 1 + extra, "after_limit": limit}[cut]
    reader = await reader_over([data[:at], data[at:]], limit)
    if extra:
        with pytest.raises(LineTooLong):
            await reader.readline()
    else:
        assert await reader.readline() == b"x" * (limit - 1)


@pytest.mark.parametrize("extra", [0, 1])
async def test_the_default_limit_on_a_real_pipe(extra: int) -> None:
    """A line of 1 MiB with its newline (1,048,576 bytes on the wire) passes; 1,048,577 fail."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    content = b"y" * (DEFAULT_MAX_LINE_BYTES - 1 + extra)
    async with (
        trio.lowlevel.FdStream(read_fd) as stream,
        trio.lowlevel.FdStream(write_fd) as writer,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(writer.send_all, content + b"\n" + b"next\n")
        reader = LineReader(stream, DEFAULT_MAX_LINE_BYTES)
        if extra:
            with pytest.raises(LineTooLong, match=f"longer than {DEFAULT_MAX_LINE_BYTES} bytes"):
                await reader.readline()
            nursery.cancel_scope.cancel()
        else:
            assert await reader.readline() == content
            assert await reader.readline() == b"next"


async def test_an_answer_is_waited_for_first_yet_found_when_already_there() -> None:
    """`answer=True` waits for the pipe before reading: an answer written before the call (a
    bot that answers at once) or after it is read either way, a line in a chunk read earlier is
    not waited for, and a closed stream is `ClosedResourceError` as without it."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    stream = trio.lowlevel.FdStream(read_fd)
    reader = LineReader(stream, 100)
    os.write(write_fd, b"early\nkept\n")
    with trio.fail_after(5):
        assert await reader.readline(answer=True) == b"early"
        assert await reader.readline(answer=True) == b"kept"
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.to_thread.run_sync, os.write, write_fd, b"late\n")
            assert await reader.readline(answer=True) == b"late"
    os.close(write_fd)
    assert await reader.readline(answer=True) is None
    await stream.aclose()
    with pytest.raises(trio.ClosedResourceError):
        await LineReader(stream, 100).readline(answer=True)


async def test_an_endless_line_fails_without_reading_it_all() -> None:
    send, receive = trio.testing.memory_stream_one_way_pair()
    reader = LineReader(receive, 1000)
    sent = 0

    async def feed() -> None:
        nonlocal sent
        while True:
            await send.send_all(b"z" * 4096)
            sent += 4096

    async with trio.open_nursery() as nursery:
        nursery.start_soon(feed)
        with pytest.raises(LineTooLong):
            await reader.readline()
        nursery.cancel_scope.cancel()
    assert sent < 100_000


def test_bad_limit() -> None:
    with pytest.raises(ValueError):
        LineReader(trio.testing.MemoryReceiveStream(), 0)


@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=20),
    cuts=st.lists(st.integers(min_value=0, max_value=800), max_size=10),
)
def test_any_chunking_gives_the_same_lines(lines: list[bytes], cuts: list[int]) -> None:
    data = b"".join(line + b"\n" for line in lines)
    points = sorted({0, len(data), *(cut for cut in cuts if cut < len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]

    async def main() -> list[bytes]:
        return await read_all(await reader_over(chunks, 31))  # 30 bytes and the newline

    assert trio.run(main) == lines


@given(
    lines=st.lists(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), max_size=12),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    answers=st.lists(st.booleans(), min_size=12, max_size=12),
)
def test_answers_from_a_pipe_in_any_chunks_are_the_lines_sent(
    lines: list[bytes], cuts: list[int], answers: list[bool]
) -> None:
    """`read_answer` (the referee's quick way to read an answer) and `readline`, in any mix, on a
    real pipe written in any chunks at any moment, give exactly the lines written."""
    data = b"".join(line + b"\n" for line in lines)
    points = sorted({0, len(data), *(cut for cut in cuts if cut < len(data))})
    chunks = [data[a:b] for a, b in itertools.pairwise(points)]

    async def main() -> list[bytes]:
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        got: list[bytes] = []
        async with trio.lowlevel.FdStream(read_fd) as stream, trio.open_nursery() as nursery:

            async def write() -> None:
                for chunk in chunks:
                    os.write(write_fd, chunk)
                    await trio.sleep(0)
                os.close(write_fd)

            nursery.start_soon(write)
            reader = LineReader(stream, 31)
            for quick in itertools.cycle(answers):
                line = await (reader.read_answer() if quick else reader.readline())
                if line is None:
                    break
                got.append(line)
        return got

    assert trio.run(main) == lines


@pytest.mark.parametrize("length", [9, 10])
async def test_a_quick_answer_keeps_the_limit_and_what_follows_it(length: int) -> None:
    """A whole line in one read passes at the limit and fails one byte over it; a second line
    that came in the same read is the next line."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    os.write(write_fd, b"x" * length + b"\n" + b"next\n")
    async with trio.lowlevel.FdStream(read_fd) as stream:
        reader = LineReader(stream, 10)
        if length == 10:
            with pytest.raises(LineTooLong, match="longer than 10 bytes"):
                await reader.read_answer()
        else:
            assert await reader.read_answer() == b"x" * 9
            assert await reader.read_answer() == b"next"
            os.close(write_fd)
            assert await reader.read_answer() is None
