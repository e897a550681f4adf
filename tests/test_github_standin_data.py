"""The copied GitHub data stays consistent: the trimmed description, the routes, the licences."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.github_standin import ApiDescription, load_webhook
from tests.github_standin.routes import ROUTES
from tests.github_standin.schema_fill import Filler
from tests.github_standin.webhooks import WEBHOOKS

DATA = Path(__file__).resolve().parent / "data"


def _trim_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("trim", DATA / "github-api" / "trim.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_routes_serve_exactly_the_trimmed_operations(github_api: ApiDescription) -> None:
    served = {(route.method, route.template) for route in ROUTES}
    assert served == github_api.operations()
    trim = _trim_module()
    assert served == {(method.upper(), template) for method, template in trim.OPERATIONS}


def test_the_trimmed_description_is_what_trim_makes_of_it(github_api: ApiDescription) -> None:
    # Trimming is idempotent, so the stored file is closed under $ref and carries the patches.
    trim = _trim_module()
    assert trim.trim(json.loads(json.dumps(github_api.document))) == github_api.document


def test_every_ref_resolves(github_api: ApiDescription) -> None:
    def refs(node: Any) -> list[str]:
        if isinstance(node, dict):
            own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
            return own + [r for value in node.values() for r in refs(value)]
        if isinstance(node, list):
            return [r for item in node for r in refs(item)]
        return []

    for ref in refs(github_api.document):
        assert github_api.resolve({"$ref": ref}) is not None, ref


def test_licences_and_sources_are_noted_beside_the_data() -> None:
    licence = (DATA / "github-api" / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence
    assert "@octokit/openapi" in (DATA / "github-api" / "README.md").read_text(encoding="utf-8")
    note = (WEBHOOKS / "README.md").read_text(encoding="utf-8")
    assert "@octokit/webhooks-examples" in note
    assert "MIT" in note
    assert "Permission is hereby granted" in (WEBHOOKS / "LICENSE").read_text(encoding="utf-8")


def test_webhook_examples_load() -> None:
    names = sorted(p.stem for p in WEBHOOKS.glob("*.json"))
    assert {"pull_request.opened.1", "workflow_run.completed.1", "merge_group.checks_requested.1",
            "deployment_status.created.1", "push.none.1", "check_run.completed.1"} <= set(names)
    for name in names:
        assert isinstance(load_webhook(name), dict), name
    assert load_webhook("pull_request.opened.1")["action"] == "opened"
    with pytest.raises(FileNotFoundError, match="known"):
        load_webhook("pull_request.exploded.1")


def test_filler_completes_required_fields_and_keeps_given_ones(github_api: ApiDescription) -> None:
    filler = Filler(github_api.resolve, "http://127.0.0.1:1", "2026-01-01T00:00:00Z")
    schema = {"$ref": "#/components/schemas/check-run"}
    filled = filler.fill(schema, {"id": 7, "name": "given", "output": {"title": "T"}})
    assert (filled["id"], filled["name"], filled["output"]["title"]) == (7, "given", "T")
    assert filled["conclusion"] is None  # nullable: GitHub sends null
    assert filled["url"].startswith("http://127.0.0.1:1/")
    assert filled["started_at"] is None or filled["started_at"] == "2026-01-01T00:00:00Z"
    assert filled["app"] is None or "id" in filled["app"]
    for key in github_api.resolve(schema)["required"]:
        assert key in filled
