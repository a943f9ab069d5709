#!/usr/bin/env python3
"""Approve from the terminal: run one turn under the ``untrusted`` approval policy and answer each
command and file-change approval with y/n typed on stdin.

    python examples/approve.py [--demo] [--yes | --no] ["your request"]

``--yes`` / ``--no`` answer every approval without asking (for scripts and CI); answers can also
be piped (``printf 'y\\nn\\n' | python examples/approve.py --demo``). When stdin runs out, the
answer is no. This example uses the blocking `SyncAppServerClient`: handlers run in a worker
thread, so they may call ``input()``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tandem_client import ClientRequests, Notification, SyncAppServerClient


def main(argv: list[str]) -> int:
    demo = "--demo" in argv
    fixed = True if "--yes" in argv else False if "--no" in argv else None
    prompt = " ".join(arg for arg in argv if not arg.startswith("--")) or "Show me what you can do"

    def ask(question: str) -> bool:
        if fixed is not None:
            print(f"{question} [y/n] {'y (--yes)' if fixed else 'n (--no)'}", flush=True)
            return fixed
        try:
            answer = input(f"{question} [y/n] ").strip().lower()
        except EOFError:
            print("(no input: n)", flush=True)
            return False
        if not sys.stdin.isatty():
            print(answer, flush=True)
        return answer in ("y", "yes")

    # File-change approvals name the item; its `item/started` (which comes first) has the paths.
    pending_paths: dict[str, str] = {}

    def on_notification(notification: Notification[Any]) -> None:
        params = notification.params
        if notification.method == "item/completed":
            item = params.item
            if item.type == "agentMessage":
                print(item.text)
            elif item.type == "commandExecution":
                print(f"[command {item.status.value}] {item.command}")
            elif item.type == "fileChange":
                print(f"[file change {item.status.value}] {', '.join(change.path for change in item.changes)}")

    def remember_paths(params: Any) -> None:
        if params.item.type == "fileChange":
            pending_paths[params.item.id] = ", ".join(
                f"{change.kind.type} {change.path}" for change in params.item.changes
            )

    def approve_command(params: Any) -> str:
        return "accept" if ask(f"Run `{params.command}` in {params.cwd}?") else "decline"

    def approve_file_change(params: Any) -> str:
        paths = pending_paths.get(params.item_id, "(unknown files)")
        reason = f" ({params.reason})" if params.reason else ""
        return "accept" if ask(f"Apply the file change: {paths}{reason}?") else "decline"

    with SyncAppServerClient.spawn(
        [os.environ.get("TANDEM_BIN", "tandem"), "app-server"],
        ["-c", 'model_provider="demo"'] if demo else [],
    ) as client:
        client.on("item/started", remember_paths)
        client.on_command_approval(approve_command)
        client.on_file_change_approval(approve_file_change)
        started = client.request(ClientRequests.THREAD_START, {"cwd": os.getcwd(), "approvalPolicy": "untrusted"})
        turn = client.run_turn(started.thread.id, prompt, on_notification=on_notification)
        print(f"[turn {turn.status.value}]")
        return 0 if turn.status.value == "completed" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
