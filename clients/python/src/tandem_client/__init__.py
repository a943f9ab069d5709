"""Python client for the Tandem app-server (the Codex app-server protocol over JSONL stdio,
a Unix socket or a WebSocket).

- `AppServerClient`: the asyncio client (`spawn`, `connect_url`, `request`, `on`, `notifications`, `run_turn`,
  server-request handlers, `close`).
- `SyncAppServerClient`: a blocking wrapper for scripts.
- `tandem_client.generated.models`: pydantic models of every protocol type.
- `tandem_client.generated.methods`: the method maps (`ClientRequests.THREAD_START`…) that type
  requests, notifications and server requests.
"""

from tandem_client.client import AppServerClient
from tandem_client.errors import (
    AppServerError,
    ConnectionClosed,
    InvalidResponse,
    ProtocolError,
    RequestTimeout,
    TandemClientError,
    WebSocketRefused,
)
from tandem_client.generated.methods import (
    ClientNotifications,
    ClientRequests,
    ServerNotifications,
    ServerRequests,
)
from tandem_client.method_spec import NotificationSpec, RequestSpec
from tandem_client.notifications import Notification, NotificationStream
from tandem_client.server_requests import permissions_grant, question_answers, tool_output, user_input_answers
from tandem_client.sync import SyncAppServerClient, TurnTimeout
from tandem_client.turn import TurnStream
from tandem_client.version import __version__

__all__ = [
    "AppServerClient",
    "AppServerError",
    "ClientNotifications",
    "ClientRequests",
    "ConnectionClosed",
    "InvalidResponse",
    "Notification",
    "NotificationSpec",
    "NotificationStream",
    "ProtocolError",
    "RequestSpec",
    "RequestTimeout",
    "ServerNotifications",
    "ServerRequests",
    "SyncAppServerClient",
    "TandemClientError",
    "TurnStream",
    "TurnTimeout",
    "WebSocketRefused",
    "__version__",
    "permissions_grant",
    "question_answers",
    "tool_output",
    "user_input_answers",
]
