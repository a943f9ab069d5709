"""Build hook: generates `src/tandem_client/generated/` before a wheel or sdist is built.

The generated models are not committed; they come from the JSON Schema bundles committed under
`schemas/` at the repository root (see `scripts/generate.py`). An sdist carries the generated files,
so a wheel built from an sdist (where `schemas/` is absent) packages those instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class GenerateModels(BuildHookInterface):
    """Runs `scripts/generate.py` when the repository's schema bundles are at hand."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        schemas = root.parent.parent / "schemas/json-experimental"
        generated = root / "src/tandem_client/generated"
        if schemas.is_dir():
            subprocess.run([sys.executable, str(root / "scripts/generate.py")], check=True)
        elif not (generated / "models.py").is_file():
            raise RuntimeError(f"neither {schemas} nor {generated} exists: build from a Tandem checkout or its sdist")
