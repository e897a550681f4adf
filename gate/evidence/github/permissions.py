"""Which token permission a REST read needs, so a 403 can name what to grant.

The names are those of a workflow's `permissions:` block (and a GitHub App's or a
fine-grained token's repository permissions of the same meaning); a 403 without one of them
named leaves a maintainer guessing which of six switches to turn.
"""

from __future__ import annotations

import re

_NEEDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"/repos/[^/]+/[^/]+/actions(/|$)"), "actions: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/(check-runs|check-suites)(/|$)"), "checks: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/commits/[^/]+/(check-runs|check-suites)$"),
     "checks: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/commits/[^/]+/(statuses|status)$"), "statuses: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/deployments(/|$)"), "deployments: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/(pulls(/|$)|commits/[^/]+/pulls$)"),
     "pull-requests: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/issues/[^/]+/timeline$"), "pull-requests: read"),
    (re.compile(r"/repos/[^/]+/[^/]+/(contents|commits|activity|compare)(/|$)"),
     "contents: read"),
    # the issue behind a PR says which App opened it (`agent-presets`, `require-claim: agents`)
    (re.compile(r"/repos/[^/]+/[^/]+/issues/\d+$"), "issues: read"),
)

#: What the gate writes: the check run (and its annotations, by PATCH).
WRITES = ("checks: write",)


def permission_for(path: str) -> str | None:
    """The permission a GET of `path` (an API path, a base path such as /api/v3 allowed)
    needs, or None when it is not one the gate reads."""
    bare = path.split("?", 1)[0]
    for pattern, needed in _NEEDS:
        if pattern.search(bare):
            return needed
    return None
