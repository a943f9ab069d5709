#!/usr/bin/env python3
"""Client-provided tools: declare a tool at ``thread/start`` and run it when the model calls it.

    python examples/client_tools.py [--demo] "your request"

The thread declares ``shout`` (experimental ``dynamicTools``, so the client opts into the
experimental API); each ``item/tool/call`` is answered by `on_tool_call` with the tool's output,
which the model reads. With ``--demo`` the offline scripted provider calls the tool once.
"""

from __future__ import annotations

import asyncio
import os
import sys

from tandem_client import AppServerClient, ClientRequests, ServerNotifications
from tandem_client.generated import models

SHOUT = {
    "type": "function",
    "name": "shout",
    "description": "Returns the given text in capitals.",
    "inputSchema": {
        "type": "object",
        "properties": {"request": {"type": "string", "description": "The text to shout."}},
        "required": ["request"],
    },
}


def shout(params: models.DynamicToolCallParams) -> str:
    arguments = params.arguments if isinstance(params.arguments, dict) else {}
    print(f"[tool {params.tool} called]")
    return str(arguments.get("request", "")).upper()


async def main(argv: list[str]) -> int:
    demo = "--demo" in argv
    prompt = " ".join(arg for arg in argv if arg != "--demo") or "Shout hello"
    async with AppServerClient.spawn(
        [os.environ.get("TANDEM_BIN", "tandem"), "app-server"],
        ["-c", 'model_provider="demo"'] if demo else [],
        capabilities={"experimentalApi": True},
    ) as client:
        client.on_tool_call(shout)
        started = await client.request(
            ClientRequests.THREAD_START,
            {"cwd": os.getcwd(), "approvalPolicy": "never", "sandbox": "read-only", "dynamicTools": [SHOUT]},
        )
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
