"""`claim-gate`: the command line. Parses arguments, calls `run_verify_command`, returns an
exit code."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import NoReturn, TextIO

from gate import __version__
from gate.claim.errors import CouldNotDecide, InvalidInput, UsageError
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES
from gate.claim.model import VerdictState
from gate.claim.schema import schema_text
from gate.claim.timefmt import TimestampError, parse_rfc3339
from gate.claim.wording import plural
from gate.evidence.junit import DEFAULT_MAX_JUNIT_BYTES, read_run
from gate.evidence.probe.observe import ProbeIO
from gate.faces.arguments import commit_sha, positive_int
from gate.faces.attestation_command import add_attestation_arguments, run_attestation_command
from gate.faces.attestation_output import (
    add_attestation_output_arguments,
    check_attestation_arguments,
    write_attestation,
)
from gate.faces.claim_command import add_claim_arguments, run_claim_command
from gate.faces.probe_command import add_probe_arguments, probe_context, run_probe_command
from gate.faces.scan import add_scan_arguments, run_scan
from gate.faces.verify_git_arguments import add_git_arguments, git_options
from gate.pipeline import FORMATS, ExitCode, VerifyOptions, VerifyResult, run_verify_command
from gate.report.junit_summary import render_junit_json, render_junit_text

EXIT_CODES_HELP = """\
exit codes:
  0  verified: every mutation and required check is backed by independent evidence
  1  unverified: something is missing (absence is never success)
  2  refuted: an independent, fresh observation contradicts the claim
  3  invalid input: the claim, evidence, policy or command line cannot be used
  4  could not decide: an operational fault (the gate never passes on a fault)
"""

PROBE_EXIT_CODES_HELP = """\
exit codes:
  0  the probes ran and their records were written (what they observed is for `verify`)
  3  invalid input: the claim, policy or command line cannot be used
  4  could not decide: an operational fault (the records were not written)
"""


class _Parser(argparse.ArgumentParser):
    """argparse exits 2 on usage errors, which would read as "refuted"; raise instead."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _timestamp(text: str) -> datetime:
    try:
        return parse_rfc3339(text)
    except TimestampError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="claim-gate",
        description="Decide whether an AI agent's completion claim is backed by independent"
        " evidence.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"claim-gate {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_verify(commands)
    _add_probe(commands)
    _add_junit(commands)
    add_claim_arguments(commands)
    add_scan_arguments(commands)
    add_attestation_arguments(commands)
    commands.add_parser(
        "schema", help="print the JSON Schema of completion claim v0.1",
        description="Print the JSON Schema (draft 2020-12) of completion claim v0.1.",
    )
    return parser


#: argparse names no public type for its subcommand table.
_Commands = argparse._SubParsersAction


def _add_verify(commands: _Commands[_Parser]) -> None:
    verify = commands.add_parser(
        "verify",
        help="decide a claim and print the verdict",
        description="Decide a completion claim (spec v0.1) against independent evidence.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("claim", type=Path, metavar="CLAIM", help="the claim file (JSON)")
    verify.add_argument(
        "--evidence", type=Path, action="append", default=[], metavar="FILE",
        help="an evidence record (or a JSON list of them) supplied by the operator; repeatable",
    )
    verify.add_argument(
        "--policy", type=Path, metavar="FILE",
        help="the operator's policy (JSON or YAML); default: the built-in policy",
    )
    verify.add_argument(
        "--trusted-verifier", action="append", default=[], metavar="PATTERN",
        help="a glob of verifier ids whose evidence inside the claim file counts as"
        " independent; repeatable",
    )
    verify.add_argument(
        "--now", type=_timestamp, metavar="RFC3339",
        help="decision time with a zone (default: this machine's clock)",
    )
    verify.add_argument(
        "--head-sha", type=commit_sha, metavar="SHA",
        help="the commit under review (full SHA): test runs bound to another commit, a dirty"
        " tree or no commit do not count; probes assert {sha}/{short_sha} against it",
    )
    verify.add_argument("--format", choices=FORMATS, default="text",
                        help="output format (default: %(default)s)")
    verify.add_argument("--output", type=Path, metavar="FILE", help="write the output here")
    _add_max_claim_bytes(verify)
    verify.add_argument(
        "--probe", action="store_true",
        help="run the policy's live probes (endpoint_health, state_readback) before deciding",
    )
    add_probe_arguments(verify, head_sha=False)
    verify.add_argument(
        "--junit", action="append", default=[], metavar="PATH_OR_GLOB",
        help="JUnit XML written by the test run (a path or a glob, ** allowed); repeatable;"
        " all files together are one test_run observed by the gate",
    )
    verify.add_argument(
        "--junit-max-bytes", type=positive_int, default=DEFAULT_MAX_JUNIT_BYTES, metavar="N",
        help=f"refuse JUnit files larger than N bytes (default {DEFAULT_MAX_JUNIT_BYTES})",
    )
    add_git_arguments(verify)
    add_attestation_output_arguments(verify)


def _add_max_claim_bytes(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--max-claim-bytes", type=positive_int, default=DEFAULT_MAX_CLAIM_BYTES, metavar="N",
        help=f"refuse claim files larger than N bytes (default {DEFAULT_MAX_CLAIM_BYTES})",
    )


def _add_probe(commands: _Commands[_Parser]) -> None:
    probe = commands.add_parser(
        "probe",
        help="run the policy's live probes for a claim and write evidence records",
        description="Observe only: run the policy's probes for CLAIM and write the"
        " observations as evidence records (for a later `verify --evidence`).",
        epilog=PROBE_EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    probe.add_argument("claim", type=Path, metavar="CLAIM", help="the claim file (JSON)")
    probe.add_argument(
        "--policy", type=Path, metavar="FILE", required=True,
        help="the operator's policy with a `probes` section (JSON or YAML)",
    )
    probe.add_argument(
        "--output", type=Path, metavar="FILE", required=True,
        help="write the evidence records (a JSON list) here",
    )
    _add_max_claim_bytes(probe)
    add_probe_arguments(probe)


def _add_junit(commands: _Commands[_Parser]) -> None:
    junit = commands.add_parser(
        "junit", help="print what the gate reads from JUnit XML files",
        description="Read JUnit XML files as the gate does and print, per file and in total,"
        " tests, passed, failures, errors, skipped, flaky and the failing tests."
        " Exit 0 when every file was read, 3 when one cannot be used.",
    )
    junit.add_argument("files", nargs="+", metavar="FILE_OR_GLOB", help="JUnit XML files")
    junit.add_argument("--format", choices=("text", "json"), default="text",
                       help="output format")
    junit.add_argument(
        "--max-bytes", type=positive_int, default=DEFAULT_MAX_JUNIT_BYTES, metavar="N",
        help=f"refuse files larger than N bytes (default {DEFAULT_MAX_JUNIT_BYTES})",
    )


def _verify(
    args: argparse.Namespace, clock: Callable[[], datetime], out: TextIO, err: TextIO,
    probe_io: ProbeIO,
) -> int:
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


def main(
    argv: Sequence[str] | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    out: TextIO | None = None,
    err: TextIO | None = None,
    probe_io: ProbeIO | None = None,
) -> int:
    """Run the command line; returns the exit code (see EXIT_CODES_HELP)."""
    out = out or sys.stdout
    err = err or sys.stderr
    probe_io = probe_io or ProbeIO.system(clock)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "verify":
            return _verify(args, clock, out, err, probe_io)
        if args.command == "probe":
            return run_probe_command(args, out, probe_io)
        if args.command == "scan":
            return run_scan(args, clock=clock, out=out, err=err, probe_io=probe_io)
        if args.command == "junit":
            run = read_run(args.files, (), args.max_bytes)
            render = render_junit_json if args.format == "json" else render_junit_text
            out.write(render(run))
            return int(ExitCode.VERIFIED)
        if args.command == "claim":
            return run_claim_command(args, out, clock)
        if args.command == "attestation":
            return run_attestation_command(args, out, err, clock)
        if args.command == "schema":
            out.write(schema_text())
            return int(ExitCode.VERIFIED)
        parser.print_help(err)
        return int(ExitCode.INVALID_INPUT)
    except (InvalidInput, UsageError) as exc:
        err.write(f"claim-gate: invalid input: {exc}\n")
        return int(ExitCode.INVALID_INPUT)
    except CouldNotDecide as exc:
        err.write(f"claim-gate: could not decide: {exc}\n")
        return int(ExitCode.COULD_NOT_DECIDE)
    except Exception as exc:
        err.write(
            f"claim-gate: could not decide: internal error {type(exc).__name__}: {exc}"
            " (this is a bug in claim-gate; please report it)\n"
        )
        return int(ExitCode.COULD_NOT_DECIDE)
