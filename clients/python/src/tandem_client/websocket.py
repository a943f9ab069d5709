"""A small RFC 6455 WebSocket client, enough to carry the protocol over ``ws://`` and ``unix://``.

The app-server's listeners send one JSON-RPC message per text frame, on TCP (``ws://HOST:PORT``)
and on a Unix socket (``unix:///path``: the same HTTP upgrade, run over the socket).
`WebSocket` presents such a connection as the line reader and writer `AppServerClient` reads and
writes on stdio (``readline``, ``write``, ``drain``, ``close``), so the client above it is the same
for every transport: a received message becomes one line, and each line written becomes one
message.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from tandem_client.errors import ProtocolError, WebSocketRefused

MAX_MESSAGE_BYTES = 64 * 1024 * 1024
"""Largest message accepted from the server (as the stdio line limit)."""

MAX_RESPONSE_HEAD_BYTES = 64 * 1024
"""Largest HTTP response head accepted during the upgrade."""

MAX_REFUSAL_BODY_BYTES = 64 * 1024
"""How much of a refusal's body is read for the error message."""

CLOSE_TIMEOUT = 3.0
"""How long `WebSocket.close` waits for the server's close frame before dropping the socket."""

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
"""The fixed GUID of RFC 6455 §1.3, from which ``Sec-WebSocket-Accept`` is derived."""

_CONTINUATION, _TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


@dataclass(frozen=True)
class Endpoint:
    """Where a listener is: a TCP host and port, or a Unix socket path."""

    url: str
    """The URL as given."""
    host: str
    """The ``Host`` header (``localhost`` for a Unix socket)."""
    port: int | None
    """The TCP port, or None for a Unix socket."""
    socket_path: str | None
    """The Unix socket path, or None for TCP."""
    resource: str
    """The request target of the upgrade (``/`` unless the URL names a path)."""


def parse_url(url: str) -> Endpoint:
    """Parse ``ws://HOST:PORT[/path]`` or ``unix:///absolute/path``; raises ValueError otherwise."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme == "ws":
        if not parsed.hostname:
            raise ValueError(f"{url}: a ws:// URL needs a host")
        port = parsed.port or 80
        host = parsed.hostname if ":" not in parsed.hostname else f"[{parsed.hostname}]"
        resource = parsed.path or "/"
        if parsed.query:
            resource += "?" + parsed.query
        return Endpoint(url, host if port == 80 else f"{host}:{port}", port, None, resource)
    if parsed.scheme == "unix":
        path = urllib.parse.unquote(parsed.netloc + parsed.path)
        if not path:
            raise ValueError(f"{url}: a unix:// URL needs the socket path (unix:///path/to.sock)")
        return Endpoint(url, "localhost", None, path, "/")
    raise ValueError(f"{url}: unsupported URL scheme (expected ws://HOST:PORT or unix:///path)")


async def connect(
    url: str,
    *,
    token: str | None = None,
    headers: Mapping[str, str] | None = None,
    max_message_bytes: int = MAX_MESSAGE_BYTES,
) -> WebSocket:
    """Open the socket and run the upgrade; `token` goes in ``Authorization: Bearer``.

    Raises ValueError (bad URL), OSError (cannot connect), `WebSocketRefused` (the server answered
    with an HTTP status other than 101) or `ProtocolError` (not a valid upgrade response).
    """
    endpoint = parse_url(url)
    if endpoint.socket_path is not None:
        reader, writer = await asyncio.open_unix_connection(endpoint.socket_path, limit=MAX_RESPONSE_HEAD_BYTES)
    else:
        assert endpoint.port is not None
        host = urllib.parse.urlsplit(url).hostname or ""
        reader, writer = await asyncio.open_connection(host, endpoint.port, limit=MAX_RESPONSE_HEAD_BYTES)
    try:
        await _upgrade(endpoint, reader, writer, token, headers or {})
    except BaseException:
        writer.close()
        raise
    return WebSocket(reader, writer, max_message_bytes=max_message_bytes)


class WebSocket:
    """An upgraded client connection, read and written one message per line (see the module doc)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        max_message_bytes: int = MAX_MESSAGE_BYTES,
    ):
        """Wrap the streams of a socket whose upgrade succeeded (`connect` does this)."""
        self._reader = reader
        self._writer = writer
        self._max_message_bytes = max_message_bytes
        self._close_sent = False
        self._close_received = False
        self._close_timer: asyncio.TimerHandle | None = None
        self.close_code: int | None = None
        """The status code of the server's close frame, once received (1005 when it had none)."""
        self.close_reason = ""
        """The reason text of the server's close frame."""

    async def readline(self) -> bytes:
        """The next text message as one line (``b""`` once the connection has ended).

        JSON allows raw line breaks only as whitespace between tokens, so turning them into spaces
        keeps the message's meaning and makes it exactly one line. Binary messages are skipped, as
        the server skips them; pings are answered.
        """
        while True:
            message = await self._read_message()
            if message is None:
                return b""
            opcode, payload = message
            if opcode == _TEXT:
                try:
                    payload.decode()
                except UnicodeDecodeError:
                    self._fail("a text message that is not UTF-8", code=1007)
                return payload.replace(b"\n", b" ").replace(b"\r", b" ") + b"\n"

    def write(self, data: bytes) -> None:
        """Send each line of `data` as one text message."""
        if self._close_sent:
            raise ConnectionResetError("the WebSocket is closing")
        for line in data.split(b"\n"):
            if line.strip():
                self._writer.write(_frame(_TEXT, line))

    async def drain(self) -> None:
        """Wait until the socket's buffer is flushed (flow control)."""
        await self._writer.drain()

    def close(self) -> None:
        """Start the closing handshake (a close frame, 1000), or drop the socket if it is done.

        The reader sees the server's close frame (and then `readline` returns ``b""``); if none
        comes within `CLOSE_TIMEOUT` seconds the socket is dropped. A second call drops it at once.
        """
        if self._close_sent or self._close_received:
            self._drop()
            return
        self._send_close(1000)
        self._close_timer = asyncio.get_running_loop().call_later(CLOSE_TIMEOUT, self._drop)

    def _send_close(self, code: int) -> None:
        self._close_sent = True
        with contextlib.suppress(Exception):
            self._writer.write(_frame(_CLOSE, code.to_bytes(2, "big")))

    def _drop(self) -> None:
        if self._close_timer is not None:
            self._close_timer.cancel()
        with contextlib.suppress(Exception):
            self._writer.close()

    async def _read_message(self) -> tuple[int, bytes] | None:
        """The next data message (opcode and payload), after handling any control frames."""
        opcode: int | None = None
        parts: list[bytes] = []
        size = 0
        while True:
            try:
                frame = await self._read_frame()
            except asyncio.IncompleteReadError:
                # The socket ended without a close frame (or inside a frame): the connection is gone.
                self._drop()
                return None
            fin, frame_opcode, payload = frame
            if frame_opcode == _CLOSE:
                self._on_close(payload)
                return None
            if frame_opcode == _PING:
                if not self._close_sent:
                    self._writer.write(_frame(_PONG, payload))
                continue
            if frame_opcode == _PONG:
                continue
            if frame_opcode in (_TEXT, _BINARY):
                if opcode is not None:
                    self._fail("a new message started inside a fragmented one")
                opcode = frame_opcode
            elif frame_opcode == _CONTINUATION:
                if opcode is None:
                    self._fail("a continuation frame without a message to continue")
            else:
                self._fail(f"unknown opcode {frame_opcode:#x}")
            size += len(payload)
            if size > self._max_message_bytes:
                self._fail(f"a message over {self._max_message_bytes} bytes")
            parts.append(payload)
            if fin:
                assert opcode is not None
                return opcode, b"".join(parts)

    async def _read_frame(self) -> tuple[bool, int, bytes]:
        first, second = await self._reader.readexactly(2)
        fin = bool(first & 0x80)
        opcode = first & 0x0F
        if first & 0x70:
            self._fail("a frame with reserved bits set (no extension was negotiated)")
        if second & 0x80:
            self._fail("a masked frame (servers must not mask)")
        length = second & 0x7F
        if opcode >= 0x8 and (not fin or length > 125):
            self._fail("a fragmented or over-long control frame")
        if length == 126:
            length = int.from_bytes(await self._reader.readexactly(2), "big")
        elif length == 127:
            length = int.from_bytes(await self._reader.readexactly(8), "big")
            if length >> 63:
                self._fail("a frame length with the most significant bit set")
        if length > self._max_message_bytes:
            self._fail(f"a message over {self._max_message_bytes} bytes")
        payload = await self._reader.readexactly(length) if length else b""
        return fin, opcode, payload

    def _on_close(self, payload: bytes) -> None:
        self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
        self.close_reason = payload[2:].decode(errors="replace")
        self._close_received = True
        if not self._close_sent:
            # Echo the status code, as RFC 6455 §5.5.1 asks; 1005 is never sent on the wire.
            self._send_close(1000 if self.close_code == 1005 else self.close_code)
        self._drop()

    def _fail(self, what: str, *, code: int = 1002) -> None:
        """Close with `code` (1002: protocol error) and raise `ProtocolError`."""
        if not self._close_sent:
            self._send_close(code)
        self._drop()
        raise ProtocolError(f"the server sent {what} on the WebSocket")


async def _upgrade(
    endpoint: Endpoint,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    token: str | None,
    extra_headers: Mapping[str, str],
) -> None:
    key = base64.b64encode(os.urandom(16)).decode()
    lines = [
        f"GET {endpoint.resource} HTTP/1.1",
        f"Host: {endpoint.host}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {key}",
        "Sec-WebSocket-Version: 13",
    ]
    if token is not None:
        lines.append(f"Authorization: Bearer {token}")
    lines.extend(f"{name}: {value}" for name, value in extra_headers.items())
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()

    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        raise ProtocolError(f"{endpoint.url}: the connection closed during the WebSocket upgrade") from None
    except asyncio.LimitOverrunError:
        raise ProtocolError(
            f"{endpoint.url}: the upgrade response head is over {MAX_RESPONSE_HEAD_BYTES} bytes"
        ) from None
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
        raise ProtocolError(f"{endpoint.url}: not an HTTP response to the upgrade: {status_line[:200]!r}")
    status = int(parts[1])
    reason = parts[2] if len(parts) > 2 else ""
    headers: dict[str, str] = {}
    for line in header_lines:
        name, separator, value = line.partition(":")
        if separator:
            headers[name.strip().lower()] = value.strip()

    if status != 101:
        body = await _read_body(reader, headers)
        raise WebSocketRefused(endpoint.url, status, reason, body.decode(errors="replace").strip())
    if headers.get("upgrade", "").lower() != "websocket" or "upgrade" not in {
        token.strip().lower() for token in headers.get("connection", "").split(",")
    }:
        raise ProtocolError(f"{endpoint.url}: the 101 response does not upgrade to websocket")
    expected = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
    if headers.get("sec-websocket-accept") != expected:
        raise ProtocolError(f"{endpoint.url}: wrong Sec-WebSocket-Accept in the upgrade response")
    if headers.get("sec-websocket-extensions"):
        raise ProtocolError(f"{endpoint.url}: the server chose an extension the client did not offer")


async def _read_body(reader: asyncio.StreamReader, headers: Mapping[str, str]) -> bytes:
    """A refusal's body: its Content-Length (capped), or whatever comes before the server closes."""
    with contextlib.suppress(asyncio.TimeoutError, OSError):
        length = headers.get("content-length")
        if length is not None and length.isdigit():
            wanted = min(int(length), MAX_REFUSAL_BODY_BYTES)
            with contextlib.suppress(asyncio.IncompleteReadError):
                return await asyncio.wait_for(reader.readexactly(wanted), CLOSE_TIMEOUT)
        return await asyncio.wait_for(reader.read(MAX_REFUSAL_BODY_BYTES), CLOSE_TIMEOUT)
    return b""


def _frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame: masked with a fresh key, as RFC 6455 §5.3 requires of clients."""
    length = len(payload)
    head = bytearray([0x80 | opcode])
    if length < 126:
        head.append(0x80 | length)
    elif length < 1 << 16:
        head.append(0x80 | 126)
        head += length.to_bytes(2, "big")
    else:
        head.append(0x80 | 127)
        head += length.to_bytes(8, "big")
    mask = os.urandom(4)
    head += mask
    return bytes(head) + _masked(payload, mask)


def _masked(payload: bytes, mask: bytes) -> bytes:
    """XOR `payload` with the repeated 4-byte `mask` (as one big-integer XOR, for speed)."""
    if not payload:
        return b""
    length = len(payload)
    key = (mask * (length // 4 + 1))[:length]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(length, "little")
