"""`verify`'s options for a gate that runs out of the agent's reach, in any CI: where the
clone is, what the branch forked from, the base branch's report, and whether a claim is
required. See docs/other-ci.md."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_git_arguments(verify: argparse.ArgumentParser) -> None:
    verify.add_argument(
        "--repo", type=Path, metavar="DIR",
        help="the git clone of the repository (default: the one holding CLAIM; . for"
        " --diff-base); with --head-sha the claim is read as committed there, and a"
        " workspace claim whose bytes differ is refused",
    )
    verify.add_argument(
        "--diff-base", metavar="REF",
        help="the branch the change forked from: `git diff REF...HEAD` is the change's file"
        " list, so every changed file must be claimed and every claimed file changed"
        " (unclaimed_change, not_in_diff), and test runs whose set-up (CI config, test"
        " configuration, conftest.py...) the change edits do not count (producer_modified)",
    )
    verify.add_argument(
        "--base-junit", action="append", default=[], metavar="PATH_OR_GLOB",
        help="the base branch's JUnit XML (repeatable): tests that ran there and are missing"
        " or skipped in --junit are removed_tests",
    )
    verify.add_argument(
        "--base-code-junit", action="append", default=[], metavar="PATH_OR_GLOB",
        help="JUnit XML of the head's tests run over the base's code (after `claim-gate"
        " base-code`, repeatable): tests that fail there and pass in --junit are fail-to-pass"
        " (policy fail_to_pass: off | report | require)",
    )
    verify.add_argument(
        "--test-exit-status", type=int, metavar="N",
        help="the test job's own exit status: with --junit, a run that exited non-zero and"
        " whose report shows no failure is unverified (a test file that failed to load can"
        " leave only passing cases in the report)",
    )
    verify.add_argument(
        "--require-claim", action="store_true",
        help="this change needs a claim: a missing claim file is unverified (exit 1,"
        " no_claim) instead of invalid input (exit 3)",
    )


def git_options(args: argparse.Namespace) -> dict[str, Any]:
    """The VerifyOptions fields these arguments fill."""
    return {
        "repo": args.repo,
        "diff_base": args.diff_base,
        "base_junit": tuple(args.base_junit),
        "base_code_junit": tuple(args.base_code_junit),
        "require_claim": args.require_claim,
        "test_exit_status": args.test_exit_status,
    }
