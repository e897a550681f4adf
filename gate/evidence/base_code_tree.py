"""The checkout as "the head's tests over the base's code", made and checked with git.

`prepare_base_code` (the `base-code` command) refuses a dirty tree, puts every changed file
that is not a test back as it was at the merge base with BASE, removes the files the change
added, and leaves the plan at `.claim-gate/base-code.json`. `base_code_binding` (the pytest
plugin, at session start) checks the tree is exactly that plan on the recorded head, and
answers the `claim-gate.base_code` property: `BASE..HEAD`, or `invalid: why`. Both only
observe and record; what a fail-to-pass test means is the engine's.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gate.claim.fail_to_pass import MARKER_PATH, BaseCodePlan, FailToPassPolicy, plan_base_code
from gate.evidence.git_diff import changed_in, resolve_range
from gate.evidence.git_probe import run_git
from gate.evidence.git_tree import GitRunner

MAX_MARKER_BYTES = 4 << 20


class BaseCodeRefused(Exception):  # noqa: N818 - named for what happened, as git_diff's
    """The checkout cannot be turned into a base-code run; the message says why."""


@dataclass(frozen=True)
class Prepared:
    toplevel: Path
    base_sha: str
    head_sha: str
    plan: BaseCodePlan


def _marker_json(base_ref: str, base_sha: str, head_sha: str, plan: BaseCodePlan) -> str:
    body = {"base_ref": base_ref, "base_sha": base_sha, "head_sha": head_sha,
            "restore": list(plan.restore), "remove": list(plan.remove), "tests": list(plan.tests)}
    return json.dumps(body, indent=2, sort_keys=True) + "\n"


def prepare_base_code(repo: Path, base_ref: str, policy: FailToPassPolicy,
                      run: GitRunner = run_git) -> Prepared:
    """Rewrite the clean checkout at `repo` (GitDiffError when git cannot say the change)."""
    resolved = resolve_range(repo, base_ref, "HEAD", run)
    top = resolved.toplevel
    status = run(["status", "--porcelain", "-z", "--untracked-files=all",
                  "--ignore-submodules=none"], top)
    if status.strip(b"\0"):
        raise BaseCodeRefused(
            f"the working tree at {top} is not clean (git status lists changes): base-code"
            " rewrites a clean checkout of the head, so that the run is of that head's tests"
        )
    plan = plan_base_code(changed_in(resolved, run), policy)
    for path in plan.restore:
        run(["checkout", resolved.merge_base, "--", path], top)
    for path in plan.remove:
        (top / path).unlink(missing_ok=True)
    marker = top / MARKER_PATH
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(_marker_json(base_ref, resolved.merge_base, resolved.head, plan), "utf-8")
    return Prepared(top, resolved.merge_base, resolved.head, plan)


def _blob_of_file(top: Path, path: str, run: GitRunner) -> str | None:
    if not (top / path).is_file():
        return None
    # git's clean filters apply (CRLF checkouts hash as the blob they came from).
    return run(["hash-object", "--", path], top).decode("ascii").strip()


def _base_blob(top: Path, base: str, path: str, run: GitRunner) -> str | None:
    try:
        return run(["rev-parse", "--verify", "--quiet", f"{base}:{path}"], top).decode().strip()
    except subprocess.CalledProcessError:
        return None


def _paths(marker: dict[str, object], key: str) -> list[str]:
    value = marker.get(key)
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise ValueError(f"the plan's {key!r} is not a list of paths")
    return list(value)


def _mismatch(top: Path, head: str, marker: dict[str, object], dirty: tuple[str, ...],
              run: GitRunner) -> str | None:
    if marker.get("head_sha") != head:
        return f"the plan was made on {str(marker.get('head_sha'))[:12]}, the tree is {head[:12]}"
    base = str(marker.get("base_sha"))
    restore, remove = _paths(marker, "restore"), _paths(marker, "remove")
    allowed = {*restore, *remove, MARKER_PATH}
    extra = [p for p in dirty if p not in allowed]
    if extra:
        return f"the tree has changes beyond the plan: {', '.join(extra[:5])}"
    for path in remove:
        if (top / path).exists():
            return f"{path} was added by the change and is still there"
    for path in restore:
        if _blob_of_file(top, path, run) != _base_blob(top, base, path, run):
            return f"{path} is not as it was at {base[:12]}"
    return None


def base_code_binding(top: Path, head: str, dirty: tuple[str, ...],
                      run: GitRunner = run_git) -> str | None:
    """The `claim-gate.base_code` value for a session at `top` (None: no plan there)."""
    marker_file = top / MARKER_PATH
    if not marker_file.is_file():
        return None
    try:
        data = marker_file.read_bytes()[:MAX_MARKER_BYTES]
        marker = json.loads(data)
        if not isinstance(marker, dict):
            return "invalid: the plan is not a JSON object"
        problem = _mismatch(top, head, marker, dirty, run)
    except (OSError, ValueError, subprocess.SubprocessError) as exc:
        return f"invalid: the plan could not be checked ({exc})"
    if problem is not None:
        return f"invalid: {problem}"
    return f"{marker['base_sha']}..{head}"
