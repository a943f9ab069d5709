"""The generated code: up to date with the committed schema bundles, and the method maps cover the unions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PACKAGE_DIR
from pydantic import BaseModel

from tandem_client.generated import methods, models
from tandem_client.method_spec import AnyNotificationSpec, AnyRequestSpec

SCHEMA = PACKAGE_DIR.parent.parent / "schemas/json/tandem_app_server_protocol.schemas.json"
GENERATED = PACKAGE_DIR / "src/tandem_client/generated"
COMMAND = "cd clients/python && .venv/bin/python scripts/generate.py"

sys.path.insert(0, str(PACKAGE_DIR / "scripts"))
import generate  # noqa: E402


def test_generated_code_matches_the_schema_bundle(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(PACKAGE_DIR / "scripts/generate.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    diff = generate.diff_trees(tmp_path, GENERATED)
    if diff:
        pytest.fail(
            f"src/tandem_client/generated/ is stale against schemas/json*/{SCHEMA.name}:\n{diff}\n"
            f"Regenerate with:\n  {COMMAND}",
            pytrace=False,
        )


def union_methods(union: str) -> list[str]:
    bundle = json.loads(SCHEMA.read_text())
    return [variant["properties"]["method"]["const"] for variant in bundle["$defs"][union]["oneOf"]]


@pytest.mark.parametrize(
    ("union", "by_method"),
    [
        ("ClientRequest", methods.CLIENT_REQUESTS_BY_METHOD),
        ("ServerRequest", methods.SERVER_REQUESTS_BY_METHOD),
        ("ServerNotification", methods.SERVER_NOTIFICATIONS_BY_METHOD),
        ("ClientNotification", methods.CLIENT_NOTIFICATIONS_BY_METHOD),
    ],
)
def test_method_maps_cover_each_union(union: str, by_method: dict[str, AnyRequestSpec | AnyNotificationSpec]) -> None:
    # The stable methods, in the stable bundle's order; the others are flagged experimental.
    assert [method for method, spec in by_method.items() if not spec.experimental] == union_methods(union)


def test_experimental_surface_is_typed_and_flagged() -> None:
    spec = methods.ServerRequests.ITEM_TOOL_REQUEST_USER_INPUT
    assert spec.experimental
    assert spec.params is models.ToolRequestUserInputParams
    assert spec.response is models.ToolRequestUserInputResponse
    assert not methods.ServerRequests.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.experimental
    assert "collaboration_mode" in models.TurnStartParams.model_fields


def test_specs_name_model_classes() -> None:
    for spec in methods.CLIENT_REQUESTS_BY_METHOD.values():
        assert issubclass(spec.params, BaseModel) and issubclass(spec.response, BaseModel)
    assert methods.ClientRequests.THREAD_START.response is models.ThreadStartResponse
    assert methods.ServerNotifications.TURN_COMPLETED.params is models.TurnNotification
    assert (
        methods.ServerRequests.ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL.response
        is models.CommandExecutionRequestApprovalResponse
    )


def test_models_keep_unknown_fields_and_dump_wire_names() -> None:
    params = models.TurnStartParams.model_validate(
        {"threadId": "t", "input": [{"type": "text", "text": "hi"}], "someNewerField": {"x": 1}}
    )
    assert params.model_dump(mode="json", by_alias=True, exclude_none=True) == {
        "threadId": "t",
        "input": [{"type": "text", "text": "hi"}],
        "someNewerField": {"x": 1},
    }
    assert models.UserInputText(text="hi").type == "text"
