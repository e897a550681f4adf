"""The `junit` policy section: how the reader counts cases that share one identity.

    junit:
      reruns: separate        # default: every <testcase> is one run of a test
      reruns: repeated-cases  # the tool writes a rerun as another <testcase> with the same name

By default a repeated identity is two runs and a failure in either stands, because a
report's names are its writer's text: a test an agent adds with the failing test's
classname/name must not turn the failure into a "flaky pass". Only the repository owner,
through the policy, can say that the tool writes reruns as repeated cases (gotestsum
`--rerun-fails`, @web/test-runner); reruns the report marks itself (Surefire's
`flakyFailure`/`rerunFailure`...) need no switch. Pure: a mapping in, a frozen value out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from gate.claim.errors import InvalidInput

SECTION = "junit"


class Reruns(Enum):
    """How cases with one identity within one `<testsuite>` element are counted."""

    SEPARATE = "separate"
    REPEATED_CASES = "repeated-cases"


@dataclass(frozen=True)
class JUnitOptions:
    reruns: Reruns = Reruns.SEPARATE

    @property
    def repeated_cases(self) -> bool:
        return self.reruns is Reruns.REPEATED_CASES


_KEYS = {"reruns": tuple(r.value for r in Reruns)}


def parse_junit_options(section: Any, source: str) -> JUnitOptions:
    """The section's value as options; InvalidInput naming the section for anything else."""
    if not isinstance(section, Mapping):
        raise InvalidInput(source, None, f"{SECTION}: must be a mapping",
                           "e.g. junit: {reruns: repeated-cases}")
    for key in section:
        if key not in _KEYS:
            raise InvalidInput(
                source, None, f"{SECTION}: unknown key {key!r}",
                f"the {SECTION} section accepts {', '.join(sorted(_KEYS))}",
            )
    value = section.get("reruns", Reruns.SEPARATE.value)
    if value not in _KEYS["reruns"]:
        raise InvalidInput(
            source, None, f"{SECTION}.reruns: {value!r} is not one of"
            f" {', '.join(_KEYS['reruns'])}",
            "'separate' counts every <testcase>; 'repeated-cases' merges same-name cases"
            " in one suite as attempts of one test",
        )
    return JUnitOptions(Reruns(value))

