# Pydantic models of the Tandem app-server protocol, generated from schemas/json/tandem_app_server_protocol.schemas.json
# and its experimental superset (`tandem app-server generate-json-schema --experimental`)
# by clients/python/scripts/generate.py (datamodel-code-generator 0.89.0).
# Do not edit. Regenerate with: cd clients/python && .venv/bin/python scripts/generate.py

"""Pydantic v2 models of every type in the protocol's JSON Schema bundle.

Fields are snake_case with the wire's camelCase names as aliases (both are accepted as input);
serialize with `model_dump(by_alias=True, exclude_none=True, mode="json")`.
Models keep unknown fields (`model_extra`) so that newer or experimental fields survive.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel


class ApprovalsReviewer(str, Enum):
    """
    Who reviews approval requests.
    """

    user = 'user'
    auto_review = 'auto_review'
    guardian_subagent = 'guardian_subagent'


class AskForApproval(str, Enum):
    """
    When the agent must ask the client before acting.

    Wire values are kebab-case (`"on-request"`), unlike most of the protocol.
    """

    untrusted = 'untrusted'
    on_request = 'on-request'
    never = 'never'


class ByteRange(BaseModel):
    """
    A half-open byte range.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    end: Annotated[int, Field(description='One past the last byte.', ge=0)]
    start: Annotated[int, Field(description='First byte.', ge=0)]


class ClientInfo(BaseModel):
    """
    Identification of the client.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    name: Annotated[
        str,
        Field(description='Machine-readable client name, such as `vscode_extension`.'),
    ]
    title: Annotated[str | None, Field(description='Human-readable client name.')] = (
        None
    )
    version: Annotated[str, Field(description='Client version.')]


class HttpConnectionFailed(BaseModel):
    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    http_status_code: Annotated[
        int | None,
        Field(
            alias='httpStatusCode',
            description='HTTP status, when there was one.',
            ge=0,
            le=65535,
        ),
    ] = None


class CodexErrorInfoHttpConnectionFailed(BaseModel):
    """
    Connecting to the provider failed.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    http_connection_failed: Annotated[
        HttpConnectionFailed, Field(alias='httpConnectionFailed')
    ]


class ResponseStreamConnectionFailed(BaseModel):
    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    http_status_code: Annotated[
        int | None,
        Field(
            alias='httpStatusCode',
            description='HTTP status, when there was one.',
            ge=0,
            le=65535,
        ),
    ] = None


class CodexErrorInfoResponseStreamConnectionFailed(BaseModel):
    """
    Opening the response stream failed.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    response_stream_connection_failed: Annotated[
        ResponseStreamConnectionFailed, Field(alias='responseStreamConnectionFailed')
    ]


class ResponseStreamDisconnected(BaseModel):
    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    http_status_code: Annotated[
        int | None,
        Field(
            alias='httpStatusCode',
            description='HTTP status, when there was one.',
            ge=0,
            le=65535,
        ),
    ] = None


class CodexErrorInfoResponseStreamDisconnected(BaseModel):
    """
    The response stream ended before completion.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    response_stream_disconnected: Annotated[
        ResponseStreamDisconnected, Field(alias='responseStreamDisconnected')
    ]


class ResponseTooManyFailedAttempts(BaseModel):
    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    http_status_code: Annotated[
        int | None,
        Field(
            alias='httpStatusCode',
            description='HTTP status of the last attempt, when there was one.',
            ge=0,
            le=65535,
        ),
    ] = None


class CodexErrorInfoResponseTooManyFailedAttempts(BaseModel):
    """
    Every retry failed.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    response_too_many_failed_attempts: Annotated[
        ResponseTooManyFailedAttempts, Field(alias='responseTooManyFailedAttempts')
    ]


class CommandActionRead(BaseModel):
    """
    Reads a file.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    command: Annotated[str, Field(description='The (sub)command.')]
    name: Annotated[str, Field(description='File name.')]
    path: Annotated[str, Field(description='File path.')]
    type: Literal['read'] = 'read'


class CommandActionListFiles(BaseModel):
    """
    Lists files.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    command: Annotated[str, Field(description='The (sub)command.')]
    path: Annotated[str | None, Field(description='Directory listed.')] = None
    type: Literal['listFiles'] = 'listFiles'


class CommandActionSearch(BaseModel):
    """
    Searches files.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    command: Annotated[str, Field(description='The (sub)command.')]
    path: Annotated[str | None, Field(description='Where it searches.')] = None
    query: Annotated[str | None, Field(description='Search query.')] = None
    type: Literal['search'] = 'search'


class CommandActionUnknown(BaseModel):
    """
    Anything else.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    command: Annotated[str, Field(description='The (sub)command.')]
    type: Literal['unknown'] = 'unknown'


class CommandExecOutputStream(str, Enum):
    """
    Which output stream a chunk came from.
    """

    stdout = 'stdout'
    stderr = 'stderr'


class CommandExecResponse(BaseModel):
    """
    Result of `command/exec`, once the process exits.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    exit_code: Annotated[
        int, Field(alias='exitCode', description='Exit code (124 on timeout).')
    ]
    stderr: Annotated[str, Field(description='Buffered stderr (empty when streamed).')]
    stdout: Annotated[str, Field(description='Buffered stdout (empty when streamed).')]


class CommandExecTerminalSize(BaseModel):
    """
    A terminal size.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cols: Annotated[int, Field(description='Columns.', ge=0, le=65535)]
    rows: Annotated[int, Field(description='Rows.', ge=0, le=65535)]


class CommandExecTerminateParams(BaseModel):
    """
    Parameters of `command/exec/terminate`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    process_id: Annotated[
        str, Field(alias='processId', description="The command's `processId`.")
    ]


class CommandExecWriteParams(BaseModel):
    """
    Parameters of `command/exec/write`: send stdin bytes to a running command.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    close_stdin: Annotated[
        bool | None, Field(alias='closeStdin', description='Close stdin after writing.')
    ] = None
    delta_base64: Annotated[
        str | None,
        Field(alias='deltaBase64', description='Bytes to write, base64-encoded.'),
    ] = None
    process_id: Annotated[
        str, Field(alias='processId', description="The command's `processId`.")
    ]


class AcceptWithExecpolicyAmendment(BaseModel):
    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    execpolicy_amendment: Annotated[
        list[str], Field(description='The argv prefix (snake_case on the wire).')
    ]


class CommandExecutionApprovalDecisionAcceptWithExecpolicyAmendment(BaseModel):
    """
    Run it and accept the proposed exec-policy amendment; Tandem has no exec-policy engine, so
    this approves the identical command for the rest of the thread, like `acceptForSession`.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    accept_with_execpolicy_amendment: Annotated[
        AcceptWithExecpolicyAmendment, Field(alias='acceptWithExecpolicyAmendment')
    ]


class CommandExecutionApprovalKind(str, Enum):
    """
    What a command approval is about.
    """

    command = 'command'
    write_stdin = 'writeStdin'
    human_command = 'humanCommand'


class CommandExecutionRequestApprovalParams(BaseModel):
    """
    Parameters of `item/commandExecution/requestApproval`: may this command run?
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    available_decisions: Annotated[
        list[Literal['accept'] | Literal['acceptForSession'] | CommandExecutionApprovalDecisionAcceptWithExecpolicyAmendment | Literal['decline'] | Literal['cancel']] | None,
        Field(
            alias='availableDecisions',
            description='Decisions the client may answer with. @experimental',
        ),
    ] = None
    command: Annotated[str | None, Field(description='The command, shell-joined.')] = (
        None
    )
    command_actions: Annotated[
        list[CommandActionRead | CommandActionListFiles | CommandActionSearch | CommandActionUnknown] | None,
        Field(alias='commandActions', description='What the command does.'),
    ] = None
    cwd: Annotated[str | None, Field(description='Working directory.')] = None
    environment_id: Annotated[
        str | None,
        Field(alias='environmentId', description='Execution environment (`local`).'),
    ] = None
    item_id: Annotated[
        str,
        Field(
            alias='itemId',
            description="The commandExecution item (the model's `call_id`).",
        ),
    ]
    kind: Annotated[
        CommandExecutionApprovalKind, Field(description='What is being approved.')
    ] = CommandExecutionApprovalKind.command
    proposed_execpolicy_amendment: Annotated[
        list[str] | None,
        Field(
            alias='proposedExecpolicyAmendment',
            description='Argv prefix that `acceptWithExecpolicyAmendment` would allow from now on.',
        ),
    ] = None
    reason: Annotated[
        str | None,
        Field(
            description='Why approval is needed (for example, to run outside the sandbox).'
        ),
    ] = None
    started_at_ms: Annotated[
        int,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class CommandExecutionRequestApprovalResponse(BaseModel):
    """
    Answer to `item/commandExecution/requestApproval`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    decision: Annotated[
        Literal['accept'] | Literal['acceptForSession'] | CommandExecutionApprovalDecisionAcceptWithExecpolicyAmendment | Literal['decline'] | Literal['cancel'],
        Field(description='The decision.'),
    ]


class CommandExecutionSource(str, Enum):
    """
    What started a command.
    """

    agent = 'agent'
    user_shell = 'userShell'
    unified_exec_startup = 'unifiedExecStartup'
    unified_exec_interaction = 'unifiedExecInteraction'


class CommandExecutionStatus(str, Enum):
    """
    Lifecycle status of a command item.
    """

    in_progress = 'inProgress'
    completed = 'completed'
    failed = 'failed'
    declined = 'declined'


class ConfigLayerSourceUser(BaseModel):
    """
    The user's `config.toml` (with the active profile, if any).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    file: Annotated[str, Field(description='Path of the file.')]
    profile: Annotated[str | None, Field(description='Active profile.')] = None
    type: Literal['user'] = 'user'


class ConfigLayerSourceSessionFlags(BaseModel):
    """
    `-c key=value` flags and per-request overrides.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['sessionFlags'] = 'sessionFlags'


class ConfigLayerSourceDefault(BaseModel):
    """
    Built-in defaults.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['default'] = 'default'


class ConfigReadParams(BaseModel):
    """
    Parameters of `config/read`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cwd: Annotated[
        str | None,
        Field(description='Resolve project-specific settings for this directory.'),
    ] = None
    include_layers: Annotated[
        bool | None,
        Field(alias='includeLayers', description='Also return each config layer.'),
    ] = None


class ConfigWarningNotification(BaseModel):
    """
    `configWarning`: a problem with the configuration that did not stop the server.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    details: Annotated[str | None, Field(description='More detail.')] = None
    summary: Annotated[str, Field(description='One-line summary.')]


class DeprecationNoticeNotification(BaseModel):
    """
    `deprecationNotice`: the client used something deprecated.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    details: Annotated[str | None, Field(description='More detail.')] = None
    summary: Annotated[str, Field(description='One-line summary.')]


class DynamicToolCallOutputContentItemInputText(BaseModel):
    """
    Text (for `query_project`, the JSON payload or the error message).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    text: Annotated[str, Field(description='The text.')]
    type: Literal['inputText'] = 'inputText'


class DynamicToolCallOutputContentItem(
    RootModel[DynamicToolCallOutputContentItemInputText]
):
    root: Annotated[
        DynamicToolCallOutputContentItemInputText,
        Field(
            description="One piece of a dynamic tool call's output (tagged by `type`)."
        ),
    ]


class DynamicToolCallStatus(str, Enum):
    """
    Lifecycle status of a dynamic tool call item.
    """

    in_progress = 'inProgress'
    completed = 'completed'
    failed = 'failed'


class EmptyParams(BaseModel):
    """
    Empty params, `{}`; may be omitted.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )


class EmptyResponse(BaseModel):
    """
    An empty result, `{}`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )


class FileChangeApprovalDecision(str, Enum):
    """
    A decision on a file change.
    """

    accept = 'accept'
    accept_for_session = 'acceptForSession'
    decline = 'decline'
    cancel = 'cancel'


class FileChangeRequestApprovalParams(BaseModel):
    """
    Parameters of `item/fileChange/requestApproval`: may these edits be written? The edits are
    in the preceding `item/started` fileChange item.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    grant_root: Annotated[
        str | None,
        Field(
            alias='grantRoot',
            description='A directory the agent asks to be able to write to for the rest of the session.',
        ),
    ] = None
    item_id: Annotated[
        str,
        Field(
            alias='itemId', description="The fileChange item (the model's `call_id`)."
        ),
    ]
    reason: Annotated[str | None, Field(description='Why approval is needed.')] = None
    started_at_ms: Annotated[
        int,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class FileChangeRequestApprovalResponse(BaseModel):
    """
    Answer to `item/fileChange/requestApproval`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    decision: Annotated[FileChangeApprovalDecision, Field(description='The decision.')]


class FuzzyFileSearchMatchType(str, Enum):
    """
    Whether a match is a file or a directory.
    """

    file = 'file'
    directory = 'directory'


class FuzzyFileSearchParams(BaseModel):
    """
    Parameters of `fuzzyFileSearch`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cancellation_token: Annotated[
        str | None,
        Field(
            alias='cancellationToken',
            description='A later search with the same token cancels this one.',
        ),
    ] = None
    query: Annotated[str, Field(description='What to look for.')]
    roots: Annotated[
        list[str], Field(description='Directories to search (gitignore-aware).')
    ]


class Indice(RootModel[int]):
    root: Annotated[int, Field(ge=0)]


class FuzzyFileSearchResult(BaseModel):
    """
    One fuzzy-search match (snake_case on the wire).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    file_name: Annotated[str, Field(description='Last path component.')]
    indices: Annotated[
        list[Indice] | None, Field(description='Matched character indices in `path`.')
    ] = None
    match_type: Annotated[
        FuzzyFileSearchMatchType, Field(description='File or directory.')
    ]
    path: Annotated[str, Field(description='Path relative to `root`.')]
    root: Annotated[str, Field(description='The search root the match is under.')]
    score: Annotated[int, Field(description='Match score; higher is better.', ge=0)]


class GetAuthStatusParams(BaseModel):
    """
    Parameters of `getAuthStatus` (legacy). Both fields are accepted and ignored.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    include_token: Annotated[
        bool | None,
        Field(
            alias='includeToken',
            description='Whether to include the token. Accepted and ignored: Tandem holds no login token.',
        ),
    ] = None
    refresh_token: Annotated[
        bool | None,
        Field(
            alias='refreshToken',
            description='Whether to refresh the token first. Accepted and ignored.',
        ),
    ] = None


class GetAuthStatusResponse(BaseModel):
    """
    Result of `getAuthStatus` (legacy). Tandem has no OpenAI login: providers take their keys
    from the environment, so the answer is always `{authMethod: null, authToken: null,
    requiresOpenaiAuth: false}`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    auth_method: Annotated[
        Any | None,
        Field(
            alias='authMethod',
            description='How the user is logged in; always `null` in Tandem.',
        ),
    ] = None
    auth_token: Annotated[
        str | None,
        Field(
            alias='authToken', description='The login token; always `null` in Tandem.'
        ),
    ] = None
    requires_openai_auth: Annotated[
        bool | None,
        Field(
            alias='requiresOpenaiAuth',
            description='Whether an OpenAI login is required; always `false` in Tandem.',
        ),
    ] = None


class GitDiffToRemoteParams(BaseModel):
    """
    Parameters of `gitDiffToRemote`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cwd: Annotated[str, Field(description='A directory inside the repository.')]


class GitDiffToRemoteResponse(BaseModel):
    """
    Result of `gitDiffToRemote`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    diff: Annotated[
        str,
        Field(
            description='Diff of the working tree (untracked files included) against `sha`.'
        ),
    ]
    sha: Annotated[
        str, Field(description='The remote-tracking commit the diff is against.')
    ]


class GitInfo(BaseModel):
    """
    Git metadata of a thread's working directory.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    branch: Annotated[str | None, Field(description='Current branch.')] = None
    origin_url: Annotated[
        str | None, Field(alias='originUrl', description='URL of the `origin` remote.')
    ] = None
    sha: Annotated[str | None, Field(description='Commit sha of `HEAD`.')] = None


class HistoryOpenParams(BaseModel):
    """
    Parameters of `history/open`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    after: Annotated[int | None, Field(description='Events of context after it.')] = (
        None
    )
    before: Annotated[
        int | None,
        Field(
            description='Events of context before it (default and bound from `[history]`).'
        ),
    ] = None
    event_uid: Annotated[
        str,
        Field(
            alias='eventUid',
            description='The event to open (validated like `sessionId`).',
        ),
    ]


class HistorySearchHit(BaseModel):
    """
    One hit of `history/search`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    class_: Annotated[
        str,
        Field(
            alias='class',
            description='`user_message`, `agent_message`, `reasoning`, `command`, `file_change`, `tool_call`,\n`tool_output` or `error`.',
        ),
    ]
    event_order: Annotated[
        int,
        Field(
            alias='eventOrder',
            description='Position of the event in its session, from 0.',
        ),
    ]
    event_uid: Annotated[
        str,
        Field(
            alias='eventUid', description="The event's id; pass it to `history/open`."
        ),
    ]
    matched_terms: Annotated[
        int,
        Field(
            alias='matchedTerms', description='Distinct query terms the event contains.'
        ),
    ]
    rank: Annotated[int, Field(description='1-based rank.')]
    score: Annotated[float, Field(description='BM25 score (rounded to 4 decimals).')]
    session_id: Annotated[
        str, Field(alias='sessionId', description='The session (thread) id.')
    ]
    snippet: Annotated[
        str, Field(description='Text around the first matching term, on one line.')
    ]
    timestamp: Annotated[
        str, Field(description='When the event was recorded (RFC 3339, UTC).')
    ]
    turn_id: Annotated[str, Field(alias='turnId', description='Turn id.')]
    turn_seq: Annotated[
        int, Field(alias='turnSeq', description='Turn number in the session, from 1.')
    ]


class HistorySearchParams(BaseModel):
    """
    Parameters of `history/search`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    exclude_codex_mcp: Annotated[
        bool | None,
        Field(
            alias='excludeCodexMcp',
            description="Leave out the history tools' own calls (default true).",
        ),
    ] = None
    include_tool_events: Annotated[
        bool | None,
        Field(
            alias='includeToolEvents',
            description='Include tool calls and outputs (default from `[history] include_tool_events`).',
        ),
    ] = None
    limit: Annotated[
        int | None,
        Field(description='How many hits; clamped to 1..`max_results` of `[history]`.'),
    ] = None
    min_score: Annotated[
        float | None,
        Field(alias='minScore', description='Hits scoring below this are dropped.'),
    ] = None
    min_should_match: Annotated[
        int | None,
        Field(
            alias='minShouldMatch',
            description='How many distinct query terms a hit must contain; clamped to 1..number of terms.',
        ),
    ] = None
    query: Annotated[
        str, Field(description='Words to look for (trimmed; empty is an error).')
    ]
    session_id: Annotated[
        str | None,
        Field(
            alias='sessionId',
            description='Restrict to one session (thread id): letters, digits and `._:@/-`, 1 to 256 characters.',
        ),
    ] = None


class HistorySearchResponse(BaseModel):
    """
    Result of `history/search`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    backend: Annotated[str, Field(description='`embedded` or `clickhouse`.')]
    corpus_events: Annotated[
        int, Field(alias='corpusEvents', description='Events in the index.')
    ]
    dropped_terms: Annotated[
        int,
        Field(
            alias='droppedTerms', description='Distinct terms dropped by the term cap.'
        ),
    ]
    elapsed_ms: Annotated[
        float,
        Field(
            alias='elapsedMs',
            description='Milliseconds from tokenization to the assembled result.',
        ),
    ]
    hits: Annotated[list[HistorySearchHit], Field(description='Hits, best first.')]
    limit: Annotated[int, Field(description='The effective limit.')]
    min_should_match: Annotated[
        int,
        Field(
            alias='minShouldMatch',
            description='The effective minimum of matched terms.',
        ),
    ]
    query: Annotated[str, Field(description='The trimmed query.')]
    query_id: Annotated[
        str,
        Field(
            alias='queryId', description='Id of this query in the query and hit logs.'
        ),
    ]
    terms: Annotated[list[str], Field(description='The distinct terms searched.')]


class HistoryWindowEvent(BaseModel):
    """
    One event of a `history/open` window. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    class_: Annotated[
        str,
        Field(
            alias='class',
            description='The event class (as in [`HistorySearchHit::class`]).',
        ),
    ]
    event_order: Annotated[
        int, Field(alias='eventOrder', description='Position in the session.')
    ]
    event_uid: Annotated[str, Field(alias='eventUid', description="The event's id.")]
    payload: Annotated[
        Any, Field(description="The rollout line's payload as recorded.")
    ]
    position: Annotated[str, Field(description='`before`, `target` or `after`.')]
    text: Annotated[str, Field(description='The searchable text.')]
    timestamp: Annotated[
        str, Field(description='When the event was recorded (RFC 3339, UTC).')
    ]
    token_usage: Annotated[
        Any,
        Field(
            alias='tokenUsage',
            description='Token usage in effect when the event was recorded; `null` before the first usage.',
        ),
    ]
    turn_id: Annotated[str, Field(alias='turnId', description='Turn id.')]
    turn_seq: Annotated[int, Field(alias='turnSeq', description='Turn number.')]


class ImageDetail(str, Enum):
    """
    Detail level for image inputs.
    """

    auto = 'auto'
    low = 'low'
    high = 'high'
    original = 'original'


class IndexEmbeddingMode(str, Enum):
    """
    How embeddings were used (the MCP tools' `mode_used`). @experimental
    """

    skip = 'skip'
    optional = 'optional'
    required = 'required'


class IndexEmbeddingUnavailable(str, Enum):
    """
    Why embeddings are not ready (the MCP tools' `reason`, same spelling). @experimental
    """

    missing_api_key = 'missing_api_key'
    embedding_query_failed = 'embedding_query_failed'
    model_not_installed = 'model_not_installed'


class IndexLineRange(BaseModel):
    """
    A 1-based, inclusive line range. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    end: Annotated[int, Field(description='Last line.')]
    start: Annotated[int, Field(description='First line.')]


class IndexProgressPhase(str, Enum):
    """
    A phase of a refresh. @experimental
    """

    scanning = 'scanning'
    indexing = 'indexing'
    embedding = 'embedding'


class IndexQueryParams(BaseModel):
    """
    Parameters of `index/query`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    alpha: Annotated[
        float | None,
        Field(
            description='Blend of lexical and embedding scores, 0.0 (lexical only) to 1.0 (embedding only);\noutside that range is an error. Default: `default_alpha` of `[query_project_index]`.'
        ),
    ] = None
    embedding_model: Annotated[
        str | None,
        Field(
            alias='embeddingModel',
            description='Embedding model for this call (default: `embedding_model` of `[query_project_index]`).',
        ),
    ] = None
    file_globs: Annotated[
        list[str] | None,
        Field(
            alias='fileGlobs',
            description='Include filters such as `src/**` or `*.rs` (default: `file_globs` of `[query_project_index]`).',
        ),
    ] = None
    limit: Annotated[
        int | None,
        Field(description='Results to return; default 8, clamped to 1..=200.'),
    ] = None
    query: Annotated[
        str,
        Field(
            description='Plain-language description of what to find (trimmed; empty is an error).'
        ),
    ]
    repo_root: Annotated[
        str | None,
        Field(
            alias='repoRoot',
            description="Repository to search, absolute or relative to the server's working directory (default:\nthat directory).",
        ),
    ] = None


class IndexQueryResult(BaseModel):
    """
    One ranked snippet of `index/query`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    line_range: Annotated[
        IndexLineRange,
        Field(alias='lineRange', description="The snippet's lines in the file."),
    ]
    path: Annotated[
        str,
        Field(
            description='File path relative to the repository root, with `/` separators.'
        ),
    ]
    score: Annotated[
        float,
        Field(
            description='`(1 − alpha) × lexical + alpha × embedding`, both normalised to 0..1 over the\ncandidates (see `docs/mcp.md`); higher is better.'
        ),
    ]
    snippet: Annotated[
        str,
        Field(
            description='The text of those lines (long chunks are cut at a line end).'
        ),
    ]


class IndexRefreshParams(BaseModel):
    """
    Parameters of `index/refresh`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    file_globs: Annotated[
        list[str] | None,
        Field(
            alias='fileGlobs',
            description='Only refresh files matching these globs (default: `file_globs` of\n`[query_project_index]`).',
        ),
    ] = None
    force_full: Annotated[
        bool | None,
        Field(
            alias='forceFull',
            description='Rebuild from scratch instead of refreshing incrementally (default false).',
        ),
    ] = None
    repo_root: Annotated[
        str | None,
        Field(
            alias='repoRoot',
            description="Repository to index, absolute or relative to the server's working directory (default:\nthat directory).",
        ),
    ] = None
    require_embeddings: Annotated[
        bool | None,
        Field(
            alias='requireEmbeddings',
            description="Fail when the embedding provider's credentials or model are unavailable, instead of\nrefreshing the lexical index only (default: `require_embeddings` of the config).",
        ),
    ] = None


class IndexRefreshStats(BaseModel):
    """
    Counts of one refresh. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    embedded_chunks: Annotated[
        int,
        Field(alias='embeddedChunks', description='Chunks embedded by this refresh.'),
    ]
    indexed_chunks: Annotated[
        int,
        Field(
            alias='indexedChunks', description='Chunks in the index after the refresh.'
        ),
    ]
    removed_files: Annotated[
        int,
        Field(
            alias='removedFiles',
            description='Files removed from the index because they are gone.',
        ),
    ]
    scanned_files: Annotated[
        int,
        Field(
            alias='scannedFiles',
            description='Files the walk found (after ignore rules and globs).',
        ),
    ]
    skipped_files: Annotated[
        int,
        Field(
            alias='skippedFiles',
            description='Files skipped: unreadable, binary or not UTF-8.',
        ),
    ]
    updated_files: Annotated[
        int,
        Field(
            alias='updatedFiles',
            description='Files (re)indexed because they are new or their content changed.',
        ),
    ]


class InitializeCapabilities(BaseModel):
    """
    Capabilities a client declares at `initialize`; fixed for the connection.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    experimental_api: Annotated[
        bool | None,
        Field(
            alias='experimentalApi',
            description='Opt into experimental methods, fields and notifications.',
        ),
    ] = None
    opt_out_notification_methods: Annotated[
        list[str] | None,
        Field(
            alias='optOutNotificationMethods',
            description='Exact notification methods this connection does not want to receive.',
        ),
    ] = None


class InitializeParams(BaseModel):
    """
    Parameters of `initialize`, the first request of every connection.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    capabilities: Annotated[
        InitializeCapabilities | None,
        Field(description='Client capabilities; omitted means all off.'),
    ] = None
    client_info: Annotated[
        ClientInfo,
        Field(
            alias='clientInfo',
            description='Who the client is; `name` becomes the thread `originator` and prefixes `userAgent`.',
        ),
    ]


class InitializeResponse(BaseModel):
    """
    Result of `initialize`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    codex_home: Annotated[
        str,
        Field(
            alias='codexHome',
            description="The server's home directory (`TANDEM_HOME`), absolute.",
        ),
    ]
    platform_family: Annotated[
        str,
        Field(
            alias='platformFamily', description='Platform family: `unix` or `windows`.'
        ),
    ]
    platform_os: Annotated[
        str,
        Field(
            alias='platformOs',
            description='Operating system: `linux`, `macos` or `windows`.',
        ),
    ]
    user_agent: Annotated[
        str,
        Field(
            alias='userAgent',
            description='`<clientInfo.name>/<protocol version> (<os> <os version>; <arch>) tandem/<version> (<clientInfo.name>; <clientInfo.version>)`.',
        ),
    ]


class InputModality(str, Enum):
    """
    An input modality.
    """

    text = 'text'
    image = 'image'


class ItemDeltaNotification(BaseModel):
    """
    Text deltas of an item (`item/agentMessage/delta`, `item/commandExecution/outputDelta`).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    delta: Annotated[str, Field(description='The text to append.')]
    item_id: Annotated[str, Field(alias='itemId', description='The item.')]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class JSONRPCErrorError(BaseModel):
    """
    The `error` member of a failed reply.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    code: Annotated[
        int,
        Field(
            description='Error code; `-32600` for every request-level error, `-32603` for internal failures,\n`-32001` when the server is overloaded.'
        ),
    ]
    data: Annotated[Any | None, Field(description='Optional structured detail.')] = None
    message: Annotated[
        str, Field(description='Human-readable description of the error.')
    ]


class JSONRPCNotification(BaseModel):
    """
    A notification: a message without an id that gets no reply.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    method: Annotated[
        str, Field(description='The notification method, such as `turn/started`.')
    ]
    params: Annotated[Any | None, Field(description='Notification parameters.')] = None


class MessagePhase(str, Enum):
    """
    Whether agent text is commentary, a partial answer or the final answer.
    """

    commentary = 'commentary'
    partial_answer = 'partial_answer'
    final_answer = 'final_answer'


class ModeKind(str, Enum):
    """
    The kind of collaboration mode.
    """

    plan = 'plan'
    default = 'default'


class ModelAvailabilityNux(BaseModel):
    """
    An availability notice for a model.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    message: Annotated[str, Field(description='The notice.')]


class ModelListParams(BaseModel):
    """
    Parameters of `model/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cursor: Annotated[
        str | None, Field(description='Opaque cursor (a stringified offset).')
    ] = None
    include_hidden: Annotated[
        bool | None, Field(alias='includeHidden', description='Include hidden models.')
    ] = None
    limit: Annotated[int | None, Field(description='Page size.', ge=0)] = None
    model_provider: Annotated[
        str | None,
        Field(
            alias='modelProvider',
            description="List this provider's models instead of the configured one's.",
        ),
    ] = None


class ModelServiceTier(BaseModel):
    """
    A service tier of a model.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    description: Annotated[str, Field(description='Description.')]
    id: Annotated[str, Field(description='Tier id.')]
    name: Annotated[str, Field(description='Display name.')]


class NetworkAccess(str, Enum):
    """
    Network access for an externally sandboxed process.
    """

    restricted = 'restricted'
    enabled = 'enabled'


class PatchApplyStatus(str, Enum):
    """
    Lifecycle status of a file-change item.
    """

    in_progress = 'inProgress'
    completed = 'completed'
    failed = 'failed'
    declined = 'declined'


class PatchChangeKindAdd(BaseModel):
    """
    A new file.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['add'] = 'add'


class PatchChangeKindDelete(BaseModel):
    """
    A removed file.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['delete'] = 'delete'


class PatchChangeKindUpdate(BaseModel):
    """
    An edited file, possibly moved.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    move_path: Annotated[
        str | None,
        Field(description='New path when the file is moved (snake_case on the wire).'),
    ] = None
    type: Literal['update'] = 'update'


class Personality(str, Enum):
    """
    Deprecated personality setting; accepted and echoed, with no effect on style.
    """

    none = 'none'
    friendly = 'friendly'
    pragmatic = 'pragmatic'


class ReasoningEffort(str, Enum):
    """
    How hard the model should think.
    """

    none = 'none'
    minimal = 'minimal'
    low = 'low'
    medium = 'medium'
    high = 'high'
    xhigh = 'xhigh'
    max = 'max'
    ultra = 'ultra'


class ReasoningEffortOption(BaseModel):
    """
    A reasoning effort with its description.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    description: Annotated[str, Field(description='What it means.')]
    reasoning_effort: Annotated[
        ReasoningEffort, Field(alias='reasoningEffort', description='The effort.')
    ]


class ReasoningSummary(str, Enum):
    """
    How the model's reasoning is summarised.
    """

    auto = 'auto'
    concise = 'concise'
    detailed = 'detailed'
    none = 'none'


class ReasoningSummaryPartAddedNotification(BaseModel):
    """
    `item/reasoning/summaryPartAdded`: a new summary part begins.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    item_id: Annotated[str, Field(alias='itemId', description='The reasoning item.')]
    summary_index: Annotated[
        int, Field(alias='summaryIndex', description='Index of the new part.')
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class ReasoningSummaryTextDeltaNotification(BaseModel):
    """
    `item/reasoning/summaryTextDelta`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    delta: Annotated[str, Field(description='The text to append.')]
    item_id: Annotated[str, Field(alias='itemId', description='The reasoning item.')]
    summary_index: Annotated[
        int,
        Field(alias='summaryIndex', description='Which summary part it belongs to.'),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class ReasoningTextDeltaNotification(BaseModel):
    """
    `item/reasoning/textDelta`: raw reasoning text.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    content_index: Annotated[
        int,
        Field(alias='contentIndex', description='Which content part it belongs to.'),
    ]
    delta: Annotated[str, Field(description='The text to append.')]
    item_id: Annotated[str, Field(alias='itemId', description='The reasoning item.')]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class SandboxMode(str, Enum):
    """
    Sandbox mode chosen for a thread (`thread/start.sandbox`); kebab-case on the wire.
    """

    read_only = 'read-only'
    workspace_write = 'workspace-write'
    danger_full_access = 'danger-full-access'


class SandboxPolicyDangerFullAccess(BaseModel):
    """
    No sandbox: commands can read and write anything and use the network.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['dangerFullAccess'] = 'dangerFullAccess'


class SandboxPolicyReadOnly(BaseModel):
    """
    Read anywhere, write nowhere.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    network_access: Annotated[
        bool | None,
        Field(
            alias='networkAccess', description='Whether commands may use the network.'
        ),
    ] = None
    type: Literal['readOnly'] = 'readOnly'


class SandboxPolicyExternalSandbox(BaseModel):
    """
    The process is already sandboxed by its host.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    network_access: Annotated[
        NetworkAccess | None,
        Field(
            alias='networkAccess',
            description='Network access granted by the host sandbox.',
        ),
    ] = None
    type: Literal['externalSandbox'] = 'externalSandbox'


class SandboxPolicyWorkspaceWrite(BaseModel):
    """
    Write inside the workspace (cwd) and the writable roots; `.git` stays read-only.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    exclude_slash_tmp: Annotated[
        bool | None,
        Field(alias='excludeSlashTmp', description='Do not make `/tmp` writable.'),
    ] = None
    exclude_tmpdir_env_var: Annotated[
        bool | None,
        Field(
            alias='excludeTmpdirEnvVar', description='Do not make `$TMPDIR` writable.'
        ),
    ] = None
    network_access: Annotated[
        bool | None,
        Field(
            alias='networkAccess', description='Whether commands may use the network.'
        ),
    ] = None
    type: Literal['workspaceWrite'] = 'workspaceWrite'
    writable_roots: Annotated[
        list[str] | None,
        Field(
            alias='writableRoots',
            description='Extra absolute directories that commands may write to.',
        ),
    ] = None


class ServerRequestResolvedNotification(BaseModel):
    """
    `serverRequest/resolved`: a server request was answered or cleaned up.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    request_id: Annotated[
        str | int, Field(alias='requestId', description='Id of the server request.')
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class SessionSourceCustom(BaseModel):
    """
    A custom origin label.
    """

    model_config = ConfigDict(
        extra='forbid',
        populate_by_name=True,
    )
    custom: str


class SortDirection(str, Enum):
    """
    Sort direction for paginated lists.
    """

    asc = 'asc'
    desc = 'desc'


class TextElement(BaseModel):
    """
    A range of a text input that stands for a UI element.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    byte_range: Annotated[
        ByteRange, Field(alias='byteRange', description='Byte range in the text.')
    ]
    placeholder: Annotated[
        str | None, Field(description='Placeholder shown for the element.')
    ] = None


class ThreadActiveFlag(str, Enum):
    """
    What an active thread is waiting for.
    """

    waiting_on_approval = 'waitingOnApproval'
    waiting_on_user_input = 'waitingOnUserInput'


class ThreadEnvironment(BaseModel):
    """
    An execution environment of a thread. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cwd: Annotated[str, Field(description='Working directory in this environment.')]
    environment_id: Annotated[
        str, Field(alias='environmentId', description='Environment id (`local`).')
    ]
    runtime_workspace_roots: Annotated[
        list[str],
        Field(
            alias='runtimeWorkspaceRoots',
            description='Workspace roots visible at runtime.',
        ),
    ]


class ThreadForkParams(BaseModel):
    """
    Parameters of `thread/fork`: copy a stored thread's history into a new thread.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    approval_policy: Annotated[
        AskForApproval | None,
        Field(alias='approvalPolicy', description='Approval-policy override.'),
    ] = None
    approvals_reviewer: Annotated[
        ApprovalsReviewer | None,
        Field(
            alias='approvalsReviewer',
            description='Reviewer override. Stored and echoed; approvals still go to the client whatever it\nsays.',
        ),
    ] = None
    base_instructions: Annotated[
        str | None,
        Field(alias='baseInstructions', description='Base-instructions override.'),
    ] = None
    config: Annotated[dict[str, Any] | None, Field(description='Config overrides.')] = (
        None
    )
    cwd: Annotated[str | None, Field(description='Working-directory override.')] = None
    developer_instructions: Annotated[
        str | None,
        Field(
            alias='developerInstructions',
            description='Developer-instructions override.',
        ),
    ] = None
    ephemeral: Annotated[
        bool | None,
        Field(description='Make the fork ephemeral (requires `excludeTurns: true`).'),
    ] = None
    exclude_turns: Annotated[
        bool | None,
        Field(alias='excludeTurns', description='Leave `thread.turns` empty.'),
    ] = None
    last_turn_id: Annotated[
        str | None,
        Field(
            alias='lastTurnId',
            description='Fork after this turn (default: after the last turn).',
        ),
    ] = None
    model: Annotated[str | None, Field(description='Model override.')] = None
    model_provider: Annotated[
        str | None, Field(alias='modelProvider', description='Model provider override.')
    ] = None
    sandbox: Annotated[SandboxMode | None, Field(description='Sandbox override.')] = (
        None
    )
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='Service-tier override. Accepted and echoed, but never sent to the provider, so it has\nno effect.',
        ),
    ] = None
    thread_id: Annotated[str, Field(alias='threadId', description='Thread to fork.')]
    thread_source: Annotated[
        str | None,
        Field(
            alias='threadSource',
            description='Free-form label stored as `thread.threadSource`.',
        ),
    ] = None


class ThreadHistoryMode(str, Enum):
    """
    How a thread's history is stored.
    """

    legacy = 'legacy'
    paginated = 'paginated'


class ThreadIdNotification(BaseModel):
    """
    Notifications that only name a thread (`thread/archived`, `thread/unarchived`,
    `thread/closed`, `thread/goal/cleared`).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class ThreadIdParams(BaseModel):
    """
    Parameters of `thread/archive`, `thread/unarchive` and `thread/unsubscribe`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class ThreadItemAgentMessage(BaseModel):
    """
    A message from the agent; its text streams as `item/agentMessage/delta`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    delivery: Annotated[
        str | None, Field(description='Delivery mode; always `null` in Tandem.')
    ] = None
    id: Annotated[
        str,
        Field(
            description='Item id, as given by the model stream (for example `msg_2`).'
        ),
    ]
    memory_citation: Annotated[
        Any,
        Field(
            alias='memoryCitation',
            description='Memory citation; always `null` in Tandem.',
        ),
    ] = None
    moderation: Annotated[
        Any, Field(description='Moderation result; always `null` in Tandem.')
    ] = None
    phase: Annotated[
        MessagePhase | None,
        Field(
            description='Whether this is commentary or the final answer, when the model says so.'
        ),
    ] = None
    questions: Annotated[
        Any,
        Field(
            description='Questions attached to the message; always `null` in Tandem.'
        ),
    ] = None
    text: Annotated[
        str, Field(description='The full text so far (`""` in `item/started`).')
    ]
    type: Literal['agentMessage'] = 'agentMessage'


class ThreadItemPlan(BaseModel):
    """
    The agent's plan as text.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    id: Annotated[str, Field(description='Item id.')]
    text: Annotated[str, Field(description='The plan.')]
    type: Literal['plan'] = 'plan'


class ThreadItemReasoning(BaseModel):
    """
    The model's reasoning: summary parts and raw reasoning text.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    content: Annotated[
        list[str],
        Field(description='Raw reasoning parts (`item/reasoning/textDelta`).'),
    ] = []
    id: Annotated[
        str,
        Field(
            description='Item id, as given by the model stream (for example `rs_8`).'
        ),
    ]
    summary: Annotated[
        list[str],
        Field(description='Summary parts (`item/reasoning/summaryTextDelta`).'),
    ] = []
    type: Literal['reasoning'] = 'reasoning'


class ThreadItemCommandExecution(BaseModel):
    """
    A shell command run by the agent.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    aggregated_output: Annotated[
        str | None,
        Field(
            alias='aggregatedOutput',
            description='stdout and stderr interleaved; `null` until the command ran.',
        ),
    ] = None
    command: Annotated[
        str, Field(description="The command, shell-joined (`/bin/bash -c '…'`).")
    ]
    command_actions: Annotated[
        list[CommandActionRead | CommandActionListFiles | CommandActionSearch | CommandActionUnknown],
        Field(
            alias='commandActions',
            description='What the command does, as far as it could be parsed.',
        ),
    ]
    cwd: Annotated[str, Field(description='Working directory (absolute).')]
    duration_ms: Annotated[
        int | None,
        Field(
            alias='durationMs',
            description='Run time in milliseconds; `null` until the command ran.',
        ),
    ] = None
    exit_code: Annotated[
        int | None,
        Field(alias='exitCode', description='Exit code; `null` until the command ran.'),
    ] = None
    id: Annotated[str, Field(description="Item id: the model's `call_id`.")]
    plugin_id: Annotated[
        str | None,
        Field(
            alias='pluginId',
            description='Plugin that ran the command; always `null` in Tandem.',
        ),
    ] = None
    process_id: Annotated[
        str | None,
        Field(alias='processId', description='Process id once the command runs.'),
    ] = None
    script_path: Annotated[
        str | None,
        Field(alias='scriptPath', description='Script path; always `null` in Tandem.'),
    ] = None
    source: Annotated[
        CommandExecutionSource, Field(description='What started the command.')
    ] = CommandExecutionSource.agent
    status: Annotated[CommandExecutionStatus, Field(description='Lifecycle status.')]
    type: Literal['commandExecution'] = 'commandExecution'


class ThreadItemDynamicToolCall(BaseModel):
    """
    A tool call answered by the server itself rather than by a command or a patch: Tandem's
    `query_project` (the project index). Its output reaches the model as the text of
    `contentItems`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    arguments: Annotated[
        Any,
        Field(
            description='The arguments as the model sent them (`null` when they were not valid JSON).'
        ),
    ]
    content_items: Annotated[
        list[DynamicToolCallOutputContentItem] | None,
        Field(
            alias='contentItems',
            description='What the tool returned to the model; `null` while in progress.',
        ),
    ] = None
    duration_ms: Annotated[
        int | None,
        Field(
            alias='durationMs',
            description='Run time in milliseconds; `null` while in progress.',
        ),
    ] = None
    id: Annotated[str, Field(description="Item id: the model's `call_id`.")]
    namespace: Annotated[
        str | None, Field(description='Tool namespace; always `null` in Tandem.')
    ] = None
    status: Annotated[DynamicToolCallStatus, Field(description='Lifecycle status.')]
    success: Annotated[
        bool | None,
        Field(description='Whether the call succeeded; `null` while in progress.'),
    ] = None
    tool: Annotated[str, Field(description='Tool name, as the model called it.')]
    type: Literal['dynamicToolCall'] = 'dynamicToolCall'


class ThreadItemImageView(BaseModel):
    """
    The agent looked at an image.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    id: Annotated[str, Field(description='Item id.')]
    path: Annotated[str, Field(description='Absolute path of the image.')]
    type: Literal['imageView'] = 'imageView'


class ThreadItemContextCompaction(BaseModel):
    """
    The conversation history was compacted.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    id: Annotated[str, Field(description='Item id.')]
    type: Literal['contextCompaction'] = 'contextCompaction'


class ThreadLoadedListParams(BaseModel):
    """
    Parameters of `thread/loaded/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cursor: Annotated[
        str | None, Field(description='Opaque cursor from a previous page.')
    ] = None
    limit: Annotated[int | None, Field(description='Page size.', ge=0)] = None


class ThreadLoadedListResponse(BaseModel):
    """
    Result of `thread/loaded/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    data: Annotated[
        list[str], Field(description='Ids of the threads loaded in this server.')
    ]
    next_cursor: Annotated[
        str | None,
        Field(
            alias='nextCursor',
            description='Cursor of the next page; `null` on the last page.',
        ),
    ] = None


class ThreadNameUpdatedNotification(BaseModel):
    """
    `thread/name/updated`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    thread_name: Annotated[
        str | None, Field(alias='threadName', description='Its new name.')
    ] = None


class ThreadReadParams(BaseModel):
    """
    Parameters of `thread/read`: a thread's metadata (and turns) without loading it.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    include_turns: Annotated[
        bool | None,
        Field(alias='includeTurns', description='Fill `thread.turns` (every item).'),
    ] = None
    thread_id: Annotated[str, Field(alias='threadId', description='Thread to read.')]


class ThreadResumeParams(BaseModel):
    """
    Parameters of `thread/resume`: load a stored thread and subscribe to its events.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    approval_policy: Annotated[
        AskForApproval | None,
        Field(alias='approvalPolicy', description='Approval-policy override.'),
    ] = None
    approvals_reviewer: Annotated[
        ApprovalsReviewer | None,
        Field(
            alias='approvalsReviewer',
            description='Reviewer override. Stored and echoed; approvals still go to the client whatever it\nsays.',
        ),
    ] = None
    base_instructions: Annotated[
        str | None,
        Field(alias='baseInstructions', description='Base-instructions override.'),
    ] = None
    config: Annotated[dict[str, Any] | None, Field(description='Config overrides.')] = (
        None
    )
    cwd: Annotated[str | None, Field(description='Working-directory override.')] = None
    developer_instructions: Annotated[
        str | None,
        Field(
            alias='developerInstructions',
            description='Developer-instructions override.',
        ),
    ] = None
    exclude_turns: Annotated[
        bool | None,
        Field(
            alias='excludeTurns',
            description='Leave `thread.turns` empty (page with `thread/turns/list` instead).',
        ),
    ] = None
    model: Annotated[str | None, Field(description='Model override.')] = None
    model_provider: Annotated[
        str | None, Field(alias='modelProvider', description='Model provider override.')
    ] = None
    personality: Annotated[
        Personality | None, Field(description='Deprecated; accepted and ignored.')
    ] = None
    sandbox: Annotated[SandboxMode | None, Field(description='Sandbox override.')] = (
        None
    )
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='Service-tier override. Accepted and echoed, but never sent to the provider, so it has\nno effect.',
        ),
    ] = None
    thread_id: Annotated[str, Field(alias='threadId', description='Thread to resume.')]


class ThreadSetNameParams(BaseModel):
    """
    Parameters of `thread/name/set`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    name: Annotated[str, Field(description='New name; must not be empty.')]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class ThreadSortKey(str, Enum):
    """
    Sort key of `thread/list` (snake_case on the wire).
    """

    created_at = 'created_at'
    updated_at = 'updated_at'


class ThreadSourceKind(str, Enum):
    """
    Source kinds for filtering `thread/list`.
    """

    cli = 'cli'
    vscode = 'vscode'
    exec = 'exec'
    app_server = 'appServer'
    sub_agent = 'subAgent'
    sub_agent_review = 'subAgentReview'
    sub_agent_compact = 'subAgentCompact'
    sub_agent_thread_spawn = 'subAgentThreadSpawn'
    sub_agent_other = 'subAgentOther'
    unknown = 'unknown'


class ThreadStartSource(str, Enum):
    """
    Why a session started.
    """

    startup = 'startup'
    clear = 'clear'


class ThreadStatusNotLoaded(BaseModel):
    """
    Stored on disk but not loaded in this server.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['notLoaded'] = 'notLoaded'


class ThreadStatusIdle(BaseModel):
    """
    Loaded, no turn running.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['idle'] = 'idle'


class ThreadStatusSystemError(BaseModel):
    """
    The last turn failed; stays until the next turn starts.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    type: Literal['systemError'] = 'systemError'


class ThreadStatusActive(BaseModel):
    """
    A turn is running.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    active_flags: Annotated[
        list[ThreadActiveFlag],
        Field(
            alias='activeFlags',
            description='What the running turn is waiting for, if anything.',
        ),
    ]
    type: Literal['active'] = 'active'


class ThreadStatusChangedNotification(BaseModel):
    """
    `thread/status/changed`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    status: Annotated[
        ThreadStatusNotLoaded | ThreadStatusIdle | ThreadStatusSystemError | ThreadStatusActive,
        Field(description='Its new status.'),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class ThreadUnsubscribeStatus(str, Enum):
    """
    Outcome of `thread/unsubscribe`.
    """

    unsubscribed = 'unsubscribed'
    not_subscribed = 'notSubscribed'
    not_loaded = 'notLoaded'


class TokenUsageBreakdown(BaseModel):
    """
    Token counts.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cache_write_input_tokens: Annotated[
        int,
        Field(
            alias='cacheWriteInputTokens', description='Prompt tokens written to cache.'
        ),
    ] = 0
    cached_input_tokens: Annotated[
        int,
        Field(
            alias='cachedInputTokens', description='Prompt tokens served from cache.'
        ),
    ]
    input_tokens: Annotated[
        int, Field(alias='inputTokens', description='Prompt tokens.')
    ]
    output_tokens: Annotated[
        int, Field(alias='outputTokens', description='Generated tokens.')
    ]
    reasoning_output_tokens: Annotated[
        int,
        Field(alias='reasoningOutputTokens', description='Generated reasoning tokens.'),
    ]
    total_tokens: Annotated[
        int, Field(alias='totalTokens', description='Input plus output tokens.')
    ]


class ToolRequestUserInputAnswer(BaseModel):
    """
    The answer to one question.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    answers: Annotated[list[str], Field(description='Chosen labels or free-form text.')]


class ToolRequestUserInputOption(BaseModel):
    """
    A choice offered for a question.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    description: Annotated[str, Field(description='What it means.')]
    label: Annotated[str, Field(description='The choice as shown and as answered.')]


class ToolRequestUserInputQuestion(BaseModel):
    """
    One question for the user.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    header: Annotated[str, Field(description='Short header.')]
    id: Annotated[str, Field(description='Question id, the key of its answer.')]
    is_other: Annotated[
        bool,
        Field(
            alias='isOther',
            description='Whether a free-form "other" answer is allowed.',
        ),
    ] = False
    is_secret: Annotated[
        bool,
        Field(
            alias='isSecret',
            description='Whether the answer is secret (do not echo it).',
        ),
    ] = False
    options: Annotated[
        list[ToolRequestUserInputOption] | None, Field(description='Choices, if any.')
    ] = None
    question: Annotated[str, Field(description='The question.')]


class ToolRequestUserInputResponse(BaseModel):
    """
    Answer to `item/tool/requestUserInput`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    answers: Annotated[
        dict[str, ToolRequestUserInputAnswer],
        Field(description='Answers keyed by question id.'),
    ]


class TurnDiffUpdatedNotification(BaseModel):
    """
    `turn/diff/updated`: the aggregated diff of the turn's file changes.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    diff: Annotated[
        str,
        Field(
            description='`git diff`-style unified diff of every file the turn changed.'
        ),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class TurnError(BaseModel):
    """
    Why a turn failed.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    additional_details: Annotated[
        str | None,
        Field(
            alias='additionalDetails',
            description='Extra detail, such as the transport error.',
        ),
    ] = None
    codex_error_info: Annotated[
        Literal['contextWindowExceeded'] | Literal['sessionBudgetExceeded'] | Literal['usageLimitExceeded'] | Literal['rateLimitExceeded'] | Literal['flexUnavailable'] | Literal['serverOverloaded'] | Literal['modelNotFound'] | Literal['policyCapacityUnavailable'] | Literal['inferenceHookDenied'] | Literal['cyberPolicy'] | Literal['misalignmentPolicyViolation'] | Literal['tooManyDenials'] | Literal['internalServerError'] | Literal['unauthorized'] | Literal['badRequest'] | Literal['threadRollbackFailed'] | Literal['sandboxError'] | Literal['other'] | CodexErrorInfoHttpConnectionFailed | CodexErrorInfoResponseStreamConnectionFailed | CodexErrorInfoResponseStreamDisconnected | CodexErrorInfoResponseTooManyFailedAttempts | None,
        Field(alias='codexErrorInfo', description='Machine-readable category.'),
    ] = None
    message: Annotated[str, Field(description='Human-readable description.')]
    misalignment: Annotated[
        Any, Field(description='Misalignment details; always `null` in Tandem.')
    ] = None


class TurnInterruptParams(BaseModel):
    """
    Parameters of `turn/interrupt`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The running turn.')]


class TurnItemsView(str, Enum):
    """
    How much of a turn's item list is included.
    """

    not_loaded = 'notLoaded'
    summary = 'summary'
    full = 'full'


class TurnPlanStepStatus(str, Enum):
    """
    Status of a plan step.
    """

    pending = 'pending'
    in_progress = 'inProgress'
    completed = 'completed'


class TurnStatus(str, Enum):
    """
    Lifecycle status of a turn.
    """

    completed = 'completed'
    interrupted = 'interrupted'
    failed = 'failed'
    in_progress = 'inProgress'


class TurnSteerResponse(BaseModel):
    """
    Result of `turn/steer`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    turn_id: Annotated[str, Field(alias='turnId', description='The running turn.')]


class UserInputText(BaseModel):
    """
    Plain text.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    text: Annotated[str, Field(description='The text.')]
    text_elements: Annotated[
        list[TextElement] | None,
        Field(
            description='Ranges of the text that stand for UI elements (snake_case on the wire).'
        ),
    ] = None
    type: Literal['text'] = 'text'


class UserInputImage(BaseModel):
    """
    An image by URL (including `data:` URLs).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    detail: Annotated[
        ImageDetail | None, Field(description='Requested detail level.')
    ] = None
    type: Literal['image'] = 'image'
    url: Annotated[str, Field(description='The image URL.')]


class UserInputLocalImage(BaseModel):
    """
    An image file on the server's machine.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    detail: Annotated[
        ImageDetail | None, Field(description='Requested detail level.')
    ] = None
    path: Annotated[str, Field(description='Path of the image file.')]
    type: Literal['localImage'] = 'localImage'


class WarningNotification(BaseModel):
    """
    `warning`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    message: Annotated[str, Field(description='The warning.')]
    thread_id: Annotated[
        str | None, Field(alias='threadId', description='The thread concerned, if any.')
    ] = None


class CollaborationModeSettings(BaseModel):
    """
    Settings of a collaboration mode (snake_case on the wire).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    developer_instructions: Annotated[
        str | None, Field(description='Extra developer instructions for this mode.')
    ] = None
    model: Annotated[str, Field(description='Model used in this mode.')]
    reasoning_effort: Annotated[
        ReasoningEffort | None, Field(description='Reasoning effort used in this mode.')
    ] = None


class CommandExecOutputDeltaNotification(BaseModel):
    """
    `command/exec/outputDelta`: a chunk of a streaming `command/exec`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cap_reached: Annotated[
        bool,
        Field(
            alias='capReached',
            description='Whether the output cap was reached (later output is dropped).',
        ),
    ]
    delta_base64: Annotated[
        str, Field(alias='deltaBase64', description='The bytes, base64-encoded.')
    ]
    process_id: Annotated[
        str, Field(alias='processId', description="The command's `processId`.")
    ]
    stream: Annotated[CommandExecOutputStream, Field(description='Which stream.')]


class CommandExecParams(BaseModel):
    """
    Parameters of `command/exec`: run an argv vector without a thread or turn.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    command: Annotated[
        list[str], Field(description='The argv vector; must not be empty.')
    ]
    cwd: Annotated[str | None, Field(description='Working directory.')] = None
    disable_output_cap: Annotated[
        bool | None,
        Field(alias='disableOutputCap', description='Disable the output cap.'),
    ] = None
    disable_timeout: Annotated[
        bool | None, Field(alias='disableTimeout', description='Disable the timeout.')
    ] = None
    env: Annotated[
        dict[str, Any] | None,
        Field(description='Environment changes; `null` removes a variable.'),
    ] = None
    output_bytes_cap: Annotated[
        int | None,
        Field(
            alias='outputBytesCap',
            description='Cap on buffered output bytes per stream.',
            ge=0,
        ),
    ] = None
    process_id: Annotated[
        str | None,
        Field(
            alias='processId',
            description='Client-chosen id, required for `tty` and streaming, used by write/resize/terminate.',
        ),
    ] = None
    sandbox_policy: Annotated[
        SandboxPolicyDangerFullAccess | SandboxPolicyReadOnly | SandboxPolicyExternalSandbox | SandboxPolicyWorkspaceWrite | None,
        Field(
            alias='sandboxPolicy',
            description='Sandbox for the command (default: the configured sandbox).',
        ),
    ] = None
    size: Annotated[
        CommandExecTerminalSize | None,
        Field(description='Initial terminal size for `tty`.'),
    ] = None
    stream_stdin: Annotated[
        bool | None,
        Field(
            alias='streamStdin',
            description='Accept stdin through `command/exec/write`.',
        ),
    ] = None
    stream_stdout_stderr: Annotated[
        bool | None,
        Field(
            alias='streamStdoutStderr',
            description='Stream output as `command/exec/outputDelta` instead of buffering it.',
        ),
    ] = None
    timeout_ms: Annotated[
        int | None,
        Field(
            alias='timeoutMs',
            description='Timeout in milliseconds; on timeout the exit code is 124.',
        ),
    ] = None
    tty: Annotated[bool | None, Field(description='Run in a pseudo-terminal.')] = None


class CommandExecResizeParams(BaseModel):
    """
    Parameters of `command/exec/resize`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    process_id: Annotated[
        str, Field(alias='processId', description="The command's `processId`.")
    ]
    size: Annotated[CommandExecTerminalSize, Field(description='New terminal size.')]


class ConfigLayer(BaseModel):
    """
    One config layer with its raw values.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    config: Annotated[Any, Field(description="The layer's values, as JSON.")]
    name: Annotated[
        ConfigLayerSourceUser | ConfigLayerSourceSessionFlags | ConfigLayerSourceDefault,
        Field(description='Which layer.'),
    ]
    version: Annotated[str, Field(description='Content hash of the layer.')]


class ConfigLayerMetadata(BaseModel):
    """
    Identification of a config layer.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    name: Annotated[
        ConfigLayerSourceUser | ConfigLayerSourceSessionFlags | ConfigLayerSourceDefault,
        Field(description='Which layer.'),
    ]
    version: Annotated[
        str, Field(description='Content hash of the layer (`fnv1a64:…`).')
    ]


class ConfigReadResponse(BaseModel):
    """
    Result of `config/read`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    config: Annotated[
        Any,
        Field(description='The effective config with its snake_case config.toml keys.'),
    ]
    layers: Annotated[
        list[ConfigLayer] | None,
        Field(
            description='Each layer, lowest precedence first; omitted unless `includeLayers`.'
        ),
    ] = None
    origins: Annotated[
        dict[str, ConfigLayerMetadata],
        Field(description="Where each dotted key's value came from."),
    ]


class ErrorNotification(BaseModel):
    """
    `error`: a turn hit an error (before its failing `turn/completed`, or while retrying).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    error: Annotated[TurnError, Field(description='What went wrong.')]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]
    will_retry: Annotated[
        bool, Field(alias='willRetry', description='Whether the server retries.')
    ]


class FileUpdateChange(BaseModel):
    """
    The change to one file.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    diff: Annotated[
        str,
        Field(
            description='For `add` the new content, for `delete` the old content, for `update` a unified hunk.'
        ),
    ]
    kind: Annotated[
        PatchChangeKindAdd | PatchChangeKindDelete | PatchChangeKindUpdate,
        Field(description='Add, delete or update.'),
    ]
    path: Annotated[str, Field(description='Absolute path of the file.')]


class FuzzyFileSearchResponse(BaseModel):
    """
    Result of `fuzzyFileSearch`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    files: Annotated[
        list[FuzzyFileSearchResult], Field(description='Matches, best first.')
    ]


class HistoryOpenResponse(BaseModel):
    """
    Result of `history/open`. A missing event is a result with `found: false`, not an error.
    @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    after: Annotated[
        int | None, Field(description='The effective `after`; `null` when not found.')
    ] = None
    before: Annotated[
        int | None, Field(description='The effective `before`; `null` when not found.')
    ] = None
    event_order: Annotated[
        int | None,
        Field(
            alias='eventOrder',
            description="The target's position; `null` when not found.",
        ),
    ] = None
    event_uid: Annotated[
        str, Field(alias='eventUid', description='The requested event id.')
    ]
    events: Annotated[
        list[HistoryWindowEvent],
        Field(description='The window in conversation order (empty when not found).'),
    ]
    found: Annotated[bool, Field(description='Whether the event exists.')]
    session_id: Annotated[
        str | None,
        Field(
            alias='sessionId',
            description="The target's session; `null` when not found.",
        ),
    ] = None
    turn_seq: Annotated[
        int | None,
        Field(
            alias='turnSeq',
            description="The target's turn number; `null` when not found.",
        ),
    ] = None


class IndexEmbeddingStatus(BaseModel):
    """
    Whether embedding-backed ranking is active. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    detail: Annotated[
        str | None,
        Field(
            description="Details of the reason (the missing variable, file or the provider's error); `null` when\nready."
        ),
    ] = None
    mode_used: Annotated[
        IndexEmbeddingMode,
        Field(alias='modeUsed', description='How embeddings were used.'),
    ]
    ready: Annotated[
        bool,
        Field(
            description='Whether embedding-backed ranking is active for this answer.'
        ),
    ]
    reason: Annotated[
        IndexEmbeddingUnavailable | None,
        Field(
            description='Why not, when not ready and a reason is known; `null` otherwise (also when embeddings\nwere not wanted: `alpha` 0 or model `none`).'
        ),
    ] = None


class IndexProgressNotification(BaseModel):
    """
    Progress of the refresh run by an `index/refresh` or `index/query` request, sent to the
    connection that made it, before its response. Lossy: a slow client may miss some.
    @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    done: Annotated[
        int,
        Field(
            description='Units done in this phase: files found (`scanning`), changed files indexed (`indexing`)\nor chunks embedded (`embedding`).'
        ),
    ]
    phase: Annotated[IndexProgressPhase, Field(description='The phase.')]
    repo_root: Annotated[
        str,
        Field(
            alias='repoRoot',
            description="The repository being refreshed, as the request named it (resolved against the server's\nworking directory, not canonicalised).",
        ),
    ]
    total: Annotated[
        int | None,
        Field(
            description='Units of this phase in all; `null` while scanning, whose total is not known in advance.'
        ),
    ] = None


class IndexQueryResponse(BaseModel):
    """
    Result of `index/query`: the index was refreshed incrementally first. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    alpha: Annotated[float, Field(description='The effective blend.')]
    embedding_model: Annotated[
        str,
        Field(alias='embeddingModel', description='The embedding model of this call.'),
    ]
    embedding_status: Annotated[
        IndexEmbeddingStatus,
        Field(
            alias='embeddingStatus',
            description='Whether embeddings ranked this answer, and why not.',
        ),
    ]
    limit: Annotated[int, Field(description='The effective limit.')]
    query: Annotated[str, Field(description='The trimmed query.')]
    refresh: Annotated[
        IndexRefreshStats, Field(description='What the refresh before the answer did.')
    ]
    repo_root: Annotated[
        str, Field(alias='repoRoot', description='The canonical repository root.')
    ]
    results: Annotated[
        list[IndexQueryResult], Field(description='Ranked snippets, best first.')
    ]


class IndexRefreshResponse(BaseModel):
    """
    Result of `index/refresh`. @experimental
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    embedding_status: Annotated[
        IndexEmbeddingStatus,
        Field(
            alias='embeddingStatus',
            description='Whether every chunk has an embedding, and why not.',
        ),
    ]
    repo_root: Annotated[
        str, Field(alias='repoRoot', description='The canonical repository root.')
    ]
    stats: Annotated[IndexRefreshStats, Field(description='What the refresh did.')]


class JSONRPCError(BaseModel):
    """
    A failed reply to a request.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    error: Annotated[JSONRPCErrorError, Field(description='What went wrong.')]
    id: Annotated[str | int, Field(description='The id of the request this answers.')]


class JSONRPCRequest(BaseModel):
    """
    A request whose method has not been decoded yet.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    id: Annotated[
        str | int, Field(description='The request id, echoed in the response.')
    ]
    method: Annotated[
        str, Field(description='The method name, such as `thread/start`.')
    ]
    params: Annotated[
        Any | None,
        Field(
            description='Method parameters; required (possibly `{}`) for methods whose params are a struct.'
        ),
    ] = None


class JSONRPCResponse(BaseModel):
    """
    A successful reply to a request.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    id: Annotated[str | int, Field(description='The id of the request this answers.')]
    result: Annotated[Any, Field(description="The method's result.")]


class Model(BaseModel):
    """
    A model the client can choose.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    additional_speed_tiers: Annotated[
        list[str], Field(alias='additionalSpeedTiers', description='Extra speed tiers.')
    ] = []
    availability_nux: Annotated[
        ModelAvailabilityNux | None,
        Field(alias='availabilityNux', description='Availability notice.'),
    ] = None
    available_access_programs: Annotated[
        Any,
        Field(
            alias='availableAccessPrograms',
            description='Access programs; always `null` in Tandem.',
        ),
    ] = None
    default_reasoning_effort: Annotated[
        ReasoningEffort,
        Field(alias='defaultReasoningEffort', description='Default reasoning effort.'),
    ]
    default_service_tier: Annotated[
        str | None,
        Field(alias='defaultServiceTier', description='Default service tier.'),
    ] = None
    description: Annotated[str, Field(description='Short description.')]
    display_name: Annotated[
        str, Field(alias='displayName', description='Display name.')
    ]
    hidden: Annotated[
        bool, Field(description='Hidden models are listed only with `includeHidden`.')
    ]
    id: Annotated[str, Field(description='Model id.')]
    input_modalities: Annotated[
        list[InputModality],
        Field(
            alias='inputModalities', description='Input modalities (`text`, `image`).'
        ),
    ] = []
    is_default: Annotated[
        bool, Field(alias='isDefault', description='Whether this is the default model.')
    ]
    model: Annotated[str, Field(description='Model slug sent to the provider.')]
    model_specialty: Annotated[
        str | None, Field(alias='modelSpecialty', description='Specialty label.')
    ] = None
    multi_agent_version: Annotated[
        str | None,
        Field(alias='multiAgentVersion', description='Multi-agent protocol version.'),
    ] = None
    service_tiers: Annotated[
        list[ModelServiceTier],
        Field(
            alias='serviceTiers', description='Service tiers.', validate_default=True
        ),
    ] = []
    supported_reasoning_efforts: Annotated[
        list[ReasoningEffortOption],
        Field(
            alias='supportedReasoningEfforts',
            description='Reasoning efforts the model supports.',
        ),
    ]
    supports_personality: Annotated[
        bool,
        Field(
            alias='supportsPersonality',
            description='Whether personalities are supported.',
        ),
    ] = False
    upgrade: Annotated[
        str | None, Field(description='Slug of the model this one upgrades to.')
    ] = None
    upgrade_info: Annotated[
        Any,
        Field(
            alias='upgradeInfo', description='Upgrade details; always `null` in Tandem.'
        ),
    ] = None


class ModelListResponse(BaseModel):
    """
    Result of `model/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    data: Annotated[list[Model], Field(description='One page of models.')]
    next_cursor: Annotated[
        str | None,
        Field(
            alias='nextCursor',
            description='Cursor of the next page; `null` on the last page.',
        ),
    ] = None


class ThreadItemUserMessage(BaseModel):
    """
    A message from the user.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    client_id: Annotated[
        str | None,
        Field(
            alias='clientId',
            description='Client-chosen id of the message (`clientUserMessageId`).',
        ),
    ] = None
    content: Annotated[
        list[UserInputText | UserInputImage | UserInputLocalImage],
        Field(description='The inputs, echoed with defaults filled in.'),
    ]
    id: Annotated[str, Field(description='Item id (UUIDv7).')]
    type: Literal['userMessage'] = 'userMessage'


class ThreadItemFileChange(BaseModel):
    """
    A set of file edits (from `apply_patch`).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int | None,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds); `null` while in progress.',
        ),
    ] = None
    started_at_ms: Annotated[
        int | None,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ] = None
    changes: Annotated[list[FileUpdateChange], Field(description='One entry per file.')]
    id: Annotated[str, Field(description="Item id: the model's `call_id`.")]
    status: Annotated[PatchApplyStatus, Field(description='Lifecycle status.')]
    type: Literal['fileChange'] = 'fileChange'


class ThreadListParams(BaseModel):
    """
    Parameters of `thread/list`. Every field is optional.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    archived: Annotated[
        bool | None,
        Field(
            description='`true`: archived threads only; otherwise non-archived only.'
        ),
    ] = None
    cursor: Annotated[
        str | None,
        Field(description="Opaque cursor from a previous page's `nextCursor`."),
    ] = None
    cwd: Annotated[
        str | list[str] | None,
        Field(
            description='Only threads with this working directory (or one of these).'
        ),
    ] = None
    excluded_thread_ids: Annotated[
        list[str] | None,
        Field(alias='excludedThreadIds', description='Threads to leave out.'),
    ] = None
    limit: Annotated[
        int | None,
        Field(description='Page size (at least 1); omitted means every thread.', ge=0),
    ] = None
    model_providers: Annotated[
        list[str] | None,
        Field(alias='modelProviders', description='Only threads of these providers.'),
    ] = None
    originators: Annotated[
        list[str] | None,
        Field(description='Only threads created by these clients (`clientInfo.name`).'),
    ] = None
    search_term: Annotated[
        str | None,
        Field(
            alias='searchTerm',
            description='Case-sensitive substring of the name or preview.',
        ),
    ] = None
    sort_direction: Annotated[
        SortDirection | None,
        Field(
            alias='sortDirection',
            description='Sort direction (default `desc`, newest first).',
        ),
    ] = None
    sort_key: Annotated[
        ThreadSortKey | None,
        Field(alias='sortKey', description='Sort key (default `created_at`).'),
    ] = None
    source_kinds: Annotated[
        list[ThreadSourceKind] | None,
        Field(
            alias='sourceKinds',
            description='Only threads from these sources; omitted or empty means interactive ones (`cli`, `vscode`).',
        ),
    ] = None


class ThreadStartParams(BaseModel):
    """
    Parameters of `thread/start`. Every field is optional.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    approval_policy: Annotated[
        AskForApproval | None,
        Field(alias='approvalPolicy', description='Approval policy for the thread.'),
    ] = None
    approvals_reviewer: Annotated[
        ApprovalsReviewer | None,
        Field(
            alias='approvalsReviewer',
            description='Who reviews approvals. Stored and echoed, but every approval still goes to the client:\nTandem has no automatic reviewer, so `auto_review` has no effect.',
        ),
    ] = None
    base_instructions: Annotated[
        str | None,
        Field(
            alias='baseInstructions',
            description='Replaces the built-in base instructions.',
        ),
    ] = None
    config: Annotated[
        dict[str, Any] | None,
        Field(
            description='Config overrides (dotted keys of config.toml) for this thread.'
        ),
    ] = None
    cwd: Annotated[
        str | None,
        Field(
            description="Working directory; a relative path is resolved against the server's cwd."
        ),
    ] = None
    developer_instructions: Annotated[
        str | None,
        Field(
            alias='developerInstructions', description='Extra developer instructions.'
        ),
    ] = None
    ephemeral: Annotated[
        bool | None, Field(description='Ephemeral threads are never written to disk.')
    ] = None
    model: Annotated[
        str | None, Field(description='Model slug; defaults to the configured model.')
    ] = None
    model_provider: Annotated[
        str | None,
        Field(
            alias='modelProvider',
            description='Model provider id; unknown ids are rejected.',
        ),
    ] = None
    personality: Annotated[
        Personality | None, Field(description='Deprecated; accepted and ignored.')
    ] = None
    sandbox: Annotated[
        SandboxMode | None, Field(description='Sandbox mode for the thread.')
    ] = None
    service_name: Annotated[
        str | None,
        Field(
            alias='serviceName',
            description='Service name. Accepted and ignored: Tandem reports no service name to the provider.',
        ),
    ] = None
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='Service tier. Accepted and echoed in the response, but never sent to the provider:\nTandem has no service tiers, so it has no effect.',
        ),
    ] = None
    session_start_source: Annotated[
        ThreadStartSource | None,
        Field(
            alias='sessionStartSource',
            description='Why the session started. Accepted and ignored.',
        ),
    ] = None
    thread_source: Annotated[
        str | None,
        Field(
            alias='threadSource',
            description='Free-form label stored as `thread.threadSource`.',
        ),
    ] = None


class ThreadTokenUsage(BaseModel):
    """
    Token usage of a thread: cumulative and for the last model response.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    last: Annotated[
        TokenUsageBreakdown, Field(description='Usage of the last model response.')
    ]
    model_context_window: Annotated[
        int | None,
        Field(
            alias='modelContextWindow',
            description="The model's context window in tokens, when known.",
        ),
    ] = None
    total: Annotated[
        TokenUsageBreakdown, Field(description='Cumulative usage over the thread.')
    ]


class ThreadTokenUsageUpdatedNotification(BaseModel):
    """
    `thread/tokenUsage/updated`: sent after each model response.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    token_usage: Annotated[
        ThreadTokenUsage,
        Field(alias='tokenUsage', description='Cumulative and last usage.'),
    ]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class ThreadTurnsListParams(BaseModel):
    """
    Parameters of `thread/turns/list`: a page of a thread's turns.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    cursor: Annotated[
        str | None, Field(description='Opaque cursor from a previous page.')
    ] = None
    items_view: Annotated[
        TurnItemsView | None,
        Field(
            alias='itemsView', description='Which items to include (default `summary`).'
        ),
    ] = None
    limit: Annotated[int | None, Field(description='Page size.', ge=0)] = None
    sort_direction: Annotated[
        SortDirection | None,
        Field(
            alias='sortDirection', description='Order (default `desc`, newest first).'
        ),
    ] = None
    thread_id: Annotated[
        str, Field(alias='threadId', description='Thread whose turns to list.')
    ]


class ThreadUnsubscribeResponse(BaseModel):
    """
    Result of `thread/unsubscribe`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    status: Annotated[ThreadUnsubscribeStatus, Field(description='What happened.')]


class ToolRequestUserInputParams(BaseModel):
    """
    Parameters of `item/tool/requestUserInput`: questions the model asks the user.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    auto_resolution_ms: Annotated[
        int | None,
        Field(
            alias='autoResolutionMs',
            description='Resolve automatically after this many milliseconds; `null` means never.',
            ge=0,
        ),
    ] = None
    is_blocking: Annotated[
        bool,
        Field(alias='isBlocking', description='Whether the turn waits for the answer.'),
    ]
    item_id: Annotated[
        str, Field(alias='itemId', description="The tool call (the model's `call_id`).")
    ]
    questions: Annotated[
        list[ToolRequestUserInputQuestion], Field(description='One to three questions.')
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class Turn(BaseModel):
    """
    One user request and the agent's work on it.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at: Annotated[
        int | None,
        Field(alias='completedAt', description='Completion time (Unix seconds).'),
    ] = None
    duration_ms: Annotated[
        int | None, Field(alias='durationMs', description='Duration in milliseconds.')
    ] = None
    error: Annotated[
        TurnError | None, Field(description='Why the turn failed, for `failed` turns.')
    ] = None
    id: Annotated[str, Field(description='Turn id (UUIDv7).')]
    items: Annotated[
        list[ThreadItemUserMessage | ThreadItemAgentMessage | ThreadItemPlan | ThreadItemReasoning | ThreadItemCommandExecution | ThreadItemFileChange | ThreadItemDynamicToolCall | ThreadItemImageView | ThreadItemContextCompaction],
        Field(description='Items, as far as `itemsView` says they are loaded.'),
    ]
    items_view: Annotated[
        TurnItemsView,
        Field(alias='itemsView', description='How much of `items` is filled in.'),
    ] = TurnItemsView.full
    root_turn_id: Annotated[
        str | None,
        Field(
            alias='rootTurnId',
            description='Id of the root turn; equal to `id` for ordinary turns.',
        ),
    ] = None
    started_at: Annotated[
        int | None,
        Field(
            alias='startedAt',
            description='Start time (Unix seconds); `null` in the `turn/start` response.',
        ),
    ] = None
    status: Annotated[TurnStatus, Field(description='Lifecycle status.')]


class TurnNotification(BaseModel):
    """
    `turn/started` and `turn/completed`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn: Annotated[
        Turn, Field(description='The turn; in `turn/completed`, its final status.')
    ]


class TurnPlanStep(BaseModel):
    """
    One step of a plan.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    status: Annotated[TurnPlanStepStatus, Field(description='How far along it is.')]
    step: Annotated[str, Field(description='What to do.')]


class TurnPlanUpdatedNotification(BaseModel):
    """
    `turn/plan/updated`: the agent's plan changed (`update_plan`).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    explanation: Annotated[str | None, Field(description='Why the plan changed.')] = (
        None
    )
    plan: Annotated[list[TurnPlanStep], Field(description='The steps.')]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class TurnStartResponse(BaseModel):
    """
    Result of `turn/start`: the turn, `inProgress`, before it starts streaming.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    turn: Annotated[
        Turn,
        Field(
            description='The turn (`items: []`, `startedAt: null`); on a busy thread, the running turn.'
        ),
    ]


class TurnSteerParams(BaseModel):
    """
    Parameters of `turn/steer`: add input to the running turn.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    client_user_message_id: Annotated[
        str | None,
        Field(
            alias='clientUserMessageId',
            description="Client-chosen id echoed as the user message's `clientId`.",
        ),
    ] = None
    expected_turn_id: Annotated[
        str,
        Field(
            alias='expectedTurnId',
            description='Id of the turn the client believes is running.',
        ),
    ]
    input: Annotated[
        list[UserInputText | UserInputImage | UserInputLocalImage],
        Field(description='Additional input.'),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]


class CollaborationMode(BaseModel):
    """
    A collaboration mode: `default`, or `plan`, in which the model may ask the user questions.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    mode: Annotated[ModeKind, Field(description='Which mode.')]
    settings: Annotated[
        CollaborationModeSettings, Field(description='Settings applied in this mode.')
    ]


class ItemCompletedNotification(BaseModel):
    """
    `item/completed`: the authoritative final state of an item.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    completed_at_ms: Annotated[
        int,
        Field(
            alias='completedAtMs',
            description='When the item completed (Unix milliseconds).',
        ),
    ]
    content_token_count: Annotated[
        int | None,
        Field(
            alias='contentTokenCount',
            description="Token count of the item's content, when known.",
            ge=0,
        ),
    ] = None
    item: Annotated[
        ThreadItemUserMessage | ThreadItemAgentMessage | ThreadItemPlan | ThreadItemReasoning | ThreadItemCommandExecution | ThreadItemFileChange | ThreadItemDynamicToolCall | ThreadItemImageView | ThreadItemContextCompaction,
        Field(description='The item in its final state.'),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class ItemStartedNotification(BaseModel):
    """
    `item/started`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    item: Annotated[
        ThreadItemUserMessage | ThreadItemAgentMessage | ThreadItemPlan | ThreadItemReasoning | ThreadItemCommandExecution | ThreadItemFileChange | ThreadItemDynamicToolCall | ThreadItemImageView | ThreadItemContextCompaction,
        Field(description='The item in its initial state.'),
    ]
    started_at_ms: Annotated[
        int,
        Field(
            alias='startedAtMs',
            description='When the item started (Unix milliseconds).',
        ),
    ]
    thread_id: Annotated[str, Field(alias='threadId', description='The thread.')]
    turn_id: Annotated[str, Field(alias='turnId', description='The turn.')]


class JSONRPCMessage(
    RootModel[JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError]
):
    root: Annotated[
        JSONRPCRequest | JSONRPCNotification | JSONRPCResponse | JSONRPCError,
        Field(description='Any message on the wire, in either direction.'),
    ]


class Thread(BaseModel):
    """
    A conversation: its metadata, status and (when requested) its turns.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    agent_nickname: Annotated[
        str | None,
        Field(alias='agentNickname', description='Nickname of a sub-agent thread.'),
    ] = None
    agent_role: Annotated[
        str | None, Field(alias='agentRole', description='Role of a sub-agent thread.')
    ] = None
    attached_to_thread_id: Annotated[
        str | None,
        Field(
            alias='attachedToThreadId',
            description='Id of the thread this one is attached to; always `null` in Tandem. @experimental',
        ),
    ] = None
    can_accept_direct_input: Annotated[
        bool | None,
        Field(
            alias='canAcceptDirectInput',
            description='Whether the thread accepts direct input; `null` for listed threads. @experimental',
        ),
    ] = None
    cli_version: Annotated[
        str,
        Field(
            alias='cliVersion',
            description='Version of the server protocol that created the thread.',
        ),
    ]
    created_at: Annotated[
        int, Field(alias='createdAt', description='Creation time (Unix seconds).')
    ]
    cwd: Annotated[str, Field(description='Working directory (absolute).')]
    daybreak_enabled: Annotated[
        bool | None,
        Field(
            alias='daybreakEnabled',
            description='Always `null` in Tandem. @experimental',
        ),
    ] = None
    environments: Annotated[
        list[ThreadEnvironment] | None,
        Field(
            description='Execution environments of a loaded thread; `null` for listed threads. @experimental'
        ),
    ] = None
    ephemeral: Annotated[
        bool,
        Field(
            description='Ephemeral threads are never written to disk and are not listed.'
        ),
    ]
    extra: Annotated[
        Any,
        Field(
            description='Free-form extension data; always `null` in Tandem. @experimental'
        ),
    ] = None
    forked_from_id: Annotated[
        str | None,
        Field(
            alias='forkedFromId',
            description='Id of the thread this one was forked from.',
        ),
    ] = None
    git_info: Annotated[
        GitInfo | None,
        Field(alias='gitInfo', description='Git metadata of the working directory.'),
    ] = None
    history_mode: Annotated[
        ThreadHistoryMode,
        Field(
            alias='historyMode',
            description='How history is stored; new threads are `paginated`.',
        ),
    ] = ThreadHistoryMode.legacy
    id: Annotated[str, Field(description='Thread id (UUIDv7, lowercase, hyphenated).')]
    model: Annotated[str | None, Field(description='Model slug.')] = None
    model_provider: Annotated[
        str,
        Field(
            alias='modelProvider',
            description='Model provider id (a key of `model_providers` in config.toml).',
        ),
    ]
    name: Annotated[
        str | None, Field(description='User-chosen name (`thread/name/set`).')
    ] = None
    originator: Annotated[
        str | None,
        Field(description='`clientInfo.name` of the client that created the thread.'),
    ] = None
    parent_thread_id: Annotated[
        str | None,
        Field(
            alias='parentThreadId',
            description='Id of the parent thread for sub-agent threads; `null` for root threads.',
        ),
    ] = None
    path: Annotated[
        str | None,
        Field(
            description='Absolute path of the rollout file; `null` for ephemeral threads.'
        ),
    ] = None
    preview: Annotated[
        str,
        Field(
            description='The first user message, used as a preview; `""` before the first turn.'
        ),
    ]
    project_id: Annotated[
        str | None,
        Field(alias='projectId', description='Project id; always `null` in Tandem.'),
    ] = None
    reasoning_effort: Annotated[
        ReasoningEffort | None,
        Field(alias='reasoningEffort', description='Reasoning effort in effect.'),
    ] = None
    recency_at: Annotated[
        int | None,
        Field(alias='recencyAt', description='Last activity time (Unix seconds).'),
    ] = None
    section: Annotated[
        Any, Field(description='Sidebar section; always `null` in Tandem.')
    ] = None
    section_entered_at: Annotated[
        int | None,
        Field(
            alias='sectionEnteredAt',
            description='When the thread entered its section (Unix seconds); always `null` in Tandem.',
        ),
    ] = None
    session_id: Annotated[
        str,
        Field(
            alias='sessionId', description='Session id; equal to `id` for root threads.'
        ),
    ]
    source: Annotated[
        Literal['cli'] | Literal['vscode'] | Literal['exec'] | Literal['appServer'] | Literal['unknown'] | SessionSourceCustom,
        Field(
            description='Where the thread was created; `vscode` for every app-server thread.'
        ),
    ]
    status: Annotated[
        ThreadStatusNotLoaded | ThreadStatusIdle | ThreadStatusSystemError | ThreadStatusActive,
        Field(description='Runtime status.'),
    ]
    thread_source: Annotated[
        str | None,
        Field(
            alias='threadSource',
            description='Free-form label of what started the thread.',
        ),
    ] = None
    turns: Annotated[
        list[Turn],
        Field(
            description='Turns; populated only where a method says so (`includeTurns`, resume, fork).'
        ),
    ]
    updated_at: Annotated[
        int, Field(alias='updatedAt', description='Last update time (Unix seconds).')
    ]


class ThreadListResponse(BaseModel):
    """
    Result of `thread/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    backwards_cursor: Annotated[
        str | None,
        Field(
            alias='backwardsCursor', description='Cursor for fetching newer threads.'
        ),
    ] = None
    data: Annotated[
        list[Thread], Field(description='One page of threads, with `turns: []`.')
    ]
    next_cursor: Annotated[
        str | None,
        Field(
            alias='nextCursor',
            description='Cursor of the next page; `null` on the last page.',
        ),
    ] = None
    read_states: Annotated[
        Any,
        Field(
            alias='readStates',
            description='Read state per thread; always `null` in Tandem. @experimental',
        ),
    ] = None


class ThreadReadResponse(BaseModel):
    """
    Result of `thread/read`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread: Annotated[Thread, Field(description='The thread.')]


class ThreadResumeResponse(BaseModel):
    """
    Result of `thread/resume`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    active_permission_profile: Annotated[
        Any,
        Field(
            alias='activePermissionProfile',
            description='Active permission profile; always `null` in Tandem. @experimental',
        ),
    ] = None
    approval_policy: Annotated[
        AskForApproval,
        Field(alias='approvalPolicy', description='Approval policy in effect.'),
    ]
    approvals_reviewer: Annotated[
        ApprovalsReviewer,
        Field(
            alias='approvalsReviewer',
            description='Who reviews approvals, as requested; approvals go to the client whatever it says.',
        ),
    ]
    collaboration_mode: Annotated[
        CollaborationMode | None,
        Field(alias='collaborationMode', description='Collaboration mode in effect.'),
    ] = None
    cwd: Annotated[str, Field(description='Working directory (absolute).')]
    disabled_plugin_ids: Annotated[
        list[str],
        Field(
            alias='disabledPluginIds',
            description='Disabled plugin ids; always empty in Tandem.',
        ),
    ] = []
    initial_turns_page: Annotated[
        Any,
        Field(
            alias='initialTurnsPage',
            description='First page of turns; always `null` in Tandem. @experimental',
        ),
    ] = None
    instruction_sources: Annotated[
        list[str],
        Field(
            alias='instructionSources', description='Files the instructions came from.'
        ),
    ] = []
    items_backwards_cursor: Annotated[
        str | None,
        Field(
            alias='itemsBackwardsCursor', description='Cursor for paging older items.'
        ),
    ] = None
    model: Annotated[str, Field(description='Model in effect.')]
    model_provider: Annotated[
        str, Field(alias='modelProvider', description='Model provider in effect.')
    ]
    multi_agent_mode: Annotated[
        str | None,
        Field(
            alias='multiAgentMode',
            description='Multi-agent mode; always `explicitRequestOnly` in Tandem. @experimental',
        ),
    ] = None
    reasoning_effort: Annotated[
        ReasoningEffort | None,
        Field(alias='reasoningEffort', description='Reasoning effort in effect.'),
    ] = None
    runtime_workspace_roots: Annotated[
        list[str],
        Field(
            alias='runtimeWorkspaceRoots',
            description='Workspace roots visible at runtime (the cwd). @experimental',
        ),
    ] = []
    sandbox: Annotated[
        SandboxPolicyDangerFullAccess | SandboxPolicyReadOnly | SandboxPolicyExternalSandbox | SandboxPolicyWorkspaceWrite,
        Field(description='Sandbox in effect, in object form.'),
    ]
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='The service tier the request named, echoed; Tandem does not send it to the provider.',
        ),
    ] = None
    thread: Annotated[
        Thread,
        Field(description='The resumed thread, with its turns unless `excludeTurns`.'),
    ]
    turns_backwards_cursor: Annotated[
        str | None,
        Field(
            alias='turnsBackwardsCursor',
            description='Cursor for paging older turns with `thread/turns/list`.',
        ),
    ] = None


class ThreadStartResponse(BaseModel):
    """
    Result of `thread/start` (and the base of the resume and fork results).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    active_permission_profile: Annotated[
        Any,
        Field(
            alias='activePermissionProfile',
            description='Active permission profile; always `null` in Tandem. @experimental',
        ),
    ] = None
    approval_policy: Annotated[
        AskForApproval,
        Field(alias='approvalPolicy', description='Approval policy in effect.'),
    ]
    approvals_reviewer: Annotated[
        ApprovalsReviewer,
        Field(
            alias='approvalsReviewer',
            description='Who reviews approvals, as requested; approvals go to the client whatever it says.',
        ),
    ]
    cwd: Annotated[str, Field(description='Working directory (absolute).')]
    disabled_plugin_ids: Annotated[
        list[str],
        Field(
            alias='disabledPluginIds',
            description='Disabled plugin ids; always empty in Tandem.',
        ),
    ] = []
    instruction_sources: Annotated[
        list[str],
        Field(
            alias='instructionSources', description='Files the instructions came from.'
        ),
    ] = []
    model: Annotated[str, Field(description='Model in effect.')]
    model_provider: Annotated[
        str, Field(alias='modelProvider', description='Model provider in effect.')
    ]
    multi_agent_mode: Annotated[
        str | None,
        Field(
            alias='multiAgentMode',
            description='Multi-agent mode; always `explicitRequestOnly` in Tandem. @experimental',
        ),
    ] = None
    reasoning_effort: Annotated[
        ReasoningEffort | None,
        Field(alias='reasoningEffort', description='Reasoning effort in effect.'),
    ] = None
    runtime_workspace_roots: Annotated[
        list[str],
        Field(
            alias='runtimeWorkspaceRoots',
            description='Workspace roots visible at runtime (the cwd). @experimental',
        ),
    ] = []
    sandbox: Annotated[
        SandboxPolicyDangerFullAccess | SandboxPolicyReadOnly | SandboxPolicyExternalSandbox | SandboxPolicyWorkspaceWrite,
        Field(description='Sandbox in effect, in object form.'),
    ]
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='The service tier the request named, echoed; Tandem does not send it to the provider.',
        ),
    ] = None
    thread: Annotated[Thread, Field(description='The new thread.')]


class ThreadStartedNotification(BaseModel):
    """
    `thread/started`: a thread was created (start or fork).
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread: Annotated[Thread, Field(description='The new thread.')]


class ThreadTurnsListResponse(BaseModel):
    """
    Result of `thread/turns/list`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    backwards_cursor: Annotated[
        str | None,
        Field(
            alias='backwardsCursor',
            description='Cursor for paging in the other direction.',
        ),
    ] = None
    data: Annotated[list[Turn], Field(description='One page of turns.')]
    next_cursor: Annotated[
        str | None,
        Field(
            alias='nextCursor',
            description='Cursor of the next page; `null` on the last page.',
        ),
    ] = None


class ThreadUnarchiveResponse(BaseModel):
    """
    Result of `thread/unarchive`.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    thread: Annotated[Thread, Field(description='The restored thread.')]


class TurnStartParams(BaseModel):
    """
    Parameters of `turn/start`. Overrides apply to this turn and persist for later turns,
    except `outputSchema`, which applies to this turn only.
    """

    model_config = ConfigDict(
        extra='allow',
        populate_by_name=True,
    )
    approval_policy: Annotated[
        AskForApproval | None,
        Field(alias='approvalPolicy', description='Approval-policy override.'),
    ] = None
    approvals_reviewer: Annotated[
        ApprovalsReviewer | None,
        Field(
            alias='approvalsReviewer',
            description='Reviewer override. Stored for the thread and echoed; approvals still go to the client\nwhatever it says.',
        ),
    ] = None
    client_user_message_id: Annotated[
        str | None,
        Field(
            alias='clientUserMessageId',
            description="Client-chosen id echoed as the user message's `clientId`.",
        ),
    ] = None
    collaboration_mode: Annotated[
        CollaborationMode | None,
        Field(
            alias='collaborationMode',
            description='Collaboration mode for this and later turns. @experimental',
        ),
    ] = None
    cwd: Annotated[str | None, Field(description='Working-directory override.')] = None
    effort: Annotated[
        ReasoningEffort | None, Field(description='Reasoning-effort override.')
    ] = None
    input: Annotated[
        list[UserInputText | UserInputImage | UserInputLocalImage],
        Field(description="The user's input; `[]` runs a turn without a user message."),
    ]
    model: Annotated[str | None, Field(description='Model override.')] = None
    output_schema: Annotated[
        Any,
        Field(
            alias='outputSchema',
            description='JSON Schema the final answer must follow (this turn only).',
        ),
    ] = None
    personality: Annotated[
        Personality | None, Field(description='Deprecated; accepted and ignored.')
    ] = None
    sandbox_policy: Annotated[
        SandboxPolicyDangerFullAccess | SandboxPolicyReadOnly | SandboxPolicyExternalSandbox | SandboxPolicyWorkspaceWrite | None,
        Field(alias='sandboxPolicy', description='Sandbox override, in object form.'),
    ] = None
    service_tier: Annotated[
        str | None,
        Field(
            alias='serviceTier',
            description='Service-tier override. Accepted and ignored: Tandem has no service tiers.',
        ),
    ] = None
    summary: Annotated[
        ReasoningSummary | None, Field(description='Reasoning-summary override.')
    ] = None
    thread_id: Annotated[
        str, Field(alias='threadId', description='Thread to run the turn on.')
    ]
