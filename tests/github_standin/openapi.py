"""GitHub's REST description, loaded once: request/response checks and schema lookups.

Why: a stand-in that answers what its author believes GitHub answers proves nothing. Every
request the stand-in receives and every response it sends is checked against GitHub's own
OpenAPI description (trimmed to the operations served, see tests/data/github-api/trim.py).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openapi_core import Config, OpenAPI
from openapi_core.datatypes import RequestParameters
from openapi_core.exceptions import OpenAPIError
from werkzeug.datastructures import Headers, ImmutableMultiDict

SPEC_PATH = (
    Path(__file__).resolve().parent.parent / "data" / "github-api" / "api.github.com.trimmed.json"
)
# openapi-core matches paths against the description's server; requests are presented as if
# they had reached GitHub, whatever address and base path the stand-in listens on.
_GITHUB_HOST_URL = "https://api.github.com"


@dataclass(frozen=True)
class Violation:
    """One way a request or a response departed from GitHub's description."""

    direction: str  # "request" or "response"
    endpoint: str  # "GET /repos/{owner}/{repo}"
    path: str  # the concrete path that was asked for
    status: int | None  # the response status (None for a request)
    problem: str

    def __str__(self) -> str:
        status = "" if self.status is None else f" -> {self.status}"
        return f"{self.direction} {self.endpoint} ({self.path}{status}): {self.problem}"


@dataclass
class _Request:
    """The request protocol openapi-core reads (its protocol wants settable attributes)."""

    host_url: str
    path: str
    method: str
    parameters: RequestParameters
    content_type: str
    body: bytes | None


@dataclass(frozen=True)
class _Response:
    """The response protocol openapi-core reads."""

    data: bytes
    status_code: int
    content_type: str
    headers: Headers


def _describe(error: BaseException) -> str:
    """An openapi-core error with the schema errors that caused it, in one line."""
    parts = [f"{type(error).__name__}: {error}"]
    cause = error.__cause__
    while cause is not None:
        detail = getattr(cause, "schema_errors", None)
        if detail:
            parts.append("; ".join(str(getattr(e, "message", e)) for e in detail))
        else:
            parts.append(str(cause))
        cause = cause.__cause__
    return " / ".join(p for p in parts if p)


class ApiDescription:
    """The trimmed description and an openapi-core validator over it (thread-safe)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        # Checking GitHub's description itself is slow and not our test; openapi-core accepts
        # None here at run time although its annotation says otherwise.
        config = Config(spec_validator_cls=None)  # type: ignore[arg-type]
        self._openapi = OpenAPI.from_dict(document, config=config)
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path = SPEC_PATH) -> ApiDescription:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    # -- lookups --------------------------------------------------------------------------

    def resolve(self, node: Any) -> Any:
        """Follow `$ref`s until a node without one."""
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            target: Any = self.document
            for part in ref.removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def operations(self) -> set[tuple[str, str]]:
        """(METHOD, template) of every operation in the description."""
        return {
            (method.upper(), template)
            for template, item in self.document["paths"].items()
            for method in item
            if method in ("get", "post", "patch", "put", "delete")
        }

    def response_schema(self, method: str, template: str, status: int) -> Any:
        """The JSON schema of the `status` answer of an operation, or None if it has no body."""
        responses = self.document["paths"][template][method.lower()]["responses"]
        response = self.resolve(responses.get(str(status)) or responses.get("default") or {})
        content = response.get("content", {})
        media = content.get("application/json") or next(iter(content.values()), None)
        return None if media is None else media.get("schema")

    def query_parameters(self, method: str, template: str) -> set[str]:
        """Names of the query parameters an operation declares (openapi-core ignores others,
        so a misspelt filter would silently match everything)."""
        item = self.document["paths"][template]
        declared = [*item.get("parameters", []), *item[method.lower()].get("parameters", [])]
        return {
            parameter["name"]
            for parameter in (self.resolve(p) for p in declared)
            if parameter.get("in") == "query"
        }

    def declares(self, method: str, template: str, status: int) -> bool:
        responses = self.document["paths"][template][method.lower()]["responses"]
        return str(status) in responses or "default" in responses

    # -- validation -----------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        headers: dict[str, str],
        body: bytes | None,
    ) -> _Request:
        content_type = headers.get("content-type", "application/json" if body else "")
        return _Request(
            host_url=_GITHUB_HOST_URL,
            path=path,
            method=method.lower(),
            parameters=RequestParameters(
                query=ImmutableMultiDict(query),
                header=Headers(list(headers.items())),
                cookie=ImmutableMultiDict(),
                path={},
            ),
            content_type=content_type,
            body=body or None,
        )

    def check_request(
        self,
        method: str,
        template: str,
        path: str,
        query: list[tuple[str, str]],
        headers: dict[str, str],
        body: bytes | None,
    ) -> list[str]:
        """Problems with a request to the operation `template`; `path` is relative to the API
        root, slashes inside multi-segment parameters percent-encoded (openapi-core matches
        one segment each)."""
        request = self._request(method, path, query, headers, body)
        unknown = sorted({name for name, _ in query} - self.query_parameters(method, template))
        if unknown:
            return [f"query parameter(s) {', '.join(unknown)} not in GitHub's description of "
                    f"{method.upper()} {template}"]
        # validate_* checks without building Python objects (unmarshalling a page of 100
        # workflow runs costs seconds); it stops at the first problem, which is enough.
        try:
            with self._lock:
                self._openapi.validate_request(request)
        except OpenAPIError as error:
            return [_describe(error)]
        return []

    def check_response(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        status: int,
        headers: dict[str, str],
        body: bytes,
    ) -> list[str]:
        """Problems with a response to a request (as for `check_request`)."""
        request = self._request(method, path, query, {}, None)
        content_type = headers.get("Content-Type", "")
        response = _Response(
            data=body,
            status_code=status,
            content_type=content_type.split(";")[0].strip(),
            headers=Headers(list(headers.items())),
        )
        try:
            with self._lock:
                self._openapi.validate_response(request, response)
        except OpenAPIError as error:
            return [_describe(error)]
        return []
