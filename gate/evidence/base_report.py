"""The base branch's test report on the command line (`verify --base-junit GLOB`).

The same comparison as the Action's (`test_sets.compare`): every test that ran in the base
branch's report and is missing (deleted, deselected, renamed) or only skipped in the head's
JUnit (`--junit`) is listed, and the engine's removed_tests rule decides what that means.
The base report is the operator's input: fetch it from the base branch's own pipeline,
never from the change under review.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.claim.errors import InvalidInput
from gate.claim.junit_facts import JUnitFile
from gate.claim.loader import LoadedClaim
from gate.claim.policy import Policy
from gate.evidence.interface import Collected
from gate.evidence.junit import expand_paths
from gate.evidence.junit_reader import DEFAULT_MAX_JUNIT_BYTES, NotJUnit, read_junit_file
from gate.evidence.test_sets import MAX_COMPARED_TESTS, compare


def _read(patterns: Sequence[str], max_bytes: int, policy: Policy,
          what: str) -> list[JUnitFile]:
    files = []
    for path in expand_paths(patterns):
        try:
            files.append(read_junit_file(path, (), max_bytes, identities=MAX_COMPARED_TESTS,
                                         options=policy.junit))
        except NotJUnit:
            continue
    if not files:
        raise InvalidInput(", ".join(patterns), None, f"{what}: no JUnit report among the files",
                           "name the JUnit XML files")
    return files


@dataclass(frozen=True)
class BaseReport:
    """`--base-junit` against `--junit`: one comparison of the two test sets."""

    base: tuple[str, ...]
    head: tuple[str, ...]
    max_bytes: int = DEFAULT_MAX_JUNIT_BYTES

    def collect(self, loaded: LoadedClaim, policy: Policy) -> Collected:
        base_files = _read(self.base, self.max_bytes, policy, "--base-junit")
        head_files = _read(self.head, self.max_bytes, policy, "--junit")
        comparison = compare(
            f"the head's JUnit ({', '.join(self.head)})", base_files, head_files,
            base_label=f"the base report {', '.join(self.base)}",
        )
        return Collected(test_sets=(comparison,), inputs=comparison.inputs)
