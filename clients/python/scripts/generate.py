#!/usr/bin/env python3
"""Generate `src/tandem_client/generated/` from the protocol's committed JSON Schema bundles.

Two bundles go in, both committed under `schemas/` at the repository root: the stable one
(`schemas/json/tandem_app_server_protocol.schemas.json`) and its experimental superset
(`schemas/json-experimental/tandem_app_server_protocol.schemas.json`).
The models and method maps cover the experimental surface, so that `item/tool/requestUserInput`
and `turn/start`'s `collaborationMode` are typed too; methods missing from the stable bundle are
marked `experimental=True` in `methods.py`.

The output is not committed: it is a build product. Building a wheel or sdist runs this script
(`hatch_build.py`), and so must a checkout before the tests or examples run from the source tree.

Usage (from `clients/python`, with the dev extras installed):

    .venv/bin/python scripts/generate.py            # write src/tandem_client/generated/
    .venv/bin/python scripts/generate.py --check    # exit 1 with a diff when that output is stale
    .venv/bin/python scripts/generate.py --out DIR  # write somewhere else (the staleness test does)

Three files come out:

- `models.py`: pydantic v2 models of every schema definition, written by datamodel-code-generator.
- `methods.py`: the method maps, read from the `oneOf` variants of the bundles' four message unions
  (`ClientRequest`, `ServerRequest`, `ServerNotification`, `ClientNotification`): for each method its
  params model and, for requests, its response model (the variant's `x-response`).
- `__init__.py`: the package marker.

The bundle is massaged before datamodel-code-generator sees it (never by hand):

- The four message unions and their method maps (`ClientRequestMap`…) are dropped: the unions'
  variants would become numbered envelope classes that collide with the params types, and
  `methods.py` already carries everything both say.
- Every object schema without an explicit `additionalProperties` gets `additionalProperties: true`, so
  the models keep fields they do not know (experimental fields, or fields of a newer server) instead of
  dropping them, while the externally tagged variants that say `additionalProperties: false` stay strict.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
"""`clients/python`."""

DEFAULT_SCHEMA = PACKAGE_ROOT.parent.parent / "schemas/json/tandem_app_server_protocol.schemas.json"
"""The committed bundle (`schemas/json/` at the repository root)."""

DEFAULT_EXPERIMENTAL_SCHEMA = (
    PACKAGE_ROOT.parent.parent / "schemas/json-experimental/tandem_app_server_protocol.schemas.json"
)
"""The committed experimental bundle."""

DEFAULT_OUT = PACKAGE_ROOT / "src/tandem_client/generated"
"""Where the generated modules go (ignored by git; packaged by `hatch_build.py`)."""

REGENERATE_COMMAND = "cd clients/python && .venv/bin/python scripts/generate.py"
"""The command to print when the generated files are stale."""

UNIONS = {
    "ClientRequest": "ClientRequests",
    "ServerRequest": "ServerRequests",
    "ServerNotification": "ServerNotifications",
    "ClientNotification": "ClientNotifications",
}
"""The bundle's message unions and the namespace class each becomes in `methods.py`."""

CODEGEN_OPTIONS = [
    "--input-file-type",
    "jsonschema",
    # Pinned option set: pydantic v2, Python 3.10 syntax, snake_case fields with camelCase aliases,
    # `Annotated[...]` fields, str enums, the builtin formatter (no black/isort version drift).
    "--preset",
    "standard-py310-20261027",
    # Name inline tagged-union variants after their tag (`ThreadItemAgentMessage`, `UserInputText`).
    "--use-tag-as-union-variant-name",
    # A single-value literal such as `type: Literal["text"]` defaults to its value.
    "--use-one-literal-as-default",
    # Schema descriptions become class docstrings.
    "--use-schema-description",
    # The bundle's root is only a container of `$defs`.
    "--skip-root-model",
    "--disable-timestamp",
    "--disable-warnings",
]
"""datamodel-code-generator options (the input, output and header are added per run)."""


@dataclass(frozen=True)
class MethodEntry:
    """One variant of a message union."""

    method: str
    params: str
    response: str | None
    description: str
    experimental: bool


def load_bundle(schema: Path) -> dict[str, Any]:
    """Read the bundle and check it has the shape this script relies on."""
    bundle: dict[str, Any] = json.loads(schema.read_text(encoding="utf-8"))
    definitions = bundle.get("$defs")
    if not isinstance(definitions, dict):
        raise SystemExit(f"{schema}: no `$defs` object; is this the bundle?")
    missing = [name for name in UNIONS if name not in definitions]
    if missing:
        raise SystemExit(f"{schema}: missing message unions {missing}")
    return bundle


def model_input(bundle: dict[str, Any]) -> dict[str, Any]:
    """The bundle as datamodel-code-generator should see it (see the module docstring)."""
    massaged = copy.deepcopy(bundle)
    for name in UNIONS:
        del massaged["$defs"][name]
        # The per-direction method maps (`ClientRequestMap`…) say the same as the unions.
        massaged["$defs"].pop(f"{name}Map", None)
    _allow_unknown_fields(massaged["$defs"])
    return massaged


def _allow_unknown_fields(schema: Any) -> None:
    if isinstance(schema, dict):
        is_object = (
            "properties" in schema
            or schema.get("type") == "object"
            or (isinstance(schema.get("type"), list) and "object" in schema["type"])
        )
        if is_object and "additionalProperties" not in schema:
            schema["additionalProperties"] = True
        for value in schema.values():
            _allow_unknown_fields(value)
    elif isinstance(schema, list):
        for value in schema:
            _allow_unknown_fields(value)


def codegen_version() -> str:
    """The installed datamodel-code-generator version (recorded in the header)."""
    from importlib.metadata import version

    return version("datamodel-code-generator")


def header(schema: Path, what: str) -> str:
    """The comment at the top of each generated file."""
    return (
        f"# {what}, generated from {_display_path(schema)}\n"
        "# and its experimental superset (schemas/json-experimental/)\n"
        f"# by clients/python/scripts/generate.py (datamodel-code-generator {codegen_version()}).\n"
        f"# Do not edit. Regenerate with: {REGENERATE_COMMAND}"
    )


def _display_path(schema: Path) -> str:
    try:
        return str(schema.resolve().relative_to(PACKAGE_ROOT.parent.parent))
    except ValueError:
        return schema.name


def generate_models(bundle: dict[str, Any], schema: Path, out_file: Path) -> None:
    """Run datamodel-code-generator on the massaged bundle, writing `out_file`."""
    with tempfile.TemporaryDirectory() as scratch:
        input_file = Path(scratch) / "tandem_app_server_protocol.schema.json"
        input_file.write_text(json.dumps(model_input(bundle), indent=1), encoding="utf-8")
        # Written in the scratch directory, not in place: the formatter would otherwise pick up
        # settings (line length) from whatever pyproject.toml is above the output path.
        scratch_file = Path(scratch) / "models.py"
        command = [
            sys.executable,
            "-m",
            "datamodel_code_generator",
            "--input",
            str(input_file),
            "--output",
            str(scratch_file),
            "--ignore-pyproject",
            "--custom-file-header",
            header(schema, "Pydantic models of the Tandem app-server protocol"),
            *CODEGEN_OPTIONS,
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"datamodel-codegen failed ({done.returncode}):\n{done.stderr}")
        source = scratch_file.read_text(encoding="utf-8")
    head, separator, body = source.partition("\n\n")
    out_file.write_text(head + separator + MODELS_DOCSTRING + "\n" + body, encoding="utf-8")


MODELS_DOCSTRING = '''"""Pydantic v2 models of every type in the protocol's JSON Schema bundle.

Fields are snake_case with the wire's camelCase names as aliases (both are accepted as input);
serialize with `model_dump(by_alias=True, exclude_none=True, mode="json")`.
Models keep unknown fields (`model_extra`) so that newer or experimental fields survive.
"""
'''


def extract_methods(bundle: dict[str, Any], stable: dict[str, Any]) -> dict[str, list[MethodEntry]]:
    """Read each union's variants: method const, params `$ref`, `x-response` `$ref`; a method that
    the `stable` bundle's union lacks is experimental."""
    entries: dict[str, list[MethodEntry]] = {}
    for union in UNIONS:
        variants = bundle["$defs"][union].get("oneOf", [])
        stable_methods = {
            variant.get("properties", {}).get("method", {}).get("const")
            for variant in stable["$defs"][union].get("oneOf", [])
        }
        entries[union] = []
        for variant in variants:
            properties = variant.get("properties", {})
            method = properties.get("method", {}).get("const")
            params = _ref_name(properties.get("params"))
            if not isinstance(method, str) or params is None:
                raise SystemExit(f"{union}: variant {variant.get('title')!r} has no method/params")
            response = _ref_name(variant.get("x-response"))
            if union.endswith("Request") and response is None:
                raise SystemExit(f"{union}: {method} has no `x-response`")
            description = " ".join(str(variant.get("description", "")).split())
            experimental = method not in stable_methods
            entries[union].append(MethodEntry(method, params, response, description, experimental))
        missing = stable_methods - {entry.method for entry in entries[union]}
        if missing:
            raise SystemExit(f"{union}: the experimental bundle lacks the stable methods {sorted(missing)}")
    return entries


def _ref_name(schema: Any) -> str | None:
    if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
        return None
    ref: str = schema["$ref"]
    prefix = "#/$defs/"
    if not ref.startswith(prefix):
        raise SystemExit(f"unsupported $ref {ref!r}")
    return ref[len(prefix) :]


def constant_name(method: str) -> str:
    """`item/commandExecution/requestApproval` → `ITEM_COMMAND_EXECUTION_REQUEST_APPROVAL`."""
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", method.replace("/", "_"))
    return words.upper()


def render_methods(entries: dict[str, list[MethodEntry]], schema: Path) -> str:
    """The source of `methods.py`."""
    lines = [
        header(schema, "Method maps of the Tandem app-server protocol"),
        '"""Method maps: every protocol method with its params and response models.',
        "",
        "Generated from the `oneOf` variants of the schema bundles' message unions; methods of the",
        "experimental surface (sent only to connections with `capabilities.experimentalApi`) have `experimental=True`.",
        "Each namespace class has one constant per method; each `*_BY_METHOD` dict maps the wire name to it.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        "from tandem_client.generated import models",
        "from tandem_client.method_spec import AnyNotificationSpec, AnyRequestSpec, NotificationSpec, RequestSpec",
        "",
    ]
    for union, namespace in UNIONS.items():
        is_request = union.endswith("Request")
        lines += ["", f"class {namespace}:", f'    """The `{union}` union: {_direction(union)}."""', ""]
        names: set[str] = set()
        for entry in entries[union]:
            name = constant_name(entry.method)
            if name in names:
                raise SystemExit(f"{union}: two methods map to the constant {name}")
            names.add(name)
            flag = ", experimental=True" if entry.experimental else ""
            if is_request:
                value = (
                    f"RequestSpec({entry.method!r}, models.{entry.params}, "
                    f"models.{entry.response}, {entry.description!r}{flag})"
                )
            else:
                value = f"NotificationSpec({entry.method!r}, models.{entry.params}, {entry.description!r}{flag})"
            lines += [f"    {name}: Final = {value}", f"    {(entry.description or entry.method)!r}", ""]
        if not entries[union]:
            lines.append("    pass")
        spec = "AnyRequestSpec" if is_request else "AnyNotificationSpec"
        lines += [
            "",
            f"{_map_name(union)}: Final[dict[str, {spec}]] = {{",
            *(f"    {e.method!r}: {namespace}.{constant_name(e.method)}," for e in entries[union]),
            "}",
            f'"""`{union}` methods by wire name."""',
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def _direction(union: str) -> str:
    return {
        "ClientRequest": "requests the client sends",
        "ServerRequest": "requests the server sends (the client answers them)",
        "ServerNotification": "notifications the server sends",
        "ClientNotification": "notifications the client sends",
    }[union]


def _map_name(union: str) -> str:
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", union).upper() + "S_BY_METHOD"


def check_names(entries: dict[str, list[MethodEntry]], models_file: Path) -> None:
    """Fail when a params or response type is not a class of the generated models."""
    tree = ast.parse(models_file.read_text(encoding="utf-8"))
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    for union, union_entries in entries.items():
        for entry in union_entries:
            for name in (entry.params, entry.response):
                if name is not None and name not in classes:
                    raise SystemExit(f"{union} {entry.method}: `{name}` is not a generated model class")


INIT_SOURCE = '''"""Code generated from the protocol's JSON Schema bundle: `models` and `methods`.

Do not edit; see `clients/python/scripts/generate.py`.
"""
'''


def generate(schema: Path, experimental_schema: Path, out_dir: Path) -> None:
    """Write `models.py`, `methods.py` and `__init__.py` into `out_dir`."""
    stable = load_bundle(schema)
    bundle = load_bundle(experimental_schema)
    missing = sorted(set(stable["$defs"]) - set(bundle["$defs"]))
    if missing:
        raise SystemExit(f"{experimental_schema} is not a superset of {schema}: it lacks {missing}")
    out_dir.mkdir(parents=True, exist_ok=True)
    models_file = out_dir / "models.py"
    generate_models(bundle, schema, models_file)
    entries = extract_methods(bundle, stable)
    check_names(entries, models_file)
    (out_dir / "methods.py").write_text(render_methods(entries, schema), encoding="utf-8")
    (out_dir / "__init__.py").write_text(INIT_SOURCE, encoding="utf-8")


GENERATED_FILES = ("__init__.py", "methods.py", "models.py")
"""The files `generate` writes."""


def diff_trees(expected_dir: Path, actual_dir: Path) -> str:
    """A unified diff of the generated files (empty when identical)."""
    chunks: list[str] = []
    for name in GENERATED_FILES:
        expected = expected_dir / name
        actual = actual_dir / name
        old = actual.read_text(encoding="utf-8").splitlines(keepends=True) if actual.exists() else []
        new = expected.read_text(encoding="utf-8").splitlines(keepends=True)
        chunks.extend(difflib.unified_diff(old, new, f"committed/{name}", f"regenerated/{name}"))
    return "".join(chunks)


def main() -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA, help="the stable JSON Schema bundle")
    parser.add_argument(
        "--experimental-schema",
        type=Path,
        default=DEFAULT_EXPERIMENTAL_SCHEMA,
        help="the experimental JSON Schema bundle",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--check", action="store_true", help="compare with --out instead of writing it")
    arguments = parser.parse_args()
    experimental_schema = arguments.experimental_schema
    with tempfile.TemporaryDirectory() as scratch:
        if not arguments.check:
            generate(arguments.schema, experimental_schema, arguments.out)
            return 0
        generate(arguments.schema, experimental_schema, Path(scratch) / "generated")
        diff = diff_trees(Path(scratch) / "generated", arguments.out)
    if diff:
        sys.stdout.write(diff)
        sys.stdout.write(f"\nThe generated client code is stale; regenerate with:\n  {REGENERATE_COMMAND}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
