# Method maps of the Tandem app-server protocol, generated from schemas/json/tandem_app_server_protocol.schemas.json
# and its experimental superset (`tandem app-server generate-json-schema --experimental`)
# by clients/python/scripts/generate.py (datamodel-code-generator 0.89.0).
# Do not edit. Regenerate with: cd clients/python && .venv/bin/python scripts/generate.py
"""Method maps: every protocol method with its params and response models.

Generated from the `oneOf` variants of the schema bundles' message unions; methods of the
experimental surface (sent only to connections with `capabilities.experimentalApi`) have `experimental=True`.
Each namespace class has one constant per method; each `*_BY_METHOD` dict maps the wire name to it.
"""

from __future__ import annotations

from typing import Final

from tandem_client.generated import models
from tandem_client.method_spec import AnyNotificationSpec, AnyRequestSpec, NotificationSpec, RequestSpec


class ClientRequests:
    """The `ClientRequest` union: requests the client sends."""

    INITIALIZE: Final = RequestSpec('initialize', models.InitializeParams, models.InitializeResponse, 'Open the connection: declare the client and its capabilities. Must come first, once.')
    'Open the connection: declare the client and its capabilities. Must come first, once.'

    THREAD_START: Final = RequestSpec('thread/start', models.ThreadStartParams, models.ThreadStartResponse, 'Create a thread. Followed by `thread/started`.')
    'Create a thread. Followed by `thread/started`.'

    THREAD_RESUME: Final = RequestSpec('thread/resume', models.ThreadResumeParams, models.ThreadResumeResponse, 'Load a stored thread, apply overrides and subscribe to its events.')
    'Load a stored thread, apply overrides and subscribe to its events.'

    THREAD_FORK: Final = RequestSpec('thread/fork', models.ThreadForkParams, models.ThreadStartResponse, "Copy a stored thread's history into a new thread. Followed by `thread/started`.")
    "Copy a stored thread's history into a new thread. Followed by `thread/started`."

    THREAD_LIST: Final = RequestSpec('thread/list', models.ThreadListParams, models.ThreadListResponse, 'List stored threads with filters, sorting and cursor pagination.')
    'List stored threads with filters, sorting and cursor pagination.'

    THREAD_READ: Final = RequestSpec('thread/read', models.ThreadReadParams, models.ThreadReadResponse, "Read a thread's metadata (and optionally its turns) without loading it.")
    "Read a thread's metadata (and optionally its turns) without loading it."

    THREAD_TURNS_LIST: Final = RequestSpec('thread/turns/list', models.ThreadTurnsListParams, models.ThreadTurnsListResponse, "Page through a thread's turns.")
    "Page through a thread's turns."

    THREAD_ARCHIVE: Final = RequestSpec('thread/archive', models.ThreadIdParams, models.EmptyResponse, 'Archive a thread: unload it and move its rollout to `archived_sessions/`.')
    'Archive a thread: unload it and move its rollout to `archived_sessions/`.'

    THREAD_UNARCHIVE: Final = RequestSpec('thread/unarchive', models.ThreadIdParams, models.ThreadUnarchiveResponse, 'Restore an archived thread.')
    'Restore an archived thread.'

    THREAD_NAME_SET: Final = RequestSpec('thread/name/set', models.ThreadSetNameParams, models.EmptyResponse, 'Name a thread. Followed by `thread/name/updated`.')
    'Name a thread. Followed by `thread/name/updated`.'

    THREAD_LOADED_LIST: Final = RequestSpec('thread/loaded/list', models.ThreadLoadedListParams, models.ThreadLoadedListResponse, 'List the ids of the threads loaded in this server.')
    'List the ids of the threads loaded in this server.'

    THREAD_UNSUBSCRIBE: Final = RequestSpec('thread/unsubscribe', models.ThreadIdParams, models.ThreadUnsubscribeResponse, "Stop receiving a thread's events on this connection.")
    "Stop receiving a thread's events on this connection."

    TURN_START: Final = RequestSpec('turn/start', models.TurnStartParams, models.TurnStartResponse, 'Start a turn. On a busy thread the input joins the running turn, which is returned.')
    'Start a turn. On a busy thread the input joins the running turn, which is returned.'

    TURN_INTERRUPT: Final = RequestSpec('turn/interrupt', models.TurnInterruptParams, models.EmptyResponse, 'Interrupt the running turn. Followed by `turn/completed` with status `interrupted`.')
    'Interrupt the running turn. Followed by `turn/completed` with status `interrupted`.'

    TURN_STEER: Final = RequestSpec('turn/steer', models.TurnSteerParams, models.TurnSteerResponse, 'Add input to the running turn.')
    'Add input to the running turn.'

    MODEL_LIST: Final = RequestSpec('model/list', models.ModelListParams, models.ModelListResponse, 'List the models of the configured provider.')
    'List the models of the configured provider.'

    CONFIG_READ: Final = RequestSpec('config/read', models.ConfigReadParams, models.ConfigReadResponse, 'Read the effective configuration.')
    'Read the effective configuration.'

    COMMAND_EXEC: Final = RequestSpec('command/exec', models.CommandExecParams, models.CommandExecResponse, 'Run a standalone command (no thread, no turn) and return its output.')
    'Run a standalone command (no thread, no turn) and return its output.'

    COMMAND_EXEC_WRITE: Final = RequestSpec('command/exec/write', models.CommandExecWriteParams, models.EmptyResponse, 'Write to the stdin of a running `command/exec`.')
    'Write to the stdin of a running `command/exec`.'

    COMMAND_EXEC_RESIZE: Final = RequestSpec('command/exec/resize', models.CommandExecResizeParams, models.EmptyResponse, 'Resize the terminal of a running `command/exec` with `tty`.')
    'Resize the terminal of a running `command/exec` with `tty`.'

    COMMAND_EXEC_TERMINATE: Final = RequestSpec('command/exec/terminate', models.CommandExecTerminateParams, models.EmptyResponse, 'Kill a running `command/exec` and its process group.')
    'Kill a running `command/exec` and its process group.'

    FUZZY_FILE_SEARCH: Final = RequestSpec('fuzzyFileSearch', models.FuzzyFileSearchParams, models.FuzzyFileSearchResponse, 'Fuzzy-search file names under some roots (gitignore-aware).')
    'Fuzzy-search file names under some roots (gitignore-aware).'

    GIT_DIFF_TO_REMOTE: Final = RequestSpec('gitDiffToRemote', models.GitDiffToRemoteParams, models.GitDiffToRemoteResponse, 'Diff the working tree against its remote-tracking commit.')
    'Diff the working tree against its remote-tracking commit.'

    GET_AUTH_STATUS: Final = RequestSpec('getAuthStatus', models.GetAuthStatusParams, models.GetAuthStatusResponse, 'Legacy: the login state. Tandem has no OpenAI login, so nobody is logged in and none is required.')
    'Legacy: the login state. Tandem has no OpenAI login, so nobody is logged in and none is required.'

    HISTORY_SEARCH: Final = RequestSpec('history/search', models.HistorySearchParams, models.HistorySearchResponse, 'BM25 search over past conversations (the MCP tool `search`).', experimental=True)
    'BM25 search over past conversations (the MCP tool `search`).'

    HISTORY_OPEN: Final = RequestSpec('history/open', models.HistoryOpenParams, models.HistoryOpenResponse, 'The events around one past event, in conversation order (the MCP tool `open`).', experimental=True)
    'The events around one past event, in conversation order (the MCP tool `open`).'

    INDEX_QUERY: Final = RequestSpec('index/query', models.IndexQueryParams, models.IndexQueryResponse, 'Search the project index (the MCP tool `query_project`): refreshes the index incrementally, sending `index/progress`, then answers with ranked snippets.', experimental=True)
    'Search the project index (the MCP tool `query_project`): refreshes the index incrementally, sending `index/progress`, then answers with ranked snippets.'

    INDEX_REFRESH: Final = RequestSpec('index/refresh', models.IndexRefreshParams, models.IndexRefreshResponse, 'Warm or rebuild the project index (the MCP tool `repo_index_refresh`), sending `index/progress` as it goes.', experimental=True)
    'Warm or rebuild the project index (the MCP tool `repo_index_refresh`), sending `index/progress` as it goes.'


CLIENT_REQUESTS_BY_METHOD: Final[dict[str, AnyRequestSpec]] = {
    'initialize': ClientRequests.INITIALIZE,
    'thread/start': ClientRequests.THREAD_START,
    'thread/resume': ClientRequests.THREAD_RESUME,
    'thread/fork': ClientRequests.THREAD_FORK,
    'thread/list': ClientRequests.THREAD_LIST,
    'thread/read': ClientRequests.THREAD_READ,
    'thread/turns/list': ClientRequests.THREAD_TURNS_LIST,
    'thread/archive': ClientRequests.THREAD_ARCHIVE,
    'thread/unarchive': ClientRequests.THREAD_UNARCHIVE,
    'thread/name/set': ClientRequests.THREAD_NAME_SET,
    'thread/loaded/list': ClientRequests.THREAD_LOADED_LIST,
    'thread/unsubscribe': ClientRequests.THREAD_UNSUBSCRIBE,
    'turn/start': ClientRequests.TURN_START,
    'turn/interrupt': ClientRequests.TURN_INTERRUPT,
    'turn/steer': ClientRequests.TURN_STEER,
    'model/list': ClientRequests.MODEL_LIST,
    'config/read': ClientRequests.CONFIG_READ,
    'command/exec': ClientRequests.COMMAND_EXEC,
    'command/exec/write': ClientRequests.COMMAND_EXEC_WRITE,
    'command/exec/resize': ClientRequests.COMMAND_EXEC_RESIZE,
    'command/exec/terminate': ClientRequests.COMMAND_EXEC_TERMINATE,
    'fuzzyFileSearch': ClientRequests.FUZZY_FILE_SEARCH,
    'gitDiffToRemote': ClientRequests.GIT_DIFF_TO_REMOTE,
    'getAuthStatus': ClientRequests.GET_AUTH_STATUS,
    'history/search': ClientRequests.HISTORY_SEARCH,
    'history/open': ClientRequests.HISTORY_OPEN,
    'index/query': ClientRequests.INDEX_QUERY,
    'index/refresh': ClientRequests.INDEX_REFRESH,
}
"""`ClientRequest` methods by wire name."""


class ServerRequests:
    """The `ServerRequest` union: requests the server sends (the client answers them)."""

    ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL: Final = RequestSpec('item/commandExecution/requestApproval', models.CommandExecutionRequestApprovalParams, models.CommandExecutionRequestApprovalResponse, 'Ask whether a command may run.')
    'Ask whether a command may run.'

    ITEM_FILE_CHANGE_REQUEST_APPROVAL: Final = RequestSpec('item/fileChange/requestApproval', models.FileChangeRequestApprovalParams, models.FileChangeRequestApprovalResponse, 'Ask whether file changes may be written.')
    'Ask whether file changes may be written.'

    ITEM_TOOL_REQUEST_USER_INPUT: Final = RequestSpec('item/tool/requestUserInput', models.ToolRequestUserInputParams, models.ToolRequestUserInputResponse, 'Ask the user one to three questions.', experimental=True)
    'Ask the user one to three questions.'


SERVER_REQUESTS_BY_METHOD: Final[dict[str, AnyRequestSpec]] = {
    'item/commandExecution/requestApproval': ServerRequests.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL,
    'item/fileChange/requestApproval': ServerRequests.ITEM_FILE_CHANGE_REQUEST_APPROVAL,
    'item/tool/requestUserInput': ServerRequests.ITEM_TOOL_REQUEST_USER_INPUT,
}
"""`ServerRequest` methods by wire name."""


class ServerNotifications:
    """The `ServerNotification` union: notifications the server sends."""

    THREAD_STARTED: Final = NotificationSpec('thread/started', models.ThreadStartedNotification, 'A thread was created by `thread/start` or `thread/fork`.')
    'A thread was created by `thread/start` or `thread/fork`.'

    THREAD_STATUS_CHANGED: Final = NotificationSpec('thread/status/changed', models.ThreadStatusChangedNotification, "A thread's status changed.")
    "A thread's status changed."

    THREAD_ARCHIVED: Final = NotificationSpec('thread/archived', models.ThreadIdNotification, 'A thread was archived.')
    'A thread was archived.'

    THREAD_UNARCHIVED: Final = NotificationSpec('thread/unarchived', models.ThreadIdNotification, 'A thread was unarchived.')
    'A thread was unarchived.'

    THREAD_NAME_UPDATED: Final = NotificationSpec('thread/name/updated', models.ThreadNameUpdatedNotification, 'A thread was renamed.')
    'A thread was renamed.'

    THREAD_CLOSED: Final = NotificationSpec('thread/closed', models.ThreadIdNotification, 'A thread was unloaded from this server.')
    'A thread was unloaded from this server.'

    THREAD_GOAL_CLEARED: Final = NotificationSpec('thread/goal/cleared', models.ThreadIdNotification, 'A resumed thread has no active goal.')
    'A resumed thread has no active goal.'

    THREAD_TOKEN_USAGE_UPDATED: Final = NotificationSpec('thread/tokenUsage/updated', models.ThreadTokenUsageUpdatedNotification, 'Token usage after a model response.')
    'Token usage after a model response.'

    TURN_STARTED: Final = NotificationSpec('turn/started', models.TurnNotification, 'A turn started streaming.')
    'A turn started streaming.'

    TURN_COMPLETED: Final = NotificationSpec('turn/completed', models.TurnNotification, 'A turn ended: completed, interrupted or failed. Closes every open item.')
    'A turn ended: completed, interrupted or failed. Closes every open item.'

    TURN_DIFF_UPDATED: Final = NotificationSpec('turn/diff/updated', models.TurnDiffUpdatedNotification, "The turn's aggregated diff changed.")
    "The turn's aggregated diff changed."

    TURN_PLAN_UPDATED: Final = NotificationSpec('turn/plan/updated', models.TurnPlanUpdatedNotification, "The agent's plan changed.")
    "The agent's plan changed."

    ITEM_STARTED: Final = NotificationSpec('item/started', models.ItemStartedNotification, 'An item started.')
    'An item started.'

    ITEM_COMPLETED: Final = NotificationSpec('item/completed', models.ItemCompletedNotification, 'An item completed; its final state.')
    'An item completed; its final state.'

    ITEM_AGENT_MESSAGE_DELTA: Final = NotificationSpec('item/agentMessage/delta', models.ItemDeltaNotification, 'Text appended to an agent message.')
    'Text appended to an agent message.'

    ITEM_REASONING_SUMMARY_TEXT_DELTA: Final = NotificationSpec('item/reasoning/summaryTextDelta', models.ReasoningSummaryTextDeltaNotification, 'Text appended to a reasoning summary part.')
    'Text appended to a reasoning summary part.'

    ITEM_REASONING_SUMMARY_PART_ADDED: Final = NotificationSpec('item/reasoning/summaryPartAdded', models.ReasoningSummaryPartAddedNotification, 'A reasoning summary part began.')
    'A reasoning summary part began.'

    ITEM_REASONING_TEXT_DELTA: Final = NotificationSpec('item/reasoning/textDelta', models.ReasoningTextDeltaNotification, 'Raw reasoning text appended.')
    'Raw reasoning text appended.'

    ITEM_COMMAND_EXECUTION_OUTPUT_DELTA: Final = NotificationSpec('item/commandExecution/outputDelta', models.ItemDeltaNotification, 'Output of a running command.')
    'Output of a running command.'

    ITEM_FILE_CHANGE_OUTPUT_DELTA: Final = NotificationSpec('item/fileChange/outputDelta', models.ItemDeltaNotification, 'Textual output of a patch application (legacy; not emitted by Tandem).')
    'Textual output of a patch application (legacy; not emitted by Tandem).'

    SERVER_REQUEST_RESOLVED: Final = NotificationSpec('serverRequest/resolved', models.ServerRequestResolvedNotification, 'A server request was answered or cleaned up.')
    'A server request was answered or cleaned up.'

    ERROR: Final = NotificationSpec('error', models.ErrorNotification, 'A turn error (before the failing `turn/completed`, or while retrying).')
    'A turn error (before the failing `turn/completed`, or while retrying).'

    WARNING: Final = NotificationSpec('warning', models.WarningNotification, 'A warning.')
    'A warning.'

    CONFIG_WARNING: Final = NotificationSpec('configWarning', models.ConfigWarningNotification, 'A configuration problem that did not stop the server.')
    'A configuration problem that did not stop the server.'

    DEPRECATION_NOTICE: Final = NotificationSpec('deprecationNotice', models.DeprecationNoticeNotification, 'The client used a deprecated feature.')
    'The client used a deprecated feature.'

    COMMAND_EXEC_OUTPUT_DELTA: Final = NotificationSpec('command/exec/outputDelta', models.CommandExecOutputDeltaNotification, 'Output of a streaming `command/exec`.')
    'Output of a streaming `command/exec`.'

    INDEX_PROGRESS: Final = NotificationSpec('index/progress', models.IndexProgressNotification, "Progress of the refresh run by this connection's `index/refresh` or `index/query`.", experimental=True)
    "Progress of the refresh run by this connection's `index/refresh` or `index/query`."


SERVER_NOTIFICATIONS_BY_METHOD: Final[dict[str, AnyNotificationSpec]] = {
    'thread/started': ServerNotifications.THREAD_STARTED,
    'thread/status/changed': ServerNotifications.THREAD_STATUS_CHANGED,
    'thread/archived': ServerNotifications.THREAD_ARCHIVED,
    'thread/unarchived': ServerNotifications.THREAD_UNARCHIVED,
    'thread/name/updated': ServerNotifications.THREAD_NAME_UPDATED,
    'thread/closed': ServerNotifications.THREAD_CLOSED,
    'thread/goal/cleared': ServerNotifications.THREAD_GOAL_CLEARED,
    'thread/tokenUsage/updated': ServerNotifications.THREAD_TOKEN_USAGE_UPDATED,
    'turn/started': ServerNotifications.TURN_STARTED,
    'turn/completed': ServerNotifications.TURN_COMPLETED,
    'turn/diff/updated': ServerNotifications.TURN_DIFF_UPDATED,
    'turn/plan/updated': ServerNotifications.TURN_PLAN_UPDATED,
    'item/started': ServerNotifications.ITEM_STARTED,
    'item/completed': ServerNotifications.ITEM_COMPLETED,
    'item/agentMessage/delta': ServerNotifications.ITEM_AGENT_MESSAGE_DELTA,
    'item/reasoning/summaryTextDelta': ServerNotifications.ITEM_REASONING_SUMMARY_TEXT_DELTA,
    'item/reasoning/summaryPartAdded': ServerNotifications.ITEM_REASONING_SUMMARY_PART_ADDED,
    'item/reasoning/textDelta': ServerNotifications.ITEM_REASONING_TEXT_DELTA,
    'item/commandExecution/outputDelta': ServerNotifications.ITEM_COMMAND_EXECUTION_OUTPUT_DELTA,
    'item/fileChange/outputDelta': ServerNotifications.ITEM_FILE_CHANGE_OUTPUT_DELTA,
    'serverRequest/resolved': ServerNotifications.SERVER_REQUEST_RESOLVED,
    'error': ServerNotifications.ERROR,
    'warning': ServerNotifications.WARNING,
    'configWarning': ServerNotifications.CONFIG_WARNING,
    'deprecationNotice': ServerNotifications.DEPRECATION_NOTICE,
    'command/exec/outputDelta': ServerNotifications.COMMAND_EXEC_OUTPUT_DELTA,
    'index/progress': ServerNotifications.INDEX_PROGRESS,
}
"""`ServerNotification` methods by wire name."""


class ClientNotifications:
    """The `ClientNotification` union: notifications the client sends."""

    INITIALIZED: Final = NotificationSpec('initialized', models.EmptyParams, 'The client processed the `initialize` response (accepted, not enforced).')
    'The client processed the `initialize` response (accepted, not enforced).'


CLIENT_NOTIFICATIONS_BY_METHOD: Final[dict[str, AnyNotificationSpec]] = {
    'initialized': ClientNotifications.INITIALIZED,
}
"""`ClientNotification` methods by wire name."""
