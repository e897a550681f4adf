"""Issue 10, class 6: the default evidence chain covers every place test commands and runner
configuration come from, and policy can extend it (never only replace it by accident)."""

from __future__ import annotations

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.github_facts import ChangedFile, PullChanges
from gate.claim.trust_policy import DEFAULT_CHAIN, parse_trust_policy

#: Files a PR could edit to change what the tests run or what they report, at the root and
#: deeper; each must be in the default chain.
SHAPERS = [
    "package.json", "web/package.json", "Makefile", "sub/Makefile", "tox.ini", "noxfile.py",
    "pyproject.toml", "pkg/pyproject.toml", "setup.cfg", "setup.py", "pytest.ini",
    "pytest.toml", ".pytest.toml", ".pytest.ini", "conftest.py", "tests/conftest.py",
    "a/b/c/conftest.py", "jest.config.js", "web/jest.config.ts", "vitest.config.mts",
    "web/vitest.config.ts", ".mocharc.yml", "web/.mocharc.json", ".github/actions/test/action.yml",
    ".github/workflows/ci.yml", "tests/sitecustomize.py", "pom.xml", "build.gradle.kts",
    ".gitlab-ci.yml", ".gitlab/ci/test.yml", "Jenkinsfile", "ci/Jenkinsfile",
    ".circleci/config.yml", ".buildkite/pipeline.yml", "azure-pipelines.yml",
    "bitbucket-pipelines.yml", ".travis.yml", ".drone.yml", ".woodpecker/test.yml",
    "greenwash-1.0.dist-info/entry_points.txt", "src/greenwash.egg-info/entry_points.txt",
]
#: Ordinary code and tests: not the chain (the gate judges those by the evidence).
ORDINARY = ["app/parser.py", "tests/test_parser.py", "README.md", "src/index.ts",
            "web/src/app.test.ts", "docs/package.md", ".gitlab/issue_templates/bug.md"]


@pytest.mark.parametrize("path", SHAPERS)
def test_the_default_chain_covers_every_place_tests_are_shaped(path: str) -> None:
    changes = PullChanges.of([ChangedFile(path, "modified")])
    assert changes.matching(DEFAULT_CHAIN) == [path]


@pytest.mark.parametrize("path", ORDINARY)
def test_ordinary_code_is_not_the_chain(path: str) -> None:
    assert PullChanges.of([ChangedFile(path, "modified")]).matching(DEFAULT_CHAIN) == []


def test_extra_paths_add_to_the_default() -> None:
    policy = parse_trust_policy({"evidence_chain": {"extra_paths": ["tests/helpers/**"]}}, "p")
    assert policy.chain[:len(DEFAULT_CHAIN)] == DEFAULT_CHAIN
    assert policy.chain[-1] == "tests/helpers/**"


def test_extra_paths_add_to_explicit_paths_too() -> None:
    policy = parse_trust_policy(
        {"evidence_chain": {"paths": ["ci/**"], "extra_paths": ["ci/**", "tools/**"]}}, "p")
    assert policy.chain == ("ci/**", "tools/**")


def test_extra_paths_must_be_strings() -> None:
    with pytest.raises(InvalidInput, match="extra_paths must be a list of non-empty strings"):
        parse_trust_policy({"evidence_chain": {"extra_paths": "tests/**"}}, "p")
