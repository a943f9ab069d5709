#!/usr/bin/env python3
"""Ask and stream: start a thread, run one turn, print the answer as it streams.

    python examples/ask.py [--demo] "your question"

The server is ``$TANDEM_BIN app-server`` (default ``tandem`` on PATH); ``--demo`` selects the
offline scripted provider, so no model or network is needed.
"""

from __future__ import annotations

import asyncio
import os
import sys

from tandem_client import AppServerClient, ClientRequests, ServerNotifications


async def main(argv: list[str]) -> int:
    demo = "--demo" in argv
    prompt = " ".join(arg for arg in argv if arg != "--demo") or "What can you do?"
    async with AppServerClient.spawn(
        [os.environ.get("TANDEM_BIN", "tandem"), "app-server"],
        ["-c", 'model_provider="demo"'] if demo else [],
    ) as client:
        started = await client.request(ClientRequests.THREAD_START, {"cwd": os.getcwd(), "approvalPolicy": "never"})
        stream = client.run_turn(started.thread.id, prompt)
        async for notification in stream:
            if notification.method == ServerNotifications.ITEM_AGENT_MESSAGE_DELTA.method:
                print(notification.params.delta, end="", flush=True)
            elif notification.method == "item/completed" and notification.params.item.type == "agentMessage":
                print()
        turn = await stream.completed
        print(f"[turn {turn.status.value}]")
        return 0 if turn.status.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
