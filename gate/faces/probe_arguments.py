"""The probe options of `verify` and `probe`, apart from running probes: building the parser
should not import the probe runner (issue 23)."""

from __future__ import annotations

import argparse

from gate.faces.arguments import commit_sha


def add_probe_arguments(parser: argparse.ArgumentParser, *, head_sha: bool = True) -> None:
    """The probe options; `verify` defines its own --head-sha (it binds test runs too)."""
    if head_sha:
        parser.add_argument(
            "--head-sha", type=commit_sha, metavar="SHA",
            help="the commit under test; probes assert {sha}/{short_sha} against it",
        )
    parser.add_argument(
        "--environment-url", action="append", default=[], metavar="NAME=URL",
        help="the URL of a deployed environment (as a deployment status gives it); it must"
        " match the policy's allowed_hosts; repeatable",
    )
