"""Server → client requests: handler types and the conversion of handler results to responses."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel

from tandem_client import wire
from tandem_client.method_spec import AnyRequestSpec

ParamsT = TypeVar("ParamsT")

HandlerResult = BaseModel | Mapping[str, Any] | str | Enum
"""What a server-request handler may return (see the `on_*` methods for what each accepts)."""

ServerRequestHandler = Callable[[ParamsT], HandlerResult | Awaitable[HandlerResult]]
"""A handler: called with the request's params (a model, or a dict for a method the map lacks),
returns the response, sync or async."""


class HandlerResultError(TypeError):
    """A handler returned something that cannot be the response."""


def response_result(method: str, spec: AnyRequestSpec | None, value: object) -> Any:
    """The JSON ``result`` for a handler's return value, validated against the response model."""
    if isinstance(value, BaseModel):
        return wire.dump(value)
    if isinstance(value, Mapping):
        result = wire.to_json(value)
        if spec is not None:
            spec.response.model_validate(result)
        return result
    raise HandlerResultError(f"the {method} handler returned {type(value).__name__}; expected a model or a mapping")


def decision_result(value: object) -> object:
    """Accept a bare approval decision: ``"accept"``, an enum member, or a decision object.

    A mapping that has a ``decision`` key, and a model, are taken as the whole response.
    """
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, str):
        return {"decision": value}
    if isinstance(value, Mapping) and "decision" not in value:
        return {"decision": dict(value)}
    return value


def user_input_answers(answers: Mapping[str, str | Sequence[str]]) -> dict[str, Any]:
    """Build a ``item/tool/requestUserInput`` response from question id → answer(s).

    >>> user_input_answers({"confirm_path": "Yes (Recommended)"})
    {'answers': {'confirm_path': {'answers': ['Yes (Recommended)']}}}
    """
    return {
        "answers": {
            question: {"answers": [chosen] if isinstance(chosen, str) else list(chosen)}
            for question, chosen in answers.items()
        }
    }


def user_input_result(value: object) -> object:
    """Accept question id → answer(s) (a mapping without an ``answers`` key) as the response."""
    if isinstance(value, Mapping) and "answers" not in value:
        return user_input_answers(value)
    return value


def question_answers(answers: Mapping[int, str | Sequence[str]]) -> dict[str, Any]:
    """Build a ``tool/requestUserInput`` or ``agent/askUserQuestion`` response from question
    index → selected label(s).

    >>> question_answers({0: "Yes", 1: ["a", "b"]})
    {'answers': [{'questionIndex': 0, 'selected': ['Yes']}, {'questionIndex': 1, 'selected': ['a', 'b']}]}
    """
    return {
        "answers": [
            {"questionIndex": index, "selected": [chosen] if isinstance(chosen, str) else list(chosen)}
            for index, chosen in answers.items()
        ]
    }


def question_answers_result(value: object) -> object:
    """Accept question index → selection (a mapping without an ``answers`` key) as the response."""
    if isinstance(value, Mapping) and "answers" not in value:
        return question_answers(value)
    return value


def free_text_result(value: object) -> object:
    """Accept a bare string as the ``agent/requestUserInput`` response."""
    if isinstance(value, str):
        return {"userInput": value}
    return value


def tool_output(output: str | Sequence[Mapping[str, Any]], success: bool = True) -> dict[str, Any]:
    """Build an ``item/tool/call`` response: a text, or a list of content items
    (``{"type": "inputText", "text": ...}``, ``{"type": "inputImage", "imageUrl": ...}``).

    >>> tool_output("42")
    {'contentItems': [{'type': 'inputText', 'text': '42'}], 'success': True}
    """
    items = [{"type": "inputText", "text": output}] if isinstance(output, str) else [dict(item) for item in output]
    return {"contentItems": items, "success": success}


def permissions_grant(params: Any, scope: str = "turn") -> dict[str, Any]:
    """Build an ``item/permissions/requestApproval`` response that grants everything the request
    asked for, for ``scope`` (``"turn"`` or ``"session"``). The server still grants only what the
    operator's ceiling allows.

    >>> permissions_grant({"permissions": {"network": {"enabled": True}}})
    {'permissions': {'network': {'enabled': True}}, 'scope': 'turn'}
    """
    asked = wire.to_json(params)["permissions"] if isinstance(params, (BaseModel, Mapping)) else {}
    granted = {key: value for key, value in asked.items() if key in ("network", "fileSystem") and value is not None}
    return {"permissions": granted, "scope": scope}


def permissions_result(params: Any, value: object) -> object:
    """Accept ``True`` (grant what was asked, for the turn), ``"turn"`` or ``"session"`` (grant what
    was asked, for that long), and ``False`` or ``None`` (grant nothing) as the
    ``item/permissions/requestApproval`` response; a mapping or a model is the whole response."""
    if value is True:
        return permissions_grant(params)
    if isinstance(value, str) and value in ("turn", "session"):
        return permissions_grant(params, value)
    if value is False or value is None:
        return {"permissions": {}, "scope": "turn"}
    return value


def tool_output_result(value: object) -> object:
    """Accept a bare string, or a list of content items, as the ``item/tool/call`` response."""
    if isinstance(value, str):
        return tool_output(value)
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes)):
        return tool_output(value)
    return value
