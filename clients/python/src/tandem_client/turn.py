"""`TurnStream`: one turn's notifications, and its final `Turn`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Generator, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from tandem_client.errors import ConnectionClosed, InvalidResponse
from tandem_client.generated import models
from tandem_client.generated.methods import ClientRequests
from tandem_client.notifications import Notification, Subscription

if TYPE_CHECKING:
    from tandem_client.client import AppServerClient

TURN_COMPLETED = "turn/completed"
"""The notification that ends every turn (completed, interrupted or failed)."""

ITEM_COMPLETED = "item/completed"
"""The notification that carries an item's final state."""


class TurnStream:
    """A running turn: iterate it for the turn's notifications; await `completed` for the `Turn`.

    The stream is made by `AppServerClient.run_turn`, which sends ``turn/start`` right away.
    Iteration yields every notification about the thread that is not about another turn
    (``turn/started``, ``item/*``, deltas, ``thread/status/changed``, ``serverRequest/resolved``…),
    and ends after ``turn/completed``.
    Notifications are buffered, so awaiting only `completed` is fine.
    """

    def __init__(self, client: AppServerClient, params: models.TurnStartParams):
        """Subscribe to the thread, then send ``turn/start`` (done by `run_turn`)."""
        self._client = client
        self.thread_id: str = params.thread_id
        """The thread."""
        self.turn_id: str | None = None
        """The turn id, once ``turn/start`` answered."""
        self.items: list[Any] = []
        """The final state of every item completed so far (from ``item/completed``), in order."""
        loop = asyncio.get_running_loop()
        self._subscription: Subscription = client._subscribe(self._about_thread)
        self._output: asyncio.Queue[Notification[Any] | BaseException | None] = asyncio.Queue()
        self._completed: asyncio.Future[models.Turn] = loop.create_future()
        self._completed.add_done_callback(_retrieve_exception)
        self._started: asyncio.Task[models.Turn] = loop.create_task(self._start(params))
        self._started.add_done_callback(_retrieve_exception)
        self._pump_task = loop.create_task(self._pump())

    @property
    def completed(self) -> asyncio.Future[models.Turn]:
        """Resolves to the final `Turn` (from ``turn/completed``); raises if the turn could not
        start (`AppServerError`) or the connection closed first (`ConnectionClosed`)."""
        return self._completed

    async def start(self) -> models.Turn:
        """Wait for the ``turn/start`` response; returns the turn as it started (``inProgress``)."""
        return await asyncio.shield(self._started)

    async def interrupt(self) -> None:
        """Send ``turn/interrupt``; the stream then ends with an ``interrupted`` turn."""
        turn = await self.start()
        await self._client.request(ClientRequests.TURN_INTERRUPT, {"threadId": self.thread_id, "turnId": turn.id})

    async def steer(self, input: str | list[Any]) -> None:
        """Add input to the running turn (``turn/steer``)."""
        turn = await self.start()
        await self._client.request(
            ClientRequests.TURN_STEER,
            {"threadId": self.thread_id, "expectedTurnId": turn.id, "input": text_input(input)},
        )

    def __aiter__(self) -> TurnStream:
        """The stream is its own iterator."""
        return self

    async def __anext__(self) -> Notification[Any]:
        """The next notification of the turn; the last one is ``turn/completed``."""
        item = await self._output.get()
        if item is None or isinstance(item, BaseException):
            self._output.put_nowait(item)  # keep ending for later calls
            if item is None:
                raise StopAsyncIteration
            raise item
        return item

    def __await__(self) -> Generator[Any, None, models.Turn]:
        """``await stream`` is ``await stream.completed``."""
        return self._completed.__await__()

    async def _start(self, params: models.TurnStartParams) -> models.Turn:
        response = await self._client.request(ClientRequests.TURN_START, params)
        self.turn_id = response.turn.id
        return response.turn

    def _about_thread(self, notification: Notification[Any]) -> bool:
        return notification.thread_id == self.thread_id

    def _about_turn(self, notification: Notification[Any]) -> bool:
        turn_id = notification.turn_id
        return turn_id is None or turn_id == self.turn_id

    async def _pump(self) -> None:
        try:
            await self._started
            while True:
                notification = await self._subscription.get()
                if not self._about_turn(notification):
                    continue
                if notification.method == ITEM_COMPLETED:
                    self.items.append(_field(notification, "item"))
                self._output.put_nowait(notification)
                if notification.method == TURN_COMPLETED:
                    self._completed.set_result(_final_turn(notification))
                    self._output.put_nowait(None)
                    return
        except StopAsyncIteration:
            self._end(ConnectionClosed("the client was closed before the turn completed"))
        except BaseException as error:
            self._end(error)
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self._subscription.close()

    def _end(self, error: BaseException) -> None:
        if not self._completed.done():
            if isinstance(error, asyncio.CancelledError):
                self._completed.cancel()
            else:
                self._completed.set_exception(error)
        self._output.put_nowait(error)

    def cancel(self) -> None:
        """Stop following the turn (the turn itself goes on; use `interrupt` to stop it)."""
        self._pump_task.cancel()


def text_input(input: str | list[Any]) -> list[Any]:
    """``"hi"`` → ``[{"type": "text", "text": "hi"}]``; a list of inputs is passed through."""
    if isinstance(input, str):
        return [{"type": "text", "text": input}]
    return list(input)


def _field(notification: Notification[Any], name: str) -> Any:
    value = getattr(notification.params, name, None)
    if value is None and isinstance(notification.params, Mapping):
        value = notification.params.get(name)
    return value


def _final_turn(notification: Notification[Any]) -> models.Turn:
    turn = _field(notification, "turn")
    if isinstance(turn, models.Turn):
        return turn
    try:
        return models.Turn.model_validate(turn)
    except ValidationError as error:
        raise InvalidResponse(TURN_COMPLETED, notification.raw, error) from None


def _retrieve_exception(future: asyncio.Future[Any]) -> None:
    # Mark the exception as retrieved: a caller that never awaits `completed` gets no warning.
    if not future.cancelled():
        with contextlib.suppress(BaseException):
            future.exception()
