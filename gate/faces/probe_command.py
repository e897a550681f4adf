"""The command-line side of the probe room: its arguments and `claim-gate probe`.

Kept here so that `gate/cli.py` only wires the room in; the GitHub Action builds the
same `ProbeContext` from the deployment statuses instead of from `--environment-url`.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from gate.claim.errors import CouldNotDecide, InvalidInput
from gate.claim.wording import plural
from gate.evidence.probe.context import ProbeContext, environment_urls

if TYPE_CHECKING:
    from gate.evidence.probe.observe import ProbeIO


def probe_context(args: argparse.Namespace) -> ProbeContext:
    return ProbeContext(
        head_sha=args.head_sha,
        environment_urls=environment_urls(args.environment_url, "--environment-url"),
    )


def run_probe_command(args: argparse.Namespace, out: TextIO, io: ProbeIO) -> int:
    """Observe and write records; deciding is `verify`'s job, so exit 0 once written."""
    # Imported here: `verify` builds its probe context from this module and must not load
    # the probes, the policy parser or the loader's records for it (issue 23).
    from gate.claim.loader import load_claim
    from gate.claim.policy_parse import load_policy
    from gate.evidence.probe.collect import probe_evidence
    from gate.evidence.probe.records import PROBE_EXTENSION, probe_records

    loaded = load_claim(args.claim, args.max_claim_bytes)
    policy = load_policy(args.policy)
    context = replace(probe_context(args), claim_sha256=loaded.document.sha256)
    items = probe_evidence(loaded.claim, policy, context, io)
    if not items:
        raise InvalidInput(
            str(args.policy), None,
            f"no probe of this policy applies to {loaded.source} (no deploy mutation to a probed"
            " environment, no state_write target matching a readback pattern)",
        )
    text = json.dumps(probe_records(items), indent=2, ensure_ascii=False) + "\n"
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CouldNotDecide(f"{args.output}: cannot write the evidence: {exc.strerror}") from None
    for item in items:
        evidence = item.evidence
        if item.disqualified is not None:
            out.write(f"no observation: {item.disqualified.message}\n")
        else:
            info = evidence.extensions.get(PROBE_EXTENSION, {})
            out.write(
                f"observed {evidence.check_type} {evidence.target}: {item.source}"
                f" after {_attempts(info)}\n"
            )
    out.write(f"wrote {plural(len(items), 'evidence record')} to {args.output}\n")
    return 0


def _attempts(info: object) -> str:
    attempts = info.get("attempts") if isinstance(info, dict) else None
    if isinstance(attempts, int) and not isinstance(attempts, bool):
        return plural(attempts, "attempt")
    return "an unknown number of attempts"
