"""The first-generation conversation API in the generated models: the methods are in the maps,
and Codex's `codex/event` payloads and `ReviewDecision` answers validate into typed models."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tandem_client.generated import methods, models


def test_conversation_methods_are_typed() -> None:
    assert methods.CLIENT_REQUESTS_BY_METHOD["newConversation"].params is models.NewConversationParams
    assert methods.CLIENT_REQUESTS_BY_METHOD["sendUserTurn"].response is models.SendUserMessageResponse
    assert methods.SERVER_REQUESTS_BY_METHOD["execCommandApproval"].response is models.ReviewDecisionResponse
    assert methods.SERVER_NOTIFICATIONS_BY_METHOD["codex/event"].params is models.CodexEventNotification


def test_codex_events_validate_by_type() -> None:
    event = models.CodexEventNotification.model_validate(
        {
            "_meta": {"requestId": 3, "threadId": "t"},
            "id": "u",
            "msg": {
                "type": "exec_command_end",
                "call_id": "call_1",
                "process_id": None,
                "turn_id": "u",
                "completed_at_ms": 9,
                "command": ["/bin/bash", "-c", "echo hi"],
                "cwd": "file:///w",
                "parsed_cmd": [{"type": "unknown", "cmd": "echo hi"}],
                "source": "unified_exec_startup",
                "stdout": "hi\n",
                "stderr": "",
                "aggregated_output": "hi\n",
                "exit_code": 0,
                "duration": {"secs": 0, "nanos": 5},
                "formatted_output": "hi\n",
                "status": "completed",
            },
        }
    )
    assert isinstance(event.msg, models.EventMsgExecCommandEnd)
    assert event.msg.aggregated_output == "hi\n"
    with pytest.raises(ValidationError):
        models.CodexEventNotification.model_validate({"_meta": {"threadId": "t"}, "id": "", "msg": {"type": "nope"}})


@pytest.mark.parametrize("decision", ["allow", "deny", "approved", "approved_for_session", "denied", "abort"])
def test_review_decisions_validate(decision: str) -> None:
    models.ReviewDecisionResponse.model_validate({"decision": decision})
    with pytest.raises(ValidationError):
        models.ReviewDecisionResponse.model_validate({"decision": "maybe"})
