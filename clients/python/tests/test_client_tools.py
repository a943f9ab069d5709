"""Client-provided tools against the real binary: a thread declares ``dynamicTools`` and the demo
provider calls the first of them once, right after its plan; `on_tool_call` answers."""

from __future__ import annotations

from typing import Any

from conftest import Tandem, within

from tandem_client import ClientRequests, tool_output
from tandem_client.generated import models

LOOKUP = {
    "type": "function",
    "name": "lookup",
    "description": "Looks a word up.",
    "inputSchema": {"type": "object", "properties": {"request": {"type": "string"}}},
}


async def test_a_declared_tool_is_run_by_the_handler_and_the_model_reads_its_output(tandem: Tandem) -> None:
    calls: list[models.DynamicToolCallParams] = []
    async with tandem.spawn(capabilities={"experimentalApi": True}) as client:

        def lookup(params: models.DynamicToolCallParams) -> str:
            calls.append(params)
            return "a word, looked up"

        client.on_tool_call(lookup)
        client.on_command_approval(lambda _params: "decline")
        client.on_file_change_approval(lambda _params: "decline")
        started = await within(
            client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace), "dynamicTools": [LOOKUP]})
        )
        stream = client.run_turn(started.thread.id, "Define serendipity")
        turn = await within(stream.completed)

    assert turn.status.value == "completed"
    assert [(call.tool, call.namespace, call.arguments) for call in calls] == [
        ("lookup", None, {"request": "Define serendipity"})
    ]
    items: list[Any] = [item for item in stream.items if item.type == "dynamicToolCall"]
    assert len(items) == 1
    assert items[0].status.value == "completed"
    assert items[0].success is True
    assert [content.text for content in items[0].content_items] == ["a word, looked up"]
    messages = [item.text for item in stream.items if item.type == "agentMessage"]
    assert "your tool `lookup` answered \u201ca word, looked up\u201d" in messages[-1]


async def test_a_raising_handler_fails_the_call_and_the_turn_goes_on(tandem: Tandem) -> None:
    async with tandem.spawn(capabilities={"experimentalApi": True}) as client:

        def broken(_params: models.DynamicToolCallParams) -> str:
            raise RuntimeError("the dictionary is closed")

        client.on_tool_call(broken)
        client.on_command_approval(lambda _params: "decline")
        client.on_file_change_approval(lambda _params: "decline")
        started = await within(
            client.request(ClientRequests.THREAD_START, {"cwd": str(tandem.workspace), "dynamicTools": [LOOKUP]})
        )
        stream = client.run_turn(started.thread.id, "Define serendipity")
        turn = await within(stream.completed)

    assert turn.status.value == "completed"
    items: list[Any] = [item for item in stream.items if item.type == "dynamicToolCall"]
    assert [(item.status.value, item.success) for item in items] == [("failed", False)]
    assert "the dictionary is closed" in items[0].content_items[0].text


def test_tool_output_builds_the_response() -> None:
    assert tool_output("42") == {"contentItems": [{"type": "inputText", "text": "42"}], "success": True}
    image = {"type": "inputImage", "imageUrl": "data:image/png;base64,AAAA"}
    assert tool_output([image], success=False) == {"contentItems": [image], "success": False}
