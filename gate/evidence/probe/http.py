"""One HTTP exchange, with no redirects followed and a hard cap on what is read.

The transport is the only place that touches the network; the probe runner gets one in its
constructor, so tests use the real one against servers on 127.0.0.1. It never follows a
redirect (the runner decides whether a `Location` stays on the same origin), never reads
more than the cap, and verifies TLS always (a CA bundle may replace the system store for
internal hosts, it cannot switch verification off).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from gate.claim.decimal_text import decimal

if TYPE_CHECKING:
    import http.client

_CHUNK = 64 * 1024


@dataclass(frozen=True)
class HttpRequest:
    method: str
    url: str
    headers: Mapping[str, str]
    timeout_s: float
    max_bytes: int
    ca_bundle: str | None = None


@dataclass(frozen=True)
class HttpResponse:
    status: int
    headers: Mapping[str, str]  # lower-case names; repeated headers joined with ", "
    body: bytes


class TransportError(Exception):
    """The exchange gave no usable answer. `not_yet` means retrying may help."""

    def __init__(self, message: str, *, not_yet: bool) -> None:
        super().__init__(message)
        self.not_yet = not_yet


class Transport(Protocol):
    def fetch(self, request: HttpRequest) -> HttpResponse: ...


class HttpTransport:
    """The real transport: `http.client`, one connection per request."""

    def fetch(self, request: HttpRequest) -> HttpResponse:
        # Imported here: only a probe run needs them, and every command that merely builds a
        # ProbeIO (all of `claim-gate`) would pay for them at start (issue 23).
        import http.client
        import socket
        import ssl

        parts = urlsplit(request.url)
        host = parts.hostname or ""
        target = parts.path or "/"
        if parts.query:
            target += "?" + parts.query
        connection: http.client.HTTPConnection
        if parts.scheme == "https":
            context = ssl.create_default_context(cafile=request.ca_bundle)
            connection = http.client.HTTPSConnection(
                host, parts.port, timeout=request.timeout_s, context=context
            )
        else:
            connection = http.client.HTTPConnection(host, parts.port, timeout=request.timeout_s)
        deadline = time.monotonic() + request.timeout_s
        response: http.client.HTTPResponse | None = None
        try:
            connection.request(request.method, target, headers=dict(request.headers))
            response = connection.getresponse()
            headers: dict[str, str] = {}
            for name, value in response.getheaders():
                key = name.lower()
                headers[key] = f"{headers[key]}, {value}" if key in headers else value
            body = b"" if request.method == "HEAD" else _read_capped(
                response, request.max_bytes, deadline
            )
            return HttpResponse(response.status, headers, body)
        except ssl.SSLCertVerificationError as exc:
            raise TransportError(
                f"TLS certificate verification failed: {exc.verify_message}", not_yet=False
            ) from None
        except ssl.SSLError as exc:
            raise TransportError(f"TLS failed: {exc.reason or exc}", not_yet=False) from None
        except TimeoutError:
            raise TransportError(
                f"no answer within the {request.timeout_s:g}s timeout", not_yet=True
            ) from None
        except ConnectionRefusedError:
            raise TransportError("connection refused", not_yet=True) from None
        except socket.gaierror as exc:
            raise TransportError(f"the host name did not resolve: {exc.strerror}",
                                 not_yet=False) from None
        except (ConnectionError, http.client.HTTPException) as exc:
            raise TransportError(
                f"the connection failed: {type(exc).__name__}", not_yet=True
            ) from None
        except OSError as exc:
            raise TransportError(f"the connection failed: {exc.strerror or exc}",
                                 not_yet=True) from None
        finally:
            if response is not None:
                response.close()
            connection.close()


def _read_capped(response: http.client.HTTPResponse, max_bytes: int, deadline: float) -> bytes:
    declared = decimal(response.getheader("content-length"))
    if declared is not None and declared > max_bytes:
        raise TransportError(
            f"the response declares {declared} bytes, over the {max_bytes}-byte cap;"
            " the gate did not read it",
            not_yet=False,
        )
    chunks: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError
        chunk = response.read1(_CHUNK)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > max_bytes:
            raise TransportError(
                f"the response body is over the {max_bytes}-byte cap; the gate stopped reading",
                not_yet=False,
            )
        chunks.append(chunk)
