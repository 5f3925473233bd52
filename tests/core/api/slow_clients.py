"""Hostile clients of the API, in a process of their own (as a web page's would be): event
streams held open, then many connections that send their headers a byte at a time, each
opened again as soon as the server drops or refuses it, until stdin closes.

Run: ``python slow_clients.py HOST PORT SLOW TOKEN:COUNT...``. Prints a tally (JSON) every
half second and once more at the end.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter

PER_BYTE_S = 0.1
REFUSED_PAUSE_S = 0.2
# Never a whole head (its headers trickle for ever), so its Host is never checked.
START = b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def _refusal(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.startswith(b"HTTP/1.1 503") and json.loads(body)["error"] == "unavailable"


async def slow(host: str, port: int, stop: asyncio.Event, tally: Counter[str]) -> None:
    """One connection after another, each sending its headers a byte at a time for ever."""
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port)
        except OSError:
            tally["connect_failed"] += 1
            await asyncio.sleep(REFUSED_PAUSE_S)
            continue
        tally["opened"] += 1
        answer = await _trickle(reader, writer, stop)
        if answer is None:
            continue
        if not answer:
            tally["dropped"] += 1  # closed by the server, unanswered (its header timeout)
        elif _refusal(answer):
            tally["refused"] += 1
            await asyncio.sleep(REFUSED_PAUSE_S)
        elif answer.split(b" ", 2)[1:2] == [b"400"]:
            tally["bad_request"] += 1  # aiohttp's parser, fed one byte at a time, may give up
        else:
            tally["answered"] += 1


async def _trickle(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, stop: asyncio.Event
) -> bytes | None:
    """What the server answered (b"": it closed the connection), None when stopped."""
    data = START + b"a" * 100_000
    read = asyncio.ensure_future(reader.read(65536))
    try:
        for n in range(len(data)):
            if read.done() or stop.is_set():
                break
            writer.write(data[n : n + 1])
            await writer.drain()
            await asyncio.wait([read], timeout=PER_BYTE_S)
    except OSError:
        await asyncio.wait([read], timeout=1.0)
    if not read.done():
        read.cancel()
        writer.close()
        return None
    writer.close()
    try:
        answer = read.result()
    except OSError:
        return b""
    while answer and not answer.endswith(b"}"):  # the rest of a refusal's body
        more = await reader.read(65536)
        if not more:
            break
        answer += more
    return answer


async def stream(host: str, port: int, token: str, tally: Counter[str]) -> None:
    """An event stream from the start of the feed, read until the end."""
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"GET /v1/events?since=0 HTTP/1.1\r\nHost: {host}:{port}\r\n".encode()
        + f"Authorization: Bearer {token}\r\n\r\n".encode()
    )
    answer = await reader.read(65536)
    if answer.startswith(b"HTTP/1.1 200"):
        tally["streams_open"] += 1
        while chunk := await reader.read(65536):
            tally["stream_bytes"] += len(chunk)
    elif _refusal(answer):
        tally["streams_refused"] += 1
    else:
        tally["streams_other"] += 1


async def main(host: str, port: int, slow_count: int, tokens: list[str]) -> None:
    tally: Counter[str] = Counter()
    stop = asyncio.Event()
    streams = [
        asyncio.ensure_future(stream(host, port, token, tally))
        for spec in tokens
        for token, count in [spec.rsplit(":", 1)]
        for _ in range(int(count))
    ]
    answered = ("streams_open", "streams_refused", "streams_other")
    while sum(tally[key] for key in answered) < len(streams):  # noqa: ASYNC110 (a count)
        await asyncio.sleep(0.05)
    slows = [asyncio.ensure_future(slow(host, port, stop, tally)) for _ in range(slow_count)]
    ended = asyncio.ensure_future(asyncio.to_thread(sys.stdin.read))
    while not ended.done():
        print(json.dumps(tally), flush=True)
        await asyncio.wait([ended], timeout=0.5)
    stop.set()
    await asyncio.gather(*slows)
    for task in streams:
        task.cancel()
    print(json.dumps(tally), flush=True)


if __name__ == "__main__":
    host, port, slow_count, *tokens = sys.argv[1:]
    asyncio.run(main(host, int(port), int(slow_count), tokens))
