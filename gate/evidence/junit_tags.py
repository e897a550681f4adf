"""The JUnit vocabulary the reader acts on: element names, result severities, statuses."""

from __future__ import annotations

from gate.claim.junit_facts import Outcome

SEVERITY = {"error": Outcome.ERROR, "failure": Outcome.FAILURE, "skipped": Outcome.SKIPPED}
#: Surefire's rerun elements: a case that passed in the end but failed on the way.
RETRIES = frozenset({"flakyFailure", "flakyError", "rerunFailure", "rerunError"})
#: The children of a case that make it more than a plain pass.
RESULTS = frozenset({*SEVERITY, *RETRIES})
ROOTS = ("testsuites", "testsuite")
#: status/result values of a plain run case (GoogleTest writes status="run" on every case).
PLAIN_STATUS = (None, "run")
PLAIN_RESULT = (None, "completed")
SKIP_STATUS = frozenset({"notrun", "skipped", "skip", "disabled", "ignored", "suppressed"})


def local(tag: str) -> str:
    """`{namespace}name` -> `name`; a tag without a namespace unchanged."""
    return tag[tag.index("}") + 1 :] if tag[:1] == "{" else tag
