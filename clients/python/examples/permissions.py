#!/usr/bin/env python3
"""Permission requests: grant (or refuse) what the model asks for beyond its sandbox.

    python examples/permissions.py [--demo] [--yes|--no] "your request"

The server is started with ``request_permissions_tool = true``, so the model is offered
``request_permissions``; each ``item/permissions/requestApproval`` is shown and answered by
`on_permissions_approval`: ``y`` grants what was asked for the rest of the turn, anything else
grants nothing. The server grants only what its operator's ``[clients]`` ceiling allows. With
``--demo`` the offline scripted provider asks for network access once.
"""

from __future__ import annotations

import asyncio
import os
import sys

from tandem_client import AppServerClient, ClientRequests, ServerNotifications
from tandem_client.generated import models


def ask(params: models.PermissionsRequestApprovalParams, answer: str | None) -> object:
    wanted = params.permissions.model_dump(by_alias=True, exclude_none=True)
    print(f"[the agent asks for {wanted} in {params.cwd}: {params.reason or 'no reason given'}]")
    reply = answer if answer is not None else (sys.stdin.readline().strip().lower() or "n")
    granted = reply.startswith("y")
    print(f"[{'granted for the turn' if granted else 'refused'}]")
    return granted


async def main(argv: list[str]) -> int:
    demo = "--demo" in argv
    answer = "y" if "--yes" in argv else "n" if "--no" in argv else None
    prompt = " ".join(arg for arg in argv if not arg.startswith("--")) or "Fetch the latest release notes"
    args = ["-c", "request_permissions_tool=true"] + (["-c", 'model_provider="demo"'] if demo else [])
    async with AppServerClient.spawn([os.environ.get("TANDEM_BIN", "tandem"), "app-server"], args) as client:
        client.on_permissions_approval(lambda params: ask(params, answer))
        client.on_command_approval(lambda _params: "decline")
        client.on_file_change_approval(lambda _params: "decline")
        started = await client.request(
            ClientRequests.THREAD_START, {"cwd": os.getcwd(), "approvalPolicy": "on-request", "sandbox": "read-only"}
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
