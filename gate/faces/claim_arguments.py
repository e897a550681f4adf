"""`claim-gate claim …`'s options, apart from the commands: building the parser (for
`--help` and every other subcommand) should not import git, JUnit and policy code (issue 23)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gate.faces.arguments import timestamp

DEFAULT_CLAIM_FILE = Path(".claim.json")


def _file_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--file", type=Path, default=DEFAULT_CLAIM_FILE, metavar="PATH",
        help=f"the claim file (default {DEFAULT_CLAIM_FILE})",
    )


def add_claim_arguments(subparsers: Any) -> None:
    """Add `claim` and its subcommands to the CLI's subparsers (`add_subparsers()` result)."""
    claim = subparsers.add_parser(
        "claim", help="write a completion claim (for the agent or its harness)",
        description="Write and check a completion claim (spec v0.1). Every write replaces the"
        " file atomically and keeps its x- fields and key order.",
    )
    commands = claim.add_subparsers(
        dest="claim_command", metavar="SUBCOMMAND", required=True, parser_class=type(claim)
    )
    new = commands.add_parser(
        "new", help="start a claim for a task",
        description="Create a claim with the task and the outcome, and no mutations yet.",
    )
    new.add_argument("--task", required=True, metavar="ID", help="the task's id")
    new.add_argument("--outcome", required=True, metavar="TEXT",
                     help="what is now true, in one sentence")
    new.add_argument("--description", metavar="TEXT",
                     help="the task as it was given (default: the outcome)")
    new.add_argument("--force", action="store_true", help="replace an existing claim file")
    _file_option(new)

    changes = commands.add_parser(
        "add-changes", help="claim every file changed since the base branch",
        description="Add one code-change mutation per file in `git diff --name-status"
        " BASE...HEAD` (a rename claims both paths), dated by the last commit that touched it."
        " Running it again updates those mutations instead of adding more. Only committed"
        " changes count: commit first.",
    )
    changes.add_argument(
        "--base", metavar="REF",
        help="the branch the work started from (default: the remote's default branch,"
        " origin/HEAD)",
    )
    changes.add_argument("--repo", type=Path, default=Path(), metavar="DIR",
                         help="the git working tree (default: the current directory)")
    _file_option(changes)

    add = commands.add_parser(
        "add", help="claim one mutation (state_write, deploy, ...)",
        description="Add one mutation to the claim.",
    )
    add.add_argument("--kind", required=True, metavar="KIND",
                     help="state_write, deploy, file_edit, ...")
    add.add_argument("--target", required=True, metavar="TARGET",
                     help="what changed: a record (accounts/4471), an environment, a path")
    add.add_argument(
        "--expected", metavar="JSON",
        help="a JSON object of what the target now holds; stored as x-intended, which a"
        " state_readback probe compares with the record",
    )
    add.add_argument("--at", type=timestamp, metavar="RFC3339",
                     help="when it happened, with a zone (default: now)")
    _file_option(add)

    check = commands.add_parser(
        "check", help="validate the claim and show what the gate will require",
        description="Validate the claim as the gate does and list, per mutation, the"
        " evidence the gate will need under the policy.",
    )
    check.add_argument("--policy", type=Path, metavar="FILE",
                       help="the operator's policy (JSON or YAML); default: the built-in policy")
    _file_option(check)
