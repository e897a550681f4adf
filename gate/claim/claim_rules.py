"""The owner's rules about the claim itself, as policy sections.

    unclaimed_ok: [docs/**, "*.md"]   # changed files that need no claimed mutation (globs)
    override:
      refuted: false                  # true: a maintainer may also accept a refuted claim

Globs use fnmatch semantics (`fnmatch.fnmatchcase`): `*` matches any characters including
`/`, `?` one character, `[...]` a set; matching is case-sensitive and against the whole path.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.claim.errors import InvalidInput
from gate.claim.wording import listed

UNCLAIMED_OK = "unclaimed_ok"
OVERRIDE = "override"
SECTIONS = frozenset({UNCLAIMED_OK, OVERRIDE})


@dataclass(frozen=True)
class ClaimRules:
    #: Changed files that need no claimed code-change mutation (globs).
    unclaimed_ok: tuple[str, ...] = ()
    #: Whether a maintainer's `/claim-gate accept` may overrule a refuted verdict too.
    override_refuted: bool = False


def parse_claim_rules(sections: Mapping[str, Any], source: str) -> ClaimRules:
    globs = sections.get(UNCLAIMED_OK, [])
    if not isinstance(globs, list) or not all(isinstance(g, str) and g.strip() for g in globs):
        raise InvalidInput(source, None, f"/{UNCLAIMED_OK} must be a list of path globs",
                           "e.g. ['docs/**', '*.md']")
    override = sections.get(OVERRIDE, {})
    if not isinstance(override, Mapping):
        raise InvalidInput(source, None, f"/{OVERRIDE} must be a mapping", "e.g. {refuted: false}")
    unknown = sorted(set(override) - {"refuted"})
    if unknown:
        raise InvalidInput(source, None, f"/{OVERRIDE}: unknown {listed('key', unknown)}",
                           "the section accepts refuted")
    refuted = override.get("refuted", False)
    if not isinstance(refuted, bool):
        raise InvalidInput(source, None, f"/{OVERRIDE}/refuted must be true or false")
    return ClaimRules(tuple(g.strip() for g in globs), refuted)
