"""Regenerate api.github.com.trimmed.json: GitHub's description cut to what the stand-in serves.

Why: the full description is 13 MB and takes 1-2 s to load; the stand-in serves a few dozen
operations. Every component those operations `$ref` (transitively) is kept; examples are dropped,
since the stand-in builds its answers from the schemas, never from GitHub's examples.

Usage: python tests/data/github-api/trim.py /path/to/api.github.com.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "api.github.com.trimmed.json"

# (method, path template) of every operation the stand-in answers. Keep in step with
# tests/github_standin/routes.py (a test checks that they agree).
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/activity"),
    ("get", "/repos/{owner}/{repo}/installation"),
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
    ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}"),
    ("get", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"),
    ("get", "/repos/{owner}/{repo}/actions/runs"),
    ("get", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt_number}/jobs"),
    ("get", "/repos/{owner}/{repo}/actions/runs/{run_id}/artifacts"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}"),
    ("get", "/repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-suites"),
    ("get", "/repos/{owner}/{repo}/check-suites/{check_suite_id}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}/annotations"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/statuses"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/status"),
    ("post", "/repos/{owner}/{repo}/statuses/{sha}"),
    ("get", "/repos/{owner}/{repo}/deployments"),
    ("get", "/repos/{owner}/{repo}/deployments/{deployment_id}"),
    ("get", "/repos/{owner}/{repo}/deployments/{deployment_id}/statuses"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("get", "/repos/{owner}/{repo}/issues/{issue_number}/timeline"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("post", "/app/installations/{installation_id}/access_tokens"),
)


def _strip_examples(node: Any) -> Any:
    """Drop `examples`/`example` from media types and parameters; schemas' own keys stay."""
    if isinstance(node, dict):
        return {
            key: _strip_examples(value)
            for key, value in node.items()
            if key not in ("examples",) and not (key == "example" and "schema" in node)
        }
    if isinstance(node, list):
        return [_strip_examples(item) for item in node]
    return node


def _refs(node: Any) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.append(ref)
        for value in node.values():
            found.extend(_refs(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(_refs(item))
    return found


def _allow_null_in_nullable_enums(node: Any) -> int:
    """`nullable: true` with an `enum` that lacks null: GitHub sends null there (a queued
    check run's `conclusion`), and OpenAPI 3.0.3 wants null listed in the enum to allow it."""
    count = 0
    if isinstance(node, dict):
        if node.get("nullable") is True and isinstance(node.get("enum"), list) and (
            None not in node["enum"]
        ):
            node["enum"].append(None)
            count += 1
        for value in node.values():
            count += _allow_null_in_nullable_enums(value)
    elif isinstance(node, list):
        for item in node:
            count += _allow_null_in_nullable_enums(item)
    return count


def _patch(trimmed: dict[str, Any]) -> list[str]:
    """Documented corrections where the description contradicts what GitHub sends."""
    _allow_null_in_nullable_enums(trimmed)
    notes = ["null added to the enum of nullable schemas that lacked it"]
    # repos/get-content: the application/json answer is a oneOf whose discriminator
    # (`type`) cannot apply to its array branch (a directory listing); validators then
    # refuse every directory listing GitHub sends. The branches differ by JSON type anyway.
    content = trimmed["paths"]["/repos/{owner}/{repo}/contents/{path}"]["get"]["responses"][
        "200"]["content"]["application/json"]["schema"]
    content.pop("discriminator", None)
    notes.append("discriminator dropped from repos/get-content application/json")
    # `created` of workflow-run listings takes GitHub's search syntax (">=2026-01-01",
    # "A..B"), as its own description text says, but its schema says `format: date-time`.
    created = trimmed["components"]["parameters"]["created"]["schema"]
    created.pop("format", None)
    notes.append("format date-time dropped from parameter `created` (search syntax)")
    return notes


def trim(full: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, Any] = {}
    for method, template in OPERATIONS:
        item = full["paths"][template]
        kept = paths.setdefault(template, {})
        if "parameters" in item:
            kept["parameters"] = item["parameters"]
        kept[method] = _strip_examples(item[method])
    components: dict[str, dict[str, Any]] = {}
    pending = _refs(paths)
    seen: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in seen:
            continue
        seen.add(ref)
        prefix, section, name = ref.rsplit("/", 2)
        if prefix != "#/components":
            raise ValueError(f"unexpected $ref {ref}")
        component = _strip_examples(full["components"][section][name])
        components.setdefault(section, {})[name] = component
        pending.extend(_refs(component))
    trimmed = {
        "openapi": full["openapi"],
        "info": full["info"],
        "servers": full["servers"],
        "paths": paths,
        "components": {section: dict(sorted(items.items())) for section, items in
                       sorted(components.items())},
    }
    trimmed["info"] = {**trimmed["info"], "x-claim-gate-patches": _patch(trimmed)}
    return trimmed


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    full = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    OUT.write_text(json.dumps(trim(full), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
