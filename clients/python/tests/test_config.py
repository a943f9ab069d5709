"""Config writes through the typed client: `config/value/write` edits the home's `config.toml`
and answers a typed `ConfigWriteResponse`; a key a client may not set is refused with the
reference's error `data`."""

from __future__ import annotations

import pytest
from conftest import Tandem

from tandem_client.errors import AppServerError
from tandem_client.generated import models
from tandem_client.generated.methods import ClientRequests


def test_a_value_write_is_typed_and_lands_in_the_file(tandem: Tandem) -> None:
    with tandem.spawn_sync() as client:
        written = client.request(
            ClientRequests.CONFIG_VALUE_WRITE,
            {"keyPath": "model_reasoning_effort", "value": "high", "mergeStrategy": "replace"},
        )
        assert isinstance(written, models.ConfigWriteResponse)
        assert written.status == models.WriteStatus.ok
        assert written.version.startswith("sha256:")
        providers = client.request(ClientRequests.MODEL_PROVIDER_LIST, {})
        assert isinstance(providers, models.ModelProviderListResponse)
        assert "demo" in [provider.id for provider in providers.data]
        with pytest.raises(AppServerError) as refused:
            client.request(
                ClientRequests.CONFIG_VALUE_WRITE,
                {"keyPath": "model_providers.demo.base_url", "value": "http://elsewhere", "mergeStrategy": "replace"},
            )
        assert refused.value.data == {"config_write_error_code": "configKeyRefused"}
    assert 'model_reasoning_effort = "high"' in (tandem.home / "config.toml").read_text()
    assert "elsewhere" not in (tandem.home / "config.toml").read_text()
