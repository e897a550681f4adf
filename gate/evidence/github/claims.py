"""Finding the agent's claim for a PR: a claim file this PR wrote, else the PR body's block.

Read through the API at the PR's head SHA, never from the workspace checkout (for
`pull_request` that is a merge commit, and for `pull_request_target` it is the base). A claim
file counts only if this PR adds or modifies it (its files, `pulls/{n}/files`): one merged
with an earlier PR stays on the base branch and must not speak for every later PR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol

from gate.claim.changed_paths import ChangedPaths
from gate.claim.errors import InvalidInput
from gate.claim.github_facts import ContentEntry
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES, LoadedClaim, parse_claim_bytes

_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*completion-claim[ \t]*\r?\n(.*?)\r?\n\1[ \t]*$",
                    re.MULTILINE | re.DOTALL)
_GLOB_CHARS = set("*?[")


class ContentSource(Protocol):
    def entry_at(self, path: str, ref: str) -> ContentEntry | None: ...


@dataclass(frozen=True)
class FoundClaim:
    repo_path: str  # where annotations go: the file, or "" for the PR body
    label: str  # what a person calls it in messages
    data: bytes
    #: Why this claim cannot be used (a directory or symlink, several blocks): unverified.
    problem: str | None = None



@dataclass(frozen=True)
class ClaimSearch:
    """The claims that count for this PR, and what was seen and why it did or did not count."""

    found: tuple[FoundClaim, ...]
    considered: tuple[str, ...]


def _in_pr(changed: ChangedPaths) -> set[str]:
    """Paths this PR adds or modifies (a rename's new path; a removed file is gone)."""
    return {f.filename for f in changed.files if f.status != "removed"}


def _file_claim(source: ContentSource, path: str, head_sha: str, changed: ChangedPaths,
                in_pr: set[str]) -> tuple[FoundClaim | None, str | None]:
    """The claim at `path` if this PR wrote it, with a note saying why it does or does not count."""
    entry = source.entry_at(path, head_sha)
    label = f"{path}@{head_sha[:12]}"
    under = any(p.startswith(path.rstrip("/") + "/") for p in in_pr)
    if entry is not None and entry.kind == "dir" and under:
        problem = f"{path} is a directory in this PR, not a claim file"
        return FoundClaim(path, label, b"", problem), f"{label}: not counted: {problem}"
    if path not in in_pr:
        if entry is None:
            return None, None
        why = ("this PR does not add or modify it: it was inherited from the base branch"
               " (an earlier PR's claim), so it is no claim for this PR" if changed.complete
               else "it is not among the files GitHub listed for this PR (the list is"
               " incomplete), so whether this PR wrote it cannot be told")
        return None, f"{label}: not counted: {why}"
    if entry is None or entry.kind != "file" or entry.data is None or entry.path != path:
        kind = "missing" if entry is None else (
            f"a symlink (to {entry.path})" if entry.path != path else f"a {entry.kind}")
        problem = f"{path} is {kind} at the head commit, not a regular claim file"
        return FoundClaim(path, label, b"", problem), f"{label}: not counted: {problem}"
    return FoundClaim(path, label, entry.data), f"{label}: counted: this PR adds or modifies it"


def find_claims(
    source: ContentSource, pattern: str, head_sha: str, pr_body: str, pr_number: int,
    changed: ChangedPaths,
) -> ClaimSearch:
    """Claim files matching `pattern` that this PR adds or modifies; else the PR body's
    `completion-claim` block. A claim file the PR did not touch is inherited: no claim."""
    in_pr = _in_pr(changed)
    globbed = bool(_GLOB_CHARS & set(pattern))
    paths = sorted(p for p in in_pr if fnmatchcase(p, pattern)) if globbed else [pattern]
    found, considered = [], []
    for path in paths:
        claim, note = _file_claim(source, path, head_sha, changed, in_pr)
        if claim is not None:
            found.append(claim)
        if note is not None:
            considered.append(note)
    blocks = list(_FENCE.finditer(pr_body))
    label = f"PR #{pr_number} body"
    if found:
        if blocks:
            considered.append(f"{label}: ignored: its ```completion-claim block is not read"
                              " because this PR has a claim file, which takes precedence")
        return ClaimSearch(tuple(found), tuple(considered))
    if len(blocks) > 1:
        problem = (f"the PR body holds {len(blocks)} ```completion-claim blocks; a PR has one"
                   " claim: keep exactly one block")
        considered.append(f"{label}: not counted: {problem}")
        return ClaimSearch((FoundClaim("", label, b"", problem),), tuple(considered))
    if blocks:
        considered.append(f"{label}: counted: the ```completion-claim block")
        return ClaimSearch((FoundClaim("", label, blocks[0].group(2).encode("utf-8")),),
                           tuple(considered))
    return ClaimSearch((), tuple(considered))


def load_found(found: FoundClaim, max_bytes: int = DEFAULT_MAX_CLAIM_BYTES) -> LoadedClaim:
    if found.problem is not None:
        raise InvalidInput(found.label, None, found.problem)
    if len(found.data) > max_bytes:
        raise InvalidInput(found.label, None, f"the claim is over the {max_bytes}-byte limit")
    return parse_claim_bytes(found.data, found.label)
