"""`AppServerClient`: an asyncio connection to a Tandem (or Codex) app-server, over JSONL stdio or
over a ``ws://`` or ``unix://`` listener's WebSocket."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
from collections.abc import Awaitable, Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, overload

from pydantic import BaseModel, ValidationError

from tandem_client import websocket, wire
from tandem_client.errors import (
    AppServerError,
    ConnectionClosed,
    InvalidResponse,
    ProtocolError,
    RequestTimeout,
)
from tandem_client.generated import models
from tandem_client.generated.methods import (
    CLIENT_NOTIFICATIONS_BY_METHOD,
    CLIENT_REQUESTS_BY_METHOD,
    SERVER_REQUESTS_BY_METHOD,
    ClientNotifications,
    ClientRequests,
)
from tandem_client.method_spec import AnyRequestSpec, NotificationSpec, RequestSpec
from tandem_client.notifications import Notification, NotificationStream, Subscription, parse_notification
from tandem_client.process import ServerProcess, StderrMode
from tandem_client.request_handlers import TypedServerRequests
from tandem_client.server_requests import (
    ServerRequestHandler,
    response_result,
)
from tandem_client.turn import TurnStream, text_input
from tandem_client.version import __version__

logger = logging.getLogger("tandem_client")

ParamsT = TypeVar("ParamsT", bound=BaseModel)
ResponseT = TypeVar("ResponseT", bound=BaseModel)

NotificationHandler = Callable[[Any], Awaitable[None] | None]
"""A notification handler: called with the params (a model, see `Notification.params`)."""

DEFAULT_COMMAND: tuple[str, ...] = ("tandem", "app-server")
"""The server command `spawn` runs when none is given."""

DEFAULT_CLIENT_INFO = models.ClientInfo(name="tandem_client_python", title="Tandem Python client", version=__version__)
"""The ``clientInfo`` sent when none is given."""

SERVER_REQUEST_RESOLVED = "serverRequest/resolved"
"""Sent when a server request is answered or cleaned up (for example by an interrupt)."""


class LineReader(Protocol):
    """What the client reads the server's messages from, one per line: an `asyncio.StreamReader`
    (stdio) or a `tandem_client.websocket.WebSocket`."""

    async def readline(self) -> bytes:
        """The next line, with its ``\\n``; ``b""`` at the end."""
        ...


class LineWriter(Protocol):
    """What the client writes its messages to, one per line: an `asyncio.StreamWriter` (stdio) or a
    `tandem_client.websocket.WebSocket`."""

    def write(self, data: bytes) -> None:
        """Queue `data` (whole lines)."""
        ...

    async def drain(self) -> None:
        """Wait for the queued data to go out."""
        ...

    def close(self) -> None:
        """Close the server's input (stdin, or the socket's closing handshake)."""
        ...


@dataclass
class _Pending:
    method: str
    spec: AnyRequestSpec | None
    future: asyncio.Future[Any]


class AppServerClient(TypedServerRequests):
    """An initialized connection to an app-server.

    Get one with `AppServerClient.spawn` (which also runs the handshake), connect to a listener
    with `AppServerClient.connect_url`, or wrap existing streams with `AppServerClient.connect`.
    It must be used from one event loop.
    """

    def __init__(
        self,
        reader: LineReader,
        writer: LineWriter,
        *,
        process: ServerProcess | None = None,
    ):
        """Start reading `reader`; call `initialize` next (or use `spawn`/`connect`)."""
        self._reader = reader
        self._writer = writer
        self.server_process = process
        """The server child process when the client spawned it."""
        self.initialize_response: models.InitializeResponse | None = None
        """The server's answer to ``initialize``."""
        self.answer_unhandled_server_requests = True
        """Whether a server request without a handler is answered with error ``-32601``.

        Set it to False on a connection that only watches a thread others also subscribe to (over
        a listener): the server asks every subscribed connection and takes the first answer, so an
        error from the watcher would beat the approval of the connection that handles it. The
        unanswered request is then left to the other connections."""
        self._next_id = 0
        self._pending: dict[wire.RequestId, _Pending] = {}
        self._subscriptions: list[Subscription] = []
        self._notification_handlers: dict[str, list[NotificationHandler]] = {}
        self._server_request_handlers: dict[str, ServerRequestHandler[Any]] = {}
        self._server_request_tasks: dict[wire.RequestId, asyncio.Task[None]] = {}
        self._dispatch_queue: asyncio.Queue[Notification[Any] | None] = asyncio.Queue()
        self._write_lock = asyncio.Lock()
        self._closed: ConnectionClosed | None = None
        self._closed_event = asyncio.Event()
        self._closing = False
        self._close_task: asyncio.Task[int | None] | None = None
        self._reader_task = asyncio.create_task(self._read_loop())
        self._dispatch_task = asyncio.create_task(self._dispatch_loop())

    # ----------------------------------------------------------------- construction

    @classmethod
    def spawn(
        cls,
        command: Sequence[str] | None = None,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        client_info: models.ClientInfo | Mapping[str, Any] | None = None,
        capabilities: models.InitializeCapabilities | Mapping[str, Any] | None = None,
        stderr: StderrMode = "capture",
        initialize_timeout: float | None = 30.0,
    ) -> _Spawning:
        """Start the server and run the handshake (``initialize`` then ``initialized``).

        - `command`: the server command line, default ``["tandem", "app-server"]``.
        - `args`: appended to `command`, such as ``["-c", 'model_provider="demo"']``.
        - `env`: variables merged over the current environment (``TANDEM_HOME``…).
        - `cwd`: the server's working directory.
        - `client_info`: ``clientInfo`` (name, title, version); ``userAgent`` starts with its name.
        - `capabilities`: ``capabilities``, such as ``{"experimentalApi": True}``.
        - `stderr`: ``"capture"`` (logged at DEBUG to ``tandem_client.server``, tail kept for errors)
          or ``"inherit"``.

        Use either ``client = await AppServerClient.spawn(...)`` or
        ``async with AppServerClient.spawn(...) as client:`` (which closes it at the end).
        """
        argv = [*(command if command is not None else DEFAULT_COMMAND), *args]

        async def start() -> AppServerClient:
            process = await ServerProcess.start(argv, env=env, cwd=cwd, stderr=stderr)
            stdin, stdout = process.process.stdin, process.process.stdout
            assert stdin is not None and stdout is not None
            client = cls(stdout, stdin, process=process)
            try:
                await client.initialize(client_info, capabilities, timeout=initialize_timeout)
            except BaseException:
                await client.close(grace=1.0)
                raise
            return client

        return _Spawning(start)

    @classmethod
    def connect_url(
        cls,
        url: str,
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        client_info: models.ClientInfo | Mapping[str, Any] | None = None,
        capabilities: models.InitializeCapabilities | Mapping[str, Any] | None = None,
        initialize_timeout: float | None = 30.0,
    ) -> _Spawning:
        """Connect to a running server's listener and run the handshake.

        - `url`: ``ws://HOST:PORT`` (``tandem app-server --listen ws://...``) or
          ``unix:///path/to.sock`` (``--listen unix://PATH``, or the daemon's socket); both speak
          WebSocket, one message per text frame.
        - `token`: sent as ``Authorization: Bearer <token>`` (what ``--ws-token-file`` holds);
          a Unix socket needs none (the kernel names the peer).
        - `headers`: extra headers for the upgrade request.
        - `initialize_timeout` also bounds connecting and the upgrade.

        Raises `WebSocketRefused` (with the HTTP status and body, such as ``401 invalid websocket
        bearer token``), the `OSError` of the connect (`ConnectionRefusedError`,
        `FileNotFoundError`), `ProtocolError` for a response that is not a WebSocket upgrade, and
        ValueError for a URL that is neither ``ws://`` nor ``unix://``.
        Await it, or use it with ``async with`` (which closes it); the client's API is then the
        same as over stdio, and `close` runs the WebSocket closing handshake.
        """

        async def start() -> AppServerClient:
            opening = websocket.connect(url, token=token, headers=headers)
            socket = await (opening if initialize_timeout is None else asyncio.wait_for(opening, initialize_timeout))
            client = cls(socket, socket)
            try:
                await client.initialize(client_info, capabilities, timeout=initialize_timeout)
            except BaseException:
                await client.close(grace=1.0)
                raise
            return client

        return _Spawning(start)

    @classmethod
    async def connect(
        cls,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        client_info: models.ClientInfo | Mapping[str, Any] | None = None,
        capabilities: models.InitializeCapabilities | Mapping[str, Any] | None = None,
        initialize_timeout: float | None = 30.0,
    ) -> AppServerClient:
        """Run the handshake over existing streams (a socket, a pipe to a server started elsewhere)."""
        client = cls(reader, writer)
        await client.initialize(client_info, capabilities, timeout=initialize_timeout)
        return client

    async def initialize(
        self,
        client_info: models.ClientInfo | Mapping[str, Any] | None = None,
        capabilities: models.InitializeCapabilities | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = 30.0,
    ) -> models.InitializeResponse:
        """Send ``initialize`` and the ``initialized`` notification; `spawn` and `connect` do this."""
        params: dict[str, Any] = {"clientInfo": client_info or DEFAULT_CLIENT_INFO}
        if capabilities is not None:
            params["capabilities"] = capabilities
        response = await self.request(ClientRequests.INITIALIZE, params, timeout=timeout)
        await self.notify(ClientNotifications.INITIALIZED)
        self.initialize_response = response
        return response

    # ----------------------------------------------------------------- requests

    @overload
    async def request(
        self,
        method: RequestSpec[ParamsT, ResponseT],
        params: ParamsT | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ResponseT: ...

    @overload
    async def request(
        self,
        method: str,
        params: BaseModel | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any: ...

    async def request(
        self,
        method: str | AnyRequestSpec,
        params: BaseModel | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Send a request and return its result as the method's response model.

        `method` is a wire name (``"thread/start"``) or a spec from
        `tandem_client.generated.methods.ClientRequests` (which also types the result statically).
        `params` is a model or a mapping with wire (camelCase) keys; ``None`` sends ``{}``.
        A method the generated map does not know returns the raw result.

        Raises `AppServerError` (error response), `RequestTimeout`, `ConnectionClosed`,
        `InvalidResponse` (result does not match the model).
        """
        if isinstance(method, RequestSpec):
            spec: AnyRequestSpec | None = method
            name = method.method
        else:
            name = method
            spec = CLIENT_REQUESTS_BY_METHOD.get(method)
        self._check_open()
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = _Pending(name, spec, future)
        try:
            await self._send({"id": request_id, "method": name, "params": wire.dump(params)})
            if timeout is None:
                result = await future
            else:
                result = await asyncio.wait_for(future, timeout)
        except asyncio.TimeoutError:
            assert timeout is not None
            raise RequestTimeout(name, timeout) from None
        finally:
            self._pending.pop(request_id, None)
        if spec is None:
            return result
        try:
            return spec.response.model_validate(result)
        except ValidationError as error:
            raise InvalidResponse(name, result, error) from None

    async def index_query(
        self,
        query: str,
        *,
        limit: int | None = None,
        file_globs: Sequence[str] | None = None,
        alpha: float | None = None,
        repo_root: str | None = None,
        embedding_model: str | None = None,
        timeout: float | None = None,
    ) -> models.IndexQueryResponse:
        """Experimental ``index/query``: refresh the project index of `repo_root` (default: the
        server's working directory) incrementally and return ranked snippets, best first.

        Needs a client started with ``capabilities={"experimentalApi": True}``; the refresh's
        ``index/progress`` notifications arrive before the result (subscribe with `on` or
        `notifications`). Raises `AppServerError` (``-32600``) for bad input.
        """
        params = {
            "query": query,
            "limit": limit,
            "fileGlobs": None if file_globs is None else list(file_globs),
            "alpha": alpha,
            "repoRoot": repo_root,
            "embeddingModel": embedding_model,
        }
        return await self.request(ClientRequests.INDEX_QUERY, params, timeout=timeout)

    async def index_refresh(
        self,
        *,
        repo_root: str | None = None,
        file_globs: Sequence[str] | None = None,
        require_embeddings: bool | None = None,
        force_full: bool | None = None,
        timeout: float | None = None,
    ) -> models.IndexRefreshResponse:
        """Experimental ``index/refresh``: warm (or with `force_full` rebuild) the project index,
        sending ``index/progress`` notifications as it goes."""
        params = {
            "repoRoot": repo_root,
            "fileGlobs": None if file_globs is None else list(file_globs),
            "requireEmbeddings": require_embeddings,
            "forceFull": force_full,
        }
        return await self.request(ClientRequests.INDEX_REFRESH, params, timeout=timeout)

    async def notify(
        self,
        method: str | NotificationSpec[Any],
        params: BaseModel | Mapping[str, Any] | None = None,
    ) -> None:
        """Send a client notification (``initialized`` is the only one in the protocol)."""
        name = method.method if isinstance(method, NotificationSpec) else method
        if name not in CLIENT_NOTIFICATIONS_BY_METHOD:
            logger.debug("sending %s, which the generated map does not know", name)
        self._check_open()
        await self._send({"method": name, "params": wire.dump(params)})

    # ----------------------------------------------------------------- notifications

    @overload
    def on(
        self, method: NotificationSpec[ParamsT], handler: Callable[[ParamsT], Awaitable[None] | None]
    ) -> Callable[[], None]: ...

    @overload
    def on(self, method: str, handler: NotificationHandler) -> Callable[[], None]: ...

    def on(self, method: str | NotificationSpec[Any], handler: NotificationHandler) -> Callable[[], None]:
        """Call `handler(params)` for every notification of `method`; returns an unsubscribe function.

        Handlers (sync or async) run one at a time, in the order the notifications arrived, on a
        task of their own, so a slow handler delays later handlers but not the connection.
        A handler that raises is logged and skipped.
        """
        name = method.method if isinstance(method, NotificationSpec) else method
        self._notification_handlers.setdefault(name, []).append(handler)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._notification_handlers.get(name, []).remove(handler)

        return unsubscribe

    def notifications(self, *methods: str | NotificationSpec[Any]) -> NotificationStream:
        """An async iterator over notifications from now on, optionally only of `methods`.

        ``async for n in client.notifications(): ...`` yields `Notification` objects
        (``n.method``, ``n.params``). It ends when the client closes and raises `ConnectionClosed`
        when the server goes away; close it (or use ``async with``) when you stop iterating.
        """
        names = {m.method if isinstance(m, NotificationSpec) else m for m in methods}
        return NotificationStream(self._subscribe(lambda notification: not names or notification.method in names))

    def _subscribe(self, accepts: Callable[[Notification[Any]], bool]) -> Subscription:
        subscription = Subscription(accepts, self._unsubscribe)
        if self._closed is not None:
            subscription.finish(None if self._closing else self._closed)
        else:
            self._subscriptions.append(subscription)
        return subscription

    def _unsubscribe(self, subscription: Subscription) -> None:
        with contextlib.suppress(ValueError):
            self._subscriptions.remove(subscription)

    # ----------------------------------------------------------------- turns

    def run_turn(self, thread_id: str, input: str | list[Any], **params: Any) -> TurnStream:
        """Start a turn (``turn/start``) and follow it.

        `input` is a text or a list of ``UserInput`` (models or mappings). Other ``turn/start``
        params go in `params`, by field name or wire name (``approval_policy="never"``,
        ``collaboration_mode={"mode": "plan", ...}``); fields the model does not know (a newer
        server's) are sent as given, so use their wire names.
        Returns a `TurnStream`: ``async for n in stream`` yields the turn's notifications up to
        ``turn/completed``; ``await stream.completed`` gives the final `Turn`.
        Must be called with the event loop running.
        """
        turn_params = models.TurnStartParams.model_validate(
            {"threadId": thread_id, "input": text_input(input), **wire.to_json(params)}
        )
        return TurnStream(self, turn_params)

    # ----------------------------------------------------------------- server requests

    @overload
    def on_server_request(
        self, method: RequestSpec[ParamsT, ResponseT], handler: ServerRequestHandler[ParamsT]
    ) -> None: ...

    @overload
    def on_server_request(self, method: str, handler: ServerRequestHandler[Any]) -> None: ...

    def on_server_request(self, method: str | AnyRequestSpec, handler: ServerRequestHandler[Any]) -> None:
        """Answer server requests of `method` with `handler(params)` (sync or async; replaces any
        previous handler).

        The handler gets the params model (a dict for a method the map lacks) and returns the
        response: a model, or a mapping with wire keys (validated against the response model).
        A request without a handler is answered with error ``-32601`` (unless
        `answer_unhandled_server_requests` is False); a handler that raises,
        with ``-32603`` and the exception's message. A handler still running when the server
        withdraws the request (``serverRequest/resolved``, say after an interrupt) is cancelled.
        """
        name = method.method if isinstance(method, RequestSpec) else method
        self._server_request_handlers[name] = handler

    async def _answer(self, request: wire.IncomingRequest) -> None:
        spec = SERVER_REQUESTS_BY_METHOD.get(request.method)
        handler = self._server_request_handlers.get(request.method)
        if handler is None and not self.answer_unhandled_server_requests:
            logger.debug("no handler for server request %s; leaving it to other connections", request.method)
            return
        if handler is None:
            logger.warning("no handler for server request %s; answering with an error", request.method)
            await self._send_error(request.id, AppServerError.METHOD_NOT_FOUND, f"no handler for {request.method}")
            return
        try:
            params: Any = request.params
            if spec is not None:
                params = spec.params.model_validate(request.params)
            value = handler(params)
            if inspect.isawaitable(value):
                value = await value
            result = response_result(request.method, spec, value)
        except asyncio.CancelledError:
            logger.debug("handler for %s (id %r) cancelled", request.method, request.id)
            raise
        except Exception as error:
            logger.exception("handler for %s failed", request.method)
            await self._send_error(request.id, AppServerError.INTERNAL_ERROR, f"client handler failed: {error}")
            return
        await self._send_quietly({"id": request.id, "result": result})

    async def _send_error(self, request_id: wire.RequestId, code: int, message: str) -> None:
        await self._send_quietly({"id": request_id, "error": {"code": code, "message": message}})

    async def _send_quietly(self, message: Mapping[str, Any]) -> None:
        try:
            await self._send(message)
        except ConnectionClosed as error:
            logger.debug("could not answer the server: %s", error)

    # ----------------------------------------------------------------- reading

    async def _read_loop(self) -> None:
        try:
            while True:
                try:
                    line = await self._reader.readline()
                except ValueError as error:  # over the stream limit
                    self._fail(ProtocolError(f"server wrote an over-long line: {error}"))
                    return
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    message = wire.decode(line)
                except wire.MalformedMessage as error:
                    excerpt = line[:200].decode(errors="replace").rstrip()
                    self._fail(
                        ProtocolError(f"server wrote a malformed line ({error}): {excerpt}", **self._exit_info())
                    )
                    return
                self._handle(message)
        except ConnectionClosed as error:  # a WebSocket protocol violation
            self._fail(error)
            return
        except ConnectionResetError:
            # A peer that dies with unread data in its socket resets the connection instead of
            # closing it: for the client that is the same end as an orderly close.
            pass
        except (ConnectionError, OSError) as error:
            self._fail(ConnectionClosed(f"reading from the server failed: {error}", **self._exit_info()))
            return
        await self._on_eof()

    async def _on_eof(self) -> None:
        if self._closing:
            self._fail(ConnectionClosed("the client closed the connection"))
            return
        process = self.server_process
        if process is None:
            self._fail(ConnectionClosed("the server closed the connection"))
            return
        await process.wait_exited(2.0)
        self._fail(ConnectionClosed(process.describe_exit(), **self._exit_info()))

    def _exit_info(self) -> dict[str, Any]:
        process = self.server_process
        if process is None:
            return {}
        return {"returncode": process.returncode, "stderr_tail": process.stderr_tail()}

    def _handle(self, message: wire.IncomingMessage) -> None:
        if isinstance(message, wire.IncomingResponse):
            pending = self._pending.get(message.id)
            if pending is None or pending.future.done():
                logger.debug("response to unknown or finished request %r", message.id)
            elif message.error is not None:
                error = message.error
                pending.future.set_exception(
                    AppServerError(
                        int(error.get("code", 0)),
                        str(error.get("message", "")),
                        error.get("data"),
                        method=pending.method,
                    )
                )
            else:
                pending.future.set_result(message.result)
        elif isinstance(message, wire.IncomingRequest):
            task = asyncio.create_task(self._answer(message))
            self._server_request_tasks[message.id] = task
            task.add_done_callback(lambda _: self._server_request_tasks.pop(message.id, None))
        else:
            notification = parse_notification(message)
            if notification.method == SERVER_REQUEST_RESOLVED:
                self._withdraw(notification.raw.get("requestId"))
            for subscription in list(self._subscriptions):
                subscription.offer(notification)
            if self._notification_handlers.get(notification.method):
                self._dispatch_queue.put_nowait(notification)

    def _withdraw(self, request_id: Any) -> None:
        task = self._server_request_tasks.get(request_id)
        if task is not None and not task.done():
            logger.info("server withdrew request %r; cancelling its handler", request_id)
            task.cancel()

    async def _dispatch_loop(self) -> None:
        while True:
            notification = await self._dispatch_queue.get()
            if notification is None:
                return
            for handler in list(self._notification_handlers.get(notification.method, [])):
                try:
                    value = handler(notification.params)
                    if inspect.isawaitable(value):
                        await value
                except Exception:
                    logger.exception("handler for %s failed", notification.method)

    # ----------------------------------------------------------------- writing

    async def _send(self, message: Mapping[str, Any]) -> None:
        data = wire.encode(message)
        async with self._write_lock:
            self._check_open()
            try:
                self._writer.write(data)
                await self._writer.drain()
            except (ConnectionError, OSError, RuntimeError) as error:
                # The reader sees the exit soon and knows more (status, stderr): prefer its error.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._closed_event.wait(), 3.0)
                raise self._closed or ConnectionClosed(f"writing to the server failed: {error}") from None

    def _check_open(self) -> None:
        if self._closed is not None:
            raise self._closed
        if self._closing:
            raise ConnectionClosed("the client is closing")

    # ----------------------------------------------------------------- closing

    @property
    def closed(self) -> bool:
        """Whether the connection is gone (closed by the client, or the server went away)."""
        return self._closed is not None

    def _fail(self, error: ConnectionClosed) -> None:
        """Mark the connection gone: fail pending requests, end streams, close stdin."""
        if self._closed is not None:
            return
        self._closed = error
        self._closed_event.set()
        if not self._closing:
            logger.warning("connection lost: %s", error)
        for pending in list(self._pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
        self._pending.clear()
        for subscription in list(self._subscriptions):
            subscription.finish(None if self._closing else error)
        self._subscriptions.clear()
        self._dispatch_queue.put_nowait(None)
        for task in list(self._server_request_tasks.values()):
            task.cancel()
        with contextlib.suppress(Exception):
            self._writer.close()

    async def close(self, grace: float = 3.0) -> int | None:
        """Close stdin (the server then interrupts running turns and exits), wait up to `grace`
        seconds, then kill it. Returns the server's exit status (None without a child process).

        Over a listener (`connect_url`) it runs the WebSocket closing handshake instead; the
        server keeps running, and so do the turns of this connection.

        Pending requests fail with `ConnectionClosed`; notification streams end. Idempotent.
        """
        if self._close_task is None:
            self._close_task = asyncio.ensure_future(self._close(grace))
        return await asyncio.shield(self._close_task)

    async def _close(self, grace: float) -> int | None:
        self._closing = True
        with contextlib.suppress(Exception):
            self._writer.close()
        returncode = None
        if self.server_process is not None:
            returncode = await self.server_process.stop(grace)
        # After the exit the reader reaches EOF at once; without a process give it `grace`.
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(asyncio.shield(self._reader_task), grace if returncode is None else 1.0)
        self._reader_task.cancel()
        self._fail(ConnectionClosed("the client closed the connection"))
        with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(self._dispatch_task, 1.0)
        return returncode

    async def __aenter__(self) -> AppServerClient:
        """``async with client:`` closes it at the end."""
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Close the client."""
        await self.close()


class _Spawning:
    """What `AppServerClient.spawn` and `connect_url` return: await it, or use it with ``async with``."""

    def __init__(self, start: Callable[[], Awaitable[AppServerClient]]):
        self._start = start
        self._client: AppServerClient | None = None

    def __await__(self) -> Generator[Any, None, AppServerClient]:
        return self._start().__await__()

    async def __aenter__(self) -> AppServerClient:
        self._client = await self._start()
        return self._client

    async def __aexit__(self, *exc_info: object) -> None:
        if self._client is not None:
            await self._client.close()
