"""HTTP plumbing of the stand-in: routing, faults, recording, validation, pagination.

Why one dispatcher: every request passes the same path - counted, faults first, request
checked against GitHub's description, answered by a route, answer completed from the schema,
answer checked - so no endpoint can skip validation or counting.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

if TYPE_CHECKING:
    from tests.github_standin.hub import Hub
    from tests.github_standin.model import Identity

JSON = Any
DOCS = "https://docs.github.com/rest"


@dataclass(frozen=True)
class Paged:
    """A list answer; the dispatcher slices it by `page`/`per_page` and writes `Link`."""

    items: list[JSON]
    key: str | None = None  # e.g. "workflow_runs" for {"total_count": n, "workflow_runs": [...]}


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: JSON = None  # a JSON value, a Paged, or None for no body
    headers: dict[str, str] = field(default_factory=dict)


class HttpError(Exception):
    """Raised by a route to answer with GitHub's error shape."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass(frozen=True)
class Call:
    """One request as a route sees it."""

    method: str
    endpoint: str  # "GET /repos/{owner}/{repo}"
    params: dict[str, str]  # path parameters, percent-decoded
    query: dict[str, str]  # last value of each query parameter
    headers: dict[str, str]  # lower-cased names
    body: JSON
    identity: Identity | None
    token: str | None

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise HttpError(404, "Not Found") from None


Handler = Callable[["Hub", Call], Reply]


@dataclass(frozen=True)
class Route:
    method: str
    template: str
    handler: Handler
    pattern: re.Pattern[str]
    anonymous: bool = False  # answered without a token (app JWT endpoints check their own)

    @property
    def endpoint(self) -> str:
        return f"{self.method} {self.template}"

    @classmethod
    def make(
        cls, method: str, template: str, handler: Handler, *, anonymous: bool = False
    ) -> Route:
        def group(match: re.Match[str]) -> str:
            name = match.group(1)
            # {path} (contents) and {ref} (a branch such as feature/x) may hold slashes
            body = ".+" if name in ("path", "ref") else "[^/]+"
            return f"(?P<{name}>{body})"

        regex = re.sub(r"\{(\w+)\}", group, re.escape(template).replace(r"\{", "{").replace(
            r"\}", "}"))
        return cls(method, template, handler, re.compile(f"^{regex}$"), anonymous)


@dataclass(frozen=True)
class RecordedRequest:
    """What reached the API server and what it answered."""

    method: str
    path: str
    endpoint: str | None
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes
    status: int


@dataclass(frozen=True)
class StorageRequest:
    """A download from the artifact storage host; `authorization` is what arrived, if any."""

    path: str
    authorization: str | None
    status: int


@dataclass
class Fault:
    """Answer the next `times` calls of `endpoint` ("*" for any) this way, then serve normally."""

    endpoint: str
    times: int
    status: int = 502
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "Server Error"
    delay: float = 0.0  # seconds to wait before answering (past a client's timeout)
    serve_after_delay: bool = True


def error_body(message: str) -> JSON:
    return {"message": message, "documentation_url": DOCS}


def paginate(reply: Reply, query: dict[str, str], page_url: str) -> Reply:
    """Slice a Paged answer as GitHub does (per_page default 30, at most 100)."""
    if not isinstance(reply.body, Paged):
        return reply
    try:
        per_page = max(1, min(100, int(query.get("per_page", "30"))))
        page = max(1, int(query.get("page", "1")))
    except ValueError:
        raise HttpError(422, "Validation Failed: page and per_page are numbers") from None
    items = reply.body.items
    chunk = items[(page - 1) * per_page : page * per_page]
    last = max(1, -(-len(items) // per_page))
    links = []
    others = [(k, v) for k, v in query.items() if k not in ("page", "per_page")]

    def link(number: int, rel: str) -> str:
        pairs = [*others, ("per_page", str(per_page)), ("page", str(number))]
        encoded = "&".join(f"{k}={quote(v, safe='')}" for k, v in pairs)
        return f'<{page_url}?{encoded}>; rel="{rel}"'

    if page < last:
        links += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        links += [link(1, "first"), link(page - 1, "prev")]
    headers = dict(reply.headers)
    if links:
        headers["Link"] = ", ".join(links)
    body: JSON = chunk if reply.body.key is None else {
        "total_count": len(items), reply.body.key: chunk,
    }
    return Reply(reply.status, body, headers)


def _make_api_handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class ApiHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: pytest shows what matters through assertions."""

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            headers = {name.lower(): value for name, value in self.headers.items()}
            status, out_headers, payload = hub.dispatch(self.command, self.path, headers, body)
            try:
                self.send_response(status)
                for name, value in out_headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (a delay fault)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve  # noqa: N815

    return ApiHandler


def _make_storage_handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class StorageHandler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

        def do_GET(self) -> None:
            status, payload = hub.serve_blob(self.path, self.headers.get("Authorization"))
            self.send_response(status)
            content_type = "application/zip" if status == 200 else "text/plain"
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return StorageHandler


class Servers:
    """The API server and the artifact storage server, on 127.0.0.1, ports chosen by the OS."""

    def __init__(self, hub: Hub) -> None:
        self.api = ThreadingHTTPServer(("127.0.0.1", 0), _make_api_handler(hub))
        self.storage = ThreadingHTTPServer(("127.0.0.1", 0), _make_storage_handler(hub))
        for server in (self.api, self.storage):
            server.daemon_threads = True
        self._threads = [
            threading.Thread(target=server.serve_forever, args=(0.05,), name=f"github-standin-{i}",
                             daemon=True)
            for i, server in enumerate((self.api, self.storage))
        ]
        for thread in self._threads:
            thread.start()

    @property
    def api_origin(self) -> str:
        return f"http://127.0.0.1:{self.api.server_address[1]}"

    @property
    def storage_origin(self) -> str:
        return f"http://127.0.0.1:{self.storage.server_address[1]}"

    def close(self) -> None:
        for server in (self.api, self.storage):
            server.shutdown()
            server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)


def split_target(target: str) -> tuple[str, list[tuple[str, str]]]:
    parts = urlsplit(target)
    return parts.path, parse_qsl(parts.query, keep_blank_values=True)


def validator_path(route: Route, params: dict[str, str]) -> str:
    """The template with each parameter percent-encoded (slashes too) for openapi-core."""
    return re.sub(r"\{(\w+)\}", lambda m: quote(params[m.group(1)], safe=""), route.template)


def match(routes: list[Route], method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    for route in routes:
        if route.method != method:
            continue
        found = route.pattern.match(path)
        if found:
            return route, {k: unquote(v) for k, v in found.groupdict().items()}
    return None


def encode(body: JSON) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def status_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
