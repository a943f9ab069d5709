"""The official Python SDK client (mcp 2.x, which probes `server/discover` before falling back
to `initialize`) against tandem mcp-server over stdio and streamable HTTP, with the offline
demo provider: tools/list, a `codex` call whose approvals arrive as elicitations (accepted),
progress notifications, then `codex-reply`; the history tools `search` (full verbosity) and
`open` of an unknown event (`found: false`).
Environment: TANDEM_BIN, TANDEM_HOME (with config.toml), MCP_URL, WORKSPACE."""

import asyncio
import os

from mcp import Client, StdioServerParameters, types


async def check(server, label):
    elicitations = []
    progress = []

    async def elicit(context, params):
        assert params.requested_schema["required"] == ["decision"], params.requested_schema
        elicitations.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "approved"})

    async def on_progress(value, total, message):
        progress.append(value)

    async with Client(server, elicitation_callback=elicit, read_timeout_seconds=60) as client:
        names = [tool.name for tool in (await client.list_tools()).tools]
        assert "codex" in names and "codex-reply" in names, names
        assert "search" in names and "open" in names, names
        searched = await client.call_tool("search", {"query": "demo tour", "verbosity": "full"})
        assert not searched.is_error, searched
        assert "hits" in searched.structured_content, searched
        missing = await client.call_tool("open", {"event_uid": "no-such:1", "verbosity": "full"})
        assert missing.structured_content == {"found": False, "event_uid": "no-such:1", "events": []}, missing
        arguments = {
            "prompt": "Show me what you can do.",
            "cwd": os.environ["WORKSPACE"],
            "approval-policy": "untrusted",
            "sandbox": "workspace-write",
        }
        result = await client.call_tool("codex", arguments, progress_callback=on_progress)
        assert not result.is_error, result
        assert elicitations, "approvals arrived as elicitations"
        assert len(progress) > 3, "progress notifications arrived"
        thread_id = result.structured_content["threadId"]
        reply = await client.call_tool("codex-reply", {"threadId": thread_id, "prompt": "Again."})
        assert not reply.is_error, reply
        assert reply.structured_content["threadId"] == thread_id
    print(f"python {label}: ok ({len(elicitations)} elicitations, {len(progress)} progress notifications)")


async def main():
    stdio = StdioServerParameters(command=os.environ["TANDEM_BIN"], args=["mcp-server"], env=dict(os.environ))
    await check(stdio, "stdio")
    await check(os.environ["MCP_URL"], "http")


asyncio.run(main())
