"""Complete a partial answer so it satisfies a schema of GitHub's description.

Why: the stand-in writes the fields a test cares about (ids, SHAs, times, states, urls) and
lets GitHub's schema decide the rest. Every required property the stand-in did not write is
filled with a plain value of the right type (nullable ones with null, as GitHub sends), so
the answers have GitHub's shape without copying GitHub's examples (some of which fail
GitHub's own schemas).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


@dataclass(frozen=True)
class Filler:
    """Fills a value against a schema; `resolve` follows `$ref`s of the description."""

    resolve: Callable[[Any], Any]
    api_root: str  # absolute URL of the stand-in's API, used for placeholder urls
    epoch: str  # ISO timestamp used for placeholder date-times

    def fill(self, schema: Any, value: Any = MISSING) -> Any:
        schema = self._flatten(self.resolve(schema))
        branches = schema.get("oneOf") or schema.get("anyOf")
        if branches:
            return self.fill(self._pick(branches, value), value)
        if value is MISSING:
            return self._placeholder(schema)
        if value is None:
            return None
        kind = schema.get("type")
        if isinstance(value, dict) and (kind == "object" or "properties" in schema):
            return self._fill_object(schema, value)
        if isinstance(value, list) and kind == "array":
            items = schema.get("items", {})
            return [self.fill(items, item) for item in value]
        return value

    def _flatten(self, schema: Any) -> Any:
        """Merge `allOf` parts into one object schema (the description uses it for objects)."""
        if not isinstance(schema, dict) or "allOf" not in schema:
            return schema
        merged: dict[str, Any] = {
            key: value for key, value in schema.items() if key != "allOf"
        }
        properties: dict[str, Any] = dict(merged.get("properties", {}))
        required: list[str] = list(merged.get("required", []))
        for part in schema["allOf"]:
            part = self._flatten(self.resolve(part))
            properties.update(part.get("properties", {}))
            required.extend(r for r in part.get("required", []) if r not in required)
            for key in ("type", "nullable"):
                if key in part:
                    merged.setdefault(key, part[key])
        merged["properties"] = properties
        merged["required"] = required
        return merged

    def _pick(self, branches: list[Any], value: Any) -> Any:
        """The branch a value belongs to: by JSON type, then by most required keys present."""
        resolved = [self._flatten(self.resolve(branch)) for branch in branches]
        if value is MISSING or value is None:
            for branch in resolved:
                if branch.get("type") != "null" and not branch.get("nullable"):
                    return branch
            return resolved[0]
        wanted = {dict: "object", list: "array", str: "string", bool: "boolean"}.get(
            type(value), "number" if isinstance(value, int | float) else "object"
        )
        fitting = [
            branch
            for branch in resolved
            if branch.get("type", "object" if "properties" in branch else None) == wanted
            or (wanted == "number" and branch.get("type") == "integer")
        ] or resolved
        if isinstance(value, dict):
            def score(branch: Any) -> tuple[int, int]:
                required = branch.get("required", [])
                props = branch.get("properties", {})
                enum_ok = all(
                    value[key] in prop["enum"]
                    for key, prop in props.items()
                    if key in value and isinstance(prop, dict) and "enum" in prop
                )
                return (int(enum_ok), sum(1 for key in required if key in value))

            return max(fitting, key=score)
        return fitting[0]

    def _fill_object(self, schema: Any, value: dict[str, Any]) -> dict[str, Any]:
        properties = schema.get("properties", {})
        filled: dict[str, Any] = {}
        for key, item in value.items():
            filled[key] = self.fill(properties[key], item) if key in properties else item
        for key in schema.get("required", []):
            if key not in filled:
                filled[key] = self._named_placeholder(key, properties.get(key, {}))
        return filled

    def _named_placeholder(self, name: str, schema: Any) -> Any:
        """Like `fill` with nothing given, but urls (`url`, `*_url`) point at the stand-in
        even where the description gives no `format: uri` (PyGithub asserts their host)."""
        value = self.fill(schema)
        if value == "placeholder" and (name == "url" or name.endswith("_url")):
            return f"{self.api_root}/placeholder"
        return value

    def _placeholder(self, schema: Any) -> Any:
        if schema.get("nullable"):
            return None
        if "enum" in schema:
            return next((item for item in schema["enum"] if item is not None), None)
        kind = schema.get("type", "object" if "properties" in schema else None)
        if kind == "object":
            return self._fill_object(schema, {})
        if kind == "array":
            return []
        if kind == "boolean":
            return False
        if kind in ("integer", "number"):
            minimum = schema.get("minimum", 1)
            return max(1, minimum)
        if kind == "string":
            fmt = schema.get("format")
            if fmt == "date-time":
                return self.epoch
            if fmt in ("uri", "uri-template"):
                return f"{self.api_root}/placeholder"
            if fmt == "email":
                return "placeholder@example.invalid"
            return "placeholder"
        return None
