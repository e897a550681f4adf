"""Which edits to a structured evidence-chain file change how the tests run.

A `pyproject.toml`, `package.json` or `setup.cfg` holds the test runner's configuration, the
test commands, the dependencies and the entry points (plugins) beside plain metadata. An edit
that touches only metadata (a version bump, a classifier, the description) leaves the tests
as they were, so it does not make the PR's evidence the agent's own; an edit anywhere else
(`tool.pytest*`, `tool.coverage*`, `tool.tox*`, `tool.hatch.envs*`, entry points,
dependencies, the build system, `scripts`, `jest`, `[tool:pytest]`, and any part the gate does
not know) keeps the file on the chain. A file the collector could not read or parse at base
or head (`ChainFileChange.parsed` False), or one added, deleted or renamed, is judged whole.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gate.claim.change_facts import ChainFileChange

_PROJECT_METADATA = ("version", "description", "readme", "license", "license-files",
                     "authors", "maintainers", "keywords", "classifiers", "urls")
_SETUP_METADATA = ("version", "description", "long_description",
                   "long_description_content_type", "author", "author_email", "maintainer",
                   "maintainer_email", "url", "download_url", "project_urls", "license",
                   "license_files", "classifiers", "keywords", "platforms")
#: Per file name, the key paths (each a prefix, matched part by part) that cannot change
#: how the tests run. Everything else is test set-up, named or not.
METADATA: dict[str, tuple[tuple[str, ...], ...]] = {
    "pyproject.toml": (
        *(("project", key) for key in _PROJECT_METADATA),
        ("tool", "bumpversion"), ("tool", "towncrier"),
    ),
    "package.json": tuple((key,) for key in (
        "version", "description", "keywords", "author", "contributors", "maintainers",
        "license", "homepage", "repository", "bugs", "funding")),
    "setup.cfg": tuple(("metadata", key) for key in _SETUP_METADATA),
}


def _metadata(path: str, part: tuple[str, ...]) -> bool:
    known = METADATA.get(posixpath.basename(path), ())
    return any(len(prefix) <= len(part)
               and all(fnmatchcase(p, q) for p, q in zip(part, prefix, strict=False))
               for prefix in known)


def _show(path: str, part: tuple[str, ...]) -> str:
    if posixpath.basename(path) == "setup.cfg":
        return f"[{part[0]}]" + (f" {'.'.join(part[1:])}" if len(part) > 1 else "")
    return ".".join(part) or "the whole document"


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def on_chain(touched: Sequence[str], read: Sequence[ChainFileChange]) -> list[str]:
    """Each touched chain path whose edit can change how the tests run, described: the path
    alone when judged whole, or with the parts that changed (`pyproject.toml's
    tool.pytest.ini_options`). A path whose edit is metadata only is left out."""
    by_path = {change.path: change for change in read}
    found: list[str] = []
    for path in touched:
        change = by_path.get(path)
        if change is None:
            found.append(path)
        elif not change.parsed:
            found.append(f"{path} (judged whole: {change.problem})")
        else:
            parts = [_show(path, p) for p in change.parts if not _metadata(path, p)]
            if parts:
                found.append(f"{path}'s {_and(parts)}")
    return found


#: Said once per verdict (in its reason), not in each of the items' messages it explains.
WAY_OUT = (
    "if the PR's edit to its test set-up is intended, a maintainer's review"
    " `/claim-gate accept <reason>` accepts this head on GitHub, or the base branch's policy"
    " can narrow `evidence_chain.paths` or set `evidence_chain.allow_pr_changes: true`"
)


def way_out(codes: Sequence[str]) -> str:
    """The way past `producer_modified` for a reason that names it, else nothing."""
    return f"; {WAY_OUT}" if "producer_modified" in codes else ""
