"""Transport behaviour against the real binary: error replies, timeouts, shutdown, and a server that
dies, cannot start, or writes something that is not JSON.

Stopping the server with SIGSTOP makes "no reply yet" deterministic without any fake server.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from conftest import Tandem, within

from tandem_client import (
    AppServerClient,
    AppServerError,
    ClientRequests,
    ConnectionClosed,
    ProtocolError,
    RequestTimeout,
)
from tandem_client.generated import models


def server_process(client: AppServerClient) -> asyncio.subprocess.Process:
    """The spawned server's process."""
    assert client.server_process is not None
    return client.server_process.process


async def test_handshake_reports_the_protocol_version_in_the_user_agent(tandem: Tandem) -> None:
    client = await tandem.spawn(client_info={"name": "tandem_client_tests", "title": None, "version": "0.0.0"})
    response = client.initialize_response
    assert isinstance(response, models.InitializeResponse)
    assert response.user_agent.startswith("tandem_client_tests/0.169.0 ")
    assert response.platform_family == "unix"
    assert await client.close() == 0


async def test_error_reply_raises_app_server_error(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        with pytest.raises(AppServerError) as caught:
            await within(client.request(ClientRequests.THREAD_READ, {"threadId": "nope"}))
        assert caught.value.code == AppServerError.INVALID_REQUEST
        assert caught.value.method == "thread/read"
        assert caught.value.message.startswith("invalid thread id")
        # Still usable after an error reply, and the result is the typed response model.
        loaded = await within(client.request(ClientRequests.THREAD_LOADED_LIST))
        assert isinstance(loaded, models.ThreadLoadedListResponse)
        assert loaded.data == []


async def test_unknown_method_is_refused_by_the_server(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        with pytest.raises(AppServerError) as caught:
            await within(client.request("no/such/method", {}))
        assert caught.value.code == -32600
        assert "unknown variant `no/such/method`" in caught.value.message


async def test_timeout_then_late_reply_is_ignored(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        process = server_process(client)
        process.send_signal(signal.SIGSTOP)
        try:
            with pytest.raises(RequestTimeout) as caught:
                await client.request(ClientRequests.THREAD_LOADED_LIST, timeout=0.05)
            assert caught.value.method == "thread/loaded/list"
            assert str(caught.value) == "thread/loaded/list: no response within 0.05s"
        finally:
            process.send_signal(signal.SIGCONT)
        # The continued server answers the abandoned request too; that reply is dropped.
        models_listed = await within(client.request(ClientRequests.MODEL_LIST))
        assert isinstance(models_listed, models.ModelListResponse)
        assert (await within(client.request(ClientRequests.THREAD_LOADED_LIST))).data == []


async def test_server_killed_mid_request(tandem: Tandem) -> None:
    client = await tandem.spawn()
    stream = client.notifications()
    process = server_process(client)
    # Stopped first, so the request is certainly still pending when the kill lands.
    process.send_signal(signal.SIGSTOP)
    pending = asyncio.ensure_future(client.request(ClientRequests.THREAD_LIST))
    await asyncio.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    with pytest.raises(ConnectionClosed) as caught:
        await within(pending)
    assert caught.value.returncode == -signal.SIGKILL
    assert f"server (pid {process.pid}) was killed by SIGKILL" in str(caught.value)
    assert client.closed
    with pytest.raises(ConnectionClosed):
        await client.request(ClientRequests.THREAD_LIST)
    with pytest.raises(ConnectionClosed):
        await within(stream.__anext__())
    assert await client.close() == -signal.SIGKILL


async def test_server_exiting_during_the_handshake(tandem: Tandem) -> None:
    with pytest.raises(ConnectionClosed) as caught:
        await tandem.spawn(args=["--no-such-flag"])
    assert caught.value.returncode == 2
    assert "exited with status 2" in str(caught.value)
    # The captured stderr says why.
    assert "unexpected argument '--no-such-flag'" in caught.value.stderr_tail


async def test_command_that_cannot_start(tandem: Tandem) -> None:
    with pytest.raises(FileNotFoundError):
        await AppServerClient.spawn([tandem.binary + "-does-not-exist", "app-server"])


async def test_malformed_line_fails_the_connection(tandem: Tandem) -> None:
    # The real server, except that its second reply (to the first request after the handshake)
    # is replaced by a line of garbage, so that request is certainly pending when it arrives.
    script = (
        '"$0" app-server | '
        '{ IFS= read -r first; printf "%s\\n" "$first"; IFS= read -r second; echo "this is not json"; cat; }'
    )
    client = await AppServerClient.spawn(
        ["sh", "-c", script, tandem.binary], env={"TANDEM_HOME": str(tandem.home)}, cwd=tandem.workspace
    )
    try:
        with pytest.raises(ProtocolError) as caught:
            await within(client.request(ClientRequests.THREAD_LOADED_LIST))
        assert "server wrote a malformed line" in str(caught.value)
        assert str(caught.value).splitlines()[0].endswith(": this is not json")
    finally:
        await client.close(grace=1.0)


async def test_close_exits_cleanly_and_fails_pending_requests(tandem: Tandem) -> None:
    client = await tandem.spawn()
    stream = client.notifications()
    pending = asyncio.ensure_future(client.request(ClientRequests.THREAD_LIST))
    await asyncio.sleep(0)
    assert await within(client.close()) == 0
    # The request either got its reply before stdin closed or failed as closed; it never hangs.
    try:
        await within(pending)
    except ConnectionClosed as error:
        assert "closed" in str(error)
    with pytest.raises(ConnectionClosed):
        await client.request(ClientRequests.THREAD_LIST)
    # A stream ends quietly when the client closed the connection.
    assert [n async for n in stream] == []
    assert await client.close() == 0  # idempotent


async def test_close_kills_a_server_that_does_not_exit(tandem: Tandem) -> None:
    client = await tandem.spawn()
    server_process(client).send_signal(signal.SIGSTOP)
    started = time.monotonic()
    assert await within(client.close(grace=0.2)) == -signal.SIGKILL
    assert time.monotonic() - started >= 0.15  # killed only after (about) the grace period


async def test_connect_attaches_to_a_server_started_elsewhere(tandem: Tandem) -> None:
    process = await asyncio.create_subprocess_exec(
        tandem.binary,
        "app-server",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env={**os.environ, "TANDEM_HOME": str(tandem.home)},
        cwd=tandem.workspace,
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        client = await within(
            AppServerClient.connect(
                process.stdout, process.stdin, client_info={"name": "attached", "title": None, "version": "1.0.0"}
            )
        )
        assert client.server_process is None
        assert client.initialize_response is not None
        assert client.initialize_response.user_agent.startswith("attached/0.169.0 ")
        started = await within(client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace)}))
        assert started.thread.cwd == str(tandem.workspace)

        # The process is not the client's: when its output ends, pending requests fail.
        process.send_signal(signal.SIGSTOP)
        pending = asyncio.ensure_future(client.request(ClientRequests.THREAD_LIST))
        await asyncio.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        with pytest.raises(ConnectionClosed, match=r"^the server closed the connection$"):
            await within(pending)
        assert await client.close() is None
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
