"""The experimental project-index methods through the typed client."""

from __future__ import annotations

import pytest
from conftest import Tandem, within

from tandem_client import AppServerError, ServerNotifications


async def test_index_refresh_reports_progress_and_index_query_finds_the_snippet(tandem: Tandem) -> None:
    (tandem.home / "config.toml").write_text(
        'model_provider = "demo"\n[query_project_index]\nauto_warm = false\nembedding_model = "none"\n'
    )
    (tandem.workspace / "src").mkdir()
    (tandem.workspace / "src" / "auth.rs").write_text(
        'pub fn check_bearer_token(header: &str) -> bool {\n    header.starts_with("Bearer ")\n}\n'
    )
    (tandem.workspace / "notes.md").write_text("# Notes\n\nNothing about tokens here.\n")
    async with tandem.spawn(capabilities={"experimentalApi": True}) as client:
        async with client.notifications(ServerNotifications.INDEX_PROGRESS) as progress:
            refreshed = await within(client.index_refresh(force_full=True))
            first = await within(anext(progress))
        assert refreshed.stats.scanned_files == 2
        assert refreshed.stats.updated_files == 2
        assert refreshed.embedding_status.ready is False
        assert first.params.phase.value == "scanning"
        assert first.params.done == 2
        assert first.params.total is None

        answer = await within(client.index_query("bearer token", limit=1))
        assert [(result.path, result.line_range.start, result.line_range.end) for result in answer.results] == [
            ("src/auth.rs", 1, 3)
        ]
        with pytest.raises(AppServerError) as raised:
            await within(client.index_query("   "))
        assert raised.value.code == -32600
        assert "query must not be empty" in str(raised.value)
