"""Checks one MCP Inspector CLI answer (read from stdin) for scripts/mcp-check/run.

Usage: python3 inspector_check.py tools|refresh|query
The Inspector exits 0 even when the call failed, so every answer is checked here."""

import json
import sys

kind = sys.argv[1]
answer = json.load(sys.stdin)
if kind == "tools":
    names = [tool["name"] for tool in answer["tools"]]
    assert "query_project" in names and "repo_index_refresh" in names, names
else:
    assert answer.get("isError") is False, answer
    payload = answer["structuredContent"]
    assert json.loads(answer["content"][0]["text"]) == payload, answer
    assert "threadId" not in payload, payload
    if kind == "refresh":
        assert payload["stats"]["scanned_files"] == 2, payload
        assert payload["stats"]["indexed_chunks"] == 2, payload
    else:
        result = payload["results"][0]
        assert result["path"] == "src/auth.rs", payload
        assert result["line_range"] == {"start": 1, "end": 3}, payload
