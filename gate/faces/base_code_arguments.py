"""`claim-gate base-code`'s options (gate/faces/base_code_command.py runs it): kept apart so
that building the parser imports no policy parser and no git code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

_DESCRIPTION = ("Turn a clean checkout of the head into \"the head's tests over the base's code\","
                " for a second test run whose JUnit `verify --base-code-junit` reads.")


def add_base_code_arguments(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "base-code", help="put the base's code under the head's tests (fail-to-pass)",
        description=_DESCRIPTION,
    )
    parser.add_argument("--base", required=True, metavar="REF",
                        help="the branch the change forked from (as for verify --diff-base)")
    parser.add_argument("--repo", type=Path, default=Path(), metavar="DIR",
                        help="the clean checkout of the head (default: .)")
    parser.add_argument("--policy", type=Path, metavar="FILE",
                        help="the policy whose test_paths say which files are tests")
