"""A request with the probe's rules around it: allowed hosts, same-origin redirects, retries.

"Not yet" answers (connection refused, a timeout, a 5xx, 408, 429) are normal right after a deploy,
so they are retried with exponential backoff while the policy's window lasts. Time comes
from the injected clock and waiting from the injected sleep, so a test can run a
30-second window without waiting 30 seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urljoin, urlsplit

from gate.claim.probe_policy import host_refusal
from gate.claim.probe_settings import ProbeSettings
from gate.evidence.probe.http import HttpRequest, HttpResponse, Transport, TransportError

MAX_REDIRECTS = 5
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Answers that say "ask again later", not anything about the deployed thing or the record.
_BUSY = frozenset({408, 429})


@dataclass(frozen=True)
class Fetched:
    """A definite answer and when it arrived (by the gate's clock)."""

    response: HttpResponse
    at: datetime
    attempts: int
    url: str


@dataclass(frozen=True)
class FetchFailed:
    """No usable answer; `refused` means the gate would not send or follow the request."""

    error: str
    at: datetime
    attempts: int
    refused: bool = False


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    return scheme, (parts.hostname or "").lower(), port


@dataclass(frozen=True)
class Fetcher:
    settings: ProbeSettings
    transport: Transport
    clock: Callable[[], datetime]
    sleep: Callable[[float], None]
    #: The probes' shared deadline: no attempt starts after it, no wait runs past it, and a
    #: request's timeout is cut to what is left.
    deadline: datetime | None = None

    def _left_s(self) -> float | None:
        if self.deadline is None:
            return None
        return (self.deadline - self.clock()).total_seconds()

    def fetch(self, method: str, url: str, headers: Mapping[str, str]) -> Fetched | FetchFailed:
        refusal = host_refusal(self.settings, url)
        if refusal is not None:
            return FetchFailed(f"refused before any request: {refusal}", self.clock(), 0, True)
        retry = self.settings.retry
        start = self.clock()
        delay = retry.backoff_s
        attempts = 0
        while True:
            attempts += 1
            outcome = self._once(method, url, headers)
            if isinstance(outcome, HttpResponse):
                if outcome.status < 500 and outcome.status not in _BUSY:
                    return Fetched(outcome, self.clock(), attempts, url)
                problem = f"the server answered {outcome.status}"
            elif isinstance(outcome, TransportError) and outcome.not_yet:
                problem = str(outcome)
            else:
                return FetchFailed(str(outcome), self.clock(), attempts,
                                   isinstance(outcome, _RefusedError))
            elapsed = (self.clock() - start).total_seconds()
            left = self._left_s()
            if elapsed + delay > retry.window_s or (left is not None and delay >= left):
                limit = (f"the {retry.window_s:g}s retry window" if left is None
                         or elapsed + delay > retry.window_s
                         else "the probes' overall deadline (probes.deadline_s)")
                return FetchFailed(
                    f"{problem} (after {attempts} attempt{'s' if attempts != 1 else ''} within"
                    f" {limit})",
                    self.clock(), attempts,
                )
            self.sleep(delay)
            delay = min(delay * 2, retry.max_backoff_s)

    def _once(
        self, method: str, url: str, headers: Mapping[str, str]
    ) -> HttpResponse | TransportError:
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            left = self._left_s()
            timeout = self.settings.timeout_s if left is None else max(
                0.001, min(self.settings.timeout_s, left))
            request = HttpRequest(
                method, current, headers, timeout,
                self.settings.max_response_bytes, self.settings.ca_bundle,
            )
            try:
                response = self.transport.fetch(request)
            except TransportError as exc:
                return exc
            location = response.headers.get("location")
            if response.status not in _REDIRECTS or location is None:
                return response
            try:
                following = urljoin(current, location)
                same_origin = _origin(following) == _origin(url)
            except ValueError:  # the server's Location: a port or an IPv6 host urllib rejects
                return _RefusedError(
                    f"refused a redirect from {current} to {location!r}: not a URL the probe can"
                    " check against its origin"
                )
            if not same_origin:
                return _RefusedError(
                    f"refused a redirect from {current} to {following}: probes never follow a"
                    " redirect to another host, port or scheme"
                )
            current = following
        return _RefusedError(f"more than {MAX_REDIRECTS} redirects from {url}")


class _RefusedError(TransportError):
    def __init__(self, message: str) -> None:
        super().__init__(message, not_yet=False)

