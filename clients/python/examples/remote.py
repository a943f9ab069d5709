#!/usr/bin/env python3
"""Ask a running server: connect to a ``ws://`` listener with a bearer token (or to a ``unix://``
socket), run one turn, print the answer as it streams.

    tandem app-server --listen ws://127.0.0.1:4500 --ws-token-file ~/.tandem-ws.token &
    python examples/remote.py ws://127.0.0.1:4500 --token-file ~/.tandem-ws.token "your question"
    python examples/remote.py unix:///run/user/1000/tandem.sock "your question"

The token comes from ``--token-file PATH`` (the file the server's ``--ws-token-file`` names) or
``$TANDEM_WS_TOKEN``; a Unix socket needs none. The server keeps running after the example ends.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tandem_client import AppServerClient, ClientRequests, ServerNotifications, WebSocketRefused


async def main(argv: list[str]) -> int:
    args = list(argv)
    token = os.environ.get("TANDEM_WS_TOKEN")
    if "--token-file" in args:
        at = args.index("--token-file")
        token = Path(args[at + 1]).read_text().strip()
        del args[at : at + 2]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    url, prompt = args[0], " ".join(args[1:]) or "What can you do?"
    try:
        client = await AppServerClient.connect_url(url, token=token)
    except WebSocketRefused as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    async with client:
        print(f"[connected to {client.initialize_response.user_agent if client.initialize_response else url}]")
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
