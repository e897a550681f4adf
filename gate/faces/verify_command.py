"""`claim-gate verify`: the parsed options in, the pipeline run, the output written."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, TextIO

from gate.claim.errors import InvalidInput, UsageError
from gate.claim.model import VerdictState
from gate.claim.wording import plural
from gate.faces.attestation_output import check_attestation_arguments, write_attestation
from gate.faces.probe_command import probe_context
from gate.faces.verify_git_arguments import git_options
from gate.pipeline import VerifyOptions, VerifyResult, run_verify_command

if TYPE_CHECKING:
    from gate.evidence.probe.observe import ProbeIO


def run_verify_arguments(
    args: argparse.Namespace, clock: Callable[[], datetime], out: TextIO, err: TextIO,
    probe_io: ProbeIO | None,
) -> int:
    """`claim-gate verify` with its parsed arguments; returns the exit code."""
    if args.probe and args.now is not None:
        raise UsageError(
            "claim-gate verify: --now cannot be given with --probe: probes observe with this"
            " machine's clock, so a fixed decision time would judge real observations against"
            " another clock (any after it would read as 'from the future'); run the probes"
            " without --now, or write them with `claim-gate probe` and decide later with"
            " --evidence and --now"
        )
    signing_key = check_attestation_arguments(args)
    options = VerifyOptions(
        claim=args.claim,
        evidence=tuple(args.evidence),
        test_evidence=tuple(args.test_evidence),
        policy=args.policy,
        trusted_verifiers=tuple(args.trusted_verifier),
        now=args.now,
        format=args.format,
        max_claim_bytes=args.max_claim_bytes,
        probe=args.probe,
        probe_context=probe_context(args),
        junit=tuple(args.junit),
        head_sha=args.head_sha,
        junit_max_bytes=args.junit_max_bytes,
        **git_options(args),
    )
    now = clock()
    if args.probe and probe_io is None:  # the probes observe with this command's clock
        from gate.evidence.probe.observe import ProbeIO

        probe_io = ProbeIO.system(clock)
    result = run_verify_command(options, now, probe_io)
    if options.diff_base is not None and isinstance(result, VerifyResult):
        err.writelines(f"claim-gate: {note}\n" for note in result.notes)  # which head: tip
    write_attestation(args, result, options, now, signing_key)
    if args.output is None:
        out.write(result.output)
        return int(result.exit_code)
    state, count = ((result.verdict.state, len(result.verdict.unmet))
                    if isinstance(result, VerifyResult) else (VerdictState.UNVERIFIED, 1))
    try:
        args.output.write_text(result.output, encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(
            str(args.output), None, f"cannot write the output: {exc.strerror}",
            f"the verdict was decided ({state}); give a path that can be written",
        ) from None
    err.write(f"claim-gate: {str(state).upper()} ({plural(count, 'unmet item')});"
              f" {args.format} output written to {args.output}\n")
    return int(result.exit_code)
