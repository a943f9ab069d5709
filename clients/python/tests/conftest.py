"""Fixtures: the real `tandem` binary with a fresh `TANDEM_HOME` per test."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator, Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

PACKAGE_DIR = Path(__file__).resolve().parent.parent
"""`clients/python`."""

if not (PACKAGE_DIR / "src/tandem_client/generated/models.py").is_file():
    pytest.exit("src/tandem_client/generated/ is missing: run `scripts/generate.py` first", returncode=1)

from tandem_client import AppServerClient, ClientRequests, SyncAppServerClient  # noqa: E402

TIMEOUT = 60.0
"""Upper bound of every wait on the server (the demo provider streams with small delays)."""

CONFIG_TOML = 'model_provider = "demo"\napproval_policy = "untrusted"\n'
"""The config of every test home: the offline scripted provider, and approvals for everything."""

T = TypeVar("T")


async def within(awaitable: Awaitable[T], timeout: float = TIMEOUT) -> T:
    """Await with a timeout, so that a missing message fails the test instead of hanging it."""
    return await asyncio.wait_for(awaitable, timeout)


def tandem_binary() -> str:
    """`TANDEM_BIN`, or `../../target/debug/tandem` relative to the package directory."""
    configured = os.environ.get("TANDEM_BIN")
    if configured and os.sep not in configured:
        found = shutil.which(configured)
        if found is None:
            pytest.fail(f"TANDEM_BIN={configured} is not on PATH")
        return found
    path = Path(configured) if configured else PACKAGE_DIR / "../../target/debug/tandem"
    path = path.resolve()
    if not path.is_file():
        pytest.fail(f"no tandem binary at {path}: run `cargo build --bins` at the repository root, or set TANDEM_BIN")
    return str(path)


@dataclass
class Tandem:
    """How to start the real server on this test's home and workspace."""

    binary: str
    home: Path
    """`TANDEM_HOME`, with a `config.toml` selecting the demo provider and `untrusted` approvals."""
    workspace: Path
    """The threads' working directory (the demo's commands and patches land here)."""

    def spawn(self, **options: Any) -> Any:
        """`AppServerClient.spawn` with this home (await it, or use it with `async with`)."""
        return AppServerClient.spawn(
            [self.binary, "app-server"], env={"TANDEM_HOME": str(self.home)}, cwd=self.workspace, **options
        )

    def spawn_sync(self, **options: Any) -> SyncAppServerClient:
        """`SyncAppServerClient.spawn` with this home."""
        return SyncAppServerClient.spawn(
            [self.binary, "app-server"], env={"TANDEM_HOME": str(self.home)}, cwd=self.workspace, **options
        )

    async def start_thread(self, client: AppServerClient) -> str:
        """`thread/start` in the workspace; returns the thread id."""
        response = await within(client.request(ClientRequests.THREAD_START, {"cwd": str(self.workspace)}))
        return response.thread.id


@pytest.fixture
def tandem(tmp_path: Path) -> Tandem:
    """A fresh home and workspace for the real server."""
    home = tmp_path / "home"
    workspace = tmp_path / "workspace"
    home.mkdir()
    workspace.mkdir()
    (home / "config.toml").write_text(CONFIG_TOML)
    return Tandem(tandem_binary(), home, workspace)


LISTENING = "tandem app-server listening on "
"""How the server announces a listener's address on stderr."""


@dataclass
class Listener:
    """A real server started with ``--listen``."""

    url: str
    """The address it printed: ``ws://127.0.0.1:PORT`` or ``unix:///path``."""
    token: str | None
    """The token of its ``--ws-token-file``, if it has one."""
    process: asyncio.subprocess.Process
    """The server process."""


class Listeners:
    """Starts servers with ``--listen`` on a test's home and stops them when the test ends."""

    def __init__(self, tandem: Tandem):
        """Servers on `tandem`'s home and workspace."""
        self.tandem = tandem
        self._started: list[Listener] = []
        self._stderr_tasks: list[asyncio.Task[None]] = []
        self._directory = Path(tempfile.mkdtemp(prefix="tandem-sock-"))

    async def ws(self) -> Listener:
        """A ``ws://127.0.0.1:0`` listener with a fresh token in a ``--ws-token-file``."""
        token = secrets.token_hex(32)
        token_file = self.tandem.home / "ws.token"
        token_file.write_text(token + "\n")
        return await self._start("ws://127.0.0.1:0", ["--ws-token-file", str(token_file)], token)

    async def unix(self) -> Listener:
        """A ``unix://PATH`` listener (a short path: Unix socket paths are limited to 107 bytes)."""
        return await self._start(f"unix://{self._directory / 'app-server.sock'}", [], None)

    async def _start(self, listen: str, args: list[str], token: str | None) -> Listener:
        process = await asyncio.create_subprocess_exec(
            self.tandem.binary,
            "app-server",
            "--listen",
            listen,
            *args,
            env={**os.environ, "TANDEM_HOME": str(self.tandem.home)},
            cwd=self.tandem.workspace,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        lines: list[str] = []
        while True:
            line = (await within(process.stderr.readline())).decode(errors="replace")
            if not line:
                pytest.fail(f"the server exited before listening on {listen}:\n{''.join(lines)}")
            lines.append(line)
            if line.startswith(LISTENING):
                break
        self._stderr_tasks.append(asyncio.create_task(_drain(process.stderr)))
        listener = Listener(line[len(LISTENING) :].strip(), token, process)
        self._started.append(listener)
        return listener

    async def stop(self) -> None:
        """SIGTERM every server (it removes its socket), then SIGKILL after 10 seconds."""
        for listener in self._started:
            with contextlib.suppress(ProcessLookupError):
                listener.process.send_signal(signal.SIGTERM)
        for listener in self._started:
            try:
                await asyncio.wait_for(listener.process.wait(), 10.0)
            except asyncio.TimeoutError:
                listener.process.kill()
                await listener.process.wait()
        for task in self._stderr_tasks:
            task.cancel()
        shutil.rmtree(self._directory, ignore_errors=True)


async def _drain(stream: asyncio.StreamReader) -> None:
    """Read the server's log so that it never blocks on a full pipe (`TANDEM_TEST_LOG` shows it)."""
    show = "TANDEM_TEST_LOG" in os.environ
    while line := await stream.readline():
        if show:
            print("server:", line.decode(errors="replace"), end="")


@pytest.fixture
async def listeners(tandem: Tandem) -> AsyncIterator[Listeners]:
    """Servers with ``--listen`` on the test's home, stopped at the end of the test."""
    started = Listeners(tandem)
    yield started
    await started.stop()
