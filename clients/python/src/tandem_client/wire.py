"""JSONL framing and the JSON-RPC-lite envelope (JSON-RPC 2.0 shapes without ``"jsonrpc"``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

RequestId = int | str
"""A request id: the client uses integers; the server's requests use integers from 0."""


@dataclass(frozen=True)
class IncomingResponse:
    """A response or error response to one of the client's requests."""

    id: RequestId
    result: Any
    error: Mapping[str, Any] | None


@dataclass(frozen=True)
class IncomingRequest:
    """A request from the server, which the client must answer."""

    id: RequestId
    method: str
    params: Any


@dataclass(frozen=True)
class IncomingNotification:
    """A notification from the server."""

    method: str
    params: Any
    emitted_at_ms: int | None


IncomingMessage = IncomingResponse | IncomingRequest | IncomingNotification
"""Any message the server sends."""


class MalformedMessage(ValueError):
    """A line that is not JSON, or not a protocol message."""


def encode(message: Mapping[str, Any]) -> bytes:
    """One compact JSON line, terminated by ``\\n``."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def decode(line: bytes) -> IncomingMessage:
    """Classify one line from the server; raises `MalformedMessage`."""
    try:
        value = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MalformedMessage(f"not JSON ({error})") from None
    if not isinstance(value, dict):
        raise MalformedMessage(f"not a JSON object but {type(value).__name__}")
    method = value.get("method")
    has_id = "id" in value
    request_id = value.get("id")
    if has_id and (not isinstance(request_id, (int, str)) or isinstance(request_id, bool)):
        raise MalformedMessage(f"bad id {request_id!r}")
    if method is not None:
        if not isinstance(method, str):
            raise MalformedMessage(f"bad method {method!r}")
        params = value.get("params")
        if has_id:
            assert request_id is not None
            return IncomingRequest(request_id, method, params)
        emitted = value.get("emittedAtMs")
        return IncomingNotification(method, params, emitted if isinstance(emitted, int) else None)
    if has_id and ("result" in value or "error" in value):
        assert request_id is not None
        error_object = value.get("error")
        if error_object is not None and not isinstance(error_object, dict):
            raise MalformedMessage(f"bad error object {error_object!r}")
        return IncomingResponse(request_id, value.get("result"), error_object)
    raise MalformedMessage("neither a request, a notification nor a response")


def dump(value: BaseModel | Mapping[str, Any] | None) -> Any:
    """Params or a result as JSON data: models by alias without ``None`` fields, mappings as given.

    ``None`` becomes ``{}``: Tandem requires ``params`` even when every field is optional.
    """
    if value is None:
        return {}
    return to_json(value)


def to_json(value: Any) -> Any:
    """Convert models (also nested in mappings and lists) and enums to plain JSON data."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, Enum):
        return to_json(value.value)
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    return value
