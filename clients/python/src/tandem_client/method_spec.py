"""Typed descriptions of protocol methods, the entries of the generated method maps.

`tandem_client.generated.methods` holds one `RequestSpec` per request method and one
`NotificationSpec` per notification method, all generated from the schema bundle.
The client looks methods up in those maps, so it never hard-codes a params or response type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

ParamsT = TypeVar("ParamsT", bound=BaseModel)
ResponseT = TypeVar("ResponseT", bound=BaseModel)


@dataclass(frozen=True)
class RequestSpec(Generic[ParamsT, ResponseT]):
    """A request method: its wire name, params model and response model."""

    method: str
    """The wire method name, such as ``"thread/start"``."""
    params: type[ParamsT]
    """The pydantic model of the request's ``params``."""
    response: type[ResponseT]
    """The pydantic model of the response's ``result``."""
    description: str = ""
    """What the method does (from the schema)."""
    experimental: bool = False
    """Whether the method belongs to the experimental surface (``capabilities.experimentalApi``)."""


@dataclass(frozen=True)
class NotificationSpec(Generic[ParamsT]):
    """A notification method: its wire name and params model."""

    method: str
    """The wire method name, such as ``"turn/completed"``."""
    params: type[ParamsT]
    """The pydantic model of the notification's ``params``."""
    description: str = ""
    """What the notification means (from the schema)."""
    experimental: bool = False
    """Whether the method belongs to the experimental surface (``capabilities.experimentalApi``)."""


AnyRequestSpec = RequestSpec[Any, Any]
"""A request spec of any params and response type (the value type of the method maps)."""

AnyNotificationSpec = NotificationSpec[Any]
"""A notification spec of any params type (the value type of the method maps)."""
