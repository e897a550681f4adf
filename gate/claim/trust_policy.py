"""The owner's answers to "whose word counts" on GitHub, as policy sections.

    evidence_chain:            # files that produce or shape CI evidence
      paths: [...]             # globs; default DEFAULT_CHAIN below (replaces it)
      extra_paths: [...]       # globs added to `paths` (or to the default)
      allow_pr_changes: false  # true: evidence from a PR that edits them still counts
      allow_reach:             # places the change reading may find that the owner accepts
        - {path: "src/app/cleanup.py", rule: process-exit}   # path: a glob; rule: one id
    trusted_workflows: [.github/workflows/ci.yml]   # default: every workflow the PR left alone
    required_workflows: [.github/workflows/ci.yml]  # must report JUnit on every head (default:
                               # the workflows that produced JUnit on the base commit)
    removed_tests: unverified  # or refuted, or warn
    deployment_creators: [deploy-bot[bot]]          # default: no deployment status counts
    deployment_success_counts: false   # true: a named creator's `success` is endpoint_health

Each section is validated when the policy is loaded (`parse_trust_policy`), so a misspelt
key or a wrong type is invalid input naming the section, never a silently weaker gate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from gate.claim.errors import InvalidInput
from gate.claim.wording import listed

if TYPE_CHECKING:
    from gate.claim.change_facts import ReachFinding

EVIDENCE_CHAIN = "evidence_chain"
TRUSTED_WORKFLOWS = "trusted_workflows"
REMOVED_TESTS = "removed_tests"
DEPLOYMENT_CREATORS = "deployment_creators"
DEPLOYMENT_SUCCESS_COUNTS = "deployment_success_counts"
REQUIRED_WORKFLOWS = "required_workflows"
SECTIONS = frozenset({EVIDENCE_CHAIN, TRUSTED_WORKFLOWS, REMOVED_TESTS, DEPLOYMENT_CREATORS,
                      DEPLOYMENT_SUCCESS_COUNTS, REQUIRED_WORKFLOWS})

#: What produces and shapes test evidence: the workflows and actions that run the tests, the
#: places test commands are defined (package.json scripts, Makefile targets, tox/nox sessions,
#: build files), and the test runners' configuration and plugins (a conftest.py or a
#: sitecustomize.py can mark every test passed). `**/` covers any depth below the root;
#: policy can add to it (`evidence_chain.extra_paths`). One list for every face.
DEFAULT_CHAIN: tuple[str, ...] = (
    # CI: GitHub's, and the other CIs' that read their pipeline from the change itself
    # (docs/other-ci.md), so the same gate job sees an agent's edit to its own test job
    ".github/workflows/**", ".github/actions/**",
    ".gitlab-ci.yml", ".gitlab/ci/**", "Jenkinsfile", "**/Jenkinsfile", ".circleci/**",
    ".buildkite/**", "azure-pipelines.yml", ".azure-pipelines/**", "bitbucket-pipelines.yml",
    ".travis.yml", ".drone.yml", ".woodpecker.yml", ".woodpecker/**",
    # test commands
    "package.json", "**/package.json", "Makefile", "**/Makefile", "makefile", "GNUmakefile",
    "*.mk", "**/*.mk", "justfile", "Justfile", "Taskfile.yml", "Taskfile.yaml",
    "tox.ini", "**/tox.ini", "noxfile.py", "**/noxfile.py",
    "pyproject.toml", "**/pyproject.toml", "setup.cfg", "**/setup.cfg", "setup.py", "**/setup.py",
    "pom.xml", "**/pom.xml", "build.gradle", "build.gradle.kts", "**/build.gradle",
    "**/build.gradle.kts", "settings.gradle", "settings.gradle.kts", "Rakefile", ".rspec",
    # runner configuration and plugins
    "pytest.ini", "**/pytest.ini", "pytest.toml", "**/pytest.toml", ".pytest.toml",
    "**/.pytest.toml", ".pytest.ini", "**/.pytest.ini", "conftest.py", "**/conftest.py",
    "sitecustomize.py", "**/sitecustomize.py", "usercustomize.py", "**/usercustomize.py",
    "jest.config.*", "**/jest.config.*", "vitest.config.*", "**/vitest.config.*",
    "vitest.workspace.*", "**/vitest.workspace.*", ".mocharc*", "**/.mocharc*",
    "karma.conf.*", "**/karma.conf.*", "playwright.config.*", "**/playwright.config.*",
    "cypress.config.*", "**/cypress.config.*", "phpunit.xml", "phpunit.xml.dist",
    "**/phpunit.xml", "**/phpunit.xml.dist",
    # installed-package metadata committed to the repository: a `pytest11` entry point in a
    # *.dist-info or *.egg-info on sys.path loads a plugin before the gate's own
    "*.dist-info/**", "**/*.dist-info/**", "*.egg-info/**", "**/*.egg-info/**",
)


class RemovedTests(StrEnum):
    UNVERIFIED = "unverified"
    REFUTED = "refuted"
    WARN = "warn"


@dataclass(frozen=True)
class ReachAllowance:
    """One place the owner accepts that the change reaches in (a project that registers its
    own `atexit` handler): files matching `path` (fnmatch: `*` crosses `/`), for one rule."""

    path: str
    rule: str

    def allows(self, finding: ReachFinding) -> bool:
        return finding.rule == self.rule and fnmatchcase(finding.path, self.path)


@dataclass(frozen=True)
class TrustPolicy:
    chain: tuple[str, ...] = DEFAULT_CHAIN
    allow_pr_changes: bool = False
    #: Findings of the change reading the owner allows (never a whole rule for every file
    #: unless the owner writes `path: "**"`): shown on the check, not counted as reach.
    allow_reach: tuple[ReachAllowance, ...] = ()
    trusted_workflows: tuple[str, ...] | None = None  # None: all the PR did not change
    removed_tests: RemovedTests = RemovedTests.UNVERIFIED
    deployment_creators: tuple[str, ...] = ()
    #: Opt-in: a `success` status from a named creator satisfies endpoint_health by itself
    #: (the pipeline's account, trusted on purpose); default: only a live probe does.
    deployment_success_counts: bool = False
    #: Workflow files that must each have a finished, successful run with its JUnit artifact
    #: on the head, beside those that produced JUnit on the base commit.
    required_workflows: tuple[str, ...] = ()


def _strings(value: Any, source: str, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise InvalidInput(source, None, f"/{where} must be a list of non-empty strings")
    return tuple(v.strip() for v in value)


def _allowances(value: Any, source: str) -> tuple[ReachAllowance, ...]:
    where = f"/{EVIDENCE_CHAIN}/allow_reach"
    if value is None:
        return ()
    if not isinstance(value, list):
        raise InvalidInput(source, None, f"{where} must be a list of {{path, rule}} mappings")
    from gate.claim.change_facts import REACH_RULES  # only to check an allowance (issue 23)

    found = []
    for index, entry in enumerate(value):
        if not isinstance(entry, Mapping) or set(entry) != {"path", "rule"} \
                or not all(isinstance(entry[k], str) and entry[k].strip() for k in entry):
            raise InvalidInput(source, None, f"{where}/{index} must be a mapping of exactly"
                               " `path` (a glob) and `rule` (a rule id)",
                               'e.g. {path: "src/app/cleanup.py", rule: process-exit}')
        if entry["rule"].strip() not in REACH_RULES:
            raise InvalidInput(source, None, f"{where}/{index}/rule: {entry['rule']!r} is not a"
                               f" rule of the change reading", "one of " + ", ".join(REACH_RULES))
        found.append(ReachAllowance(entry["path"].strip(), entry["rule"].strip()))
    return tuple(found)


def parse_trust_policy(sections: Mapping[str, Any], source: str) -> TrustPolicy:
    """The trust sections of a policy (absent ones take their defaults)."""
    policy = TrustPolicy()
    chain = sections.get(EVIDENCE_CHAIN)
    if chain is not None:
        if not isinstance(chain, Mapping):
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN} must be a mapping",
                               "give `paths`, `extra_paths` and/or `allow_pr_changes`")
        unknown = sorted(set(chain) - {"paths", "extra_paths", "allow_pr_changes", "allow_reach"})
        if unknown:
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN}: unknown {listed('key', unknown)}",
                               "the section accepts paths, extra_paths, allow_pr_changes and"
                               " allow_reach")
        allow = chain.get("allow_pr_changes", False)
        if not isinstance(allow, bool):
            raise InvalidInput(source, None, f"/{EVIDENCE_CHAIN}/allow_pr_changes must be"
                               " true or false")
        paths = chain.get("paths")
        extra = chain.get("extra_paths")
        base = DEFAULT_CHAIN if paths is None else _strings(
            paths, source, f"{EVIDENCE_CHAIN}/paths")
        added = () if extra is None else _strings(extra, source, f"{EVIDENCE_CHAIN}/extra_paths")
        policy = TrustPolicy(chain=tuple(dict.fromkeys(base + added)), allow_pr_changes=allow,
                             allow_reach=_allowances(chain.get("allow_reach"), source))
    trusted = sections.get(TRUSTED_WORKFLOWS)
    removed = sections.get(REMOVED_TESTS, RemovedTests.UNVERIFIED.value)
    if not isinstance(removed, str) or removed not in set(RemovedTests):
        raise InvalidInput(source, None, f"/{REMOVED_TESTS}: {removed!r} is not one of"
                           " unverified, refuted, warn")
    creators = sections.get(DEPLOYMENT_CREATORS)
    success_counts = sections.get(DEPLOYMENT_SUCCESS_COUNTS, False)
    if not isinstance(success_counts, bool):
        raise InvalidInput(source, None, f"/{DEPLOYMENT_SUCCESS_COUNTS} must be true or false")
    if success_counts and not creators:
        raise InvalidInput(
            source, None, f"/{DEPLOYMENT_SUCCESS_COUNTS} needs /{DEPLOYMENT_CREATORS}",
            "name the accounts whose deployment statuses count",
        )
    return TrustPolicy(
        chain=policy.chain,
        allow_pr_changes=policy.allow_pr_changes,
        allow_reach=policy.allow_reach,
        trusted_workflows=None if trusted is None else _strings(
            trusted, source, TRUSTED_WORKFLOWS),
        removed_tests=RemovedTests(removed),
        deployment_creators=() if creators is None else _strings(
            creators, source, DEPLOYMENT_CREATORS),
        deployment_success_counts=success_counts,
        required_workflows=_strings(sections[REQUIRED_WORKFLOWS], source, REQUIRED_WORKFLOWS)
        if REQUIRED_WORKFLOWS in sections else (),
    )
