"""Server requests against the real binary.

Under ``approval_policy = "untrusted"`` one demo turn keeps a plan (``turn/plan/updated``), runs
``uname -srm`` behind a command approval, adds ``tandem-demo.txt`` to the thread's cwd behind a
file-change approval and, in plan collaboration mode only, asks one question with
``item/tool/requestUserInput``; its last message reports what happened to each.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from conftest import Tandem, within

from tandem_client import AppServerClient, TurnStream, user_input_answers
from tandem_client.generated import models

PLAN_MODE = {"mode": "plan", "settings": {"model": "demo"}}
"""``turn/start``'s experimental ``collaborationMode`` for plan mode."""


async def run_tour(tandem: Tandem, client: AppServerClient, **params: Any) -> tuple[TurnStream, models.Turn]:
    """Start a thread in the workspace and run the demo's tour to its end."""
    thread_id = await tandem.start_thread(client)
    stream = client.run_turn(thread_id, "Show me around", **params)
    turn = await within(stream.completed)
    return stream, turn


def items_of(stream: TurnStream, kind: str) -> list[Any]:
    """The final state of every completed item of `kind`."""
    return [item for item in stream.items if item.type == kind]


def final_message(stream: TurnStream) -> str:
    """The text of the turn's last agent message."""
    messages = items_of(stream, "agentMessage")
    assert messages, "the turn has no agent message"
    text: str = messages[-1].text
    return text


async def test_accepted_approvals(tandem: Tandem) -> None:
    commands: list[models.CommandExecutionRequestApprovalParams] = []
    file_changes: list[models.FileChangeRequestApprovalParams] = []
    plans: list[list[str]] = []
    resolved: list[Any] = []
    async with tandem.spawn() as client:

        def approve_command(params: models.CommandExecutionRequestApprovalParams) -> str:
            commands.append(params)
            return "accept"

        async def approve_file_change(
            params: models.FileChangeRequestApprovalParams,
        ) -> models.FileChangeRequestApprovalResponse:
            file_changes.append(params)
            return models.FileChangeRequestApprovalResponse(decision=models.FileChangeApprovalDecision.accept)

        client.on_command_approval(approve_command)
        client.on_file_change_approval(approve_file_change)
        client.on("turn/plan/updated", lambda params: plans.append([step.status.value for step in params.plan]))
        client.on("serverRequest/resolved", lambda params: resolved.append(params.request_id))
        stream, turn = await run_tour(tandem, client)

    assert turn.status == models.TurnStatus.completed
    assert len(commands) == 1
    assert "uname -srm" in (commands[0].command or "")
    assert commands[0].cwd == str(tandem.workspace)
    assert commands[0].turn_id == turn.id
    [command] = items_of(stream, "commandExecution")
    assert command.id == commands[0].item_id
    assert command.status == models.CommandExecutionStatus.completed
    assert command.exit_code == 0
    assert (command.aggregated_output or "").startswith("Linux ")

    assert len(file_changes) == 1
    [file_change] = items_of(stream, "fileChange")
    assert file_change.id == file_changes[0].item_id
    assert file_change.status == models.PatchApplyStatus.completed
    demo_file = tandem.workspace / "tandem-demo.txt"
    assert [(change.path, change.kind.type) for change in file_change.changes] == [(str(demo_file), "add")]
    assert demo_file.read_text() == "Hello from the Tandem demo.\n"

    assert resolved == [0, 1]
    assert plans == [["inProgress", "pending", "pending"], ["completed", "completed", "inProgress"]]
    assert re.search(
        r"the command printed “Linux .*”; I created tandem-demo\.txt; questions need plan mode", final_message(stream)
    )


async def test_one_accepted_one_declined(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        client.on_command_approval(lambda _: "accept")
        client.on_file_change_approval(lambda _: models.FileChangeApprovalDecision.decline)
        stream, turn = await run_tour(tandem, client)
    # Declining (unlike `cancel`) lets the turn go on to its final message.
    assert turn.status == models.TurnStatus.completed
    assert [item.status.value for item in items_of(stream, "commandExecution")] == ["completed"]
    assert [item.status.value for item in items_of(stream, "fileChange")] == ["declined"]
    assert not (tandem.workspace / "tandem-demo.txt").exists()
    assert re.search(r"the command printed “Linux .*”; you declined the patch;", final_message(stream))


async def test_declined_approvals(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        client.on_command_approval(lambda _: {"decision": "decline"})
        client.on_file_change_approval(lambda _: "decline")
        stream, turn = await run_tour(tandem, client)
    assert turn.status == models.TurnStatus.completed
    [command] = items_of(stream, "commandExecution")
    assert command.status == models.CommandExecutionStatus.declined
    assert command.aggregated_output is None
    assert [item.status.value for item in items_of(stream, "fileChange")] == ["declined"]
    assert not (tandem.workspace / "tandem-demo.txt").exists()
    assert "you declined the command; you declined the patch;" in final_message(stream)


async def test_unhandled_requests_are_answered_with_an_error(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        # No handlers: the client must answer each request with a JSON-RPC error, never leave it hanging.
        stream, turn = await run_tour(tandem, client)
    assert turn.status == models.TurnStatus.completed
    assert [item.status.value for item in items_of(stream, "commandExecution")] == ["failed"]
    assert [item.status.value for item in items_of(stream, "fileChange")] == ["failed"]
    assert not (tandem.workspace / "tandem-demo.txt").exists()


async def test_handler_that_raises_answers_with_an_error(tandem: Tandem) -> None:
    async with tandem.spawn() as client:

        def broken(_: Any) -> str:
            raise RuntimeError("no terminal to ask")

        client.on_command_approval(broken)
        client.on_file_change_approval(lambda _: "accept")
        stream, turn = await run_tour(tandem, client)
    assert turn.status == models.TurnStatus.completed
    assert [item.status.value for item in items_of(stream, "commandExecution")] == ["failed"]
    assert [item.status.value for item in items_of(stream, "fileChange")] == ["completed"]


async def test_interrupt_while_an_approval_is_pending(tandem: Tandem) -> None:
    async with tandem.spawn() as client:
        withdrawn: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        # The withdrawal is announced after turn/completed, so it is watched on the client.

        def on_resolved(params: models.ServerRequestResolvedNotification) -> None:
            if not withdrawn.done():
                withdrawn.set_result(params.request_id)

        client.on("serverRequest/resolved", on_resolved)
        handler_cancelled = asyncio.Event()
        thread_id = await tandem.start_thread(client)
        stream = client.run_turn(thread_id, "Show me around")

        async def never_answers(_: Any) -> str:
            # The withdrawal can arrive while the interrupt's answer is still on its way, so
            # the cancellation may land on either await.
            try:
                await stream.interrupt()
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                handler_cancelled.set()
                raise
            return "accept"

        client.on_command_approval(never_answers)
        turn = await within(stream.completed)
        assert turn.status == models.TurnStatus.interrupted
        assert items_of(stream, "commandExecution") == []
        assert await within(withdrawn) == 0
        # The client cancels a handler whose request the server withdrew.
        await within(handler_cancelled.wait())
    assert not (tandem.workspace / "tandem-demo.txt").exists()


async def test_user_input_in_plan_mode(tandem: Tandem) -> None:
    questions: list[models.ToolRequestUserInputParams] = []
    flags: list[str] = []
    async with tandem.spawn(capabilities={"experimentalApi": True}) as client:
        client.on_command_approval(lambda _: "accept")
        client.on_file_change_approval(lambda _: "decline")

        def answer(params: models.ToolRequestUserInputParams) -> dict[str, Any]:
            questions.append(params)
            [question] = params.questions
            labels = [option.label for option in question.options or []]
            assert "Explain" in labels
            return user_input_answers({question.id: "Explain"})

        def on_status(params: models.ThreadStatusChangedNotification) -> None:
            status = params.status
            if status.type == "active":
                flags.extend(flag.value for flag in status.active_flags)

        choices: list[models.AgentAskUserQuestionParams] = []
        prompts: list[str] = []

        def choose(params: models.AgentAskUserQuestionParams) -> dict[int, list[str]]:
            choices.append(params)
            return {index: question.options[-1:] for index, question in enumerate(params.questions)}

        def type_text(params: models.AgentRequestUserInputParams) -> str:
            prompts.append(params.prompt)
            return "typed by the Python SDK"

        client.on_user_input(answer)
        client.on_ask_user_question(choose)
        client.on_agent_user_input(type_text)
        client.on("thread/status/changed", on_status)
        stream, turn = await run_tour(tandem, client, collaboration_mode=PLAN_MODE)

    assert turn.status == models.TurnStatus.completed
    assert [question.text for question in choices[0].questions] == [
        "Which parts of the tour were useful?",
        "Would you try Tandem with a real model?",
    ]
    assert choices[0].tool_call_id == "call_demo_choice"
    assert prompts == ["Anything you would like the demo to know?"]
    assert '"selected":["The patch"]' in final_message(stream)
    assert '"selected":["Not yet"]' in final_message(stream)
    assert "typed by the Python SDK" in final_message(stream)
    assert len(questions) == 1
    assert questions[0].turn_id == turn.id
    assert questions[0].is_blocking
    asked = [(question.id, question.question) for question in questions[0].questions]
    assert asked == [("next_step", "What should the demo do next?")]
    assert flags == [
        "waitingOnApproval",
        "waitingOnApproval",
        "waitingOnUserInput",
        "waitingOnUserInput",
        "waitingOnUserInput",
    ]
    assert 'you answered {"answers":{"next_step":{"answers":["Explain"]}}}' in final_message(stream)


async def test_tool_request_user_input_when_chosen(tandem: Tandem) -> None:
    asked: list[models.UserInputRequestParams] = []
    capabilities = {"experimentalApi": True, "requestUserInputMethod": "tool/requestUserInput"}
    async with tandem.spawn(capabilities=capabilities) as client:
        client.on_command_approval(lambda _: "accept")
        client.on_file_change_approval(lambda _: "decline")

        def answer(params: models.UserInputRequestParams) -> dict[int, str]:
            asked.append(params)
            return {0: "Explain"}

        def cancel(_: Any) -> None:
            raise RuntimeError("User cancelled input")

        client.on_tool_user_input(answer)
        client.on_ask_user_question(cancel)
        client.on_agent_user_input(cancel)
        stream, turn = await run_tour(tandem, client, collaboration_mode=PLAN_MODE)

    assert turn.status == models.TurnStatus.completed
    [request] = asked
    assert request.tool_call_id == "call_demo_question"
    assert [(question.text, question.options, question.is_other) for question in request.questions] == [
        ("What should the demo do next?", ["Finish (Recommended)", "Explain"], True)
    ]
    # Answers by index reach the model keyed by the question's id, as with the reference's shape.
    assert 'you answered {"answers":{"next_step":{"answers":["Explain"]}}}' in final_message(stream)
    assert "ask_user_question was cancelled" in final_message(stream)
    assert "ask_user was cancelled" in final_message(stream)


async def test_no_question_outside_plan_mode(tandem: Tandem) -> None:
    asked: list[Any] = []
    async with tandem.spawn(capabilities={"experimentalApi": True}) as client:
        client.on_command_approval(lambda _: "decline")
        client.on_file_change_approval(lambda _: "decline")

        def answer(params: Any) -> dict[str, Any]:
            asked.append(params)
            return {}

        client.on_user_input(answer)
        stream, turn = await run_tour(tandem, client)
    assert turn.status == models.TurnStatus.completed
    assert asked == []
    assert "questions need plan mode" in final_message(stream)


def test_sync_client_answers_approvals(tandem: Tandem) -> None:
    asked: list[str] = []
    with tandem.spawn_sync() as client:

        def approve(params: models.CommandExecutionRequestApprovalParams) -> str:
            asked.append(params.command or "")
            return "accept"

        client.on_command_approval(approve)
        client.on_file_change_approval(lambda _: "accept")
        started = client.request("thread/start", {"cwd": str(tandem.workspace)})
        turn = client.run_turn(started.thread.id, "Show me around", timeout=60)
    assert turn.status == models.TurnStatus.completed
    assert len(asked) == 1 and "uname -srm" in asked[0]
    assert (tandem.workspace / "tandem-demo.txt").read_text() == "Hello from the Tandem demo.\n"
