"""The client over a running server's listeners (``--listen ws://`` and ``unix://``), against the real binary.

Both listeners speak WebSocket; the client's API is the same as over stdio.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from conftest import Listeners, Tandem, within

from tandem_client import (
    AppServerClient,
    ClientRequests,
    ConnectionClosed,
    Notification,
    SyncAppServerClient,
    WebSocketRefused,
)
from tandem_client.generated import models
from tandem_client.websocket import parse_url


async def test_ws_with_token_runs_a_turn_with_approvals(tandem: Tandem, listeners: Listeners) -> None:
    listener = await listeners.ws()
    assert listener.url.startswith("ws://127.0.0.1:")
    approvals: list[str] = []
    async with AppServerClient.connect_url(
        listener.url, token=listener.token, client_info={"name": "tandem_client_tests", "version": "0.0.0"}
    ) as client:
        assert client.server_process is None
        assert client.initialize_response is not None
        assert client.initialize_response.user_agent.startswith("tandem_client_tests/")

        def accept(params: Any) -> str:
            approvals.append(type(params).__name__)
            return "accept"

        client.on_command_approval(accept)
        client.on_file_change_approval(accept)
        thread_id = await tandem.start_thread(client)
        stream = client.run_turn(thread_id, "Show me around")
        turn = await within(stream.completed)

    assert turn.status == models.TurnStatus.completed
    assert approvals == ["CommandExecutionRequestApprovalParams", "FileChangeRequestApprovalParams"]
    [command] = [item for item in stream.items if item.type == "commandExecution"]
    assert command.status == models.CommandExecutionStatus.completed
    assert (command.aggregated_output or "").startswith("Linux ")
    assert (tandem.workspace / "tandem-demo.txt").is_file()
    # Closing the connection leaves the server running: another client reads the thread.
    async with AppServerClient.connect_url(listener.url, token=listener.token) as again:
        read = await within(again.request(ClientRequests.THREAD_READ, {"threadId": thread_id, "includeTurns": True}))
        assert [t.id for t in read.thread.turns] == [turn.id]
    assert listener.process.returncode is None


async def test_ws_wrong_or_missing_token_is_refused_with_401(listeners: Listeners) -> None:
    listener = await listeners.ws()
    with pytest.raises(WebSocketRefused) as caught:
        await within(AppServerClient.connect_url(listener.url, token="not-the-token-at-all"))
    assert caught.value.status == 401
    assert caught.value.body == "invalid websocket bearer token"
    assert str(caught.value) == (
        f"{listener.url}: the server refused the connection: HTTP 401 Unauthorized: invalid websocket bearer token"
    )
    with pytest.raises(WebSocketRefused) as caught:
        await within(AppServerClient.connect_url(listener.url))
    assert (caught.value.status, caught.value.body) == (401, "missing websocket bearer token")
    # A refused Origin is a 403.
    with pytest.raises(WebSocketRefused) as caught:
        await within(
            AppServerClient.connect_url(listener.url, token=listener.token, headers={"Origin": "https://evil.example"})
        )
    assert caught.value.status == 403


async def test_unix_socket_runs_a_turn(tandem: Tandem, listeners: Listeners) -> None:
    listener = await listeners.unix()
    assert listener.url.startswith("unix:///")
    async with AppServerClient.connect_url(listener.url) as client:
        started = await within(
            client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace), "approvalPolicy": "never"})
        )
        stream = client.run_turn(started.thread.id, "Why is the sky blue?")
        deltas = [n.params.delta async for n in stream if n.method == "item/agentMessage/delta"]
        turn = await within(stream.completed)
    assert turn.status == models.TurnStatus.completed
    messages = [item.text for item in stream.items if item.type == "agentMessage"]
    assert "You asked: “Why is the sky blue?”" in messages[0]
    assert "".join(deltas) == "".join(messages)


async def test_two_ws_clients_on_one_thread_both_see_the_turn(tandem: Tandem, listeners: Listeners) -> None:
    listener = await listeners.ws()
    async with (
        AppServerClient.connect_url(listener.url, token=listener.token) as first,
        AppServerClient.connect_url(listener.url, token=listener.token) as second,
    ):
        started = await within(
            first.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace), "approvalPolicy": "never"})
        )
        thread_id = started.thread.id
        # The second connection subscribes to the thread by resuming it.
        async with second.notifications() as watched:
            await within(second.request(ClientRequests.THREAD_RESUME, {"threadId": thread_id}))
            stream = first.run_turn(thread_id, "Hello from the first client")
            mine: list[Notification[Any]] = [n async for n in stream]
            turn = await within(stream.completed)
            seen: list[Notification[Any]] = []
            while not seen or seen[-1].method != "turn/completed":
                seen.append(await within(watched.__anext__()))

    own = [n for n in mine if n.method == "item/agentMessage/delta"]
    other = [n for n in seen if n.method == "item/agentMessage/delta"]
    assert own and [n.params.delta for n in other] == [n.params.delta for n in own]
    assert {n.params.turn_id for n in other} == {turn.id}
    assert seen[-1].params.turn.id == turn.id
    assert "turn/started" in [n.method for n in seen]


def test_urls() -> None:
    tcp = parse_url("ws://127.0.0.1:4500")
    assert (tcp.host, tcp.port, tcp.socket_path, tcp.resource) == ("127.0.0.1:4500", 4500, None, "/")
    unix = parse_url("unix:///run/tandem/app-server.sock")
    assert (unix.host, unix.port, unix.socket_path) == ("localhost", None, "/run/tandem/app-server.sock")
    for bad in ("http://127.0.0.1:4500", "unix://", "ws://:80"):
        with pytest.raises(ValueError):
            parse_url(bad)


async def test_sync_client_over_ws(tandem: Tandem, listeners: Listeners) -> None:
    listener = await listeners.ws()

    def run() -> models.Turn:
        with SyncAppServerClient.connect_url(listener.url, token=listener.token) as client:
            client.on_command_approval(lambda _: "decline")
            client.on_file_change_approval(lambda _: "decline")
            started = client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace)})
            return client.run_turn(started.thread.id, "Hello", timeout=60)

    turn = await within(asyncio.to_thread(run))
    assert turn.status == models.TurnStatus.completed


async def test_proxy_jsonl_is_spawned_like_a_stdio_server(tandem: Tandem, listeners: Listeners) -> None:
    # `tandem app-server proxy --jsonl` joins stdio to a running server's socket (the daemon's, or
    # the one `--sock` names): the client spawns it like a stdio server, and the turn runs there.
    listener = await listeners.unix()
    socket_path = listener.url.removeprefix("unix://")
    async with AppServerClient.spawn(
        [tandem.binary, "app-server", "proxy", "--jsonl", "--sock", socket_path], env={"TANDEM_HOME": str(tandem.home)}
    ) as client:
        started = await within(
            client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace), "approvalPolicy": "never"})
        )
        turn = await within(client.run_turn(started.thread.id, "Hello through the proxy").completed)
    assert turn.status == models.TurnStatus.completed
    # The thread lives in the listening server, not in the proxy.
    async with AppServerClient.connect_url(listener.url) as direct:
        read = await within(direct.request(ClientRequests.THREAD_READ, {"threadId": started.thread.id}))
        assert read.thread.id == started.thread.id


async def test_a_watching_connection_leaves_approvals_to_the_one_that_handles_them(
    tandem: Tandem, listeners: Listeners
) -> None:
    listener = await listeners.ws()
    async with (
        AppServerClient.connect_url(listener.url, token=listener.token) as first,
        AppServerClient.connect_url(listener.url, token=listener.token) as watcher,
    ):
        first.on_command_approval(lambda _: "accept")
        first.on_file_change_approval(lambda _: "accept")
        watcher.answer_unhandled_server_requests = False
        thread_id = await tandem.start_thread(first)
        async with watcher.notifications("serverRequest/resolved", "turn/completed") as watched:
            await within(watcher.request(ClientRequests.THREAD_RESUME, {"threadId": thread_id}))
            stream = first.run_turn(thread_id, "Show me around")
            turn = await within(stream.completed)
            seen = [await within(watched.__anext__()) for _ in range(3)]
    assert turn.status == models.TurnStatus.completed
    statuses = {
        item.type: item.status.value for item in stream.items if item.type in ("commandExecution", "fileChange")
    }
    assert statuses == {"commandExecution": "completed", "fileChange": "completed"}
    # The watcher is told when each request it saw is answered.
    assert [n.method for n in seen] == ["serverRequest/resolved", "serverRequest/resolved", "turn/completed"]


async def test_the_server_going_away_ends_the_connection(listeners: Listeners) -> None:
    listener = await listeners.ws()
    client = await AppServerClient.connect_url(listener.url, token=listener.token)
    stream = client.notifications()
    listener.process.kill()
    with pytest.raises(ConnectionClosed, match="the server closed the connection"):
        await within(stream.__anext__())
    assert client.closed
    with pytest.raises(ConnectionClosed):
        await client.request(ClientRequests.THREAD_LIST)
    assert await client.close() is None
