"""The server child process: spawning it, draining its stderr, stopping it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Literal

logger = logging.getLogger("tandem_client.server")

STDOUT_LINE_LIMIT = 64 * 1024 * 1024
"""Longest line accepted from the server (the server accepts 16 MiB input lines by default)."""

STDERR_TAIL_LINES = 40
"""How many stderr lines are kept for error messages."""

StderrMode = Literal["capture", "inherit"]
"""``capture``: log each stderr line to the ``tandem_client.server`` logger (DEBUG) and keep the
last lines for error messages; ``inherit``: the server writes to this process's stderr."""


class ServerProcess:
    """A running server: the asyncio subprocess plus its stderr tail."""

    def __init__(self, process: asyncio.subprocess.Process, argv: Sequence[str]):
        """Wrap a started process; `start` is the usual way to get one."""
        self.process = process
        """The asyncio subprocess (stdin and stdout are the protocol streams)."""
        self.argv = list(argv)
        """The command line it was started with."""
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._stderr_task: asyncio.Task[None] | None = None
        if process.stderr is not None:
            self._stderr_task = asyncio.create_task(self._drain_stderr(process.stderr))

    @classmethod
    async def start(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None,
        cwd: str | os.PathLike[str] | None,
        stderr: StderrMode,
    ) -> ServerProcess:
        """Spawn `argv` with piped stdin/stdout; `env` is merged over the current environment."""
        environment = None if env is None else {**os.environ, **env}
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE if stderr == "capture" else None,
            env=environment,
            cwd=cwd,
            limit=STDOUT_LINE_LIMIT,
        )
        return cls(process, argv)

    @property
    def pid(self) -> int:
        """The process id."""
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status, once it exited (negative: killed by that signal)."""
        return self.process.returncode

    def stderr_tail(self) -> str:
        """The last stderr lines (captured mode only)."""
        return "\n".join(self._stderr_tail)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await stream.readline()
            except ValueError:  # a line over the limit: skip what was buffered
                continue
            if not line:
                return
            text = line.decode(errors="replace").rstrip("\n")
            self._stderr_tail.append(text)
            logger.debug("%s", text)

    async def wait_exited(self, timeout: float) -> int | None:
        """Wait up to `timeout` seconds for the exit; the status, or None if still running."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.process.wait(), timeout)
        if self.process.returncode is not None and self._stderr_task is not None:
            # The stderr pipe closes with the process; let the reader take the last lines.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        return self.process.returncode

    async def stop(self, grace: float) -> int:
        """Wait `grace` seconds for the exit (stdin should be closed already), then kill."""
        returncode = await self.wait_exited(grace)
        if returncode is None:
            logger.warning("server %d did not exit within %gs; killing it", self.pid, grace)
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            returncode = await self.process.wait()
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()
        return returncode

    def describe_exit(self) -> str:
        """``server exited with status 1`` / ``server was killed by SIGKILL`` / ``… still running``."""
        returncode = self.process.returncode
        if returncode is None:
            return f"server (pid {self.pid}) closed its stdout but is still running"
        if returncode < 0:
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = f"signal {-returncode}"
            return f"server (pid {self.pid}) was killed by {name}"
        return f"server (pid {self.pid}) exited with status {returncode}"
