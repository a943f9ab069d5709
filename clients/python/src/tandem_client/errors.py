"""Exceptions raised by the client."""

from __future__ import annotations

from typing import Any


class TandemClientError(Exception):
    """Base class of every exception this package raises."""


class AppServerError(TandemClientError):
    """The server answered a request with a JSON-RPC error.

    Tandem uses ``-32600`` for every request-level error (unknown method, bad params, unknown
    thread, no active turn…), ``-32603`` for internal failures and ``-32001`` when overloaded.
    """

    INVALID_REQUEST = -32600
    """Request-level errors (Tandem uses it for bad params and business errors too)."""
    METHOD_NOT_FOUND = -32601
    """Unknown method (the client uses it to refuse a server request it has no handler for)."""
    INTERNAL_ERROR = -32603
    """An internal failure while executing the request."""
    OVERLOADED = -32001
    """The server's request queue is full; retry later."""

    def __init__(self, code: int, message: str, data: Any = None, *, method: str | None = None):
        """Record the error object's fields and the method of the failed request."""
        self.code = code
        """The JSON-RPC error code."""
        self.message = message
        """The error message."""
        self.data = data
        """The optional ``data`` member of the error object."""
        self.method = method
        """The method of the request that failed, when known."""
        where = f"{method}: " if method else ""
        super().__init__(f"{where}{message} (code {code})")


class ConnectionClosed(TandemClientError):
    """The connection to the server is gone: the server exited, or the client was closed.

    Every pending request fails with this error, and notification streams end with it.
    """

    def __init__(self, reason: str, *, returncode: int | None = None, stderr_tail: str = ""):
        """Describe why the connection closed, with the exit status and last stderr lines if any."""
        self.reason = reason
        """Why the connection closed."""
        self.returncode = returncode
        """The server's exit status, when it exited."""
        self.stderr_tail = stderr_tail
        """The last lines the server wrote to stderr (empty when stderr was not captured)."""
        text = reason
        if stderr_tail:
            text += "\nlast server stderr lines:\n" + stderr_tail
        super().__init__(text)


class ProtocolError(ConnectionClosed):
    """The server wrote something that is not a protocol message; the connection is dropped."""


class RequestTimeout(TandemClientError, TimeoutError):
    """A request got no response within its ``timeout``."""

    def __init__(self, method: str, timeout: float):
        """Record which request timed out and after how long."""
        self.method = method
        """The method of the request."""
        self.timeout = timeout
        """The timeout in seconds."""
        super().__init__(f"{method}: no response within {timeout:g}s")


class InvalidResponse(TandemClientError):
    """A response's ``result`` does not match the method's response model."""

    def __init__(self, method: str, result: Any, error: Exception):
        """Keep the raw result and the validation error."""
        self.method = method
        """The method of the request."""
        self.result = result
        """The raw ``result`` as received."""
        self.error = error
        """The pydantic validation error."""
        super().__init__(f"{method}: unexpected response: {error}")


class WebSocketRefused(TandemClientError):
    """A ``ws://`` or ``unix://`` listener refused the WebSocket upgrade with an HTTP status.

    Tandem answers ``401`` for a missing or wrong bearer token (the body says which) and ``403``
    for a refused ``Origin`` or a Unix-socket peer of another user.
    """

    def __init__(self, url: str, status: int, reason: str, body: str):
        """Record the listener, the HTTP status line and the response body."""
        self.url = url
        """The URL the client connected to."""
        self.status = status
        """The HTTP status code (``401``, ``403``…)."""
        self.reason = reason
        """The status line's reason phrase (``Unauthorized``)."""
        self.body = body
        """The response body, which says why (``invalid websocket bearer token``)."""
        detail = f": {body}" if body else ""
        super().__init__(f"{url}: the server refused the connection: HTTP {status} {reason}{detail}".rstrip())
