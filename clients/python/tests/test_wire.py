"""Envelope decoding and handler-result conversion, without a server."""

from __future__ import annotations

import pytest

from tandem_client import user_input_answers
from tandem_client.generated import models
from tandem_client.server_requests import decision_result, response_result, user_input_result
from tandem_client.wire import (
    IncomingNotification,
    IncomingRequest,
    IncomingResponse,
    MalformedMessage,
    decode,
    dump,
    encode,
)


def test_decode_classifies_messages() -> None:
    assert decode(b'{"id":1,"result":{}}') == IncomingResponse(1, {}, None)
    assert decode(b'{"error":{"code":-32600,"message":"x"},"id":"a"}') == IncomingResponse(
        "a", None, {"code": -32600, "message": "x"}
    )
    assert decode(b'{"id":0,"method":"m","params":{"a":1}}') == IncomingRequest(0, "m", {"a": 1})
    assert decode(b'{"method":"n","params":{},"emittedAtMs":5}') == IncomingNotification("n", {}, 5)


@pytest.mark.parametrize("line", [b"not json", b"[1]", b'{"foo":1}', b'{"id":true,"result":1}', b'{"method":3}'])
def test_decode_rejects_non_messages(line: bytes) -> None:
    with pytest.raises(MalformedMessage):
        decode(line)


def test_encode_is_one_compact_line() -> None:
    expected = '{"id":1,"method":"m","params":{"text":"é"}}\n'.encode()
    assert encode({"id": 1, "method": "m", "params": {"text": "é"}}) == expected


def test_dump_uses_wire_names_and_converts_nested_models() -> None:
    assert dump(None) == {}
    assert dump({"threadId": "t", "input": [models.UserInputText(text="hi")]}) == {
        "threadId": "t",
        "input": [{"text": "hi", "type": "text"}],
    }
    assert dump(models.TurnInterruptParams(thread_id="t", turn_id="u")) == {"threadId": "t", "turnId": "u"}


def test_bare_decisions_become_responses() -> None:
    assert decision_result("accept") == {"decision": "accept"}
    assert decision_result(models.FileChangeApprovalDecision.decline) == {"decision": "decline"}
    amendment = {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["ls"]}}
    assert decision_result(amendment) == {"decision": amendment}
    assert decision_result({"decision": "cancel"}) == {"decision": "cancel"}


def test_responses_are_validated_against_the_model() -> None:
    spec_response = models.CommandExecutionRequestApprovalResponse
    from tandem_client.generated.methods import ServerRequests

    spec = ServerRequests.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL
    assert spec.response is spec_response
    assert response_result(spec.method, spec, {"decision": "accept"}) == {"decision": "accept"}
    with pytest.raises(ValueError):
        response_result(spec.method, spec, {"decision": "maybe"})
    with pytest.raises(TypeError):
        response_result(spec.method, spec, 42)


def test_user_input_answers() -> None:
    assert user_input_answers({"q": "Yes", "r": ["a", "b"]}) == {
        "answers": {"q": {"answers": ["Yes"]}, "r": {"answers": ["a", "b"]}}
    }
    assert user_input_result({"q": "Yes"}) == {"answers": {"q": {"answers": ["Yes"]}}}
    whole = {"answers": {"q": {"answers": ["Yes"]}}}
    assert user_input_result(whole) == whole
