"""Server notifications: the typed `Notification` and the `NotificationStream` iterator."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import ValidationError

from tandem_client.errors import ConnectionClosed
from tandem_client.generated.methods import SERVER_NOTIFICATIONS_BY_METHOD
from tandem_client.wire import IncomingNotification

logger = logging.getLogger("tandem_client")

ParamsT = TypeVar("ParamsT")


@dataclass(frozen=True)
class Notification(Generic[ParamsT]):
    """One server notification.

    ``params`` is an instance of the params model that the generated method map names for
    ``method``; for a method the map does not know, or params that do not match the model (a newer
    server), it is the raw JSON object instead, and a warning is logged for the latter.
    """

    method: str
    """The wire method, such as ``"item/agentMessage/delta"``."""
    params: ParamsT
    """The params model instance (or the raw object, see above)."""
    raw: Mapping[str, Any] = field(repr=False)
    """The params exactly as received."""
    emitted_at_ms: int | None = None
    """When the server emitted it (Unix milliseconds), if it said."""

    @property
    def thread_id(self) -> str | None:
        """The thread the notification is about (``threadId``, or ``thread.id``), if any."""
        thread_id = self.raw.get("threadId")
        if isinstance(thread_id, str):
            return thread_id
        thread = self.raw.get("thread")
        if isinstance(thread, Mapping) and isinstance(thread.get("id"), str):
            return str(thread["id"])
        return None

    @property
    def turn_id(self) -> str | None:
        """The turn the notification is about (``turnId``, or ``turn.id``), if any."""
        turn_id = self.raw.get("turnId")
        if isinstance(turn_id, str):
            return turn_id
        turn = self.raw.get("turn")
        if isinstance(turn, Mapping) and isinstance(turn.get("id"), str):
            return str(turn["id"])
        return None


def parse_notification(message: IncomingNotification) -> Notification[Any]:
    """Validate a notification's params with the model the method map names."""
    raw = message.params if isinstance(message.params, Mapping) else {}
    spec = SERVER_NOTIFICATIONS_BY_METHOD.get(message.method)
    params: Any = raw
    if spec is not None:
        try:
            params = spec.params.model_validate(raw)
        except ValidationError as error:
            logger.warning("%s: params do not match %s: %s", message.method, spec.params.__name__, error)
    return Notification(message.method, params, raw, message.emitted_at_ms)


class _End:
    """Queue marker: the connection closed (``error`` is None when the client closed it)."""

    def __init__(self, error: ConnectionClosed | None):
        self.error = error


class Subscription:
    """An unbounded queue of the notifications that pass a filter, fed by the client's reader."""

    def __init__(self, accepts: Callable[[Notification[Any]], bool], on_close: Callable[[Subscription], None]):
        """Create an open subscription; `on_close` detaches it from the client."""
        self._accepts = accepts
        self._on_close = on_close
        self._queue: asyncio.Queue[Notification[Any] | _End] = asyncio.Queue()
        self._end: _End | None = None

    def offer(self, notification: Notification[Any]) -> None:
        """Queue the notification if it passes the filter."""
        if self._end is None and self._accepts(notification):
            self._queue.put_nowait(notification)

    def finish(self, error: ConnectionClosed | None) -> None:
        """End the subscription after what is queued; `error` is raised to the reader if given."""
        if self._end is None:
            self._end = _End(error)
            self._queue.put_nowait(self._end)

    async def get(self) -> Notification[Any]:
        """The next notification; raises `StopAsyncIteration` or the connection error at the end."""
        item = await self._queue.get()
        if isinstance(item, _End):
            self._queue.put_nowait(item)
            if item.error is not None:
                raise item.error
            raise StopAsyncIteration
        return item

    def close(self) -> None:
        """Stop receiving notifications."""
        self.finish(None)
        self._on_close(self)


class NotificationStream:
    """Async iterator over server notifications, from the moment it was created.

    Ends (``StopAsyncIteration``) when the client is closed, and raises `ConnectionClosed` when the
    server goes away. Close it (or use it as an async context manager) to stop buffering.
    """

    def __init__(self, subscription: Subscription):
        """Wrap a subscription made by the client."""
        self._subscription = subscription

    def __aiter__(self) -> NotificationStream:
        """The stream is its own iterator."""
        return self

    async def __anext__(self) -> Notification[Any]:
        """The next notification."""
        return await self._subscription.get()

    def close(self) -> None:
        """Stop receiving notifications; iteration ends after what was already received."""
        self._subscription.close()

    async def __aenter__(self) -> NotificationStream:
        """Use as ``async with client.notifications() as stream``."""
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Close the stream."""
        self.close()
