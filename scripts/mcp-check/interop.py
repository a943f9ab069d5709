"""The official Python SDK client (mcp 2.x, which probes `server/discover` before falling back
to `initialize`) against tandem mcp-server over stdio and streamable HTTP, with the offline
demo provider (the SDK stays in the 2026-07-28 era, whose approvals come as `input_required`
results that it hands to its elicitation callback): tools/list, a `codex` call whose approvals
arrive as elicitations (accepted),
progress notifications, then `codex-reply`; the history tools `search` (full verbosity) and
`open` of an unknown event (`found: false`); the project-index tools `repo_index_refresh` (with
progress and its `total`) and `query_project` on a small repository written into the workspace.
Environment: TANDEM_BIN, TANDEM_HOME (with config.toml), MCP_URL, WORKSPACE."""

import asyncio
import json
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
        assert "query_project" in names and "repo_index_refresh" in names, names
        searched = await client.call_tool("search", {"query": "demo tour", "verbosity": "full"})
        assert not searched.is_error, searched
        assert "hits" in searched.structured_content, searched
        missing = await client.call_tool("open", {"event_uid": "no-such:1", "verbosity": "full"})
        assert missing.structured_content == {"found": False, "event_uid": "no-such:1", "events": []}, missing
        await check_index(client, label)
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


async def check_index(client, label):
    repo = os.path.join(os.environ["WORKSPACE"], f"indexed-{label}")
    os.makedirs(os.path.join(repo, "src"), exist_ok=True)
    with open(os.path.join(repo, "src", "auth.rs"), "w") as source:
        source.write('pub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with("Bearer ")\n}\n')
    with open(os.path.join(repo, "notes.md"), "w") as notes:
        notes.write("# Notes\n\nNothing here.\n")
    progress = []

    async def on_progress(value, total, message):
        progress.append((value, total, message))

    refreshed = await client.call_tool(
        "repo_index_refresh", {"repo_root": repo, "force_full": True}, progress_callback=on_progress
    )
    assert not refreshed.is_error, refreshed
    assert refreshed.structured_content["stats"]["scanned_files"] == 2, refreshed
    assert json.loads(refreshed.content[0].text) == refreshed.structured_content
    assert progress and progress[0][2] == "scanned 2 files", progress
    assert any(total is not None for _, total, _ in progress), progress
    values = [value for value, _, _ in progress]
    assert values == sorted(set(values)), progress
    found = await client.call_tool("query_project", {"query": "bearer token", "repo_root": repo, "limit": 1})
    assert not found.is_error, found
    assert "threadId" not in found.structured_content
    assert found.structured_content["results"][0]["path"] == "src/auth.rs", found
    assert found.structured_content["results"][0]["line_range"] == {"start": 1, "end": 3}, found
    empty = await client.call_tool("query_project", {"query": " ", "repo_root": repo})
    assert empty.is_error and "query must not be empty" in empty.content[0].text, empty


async def main():
    stdio = StdioServerParameters(command=os.environ["TANDEM_BIN"], args=["mcp-server"], env=dict(os.environ))
    await check(stdio, "stdio")
    await check(os.environ["MCP_URL"], "http")


asyncio.run(main())
