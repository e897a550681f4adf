"""Finding the agent's claim for a PR: in the head commit, else in the PR body.

Read through the API at the PR's head SHA, never from the workspace checkout (for
`pull_request` that is a merge commit, and for `pull_request_target` it is the base).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Protocol

from gate.claim.errors import InvalidInput
from gate.claim.loader import DEFAULT_MAX_CLAIM_BYTES, LoadedClaim, parse_claim_bytes

_FENCE = re.compile(r"^(`{3,}|~{3,})[ \t]*completion-claim[ \t]*\r?\n(.*?)\r?\n\1[ \t]*$",
                    re.MULTILINE | re.DOTALL)
_GLOB_CHARS = set("*?[")


MAX_LISTED_DIRECTORIES = 50


class ContentSource(Protocol):
    def file_at(self, path: str, ref: str) -> bytes | None: ...
    def list_dir(self, path: str, ref: str) -> list[tuple[str, str]]: ...


def glob_paths(source: ContentSource, pattern: str, ref: str) -> list[str]:
    """Files matching a glob at a commit, listing only below the glob's fixed prefix
    (`**` descends, at most MAX_LISTED_DIRECTORIES directories)."""
    parts = pattern.split("/")
    fixed = []
    for part in parts[:-1]:
        if _GLOB_CHARS & set(part):
            break
        fixed.append(part)
    descend = len(fixed) < len(parts) - 1
    pending, seen, matched = ["/".join(fixed)], 0, []
    while pending and seen < MAX_LISTED_DIRECTORIES:
        directory = pending.pop(0)
        seen += 1
        for path, kind in source.list_dir(directory, ref):
            if kind == "file" and fnmatchcase(path, pattern):
                matched.append(path)
            elif kind == "dir" and descend:
                pending.append(path)
    return sorted(matched)


@dataclass(frozen=True)
class FoundClaim:
    repo_path: str  # where annotations go: the file, or "" for the PR body
    label: str  # what a person calls it in messages
    data: bytes



def find_claims(
    source: ContentSource, pattern: str, head_sha: str, pr_body: str, pr_number: int
) -> list[FoundClaim]:
    """Claim files matching `pattern` at the head commit; else a `completion-claim` block."""
    paths = glob_paths(source, pattern, head_sha) if _GLOB_CHARS & set(pattern) else [pattern]
    found = []
    for path in paths:
        data = source.file_at(path, head_sha)
        if data is not None:
            found.append(FoundClaim(path, f"{path}@{head_sha[:12]}", data))
    if found:
        return found
    match = _FENCE.search(pr_body)
    if match:
        return [FoundClaim("", f"PR #{pr_number} body", match.group(2).encode("utf-8"))]
    return []


def load_found(found: FoundClaim, max_bytes: int = DEFAULT_MAX_CLAIM_BYTES) -> LoadedClaim:
    if len(found.data) > max_bytes:
        raise InvalidInput(found.label, None, f"the claim is over the {max_bytes}-byte limit")
    return parse_claim_bytes(found.data, found.label)
