"""``item/permissions/requestApproval`` against the real binary: with ``request_permissions_tool``
set, the demo provider asks for network access once and `on_permissions_approval` answers; and the
shorthand answers the handler may give."""

from __future__ import annotations

from conftest import Tandem, within

from tandem_client import permissions_grant
from tandem_client.generated import models
from tandem_client.server_requests import permissions_result


async def test_the_handler_is_asked_and_its_grant_is_answered(tandem: Tandem) -> None:
    with (tandem.home / "config.toml").open("a") as config:
        config.write("request_permissions_tool = true\n")
    asked: list[models.PermissionsRequestApprovalParams] = []
    async with tandem.spawn() as client:

        def grant(params: models.PermissionsRequestApprovalParams) -> object:
            asked.append(params)
            return True

        client.on_permissions_approval(grant)
        client.on_command_approval(lambda _params: "decline")
        client.on_file_change_approval(lambda _params: "decline")
        thread_id = await tandem.start_thread(client)
        stream = client.run_turn(thread_id, "Show me around")
        turn = await within(stream.completed)

    assert turn.status.value == "completed"
    assert len(asked) == 1
    assert asked[0].permissions.network is not None
    assert asked[0].permissions.network.enabled is True
    assert asked[0].reason == "The demo would like to show a permission request."
    assert asked[0].thread_id == thread_id


def test_shorthand_answers_become_responses() -> None:
    params = {"permissions": {"network": {"enabled": True}, "fileSystem": {"write": ["/srv/out"]}}}
    whole = {"permissions": {"network": {"enabled": True}, "fileSystem": {"write": ["/srv/out"]}}}
    assert permissions_result(params, True) == {**whole, "scope": "turn"}
    assert permissions_result(params, "session") == {**whole, "scope": "session"}
    assert permissions_result(params, False) == {"permissions": {}, "scope": "turn"}
    assert permissions_result(params, None) == {"permissions": {}, "scope": "turn"}
    custom = {"permissions": {}, "scope": "session"}
    assert permissions_result(params, custom) is custom
    assert permissions_grant(params, "session")["scope"] == "session"
    for response in (permissions_result(params, True), permissions_result(params, False)):
        models.PermissionsRequestApprovalResponse.model_validate(response)
