"""The `claim-gate` parser: every subcommand's options, built from light option modules only
(`--help` and every command build it whole before anything runs; issue 23)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import NoReturn

from gate import __version__
from gate.claim.errors import UsageError
from gate.claim.limits import DEFAULT_MAX_CLAIM_BYTES, DEFAULT_MAX_JUNIT_BYTES
from gate.faces.arguments import commit_sha, positive_int, timestamp
from gate.faces.attestation_arguments import add_attestation_output_arguments
from gate.faces.attestation_check_arguments import add_attestation_arguments
from gate.faces.base_code_arguments import add_base_code_arguments
from gate.faces.claim_arguments import add_claim_arguments
from gate.faces.probe_arguments import add_probe_arguments
from gate.faces.scan_arguments import add_scan_arguments
from gate.faces.verify_git_arguments import add_git_arguments
from gate.report.renderers import FORMATS

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
    add_base_code_arguments(commands)
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
        help="an evidence record (or a JSON list of them) the operator's own producer wrote,"
        " outside the test job (a record with the pytest plugin's marks is refused here);"
        " repeatable",
    )
    verify.add_argument(
        "--test-evidence", type=Path, action="append", default=[], metavar="FILE",
        help="the record file the test job handed on (the pytest plugin's): only the plugin's"
        " test_run records, bound and inventoried, count; anything else there leaves the"
        " claim unverified (not_test_evidence); repeatable",
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
        "--now", type=timestamp, metavar="RFC3339",
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
