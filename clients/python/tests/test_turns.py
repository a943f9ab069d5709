"""Turns and threads against the real binary with the demo provider."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Tandem, within

from tandem_client import AppServerClient, AppServerError, ClientRequests, Notification, ServerNotifications
from tandem_client.generated import models


def decline_everything(client: AppServerClient) -> None:
    """Answer the demo's approvals with ``decline`` so its turns run straight through."""
    client.on_command_approval(lambda _: "decline")
    client.on_file_change_approval(lambda _: "decline")


async def test_streamed_turn(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        decline_everything(client)
        thread_id = await tandem.start_thread(client)
        via_on: list[str] = []
        client.on(ServerNotifications.ITEM_AGENT_MESSAGE_DELTA, lambda params: via_on.append(params.delta))

        stream = client.run_turn(thread_id, "Say hello")
        seen: list[Notification[Any]] = [n async for n in stream]
        turn = await within(stream.completed)

        assert turn.status == models.TurnStatus.completed
        assert turn.id == (await stream.start()).id
        methods = [n.method for n in seen]
        assert methods[-1] == "turn/completed"
        assert "turn/started" in methods
        assert methods.index("item/agentMessage/delta") < methods.index("turn/completed")
        # Notifications are typed by the generated method map.
        deltas = [n.params for n in seen if n.method == "item/agentMessage/delta"]
        assert all(isinstance(params, models.ItemDeltaNotification) for params in deltas)
        # The final agentMessage of the completed turn is exactly what its deltas streamed.
        final = [item for item in turn.items if item.type == "agentMessage"][-1]
        assert isinstance(final, models.ThreadItemAgentMessage)
        assert final.text
        assert "".join(d.delta for d in deltas if d.item_id == final.id) == final.text
        # `items` collects every completed item, and every notification is about this thread.
        assert stream.items[0].type == "userMessage"
        assert {n.thread_id for n in seen} == {thread_id}
        # `on` handlers run in order on their own task; they have caught up by the next request.
        await within(client.request(ClientRequests.THREAD_LOADED_LIST))
        assert final.text in "".join(via_on)


async def test_notifications_stream_buffers_from_creation(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        decline_everything(client)
        async with client.notifications(ServerNotifications.THREAD_STARTED, "turn/completed") as stream:
            thread_id = await tandem.start_thread(client)
            await within(client.run_turn(thread_id, "hi").completed)
            first = await within(stream.__anext__())
            second = await within(stream.__anext__())
        assert first.method == "thread/started"
        assert isinstance(first.params, models.ThreadStartedNotification)
        assert first.params.thread.id == thread_id
        assert second.method == "turn/completed"


async def test_interrupt(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        thread_id = await tandem.start_thread(client)
        stream = client.run_turn(thread_id, "Take your time")
        interrupted = False
        statuses: list[str] = []
        async for notification in stream:
            params = notification.params
            # Interrupt as soon as the model starts streaming: the demo is far from its last word.
            if not interrupted and notification.method == "item/started" and params.item.type != "userMessage":
                interrupted = True
                await within(stream.interrupt())
            if notification.method == "thread/status/changed":
                statuses.append(params.status.type)
        turn = await within(stream.completed)
        assert interrupted
        assert turn.status == models.TurnStatus.interrupted
        assert turn.items == []
        assert statuses[-1] == "idle"
        with pytest.raises(AppServerError) as caught:
            await stream.interrupt()
        assert caught.value.code == -32600
        decline_everything(client)
        assert (await within(client.run_turn(thread_id, "Now finish").completed)).status == models.TurnStatus.completed


async def test_turn_on_unknown_thread(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        stream = client.run_turn("0190f0f0-0000-7000-8000-000000000000", "hi")
        with pytest.raises(AppServerError):
            await within(stream.completed)
        with pytest.raises(AppServerError):
            async for _ in stream:
                pytest.fail("no notification expected")


async def test_thread_outlives_its_server(tandem: Tandem) -> None:
    async with tandem.spawn() as first:
        decline_everything(first)
        thread_id = await tandem.start_thread(first)
        first_turn = await within(first.run_turn(thread_id, "Remember the word ember").completed)
        assert first_turn.status == models.TurnStatus.completed

    async with tandem.spawn() as second:
        decline_everything(second)
        listing = await within(second.request(ClientRequests.THREAD_LIST))
        assert [thread.id for thread in listing.data] == [thread_id]
        assert listing.data[0].preview == "Remember the word ember"
        assert listing.next_cursor is None

        read = await within(second.request(ClientRequests.THREAD_READ, {"threadId": thread_id, "includeTurns": True}))
        assert [(turn.id, turn.status) for turn in read.thread.turns] == [(first_turn.id, models.TurnStatus.completed)]

        resumed = await within(second.request(ClientRequests.THREAD_RESUME, {"threadId": thread_id}))
        assert resumed.thread.id == thread_id
        assert resumed.model_provider == "demo"
        second_turn = await within(second.run_turn(thread_id, "Which word?").completed)
        assert second_turn.status == models.TurnStatus.completed

        after = await within(second.request(ClientRequests.THREAD_READ, {"threadId": thread_id, "includeTurns": True}))
        assert [turn.id for turn in after.thread.turns] == [first_turn.id, second_turn.id]


async def test_fork_and_archive(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        decline_everything(client)
        thread_id = await tandem.start_thread(client)
        await within(client.run_turn(thread_id, "Original").completed)
        fork = await within(client.request(ClientRequests.THREAD_FORK, {"threadId": thread_id}))
        assert fork.thread.id != thread_id
        assert fork.thread.forked_from_id == thread_id

        await within(client.request(ClientRequests.THREAD_ARCHIVE, {"threadId": thread_id}))
        active = await within(client.request(ClientRequests.THREAD_LIST))
        assert thread_id not in [thread.id for thread in active.data]
        archived = await within(client.request(ClientRequests.THREAD_LIST, {"archived": True}))
        assert [thread.id for thread in archived.data] == [thread_id]


def test_sync_client_runs_a_turn(tandem: Tandem) -> None:
    with tandem.spawn_sync() as client:
        client.on_command_approval(lambda _: "decline")
        client.on_file_change_approval(lambda _: "decline")
        started = client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace)})
        deltas: list[models.ItemDeltaNotification] = []

        def collect(notification: Notification[Any]) -> None:
            if notification.method == "item/agentMessage/delta":
                deltas.append(notification.params)

        turn = client.run_turn(started.thread.id, "Say hello", on_notification=collect, timeout=60)
        assert turn.status == models.TurnStatus.completed
        final = [item for item in turn.items if item.type == "agentMessage"][-1]
        assert "".join(d.delta for d in deltas if d.item_id == final.id) == final.text
        assert final.text.startswith("Tour finished (scripted demo): you declined the command")


async def test_steer_adds_input_to_the_running_turn(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        decline_everything(client)
        thread_id = await tandem.start_thread(client)
        stream = client.run_turn(thread_id, "First request")
        steered = False
        async for notification in stream:
            if not steered and notification.method == "item/started" and notification.params.item.type == "reasoning":
                steered = True
                await within(stream.steer("Second thought"))
        turn = await within(stream.completed)
    assert steered
    assert turn.status == models.TurnStatus.completed
    texts = [item.content[0].text for item in items_of_type(stream.items, "userMessage")]
    assert texts == ["First request", "Second thought"]


def items_of_type(items: list[Any], kind: str) -> list[Any]:
    """The items of one type."""
    return [item for item in items if item.type == kind]
