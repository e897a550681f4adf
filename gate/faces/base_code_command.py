"""`claim-gate base-code --base REF`: turn a clean checkout of the head into "the head's tests
over the base's code", for a second test run whose JUnit `verify --base-code-junit` reads.

Every file the change touched that is not a test (by the policy's `test_paths`, or the
defaults for Python, JS/TS, Go and Java) goes back to the merge base's version, files the
change added are removed, test files stay as at the head; the plan is left in
`.claim-gate/base-code.json`, which the pytest plugin checks against the tree and records as
the run's `claim-gate.base_code` property. Exit 0 done, 3 refused (a dirty tree, an unknown
base, a shallow clone).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from gate.claim.errors import InvalidInput
from gate.claim.fail_to_pass import MARKER_PATH, FailToPassPolicy
from gate.claim.policy_parse import load_policy
from gate.claim.wording import plural
from gate.evidence.base_code_tree import BaseCodeRefused, prepare_base_code
from gate.evidence.git_diff import GitDiffError


def run_base_code_command(args: argparse.Namespace, out: TextIO) -> int:
    policy = load_policy(args.policy).fail_to_pass if args.policy else FailToPassPolicy()
    try:
        prepared = prepare_base_code(args.repo, args.base, policy)
    except (GitDiffError, BaseCodeRefused) as exc:
        raise InvalidInput(f"base-code --base {args.base}", None, str(exc)) from None
    plan = prepared.plan
    out.write(f"base-code: the tests of {prepared.head_sha[:12]} over the code of"
              f" {prepared.base_sha[:12]} (merge base with {args.base})\n")
    out.writelines(f"  restored {path}\n" for path in plan.restore)
    out.writelines(f"  removed  {path} (added by the change)\n" for path in plan.remove)
    out.write(f"  kept {plural(len(plan.tests), 'test file')} as at the head; plan in"
              f" {MARKER_PATH}\n")
    return 0
