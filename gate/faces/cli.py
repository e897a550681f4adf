"""`claim-gate`: the command line. Parses arguments, runs the subcommand, returns an exit code.

Building the parser (gate/faces/parser.py) imports only the option modules; a subcommand's code is
imported when it runs (`_run`), so `--help` does not load PyGithub, lxml, jsonschema or the
signing code, and `verify` loads only what verifying needs (issue 23; a test checks the
modules each command imports)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

from gate.claim.errors import CouldNotDecide, InvalidInput, UsageError
from gate.faces.gc_pause import collector_paused
from gate.faces.parser import EXIT_CODES_HELP as EXIT_CODES_HELP
from gate.faces.parser import build_parser as build_parser

if TYPE_CHECKING:
    from gate.evidence.probe.observe import ProbeIO

#: The exit codes (gate.pipeline.ExitCode), here as numbers so the parser need not import it.
_OK, _INVALID_INPUT, _COULD_NOT_DECIDE = 0, 3, 4


def _run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, clock: Callable[[], datetime],
    out: TextIO, err: TextIO, probe_io: ProbeIO | None,
) -> int:
    # Each subcommand's code is imported here, when it runs: see the module's docstring.
    if args.command == "verify":
        from gate.faces.verify_command import run_verify_arguments
        return run_verify_arguments(args, clock, out, err, probe_io)
    if args.command == "probe":
        from gate.evidence.probe.observe import ProbeIO
        from gate.faces.probe_command import run_probe_command
        return run_probe_command(args, out, probe_io or ProbeIO.system(clock))
    if args.command == "scan":
        from gate.faces.scan import run_scan
        return run_scan(args, clock=clock, out=out, err=err, probe_io=probe_io)
    if args.command == "junit":
        from gate.evidence.junit_run import read_run
        from gate.report.junit_summary import render_junit_json, render_junit_text
        run = read_run(args.files, (), args.max_bytes)
        render = render_junit_json if args.format == "json" else render_junit_text
        out.write(render(run))
        return _OK
    if args.command == "claim":
        from gate.faces.claim_command import run_claim_command
        return run_claim_command(args, out, clock)
    if args.command == "attestation":
        from gate.faces.attestation_command import run_attestation_command
        return run_attestation_command(args, out, err, clock)
    if args.command == "base-code":
        from gate.faces.base_code_command import run_base_code_command
        return run_base_code_command(args, out)
    if args.command == "schema":
        from gate.claim.schema import schema_text
        out.write(schema_text())
        return _OK
    parser.print_help(err)
    return _INVALID_INPUT


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
    parser = build_parser()
    try:
        with collector_paused():
            return _run(parser.parse_args(argv), parser, clock, out, err, probe_io)
    except (InvalidInput, UsageError) as exc:
        err.write(f"claim-gate: invalid input: {exc}\n")
        return _INVALID_INPUT
    except CouldNotDecide as exc:
        err.write(f"claim-gate: could not decide: {exc}\n")
        return _COULD_NOT_DECIDE
    except Exception as exc:
        err.write(
            f"claim-gate: could not decide: internal error {type(exc).__name__}: {exc}"
            " (this is a bug in claim-gate; please report it)\n"
        )
        return _COULD_NOT_DECIDE
