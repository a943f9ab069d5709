"""The WebSocket client's framing (RFC 6455) against a scripted peer: what the real server seldom
sends (fragments, pings, long lengths, protocol violations) and what the client must send (masked
frames, the close echo). The server side here is a few lines of framing, not a model of Tandem.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from conftest import within

from tandem_client import ProtocolError
from tandem_client.websocket import WebSocket, connect

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def server_frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = False) -> bytes:
    """One frame as a server sends it (unmasked unless asked)."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    length = len(payload)
    mask_bit = 0x80 if masked else 0
    if length < 126:
        head.append(mask_bit | length)
    elif length < 1 << 16:
        head.append(mask_bit | 126)
        head += length.to_bytes(2, "big")
    else:
        head.append(mask_bit | 127)
        head += length.to_bytes(8, "big")
    if masked:
        head += b"\0\0\0\0"
    return bytes(head) + payload


async def client_frame(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """Read one client frame; asserts that it is final and masked, and returns it unmasked."""
    first, second = await reader.readexactly(2)
    assert first & 0x80, "client frames are final"
    assert second & 0x80, "client frames are masked"
    length = second & 0x7F
    if length == 126:
        length = int.from_bytes(await reader.readexactly(2), "big")
    elif length == 127:
        length = int.from_bytes(await reader.readexactly(8), "big")
    mask = await reader.readexactly(4)
    payload = await reader.readexactly(length)
    return first & 0x0F, bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))


async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, accept_key: str | None = None) -> None:
    """Answer the upgrade with 101 and the right (or the given) Sec-WebSocket-Accept."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode()
    key = next(
        line.split(":", 1)[1].strip() for line in head.split("\r\n") if line.lower().startswith("sec-websocket-key")
    )
    expected = base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()
    writer.write(
        (
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {accept_key or expected}\r\n\r\n"
        ).encode()
    )
    await writer.drain()


@pytest.fixture
async def peer() -> AsyncIterator[Callable[[Script], Awaitable[str]]]:
    """Starts a TCP server running a script per connection; returns its ``ws://`` URL."""
    servers: list[asyncio.Server] = []
    failures: list[BaseException] = []

    async def start(script: Script) -> str:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                await script(reader, writer)
            except BaseException as error:  # reported by the fixture, so the test sees it
                failures.append(error)
            finally:
                writer.close()

        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        servers.append(server)
        port = server.sockets[0].getsockname()[1]
        return f"ws://127.0.0.1:{port}"

    yield start
    for server in servers:
        server.close()
        await server.wait_closed()
    if failures:
        raise failures[0]


async def test_fragments_pings_and_long_lengths(peer: Callable[[Script], Awaitable[str]]) -> None:
    long_text = "x" * 70_000  # a 64-bit length
    medium_text = "y" * 300  # a 16-bit length
    pongs: list[bytes] = []
    sent: list[bytes] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accept(reader, writer)
        # One message in three fragments, with a ping between them, and a raw line break.
        writer.write(server_frame(0x1, b'{"method":"a",', fin=False))
        writer.write(server_frame(0x9, b"are you there"))
        writer.write(server_frame(0x0, b'\n"params":', fin=False))
        writer.write(server_frame(0x0, '{"text":"é"}}'.encode()))
        writer.write(server_frame(0x2, b"binary is skipped"))
        writer.write(server_frame(0x1, json.dumps({"long": long_text}).encode()))
        writer.write(server_frame(0x1, json.dumps({"medium": medium_text}).encode()))
        opcode, payload = await client_frame(reader)
        assert opcode == 0xA
        pongs.append(payload)
        opcode, payload = await client_frame(reader)
        assert opcode == 0x1
        sent.append(payload)
        opcode, payload = await client_frame(reader)
        assert opcode == 0x1
        sent.append(payload)
        writer.write(server_frame(0x8, (1000).to_bytes(2, "big") + b"bye"))
        opcode, payload = await client_frame(reader)
        assert (opcode, payload) == (0x8, (1000).to_bytes(2, "big"))

    socket = await within(connect(await peer(script)))
    assert json.loads(await within(socket.readline())) == {"method": "a", "params": {"text": "é"}}
    assert json.loads(await within(socket.readline())) == {"long": long_text}
    assert json.loads(await within(socket.readline())) == {"medium": medium_text}
    # Two lines written at once are two messages; the second is long enough for a 64-bit length.
    big = json.dumps({"big": "z" * 70_000}).encode()
    socket.write(b'{"id":1}\n' + big + b"\n")
    await socket.drain()
    assert await within(socket.readline()) == b""
    assert (socket.close_code, socket.close_reason) == (1000, "bye")
    assert pongs == [b"are you there"]
    assert sent == [b'{"id":1}', big]


@pytest.mark.parametrize(
    ("frames", "message", "code"),
    [
        (server_frame(0x1, b"{}", masked=True), "a masked frame", 1002),
        (server_frame(0x0, b"{}"), "a continuation frame without a message", 1002),
        (
            server_frame(0x1, b"{", fin=False) + server_frame(0x1, b"}"),
            "a new message started inside a fragmented one",
            1002,
        ),
        (server_frame(0x9, b"p", fin=False), "a fragmented or over-long control frame", 1002),
        (server_frame(0x1, b"x" * 2000), "a message over 1000 bytes", 1002),
        (server_frame(0x1, b"x" * 600, fin=False) + server_frame(0x0, b"x" * 600), "a message over 1000 bytes", 1002),
        (bytes([0xC1, 0x02]) + b"{}", "reserved bits", 1002),
        (server_frame(0x1, b'{"text":"\xff"}'), "not UTF-8", 1007),
    ],
)
async def test_protocol_violations_close_and_fail(
    peer: Callable[[Script], Awaitable[str]], frames: bytes, message: str, code: int
) -> None:
    closes: list[bytes] = []
    closed = asyncio.Event()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accept(reader, writer)
        writer.write(frames)
        opcode, payload = await client_frame(reader)
        assert opcode == 0x8
        closes.append(payload)
        closed.set()

    socket = await within(connect(await peer(script), max_message_bytes=1000))
    assert isinstance(socket, WebSocket)
    with pytest.raises(ProtocolError, match=message):
        await within(socket.readline())
    await within(closed.wait())
    assert closes == [code.to_bytes(2, "big")]


async def test_a_wrong_accept_key_is_refused(peer: Callable[[Script], Awaitable[str]]) -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accept(reader, writer, accept_key="d3Jvbmc=")

    with pytest.raises(ProtocolError, match="wrong Sec-WebSocket-Accept"):
        await within(connect(await peer(script)))
