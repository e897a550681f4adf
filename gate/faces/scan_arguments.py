"""`claim-gate scan`'s options, apart from the command: `--help` and every other subcommand
build the whole parser, and should not import PyGithub and the Action to do it (issue 23)."""

from __future__ import annotations

import argparse
from typing import Any

from gate.faces.action.input_table import SCAN_INPUTS, dest

SCAN_FORMATS = ("text", "json", "markdown")
_CHOICES = {"mode": ("enforce", "observe"), "require-claim": ("always", "agents")}

SCAN_HELP = """\
Read a pull request as the claim-gate Action would (the claim at its head, the policy from
its base branch, evidence from its CI runs' artifacts and deployments), decide, and print
the verdict and the check run the Action would post. Posts nothing. The token comes from
GH_TOKEN or GITHUB_TOKEN (none: anonymous, public repositories on github.com only, 60
requests an hour); it needs read access to contents, pull requests, actions, checks,
statuses and deployments.
"""

SCAN_EXIT_CODES = """\
exit codes (as `verify`):
  0  verified (or not required: --require-claim agents and the PR is not an agent's)
  1  unverified     2  refuted
  3  invalid input: a malformed reference, a PR that does not exist, a refused token (401)
  4  could not decide: GitHub failed (5xx, rate limit) or the token may not read what the
     gate needs (403: the message names the permission)
"""


def add_scan_arguments(commands: Any) -> None:
    """`commands`: the subparsers of the `claim-gate` parser."""
    scan = commands.add_parser(
        "scan", help="decide a GitHub pull request as the Action would, posting nothing",
        description=SCAN_HELP, epilog=SCAN_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    scan.add_argument("reference", metavar="PR",
                      help="OWNER/REPO#N, or the PR's URL (github.com or a GHES host)")
    for spec in SCAN_INPUTS:
        names = [f"--{spec.name}"]
        if spec.name == "trusted-verifiers":
            names.append("--trusted-verifier")  # `verify`'s spelling
        scan.add_argument(
            *names, dest=dest(spec), metavar=spec.metavar,
            help=spec.help + (f" (default: {spec.default})" if spec.default else ""),
            choices=_CHOICES.get(spec.name),
            **({"action": "append", "default": []} if spec.several else
               {"default": spec.default}),
        )
    scan.add_argument("--format", choices=SCAN_FORMATS, default="text", help="output format")
    scan.add_argument("--probe", action="store_true",
                      help="run the policy's live probes against the deployed URLs (they reach"
                      " the service; off by default)")
