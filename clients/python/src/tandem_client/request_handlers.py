"""The typed ``on_*`` registrations of `AppServerClient`: one per server request, each
converting its handler's convenient results (bare decisions, answers, tool output) into the
request's response."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tandem_client.generated import models
from tandem_client.generated.methods import ServerRequests
from tandem_client.method_spec import AnyRequestSpec
from tandem_client.server_requests import (
    ServerRequestHandler,
    decision_result,
    free_text_result,
    permissions_result,
    question_answers_result,
    tool_output_result,
    user_input_result,
)


class TypedServerRequests:
    """Mixin of `AppServerClient`: typed handlers over its ``on_server_request``."""

    if TYPE_CHECKING:

        def on_server_request(self, method: str, handler: ServerRequestHandler[Any]) -> None: ...

    def on_command_approval(self, handler: ServerRequestHandler[models.CommandExecutionRequestApprovalParams]) -> None:
        """Answer ``item/commandExecution/requestApproval``.

        The handler may return a bare decision (``"accept"``, ``"acceptForSession"``,
        ``"decline"``, ``"cancel"``, or a decision object such as
        ``{"acceptWithExecpolicyAmendment": {...}}``) or the whole response.
        """
        self._on_decision(ServerRequests.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL, handler)

    def on_file_change_approval(self, handler: ServerRequestHandler[models.FileChangeRequestApprovalParams]) -> None:
        """Answer ``item/fileChange/requestApproval``; the handler may return a bare decision
        (``"accept"``, ``"acceptForSession"``, ``"decline"``, ``"cancel"``) or the response."""
        self._on_decision(ServerRequests.ITEM_FILE_CHANGE_REQUEST_APPROVAL, handler)

    def on_user_input(self, handler: ServerRequestHandler[models.ToolRequestUserInputParams]) -> None:
        """Answer ``item/tool/requestUserInput`` (experimental: the server sends it only to a
        connection with ``capabilities.experimentalApi`` and a turn in plan collaboration mode).

        The handler gets `models.ToolRequestUserInputParams` (``questions``, each with ``id``,
        ``question`` and ``options``) and returns question id → answer (a string or a list of
        strings), or the whole response (``{"answers": {id: {"answers": [...]}}}`` or a model).
        """
        self.on_server_request(
            ServerRequests.ITEM_TOOL_REQUEST_USER_INPUT.method, _converting(handler, user_input_result)
        )

    def on_tool_user_input(self, handler: ServerRequestHandler[models.UserInputRequestParams]) -> None:
        """Answer ``tool/requestUserInput`` (experimental; sent instead of
        ``item/tool/requestUserInput`` to a connection that set
        ``capabilities.requestUserInputMethod = "tool/requestUserInput"``).

        The handler gets `models.UserInputRequestParams` (``toolCallId`` and ``questions``, each
        ``{text, options, isOther}``) and returns question index → selected label(s), or the whole
        response (``{"answers": [{"questionIndex": 0, "selected": [...]}]}``). Raising answers with
        an error, which the model sees as a failed call.
        """
        self.on_server_request(
            ServerRequests.TOOL_REQUEST_USER_INPUT.method, _converting(handler, question_answers_result)
        )

    def on_agent_user_input(self, handler: ServerRequestHandler[models.AgentRequestUserInputParams]) -> None:
        """Answer ``agent/requestUserInput`` (experimental, plan mode): the model asks for free text.

        The handler gets `models.AgentRequestUserInputParams` (``toolCallId``, ``prompt``) and
        returns the text, or the whole response (``{"userInput": ...}``). Raising cancels.
        """
        self.on_server_request(ServerRequests.AGENT_REQUEST_USER_INPUT.method, _converting(handler, free_text_result))

    def on_ask_user_question(self, handler: ServerRequestHandler[models.AgentAskUserQuestionParams]) -> None:
        """Answer ``agent/askUserQuestion`` (experimental): single- and multi-choice questions.

        The handler gets `models.AgentAskUserQuestionParams` (``questions``, each
        ``{type, text, options, allowOther}``) and returns question index → selected label(s),
        or the whole response. Raising cancels the question; the model sees the call fail.
        """
        self.on_server_request(
            ServerRequests.AGENT_ASK_USER_QUESTION.method, _converting(handler, question_answers_result)
        )

    def on_mcp_elicitation(self, handler: ServerRequestHandler[models.McpServerElicitationRequestParams]) -> None:
        """Answer ``mcpServer/elicitation/request``: an MCP server's question during a tool call,
        or Tandem asking whether an MCP tool may run (``_meta["tandem/approvalKind"]``).

        The handler returns the response: ``{"action": "accept" | "decline" | "cancel",
        "content": ..., "_meta": ...}``.
        """
        self.on_server_request(ServerRequests.MCP_SERVER_ELICITATION_REQUEST.method, handler)

    def on_tool_call(self, handler: ServerRequestHandler[models.DynamicToolCallParams]) -> None:
        """Answer ``item/tool/call``: the model called a tool this client declared with
        ``thread/start``'s experimental ``dynamicTools``.

        The handler gets `models.DynamicToolCallParams` (``namespace``, ``tool``, ``arguments``,
        ``callId``) and returns the tool's output: a string, a list of content items, or the whole
        response (``{"contentItems": [...], "success": bool}``, see `tool_output`). Raising fails
        the call: the model reads the exception's message and the turn goes on.
        """
        self.on_server_request(ServerRequests.ITEM_TOOL_CALL.method, _converting(handler, tool_output_result))

    def on_permissions_approval(self, handler: Callable[[models.PermissionsRequestApprovalParams], object]) -> None:
        """Answer ``item/permissions/requestApproval``: the model's ``request_permissions`` tool
        (offered when the server's operator sets ``request_permissions_tool``) asks for network
        access or paths to read or write beyond the thread's sandbox.

        The handler gets `models.PermissionsRequestApprovalParams` (``permissions``, ``reason``,
        ``cwd``) and returns ``True`` or ``"turn"`` (grant what was asked, for the rest of the
        turn), ``"session"`` (for the rest of the thread), ``False`` or ``None`` (grant nothing),
        or the whole response (``{"permissions": {...}, "scope": ...}``, a subset of what was
        asked). The server grants only what was asked and what its operator's ``[clients]``
        ceiling allows, and tells the model exactly what took effect.
        """

        async def answered(params: Any) -> Any:
            value = handler(params)
            if inspect.isawaitable(value):
                value = await value
            return permissions_result(params, value)

        self.on_server_request(ServerRequests.ITEM_PERMISSIONS_REQUEST_APPROVAL.method, answered)

    def _on_decision(self, spec: AnyRequestSpec, handler: ServerRequestHandler[Any]) -> None:
        self.on_server_request(spec.method, _converting(handler, decision_result))


def _converting(handler: ServerRequestHandler[Any], convert: Callable[[object], object]) -> ServerRequestHandler[Any]:
    """Wrap a handler so that its result goes through `convert` (bare decisions, answers)."""

    async def converted(params: Any) -> Any:
        value = handler(params)
        if inspect.isawaitable(value):
            value = await value
        return convert(value)

    return converted
