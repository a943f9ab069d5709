"""Fixtures: the real `tandem` binary with a fresh `TANDEM_HOME` per test."""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Awaitable
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
