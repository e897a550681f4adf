"""`claim-gate scan OWNER/REPO#N`: the Action's pipeline on one PR, read-only, anywhere.

The same `run_gate` the Action runs, with a poster that records instead of posting and no
runner files, so a maintainer sees the verdict and the exact check run before installing
anything. The Action's inputs are flags of the same names and defaults (from one table,
handed to the Action's own `read_inputs`); the token comes from GH_TOKEN or GITHUB_TOKEN
and is never printed. Live probes reach the deployed service, so they run only with --probe.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from gate.claim.errors import GateError, InvalidInput
from gate.claim.github_facts import PullRequestRef
from gate.evidence.github.api import ApiError, GitHubApi, RetryPolicy, connect
from gate.evidence.github.event import Trigger
from gate.evidence.probe.observe import ProbeIO
from gate.faces.action.input_table import SCAN_INPUTS, dest
from gate.faces.action.inputs import ActionInputs, RunnerContext, read_inputs
from gate.faces.action.posting import CheckRunRequests, Published, check_run_requests
from gate.faces.action.run import GateOutcome, run_gate
from gate.faces.scan_output import ScanResult, render, render_error
from gate.faces.scan_ref import PullReference, choose_api_url, parse_reference
from gate.pipeline import exit_code_for
from gate.report.check_run import CheckRunReport, failure_report

TOKEN_VARIABLES = ("GH_TOKEN", "GITHUB_TOKEN")


def scan_inputs(args: argparse.Namespace, token: str, api_url: str) -> ActionInputs:
    """The flags as the Action's INPUT_* variables, parsed by the Action's own reader."""
    env = {f"INPUT_{spec.name.upper()}": "\n".join(value) if spec.several else value
           for spec in SCAN_INPUTS if (value := getattr(args, dest(spec))) is not None}
    env["INPUT_GITHUB-TOKEN"] = "-"  # read_inputs insists on one; the real one is below
    try:
        inputs = read_inputs(env)
    except InvalidInput as exc:
        raise InvalidInput("claim-gate scan", f"--{exc.place}" if exc.place else None,
                           exc.problem, exc.fix) from None
    return replace(inputs, token=token, api_url=api_url)


@dataclass
class RecordingPoster:
    """Scan's poster: keeps what the Action would send, sends nothing, writes nothing."""

    check_runs: list[CheckRunRequests] = field(default_factory=list)
    published: Published | None = None

    def post(self, report: CheckRunReport, completed_at: datetime) -> int | None:
        self.check_runs.append(check_run_requests(report, completed_at))
        return None

    def publish(self, published: Published) -> Path | None:
        self.published = published
        return None


def fetch_pull(api: GitHubApi, reference: PullReference, anonymous: bool) -> PullRequestRef:
    """The PR, or an error that says what is wrong with the reference or the token."""
    try:
        return api.pull(reference.number)
    except ApiError as exc:
        if exc.status == 404:
            raise InvalidInput(
                str(reference), None, "no such pull request (GitHub answered 404)",
                "check OWNER/REPO and the number; a private repository also answers 404 to a"
                " token that may not read it" + (" and to no token" if anonymous else ""),
            ) from None
        if exc.status == 401:
            variable = "no GH_TOKEN or GITHUB_TOKEN" if anonymous else "the token"
            raise InvalidInput(
                str(reference), None, f"GitHub refused {variable} (401: {exc})",
                "set GH_TOKEN to a valid token with read access to the repository",
            ) from None
        raise


def _warn_unsafe(api_url: str, token: str, err: TextIO) -> None:
    url = urllib.parse.urlsplit(api_url)
    if token and url.scheme == "http" and url.hostname not in ("127.0.0.1", "localhost", "::1"):
        err.write(f"claim-gate scan: warning: {api_url} is not https; the token crosses the"
                  " network unencrypted\n")


def run_scan(args: argparse.Namespace, *, out: TextIO, **given: Any) -> int:
    """Decide the PR and print; GateErrors go to the CLI's one handler (exit 3 or 4), and
    with --format json stdout holds them as a JSON error object too."""
    try:
        return _scan(args, out=out, **given)
    except GateError as exc:
        if args.format == "json":
            out.write(render_error(exc, int(exit_code_for(exc))))
        raise


def _scan(
    args: argparse.Namespace, *, clock: Callable[[], datetime], out: TextIO, err: TextIO,
    probe_io: ProbeIO | None, env: Mapping[str, str] | None = None,
    retry: RetryPolicy | None = None,
) -> int:
    env = os.environ if env is None else env
    reference = parse_reference(args.reference)
    api_url = choose_api_url(args.api_url, reference, env)
    token = next((env[v] for v in TOKEN_VARIABLES if env.get(v, "").strip()), "").strip()
    inputs = scan_inputs(args, token, api_url)
    if not token:
        err.write("claim-gate scan: no GH_TOKEN or GITHUB_TOKEN: reading anonymously (public"
                  " repositories on github.com only; GitHub allows 60 requests an hour)\n")
    _warn_unsafe(api_url, token, err)
    if not inputs.artifact_names:
        err.write("claim-gate scan: no --artifact-name: no CI artifact is read, so there is no"
                  " test evidence (name the artifacts your CI uploads JUnit XML in, or '*')\n")
    if not args.probe:
        err.write("claim-gate scan: live probes are off (--probe runs the policy's probes"
                  " against the deployed URLs)\n")
    api = GitHubApi(github=connect(api_url, token, retry or RetryPolicy()),
                    repository=reference.repository)
    pull = fetch_pull(api, reference, anonymous=not token)
    poster = RecordingPoster()
    probes = (probe_io or ProbeIO.system(clock)) if args.probe else None
    outcome = _decide(api, inputs, pull, clock, err, probes, poster)
    result = ScanResult(str(reference), pull.head_sha, outcome.verdict, outcome.verdict_exit,
                        tuple(poster.check_runs), poster.published)
    out.write(render(args.format, result))
    return outcome.verdict_exit


def _decide(
    api: GitHubApi, inputs: ActionInputs, pull: PullRequestRef, clock: Callable[[], datetime],
    err: TextIO, probe_io: ProbeIO | None, poster: RecordingPoster,
) -> GateOutcome:
    """`run_gate` with scan's poster; a fault it raises becomes the failure check the Action
    would post in its place (as the Action's entry point does)."""
    runner = RunnerContext(
        event_name="scan", event_path=Path(os.devnull),
        workspace=Path(tempfile.gettempdir()),  # scratch space for artifacts only
        output_file=None, summary_file=None, repository=api.repository,
        server_url="", run_id=None,
    )
    trigger = Trigger(event="scan", action=None, repository=api.repository, pull=pull,
                      pull_read_now=True)
    try:
        return run_gate(api=api, inputs=inputs, runner=runner, trigger=trigger, clock=clock,
                        emit=lambda line: print(line, file=err), probe_io=probe_io,
                        poster=poster)
    except GateError as exc:
        code = int(exit_code_for(exc))
        poster.post(failure_report(name=inputs.check_name, head_sha=pull.head_sha,
                                   reason=str(exc), mode=inputs.mode), clock())
        return GateOutcome(code, "could-not-decide", 0, None, (), code)
