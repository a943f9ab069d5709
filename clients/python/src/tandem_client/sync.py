"""`SyncAppServerClient`: a blocking wrapper for scripts.

It runs an `AppServerClient` on a private event loop in a daemon thread (one loop per client,
for its whole life, since the server's pipes belong to that loop). Each method submits a
coroutine to that loop and blocks until it finishes.

Where callbacks run:

- `run_turn`'s ``on_notification`` runs in the calling thread, while `run_turn` blocks.
- Server-request handlers (`on_command_approval`…) and `on` handlers run in a worker thread
  (``asyncio.to_thread``), so they may block (``input()``) and may call this client's methods.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from tandem_client.client import AppServerClient
from tandem_client.errors import TandemClientError
from tandem_client.generated import models
from tandem_client.method_spec import AnyRequestSpec, NotificationSpec, RequestSpec
from tandem_client.notifications import Notification
from tandem_client.process import StderrMode

T = TypeVar("T")
ParamsT = TypeVar("ParamsT", bound=BaseModel)
ResponseT = TypeVar("ResponseT", bound=BaseModel)

SyncHandler = Callable[[Any], Any]
"""A blocking handler: params in, response (or decision, or answers) out."""


class TurnTimeout(TandemClientError, TimeoutError):
    """`SyncAppServerClient.run_turn` did not see ``turn/completed`` within its timeout."""


class _LoopThread:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="tandem-client-loop", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coroutine` on the loop and wait for its result."""
        if threading.current_thread() is self._thread:
            coroutine.close()
            raise RuntimeError("SyncAppServerClient method called from its own event loop thread")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def stop(self) -> None:
        """Stop the loop and join the thread."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self.loop.close()


class SyncAppServerClient:
    """Blocking counterpart of `AppServerClient` (see the module docstring for threading)."""

    def __init__(self, client: AppServerClient, runner: _LoopThread):
        """Use `SyncAppServerClient.spawn` or `connect_url`."""
        self._client = client
        self._runner = runner

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
    ) -> SyncAppServerClient:
        """Start the server and run the handshake; same arguments as `AppServerClient.spawn`."""
        runner = _LoopThread()

        async def start() -> AppServerClient:
            return await AppServerClient.spawn(
                command,
                args,
                env=env,
                cwd=cwd,
                client_info=client_info,
                capabilities=capabilities,
                stderr=stderr,
                initialize_timeout=initialize_timeout,
            )

        try:
            client = runner.run(start())
        except BaseException:
            runner.stop()
            raise
        return cls(client, runner)

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
    ) -> SyncAppServerClient:
        """Connect to a ``ws://`` or ``unix://`` listener; same arguments as `AppServerClient.connect_url`."""
        runner = _LoopThread()

        async def start() -> AppServerClient:
            return await AppServerClient.connect_url(
                url,
                token=token,
                headers=headers,
                client_info=client_info,
                capabilities=capabilities,
                initialize_timeout=initialize_timeout,
            )

        try:
            client = runner.run(start())
        except BaseException:
            runner.stop()
            raise
        return cls(client, runner)

    @property
    def async_client(self) -> AppServerClient:
        """The underlying asyncio client (use it only on `loop`)."""
        return self._client

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The private event loop."""
        return self._runner.loop

    @property
    def initialize_response(self) -> models.InitializeResponse | None:
        """The server's answer to ``initialize``."""
        return self._client.initialize_response

    @overload
    def request(
        self,
        method: RequestSpec[ParamsT, ResponseT],
        params: ParamsT | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> ResponseT: ...

    @overload
    def request(
        self,
        method: str,
        params: BaseModel | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any: ...

    def request(
        self,
        method: str | AnyRequestSpec,
        params: BaseModel | Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Send a request and return the response model (see `AppServerClient.request`)."""
        return self._runner.run(self._client.request(method, params, timeout=timeout))

    def notify(self, method: str | NotificationSpec[Any], params: BaseModel | Mapping[str, Any] | None = None) -> None:
        """Send a client notification."""
        self._runner.run(self._client.notify(method, params))

    def run_turn(
        self,
        thread_id: str,
        input: str | list[Any],
        *,
        on_notification: Callable[[Notification[Any]], None] | None = None,
        timeout: float | None = None,
        **params: Any,
    ) -> models.Turn:
        """Run a turn to its end and return the final `Turn`.

        `on_notification` is called in this thread with each of the turn's notifications
        (deltas, items…) as they arrive. Other ``turn/start`` params go in `params`, as in
        `AppServerClient.run_turn`. Raises `TurnTimeout` after `timeout` seconds (the turn is
        then interrupted), `AppServerError` if it cannot start, `ConnectionClosed`.
        """
        events: queue.Queue[tuple[str, Any]] = queue.Queue()

        async def follow() -> None:
            stream = self._client.run_turn(thread_id, input, **params)
            events.put(("stream", stream))
            try:
                async for notification in stream:
                    events.put(("notification", notification))
                events.put(("turn", await stream.completed))
            except BaseException as error:
                events.put(("error", error))

        future = asyncio.run_coroutine_threadsafe(follow(), self._runner.loop)
        deadline = None if timeout is None else time.monotonic() + timeout
        stream = None
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                kind, value = events.get(timeout=remaining)
            except queue.Empty:
                if stream is not None:
                    # The timeout is the error to report, not a failure to interrupt.
                    with contextlib.suppress(Exception):
                        self._runner.run(stream.interrupt(), timeout=10)
                future.cancel()
                raise TurnTimeout(f"turn did not complete within {timeout:g}s") from None
            if kind == "stream":
                stream = value
            elif kind == "notification":
                if on_notification is not None:
                    on_notification(value)
            elif kind == "turn":
                turn: models.Turn = value
                return turn
            else:
                raise value

    def on(self, method: str | NotificationSpec[Any], handler: Callable[[Any], None]) -> Callable[[], None]:
        """Call `handler(params)` for each notification of `method` (in a worker thread)."""
        return self._client.on(method, _in_thread(handler))

    def on_server_request(self, method: str | AnyRequestSpec, handler: SyncHandler) -> None:
        """Answer server requests of `method` (see `AppServerClient.on_server_request`)."""
        self._client.on_server_request(method, _in_thread(handler))

    def on_command_approval(self, handler: SyncHandler) -> None:
        """Answer command approvals; return ``"accept"``, ``"decline"``… or the response."""
        self._client.on_command_approval(_in_thread(handler))

    def on_file_change_approval(self, handler: SyncHandler) -> None:
        """Answer file-change approvals; return ``"accept"``, ``"decline"``… or the response."""
        self._client.on_file_change_approval(_in_thread(handler))

    def on_user_input(self, handler: SyncHandler) -> None:
        """Answer ``item/tool/requestUserInput``; return question id → answer(s), or the response."""
        self._client.on_user_input(_in_thread(handler))

    def on_tool_user_input(self, handler: SyncHandler) -> None:
        """Answer ``tool/requestUserInput``; return question index → selection, or the response."""
        self._client.on_tool_user_input(_in_thread(handler))

    def on_agent_user_input(self, handler: SyncHandler) -> None:
        """Answer ``agent/requestUserInput``; return the text, or the response."""
        self._client.on_agent_user_input(_in_thread(handler))

    def on_ask_user_question(self, handler: SyncHandler) -> None:
        """Answer ``agent/askUserQuestion``; return question index → selection, or the response."""
        self._client.on_ask_user_question(_in_thread(handler))

    def close(self, grace: float = 3.0) -> int | None:
        """Close the connection (see `AppServerClient.close`) and stop the loop thread."""
        try:
            return self._runner.run(self._client.close(grace))
        finally:
            self._runner.stop()

    def __enter__(self) -> SyncAppServerClient:
        """``with SyncAppServerClient.spawn(...) as client:`` closes it at the end."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close the client."""
        self.close()


def _in_thread(handler: Callable[[Any], T]) -> Callable[[Any], Awaitable[T]]:
    async def threaded(params: Any) -> T:
        return await asyncio.to_thread(handler, params)

    return threaded
