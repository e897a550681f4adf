"""Probe the world for a claim and turn what came back into evidence items.

Which probes run is decided by the claim's mutations (a `deploy` to an environment the
policy probes, a `state_write` to a target matching a readback pattern) and by the policy's
requirements; what they expect comes from the operator's assertions (endpoint_health) or
from the claim's own account of the write (state_readback: `x-intended` on the mutation, or
the agent's self-attested readback). The gate's observation is then set against it and the
engine's contradiction rule decides. A probe that got no usable answer becomes an item
disqualified with the error: absence, never success.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from gate import __version__
from gate.claim.errors import InvalidInput
from gate.claim.facts import Disqualification, EvidenceItem, Origin
from gate.claim.model import (
    DEPLOY_KIND,
    INTENDED_EXTENSION,
    JSON,
    STATE_WRITE_KIND,
    CheckType,
    Claim,
    Evidence,
    Mutation,
    Verifier,
    VerifierKind,
)
from gate.claim.probe_policy import header_value_problem
from gate.claim.probe_settings import (
    AssertionKind,
    EndpointProbe,
    HeaderValue,
    ProbeSettings,
    ReadbackProbe,
)
from gate.evidence.probe.context import ProbeContext as ProbeContext
from gate.evidence.probe.fetch import Fetched, Fetcher, FetchFailed
from gate.evidence.probe.http import HttpTransport, Transport
from gate.evidence.probe.records import FAILED, PROBE_EXTENSION

PROBE_VERIFIER_ID = f"claim-gate/probe@{__version__}"
REDACTED = "[redacted]"

#: Answers that refuse the gate: no observation (408 and 429 are retried, see fetch).
_NOT_LET_IN = frozenset({401, 403, 407})

REFUSED = "probe_refused"
NOTHING_EXPECTED = "probe_nothing_expected"


@dataclass(frozen=True)
class ProbeIO:
    """Everything a probe run takes from the outside world, injected."""

    clock: Callable[[], datetime]
    sleep: Callable[[float], None]
    environ: Mapping[str, str]
    transport: Transport

    @classmethod
    def system(cls, clock: Callable[[], datetime] | None = None) -> ProbeIO:
        """The real clock, sleep, process environment and HTTP transport."""
        return cls(
            clock=clock or (lambda: datetime.now(UTC)),
            sleep=time.sleep,
            environ=os.environ,
            transport=HttpTransport(),
        )


@dataclass(frozen=True)
class Secrets:
    """Secret header values of one probe; any copy in what is recorded becomes [redacted]."""

    values: tuple[str, ...]  # longest first, so "Bearer x" goes before "x"

    def redact(self, value: JSON) -> JSON:
        if isinstance(value, str):
            for secret in self.values:
                value = value.replace(secret, REDACTED)
            return value
        if isinstance(value, list):
            return [self.redact(item) for item in value]
        if isinstance(value, dict):
            return {self.redact(key): self.redact(item) for key, item in value.items()}
        return value


def _verifier() -> Verifier:
    return Verifier(PROBE_VERIFIER_ID, VerifierKind.INDEPENDENT)


def _resolve_headers(
    headers: Sequence[HeaderValue], environ: Mapping[str, str], context: ProbeContext, place: str
) -> tuple[dict[str, str], tuple[str, ...]]:
    resolved = {"User-Agent": PROBE_VERIFIER_ID, "Accept": "application/json"}
    secrets: list[str] = []
    for header in headers:
        if header.env is None:
            resolved[header.name] = header.literal or ""
            continue
        value = environ.get(header.env)
        if not value:
            raise InvalidInput(
                context.policy_source, None,
                f"{place}/headers/{header.name}: the environment variable {header.env} is not set"
                " or empty", f"set {header.env} in the gate's environment (a CI secret)",
            )
        problem = header_value_problem(value)
        if problem is not None:
            # Name the variable, never the value: it is a secret.
            raise InvalidInput(
                context.policy_source, None,
                f"{place}/headers/{header.name}: the environment variable {header.env} cannot be"
                f" sent as a header value: {problem}",
                f"set {header.env} to the bare value; a trailing newline is a common cause",
            )
        resolved[header.name] = header.prefix + value
        secrets.extend((value, header.prefix + value))
    return resolved, tuple(sorted(set(secrets), key=len, reverse=True))


def _misplaced_secret(headers: Sequence[HeaderValue], url: str) -> str | None:
    """Why a secret header of this probe may not go to `url`'s host, or None. Checked before
    anything is sent; redirects never leave the origin, so this host is the only one."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        return f"refused before any request: {url!r} has an invalid port"
    for header in headers:
        if header.refuses(host, port):
            return (f"refused before any request: the secret header {header.name} (from"
                    f" {header.env}) is bound to other hosts than {host}:{port}; nothing was"
                    " sent (give the host in the header's `hosts` if it may have the secret)")
    return None


def _expand(value: JSON, head_sha: str | None, context: ProbeContext, place: str) -> JSON:
    if not isinstance(value, str) or ("{sha}" not in value and "{short_sha}" not in value):
        return value
    if not head_sha:
        raise InvalidInput(
            context.policy_source, None,
            f"{place}: asserts on {{sha}} or {{short_sha}}, but no head commit was given",
            "pass --head-sha with the commit under test (in GitHub Actions: the PR head SHA)",
        )
    return value.replace("{short_sha}", head_sha[:7]).replace("{sha}", head_sha)


def _join_path(base: str, path: str) -> str:
    """The policy's path joined to the environment URL's path; its query stays a query (the
    URL comes from a deployment status, and a '?' there must not swallow the path)."""
    parts = urlsplit(base)
    joined = parts.path.rstrip("/") + "/" + path.lstrip("/")
    return urlunsplit((parts.scheme, parts.netloc, joined, parts.query, ""))


def resolve_pointer(document: JSON, json_pointer: str) -> tuple[bool, JSON]:
    """RFC 6901: (found, value)."""
    if json_pointer == "":
        return True, document
    current = document
    for raw in json_pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and re.fullmatch(r"0|[1-9][0-9]*", part) and (
            int(part) < len(current)
        ):
            current = current[int(part)]
        else:
            return False, None
    return True, current


def _json_body(body: bytes) -> tuple[bool, JSON]:
    try:
        return True, json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return False, None


@dataclass(frozen=True)
class _Job:
    check_type: CheckType
    target: str
    covers: tuple[str, ...]
    method: str
    url: str | None
    headers: tuple[HeaderValue, ...]
    place: str
    expected: Mapping[str, JSON]
    probe: EndpointProbe | ReadbackProbe
    missing: str | None = None  # why the probe cannot be made (no URL, nothing to expect)


@dataclass(frozen=True)
class ProbeRunner:
    """Runs the policy's probes for one claim; collaborators come in the constructor."""

    settings: ProbeSettings
    io: ProbeIO
    context: ProbeContext = field(default_factory=ProbeContext)

    def collect(self, claim: Claim, requires: Iterable[CheckType] = ()) -> list[EvidenceItem]:
        """Every probe the claim calls for, within the policy's cap and its overall deadline
        (a probe not made in time is absent, with that reason)."""
        jobs = self.plan(claim, tuple(requires))
        deadline = self.io.clock() + timedelta(seconds=self.settings.deadline_s)
        fetcher = Fetcher(self.settings, self.io.transport, self.io.clock, self.io.sleep,
                          deadline)
        cap = self.settings.max_probes
        items = []
        for job in jobs[:cap]:
            now = self.io.clock()
            items.append(self._run(job, fetcher) if now < deadline else self._failed(
                job, f"not probed: the probes' overall deadline ({self.settings.deadline_s:g}s,"
                " policy probes.deadline_s) passed before this probe's turn", FAILED, now, 0,
                Secrets(())))
        items += [
            self._failed(job, f"not probed: the claim asks for {len(jobs)} probes, over the"
                         f" policy's max_probes ({cap})", FAILED, self.io.clock(), 0, Secrets(()))
            for job in jobs[cap:]
        ]
        return items

    # -- planning -------------------------------------------------------------------------
    def plan(self, claim: Claim, requires: tuple[CheckType, ...]) -> list[_Job]:
        jobs = [
            job for probe in self.settings.endpoint_health
            if (job := self._endpoint_job(probe, claim, requires)) is not None
        ]
        jobs.extend(self._readback_jobs(claim))
        return jobs

    def _endpoint_job(
        self, probe: EndpointProbe, claim: Claim, requires: tuple[CheckType, ...]
    ) -> _Job | None:
        deploys = tuple(
            m.id for m in claim.mutations
            if m.kind == DEPLOY_KIND and m.target == probe.environment
        )
        if not deploys and CheckType.ENDPOINT_HEALTH not in requires:
            return None
        head = self.context.head_sha
        expected: dict[str, JSON] = {"status": probe.status}
        for index, assertion in enumerate(probe.assertions):
            place = f"{probe.place}/assert/{index}"
            if assertion.kind is AssertionKind.BODY_CONTAINS:
                expected[assertion.key] = _expand(assertion.subject, head, self.context, place)
            else:
                expected[assertion.key] = _expand(assertion.equals, head, self.context, place)
        url = probe.url
        missing = None
        if url is None:
            base = self.context.environment_urls.get(probe.environment)
            if base is None:
                missing = (
                    f"no environment URL for {probe.environment!r} was given (the latest"
                    " successful deployment status from a creator the policy trusts,"
                    " deployment_creators, supplies it; on the command line:"
                    f" --environment-url {probe.environment}=URL)"
                )
            else:
                url = _join_path(base, probe.path) if probe.path else base
        return _Job(
            CheckType.ENDPOINT_HEALTH, probe.environment, deploys, probe.method, url,
            probe.headers, probe.place, expected, probe, missing,
        )

    def _readback_jobs(self, claim: Claim) -> list[_Job]:
        by_target: dict[str, list[Mutation]] = {}
        for mutation in claim.mutations:
            if mutation.kind == STATE_WRITE_KIND and mutation.target is not None:
                by_target.setdefault(mutation.target, []).append(mutation)
        jobs: list[_Job] = []
        for target, mutations in by_target.items():
            for probe in self.settings.state_readback:
                values = probe.match(target)
                if values is None:
                    continue
                url = probe.url
                for name, value in values.items():
                    url = url.replace("{" + name + "}", quote(value, safe=""))
                expected = _intended(claim, target, mutations, probe.fields)
                missing = None if expected else (
                    f"the claim states no intended value for {target}"
                    + (f" among the fields {', '.join(probe.fields)}" if probe.fields else "")
                    + f" (an {INTENDED_EXTENSION} object on the mutation, or the agent's own"
                    " state_readback `expected`); a readback has nothing to compare"
                )
                jobs.append(_Job(
                    CheckType.STATE_READBACK, target, tuple(m.id for m in mutations), "GET", url,
                    probe.headers, probe.place, expected, probe, missing,
                ))
                break
        return jobs

    # -- running --------------------------------------------------------------------------
    def _run(self, job: _Job, fetcher: Fetcher) -> EvidenceItem:
        if job.missing is not None or job.url is None:
            code = NOTHING_EXPECTED if job.url is not None else FAILED
            reason = job.missing or "no URL"
            return self._failed(job, reason, code, self.io.clock(), 0, Secrets(()))
        misplaced = _misplaced_secret(job.headers, job.url)
        if misplaced is not None:
            return self._failed(job, misplaced, REFUSED, self.io.clock(), 0, Secrets(()))
        headers, secret_values = _resolve_headers(
            job.headers, self.io.environ, self.context, job.place
        )
        secrets = Secrets(secret_values)
        outcome = fetcher.fetch(job.method, job.url, headers)
        if isinstance(outcome, FetchFailed):
            code = REFUSED if outcome.refused else FAILED
            return self._failed(job, outcome.error, code, outcome.at, outcome.attempts, secrets)
        if job.check_type is CheckType.ENDPOINT_HEALTH:
            return self._endpoint_item(job, outcome, secrets)
        return self._readback_item(job, outcome, secrets)

    def _probe_info(self, job: _Job, attempts: int, **more: JSON) -> dict[str, JSON]:
        return {
            "method": job.method,
            "url": job.url,
            "policy_place": job.place,
            "attempts": attempts,
            **({"head_sha": self.context.head_sha} if self.context.head_sha else {}),
            **({"claim_sha256": self.context.claim_sha256} if self.context.claim_sha256 else {}),
            **more,
        }

    def _failed(
        self, job: _Job, error: str, code: str, at: datetime, attempts: int, secrets: Secrets
    ) -> EvidenceItem:
        error = str(secrets.redact(error))
        message = f"the gate's {job.check_type} probe of {job.target} got no observation: {error}"
        if code == NOTHING_EXPECTED:
            message = f"the gate's {job.check_type} probe of {job.target} was not made: {error}"
        evidence = Evidence(
            check_type=job.check_type,
            at=at,
            verifier=_verifier(),
            covers=job.covers,
            target=job.target,
            expected=dict(job.expected),
            extensions={PROBE_EXTENSION: secrets.redact(
                self._probe_info(job, attempts, code=code, error=message)
            )},
        )
        return EvidenceItem(
            evidence, Origin.GATE, f"probe {job.method} {job.url or job.target}",
            Disqualification(code, message),
        )

    def _observed(
        self, job: _Job, observed: Mapping[str, JSON], fetched: Fetched, secrets: Secrets,
        **more: JSON,
    ) -> EvidenceItem:
        evidence = Evidence(
            check_type=job.check_type,
            at=fetched.at,
            verifier=_verifier(),
            covers=job.covers,
            target=job.target,
            expected=dict(job.expected),
            observed_value=secrets.redact(dict(observed)),
            has_observed_value=True,
            extensions={PROBE_EXTENSION: secrets.redact(self._probe_info(
                job, fetched.attempts, status=fetched.response.status, **more
            ))},
        )
        return EvidenceItem(
            evidence, Origin.GATE,
            f"probe {job.method} {job.url} answered {fetched.response.status}",
        )

    def _endpoint_item(self, job: _Job, fetched: Fetched, secrets: Secrets) -> EvidenceItem:
        response = fetched.response
        observed: dict[str, JSON] = {"status": response.status}
        parsed: tuple[bool, JSON] | None = None
        text = response.body.decode("utf-8", errors="replace")
        probe = job.probe
        assert isinstance(probe, EndpointProbe)
        if response.status in _NOT_LET_IN and response.status != probe.status:
            # Like a readback with wrong credentials: no observation of the deploy at all.
            return self._failed(
                job, f"the deployed app answered {response.status} at {job.url}: the gate was"
                " not let in, so it saw nothing of the deploy", FAILED, fetched.at,
                fetched.attempts, secrets,
            )
        for assertion in probe.assertions:
            if assertion.kind is AssertionKind.HEADER:
                if assertion.subject in response.headers:
                    observed[assertion.key] = response.headers[assertion.subject]
            elif assertion.kind is AssertionKind.BODY_CONTAINS:
                wanted = job.expected[assertion.key]
                if isinstance(wanted, str) and wanted in text:
                    observed[assertion.key] = wanted
            else:
                parsed = parsed or _json_body(response.body)
                if parsed[0]:
                    found, value = resolve_pointer(parsed[1], assertion.subject)
                    if found:
                        observed[assertion.key] = value
        return self._observed(job, observed, fetched, secrets)

    def _readback_item(self, job: _Job, fetched: Fetched, secrets: Secrets) -> EvidenceItem:
        response = fetched.response
        probe = job.probe
        assert isinstance(probe, ReadbackProbe)
        if response.status in probe.absent_status:
            return self._observed(job, {}, fetched, secrets, record="absent")
        if not 200 <= response.status < 300:
            return self._failed(
                job, f"the system of record answered {response.status} at {job.url}", FAILED,
                fetched.at, fetched.attempts, secrets,
            )
        ok, document = _json_body(response.body)
        found, record = resolve_pointer(document, probe.record) if ok else (False, None)
        if not isinstance(record, dict) or not found:
            where = f" at {probe.record}" if probe.record else ""
            return self._failed(
                job, f"the answer from {job.url} holds no JSON object{where}", FAILED,
                fetched.at, fetched.attempts, secrets,
            )
        observed = {key: record[key] for key in job.expected if key in record}
        return self._observed(job, observed, fetched, secrets, record="present")


def _intended(
    claim: Claim, target: str, mutations: Sequence[Mutation], fields: tuple[str, ...] | None
) -> dict[str, JSON]:
    """What the claim says the record now holds, limited to the policy's fields."""
    intended: dict[str, Any] = {}
    stated = [m.extensions[INTENDED_EXTENSION] for m in sorted(mutations, key=lambda m: m.at)
              if isinstance(m.extensions.get(INTENDED_EXTENSION), dict)]
    if stated:
        intended = dict(stated[-1])
    else:
        ids = {m.id for m in mutations}
        own = [
            e for e in claim.evidence
            if e.check_type is CheckType.STATE_READBACK and e.target == target
            and e.expected is not None and (not e.covers or ids & set(e.covers))
        ]
        for evidence in sorted(own, key=lambda e: e.at):
            intended.update(evidence.expected or {})
    if fields is not None:
        intended = {key: value for key, value in intended.items() if key in fields}
    return intended
