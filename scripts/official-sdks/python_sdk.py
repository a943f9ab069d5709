"""The official Python SDK (`openai-codex-sdk`), unchanged, against `tandem exec`.

Only its public API, pointed at Tandem through `codex_path_override`. Environment: TANDEM_BIN,
WORKSPACE (a git repository), PLAIN_DIR (a directory that is not one), PIXEL (a PNG file); the
home is CODEX_HOME, as an SDK user would set it.
"""

import asyncio
import json
import os
import sys

from openai_codex_sdk import Codex

TANDEM_BIN = os.environ["TANDEM_BIN"]
WORKSPACE = os.environ["WORKSPACE"]
OPTIONS = {"working_directory": WORKSPACE}


async def plain(codex: Codex) -> None:
    thread = codex.start_thread(
        {"working_directory": os.environ["PLAIN_DIR"], "skip_git_repo_check": True}
    )
    turn = await thread.run("hello")
    assert turn.final_response == "You said: hello", turn
    assert thread.id, "the thread has an id"
    assert [item.type for item in turn.items] == ["agent_message"], turn.items
    assert turn.usage is not None and turn.usage.input_tokens == 10, turn.usage


async def streamed(codex: Codex) -> None:
    thread = codex.start_thread(OPTIONS)
    result = await thread.run_streamed("stream this")
    seen = [event async for event in result.events]
    assert [event.type for event in seen] == [
        "thread.started",
        "turn.started",
        "item.completed",
        "turn.completed",
    ], seen
    assert seen[0].thread_id == thread.id
    assert seen[2].item.text == "You said: stream this"


async def output_schema(codex: Codex) -> None:
    thread = codex.start_thread(OPTIONS)
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": False,
    }
    turn = await thread.run('json: {"answer":"forty-two"}', {"output_schema": schema})
    assert json.loads(turn.final_response) == {"answer": "forty-two"}, turn


async def resumed(codex: Codex) -> None:
    first = codex.start_thread(OPTIONS)
    await first.run("remember the tandem")
    again = codex.resume_thread(first.id, OPTIONS)
    turn = await again.run("recall")
    assert again.id == first.id
    assert turn.final_response == "Earlier you said: remember the tandem", turn


async def image(codex: Codex) -> None:
    thread = codex.start_thread(OPTIONS)
    turn = await thread.run(
        [
            {"type": "text", "text": "what is in this picture?"},
            {"type": "local_image", "path": os.environ["PIXEL"]},
        ]
    )
    assert turn.final_response == "I see 1 image(s).", turn


async def refused_by_sandbox(codex: Codex) -> None:
    thread = codex.start_thread({**OPTIONS, "sandbox_mode": "read-only"})
    target = os.path.join(WORKSPACE, "refused-py.txt")
    turn = await thread.run(f"run: touch {target}")
    commands = [item for item in turn.items if item.type == "command_execution"]
    assert len(commands) == 1, turn.items
    assert commands[0].status == "failed", commands
    assert commands[0].exit_code != 0, commands
    assert not os.path.exists(target), "the sandbox let the write through"


async def main() -> int:
    codex = Codex({"codex_path_override": TANDEM_BIN})
    checks = [
        ("plain run", plain),
        ("streamed run", streamed),
        ("output schema", output_schema),
        ("resumed thread", resumed),
        ("image", image),
        ("command refused by the read-only sandbox", refused_by_sandbox),
    ]
    for name, check in checks:
        try:
            await check(codex)
        except Exception:
            print(f"FAILED: python {name}", file=sys.stderr)
            raise
        print(f"ok: python {name}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
