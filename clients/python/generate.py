"""Regenerate the typed client from the API's current OpenAPI document (`make client`).

    python clients/python/generate.py          # write openapi.json and src/socialpub/_generated
    python clients/python/generate.py --check  # exit 1 and name the files that would change

Three steps, the same for both modes:
1. `manage.py spectacular --format openapi-json` writes the document; it is kept as
   clients/python/openapi.json, unchanged, so a diff of the API shows in review. It is written
   as production serves it, for PostgreSQL: Django takes integer bounds from the database
   backend (SQLite's differ), so DATABASE_URL is set to a PostgreSQL URL that is never opened.
2. A copy of it is adjusted for the generator (`for_generator`): openapi-python-client names an
   inline object property `<Schema><Property>`, and where a component already has that name
   (the `capabilities` of `Account` and the component `AccountCapabilities`) it drops the schema
   and every operation that uses it. Each such inline object becomes a component of its own,
   named `<Schema><Property>Object`, and is referenced from where it was. A request body that
   may also be another type than JSON (CSV) is given to it as JSON only.
3. openapi-python-client (configured by generator.yaml) writes the package socialpub._generated,
   which is never edited by hand.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCHEMA = HERE / "openapi.json"
PACKAGE = HERE / "src" / "socialpub" / "_generated"
CONFIG = HERE / "generator.yaml"
BIN = Path(sys.executable).parent
# Only the backend counts: writing the document opens no connection.
SCHEMA_DATABASE_URL = "postgres://schema@127.0.0.1:1/schema"


def current_schema() -> str:
    """The OpenAPI document the code in this checkout serves, as drf-spectacular writes it."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "openapi.json"
        subprocess.run(  # noqa: S603
            [sys.executable, "manage.py", "spectacular", "--format", "openapi-json", "--file", str(out)],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": SCHEMA_DATABASE_URL},
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return out.read_text(encoding="utf-8")


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def for_generator(document: dict[str, Any]) -> dict[str, Any]:
    """The document with every inline object property whose generated class name would clash
    with a component moved into a component of its own (step 2 of the module docstring)."""
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    for name, schema in list(schemas.items()):
        for prop, sub in schema.get("properties", {}).items():
            clash = _pascal(name) + _pascal(prop)
            if sub.get("type") == "object" and "properties" in sub and clash in schemas:
                hoisted = f"{clash}Object"
                schemas[hoisted] = sub
                schema["properties"][prop] = {"$ref": f"#/components/schemas/{hoisted}"}
    # The generator knows JSON bodies only: an operation that also takes another type (the
    # bulk create's CSV) is generated with its JSON body; the client sends CSV itself.
    for operations in document.get("paths", {}).values():
        for operation in operations.values():
            content = operation.get("requestBody", {}).get("content", {}) if isinstance(operation, dict) else {}
            if "application/json" in content:
                for media_type in [name for name in content if name != "application/json"]:
                    del content[media_type]
    return document


def generate(schema_text: str, destination: Path) -> None:
    """Write the generated package for `schema_text` into `destination` (replaced whole)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as folder:
        adjusted = Path(folder) / "openapi.json"
        adjusted.write_text(json.dumps(for_generator(json.loads(schema_text)), indent=2), encoding="utf-8")
        out = Path(folder) / "_generated"
        command = [str(BIN / "openapi-python-client"), "generate", "--path", str(adjusted), "--meta", "none"]
        command += ["--config", str(CONFIG), "--output-path", str(out), "--fail-on-warning"]
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)  # noqa: S603
        if done.returncode:
            raise SystemExit(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")
        shutil.rmtree(destination, ignore_errors=True)
        shutil.copytree(out, destination)


def differences(left: Path, right: Path) -> list[str]:
    """Paths (relative to the two trees) that are missing on one side or differ."""
    compared = filecmp.dircmp(left, right, ignore=["__pycache__"])
    found = [*compared.left_only, *compared.right_only, *compared.diff_files, *compared.funny_files]
    for sub in compared.common_dirs:
        found += [f"{sub}/{path}" for path in differences(left / sub, right / sub)]
    return sorted(found)


def check() -> list[str]:
    """What `make client` would change: the schema snapshot and the generated files that differ."""
    text = current_schema()
    stale = [] if SCHEMA.exists() and SCHEMA.read_text(encoding="utf-8") == text else ["openapi.json"]
    with tempfile.TemporaryDirectory() as folder:
        fresh = Path(folder) / "_generated"
        generate(text, fresh)
        if not PACKAGE.exists():
            return [*stale, "src/socialpub/_generated"]
        stale += [f"src/socialpub/_generated/{path}" for path in differences(fresh, PACKAGE)]
    return stale


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the client is stale")
    if parser.parse_args().check:
        stale = check()
        if stale:
            print("The client is stale; run `make client`. Differs: " + ", ".join(stale), file=sys.stderr)
            raise SystemExit(1)
        return
    text = current_schema()
    SCHEMA.write_text(text, encoding="utf-8")
    generate(text, PACKAGE)


if __name__ == "__main__":
    main()
