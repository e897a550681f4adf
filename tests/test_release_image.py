"""action.yml pulls the pre-built image of the package's exact version, and the release workflow
moves it: its own step scripts, run with bash in a real git repository whose origin is a bare one,
fill in the account and the pushed digest on a release commit and tag it; main is not written."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from gate import __version__
from tests.gitrepo import commit_all, git, git_env, init_repo
from tests.image_reference import (
    ACTION,
    FROM_SOURCE,
    RELEASE_OWNER,
    ROOT,
    action_image,
    pulled,
    released,
    unreleased,
)

RELEASE = ROOT / ".github" / "workflows" / "release.yml"
DIGEST = "sha256:" + "5e" * 32
#: How the runner runs a `run:` step on ubuntu (the default shell).
BASH = ["bash", "--noprofile", "--norc", "-eo", "pipefail"]


def test_action_yml_pulls_the_image_of_the_packages_exact_version() -> None:
    assert action_image() == unreleased(__version__)
    assert action_image() == f"docker://ghcr.io/OWNER/claim-gate:v{__version__}"


def test_from_source_is_the_same_action_built_from_the_dockerfile() -> None:
    main, source = (yaml.safe_load(p.read_text("utf-8")) for p in (ACTION, FROM_SOURCE))
    assert source["runs"].pop("image") == "../Dockerfile"
    main["runs"].pop("image")
    assert source == main
    # The runner joins the image path to the action's folder and builds in the Dockerfile's own
    # folder, so the context is the repository root the Dockerfile's COPY lines expect.
    dockerfile = (FROM_SOURCE.parent / action_image(FROM_SOURCE)).resolve()
    assert dockerfile == ROOT / "Dockerfile"


def test_released_fills_in_the_account_lower_cased_and_pins_the_digest() -> None:
    image = unreleased("1.2.3")
    assert released(image, RELEASE_OWNER) == "docker://ghcr.io/octo-org/claim-gate:v1.2.3"
    assert released(image, "acme", DIGEST) == f"docker://ghcr.io/acme/claim-gate:v1.2.3@{DIGEST}"
    assert pulled(released(image, "acme")) == "ghcr.io/acme/claim-gate:v1.2.3"
    with pytest.raises(ValueError, match="not the unreleased form"):
        released("docker://ghcr.io/acme/claim-gate:v1.2.3", "other")
    with pytest.raises(ValueError, match="not a sha256 digest"):
        released(image, "acme", "sha256:short")


# ---- the release workflow's own scripts -------------------------------------------------


def step(name: str) -> tuple[str, dict[str, str]]:
    """The `run:` script and `env:` names of the release workflow's step called `name`."""
    jobs = yaml.safe_load(RELEASE.read_text("utf-8"))["jobs"]
    for job in jobs.values():
        for found in job["steps"]:
            if found.get("name") == name:
                assert "${{" not in found["run"], "expressions go through env:, not the script"
                return found["run"], found.get("env", {})
    raise AssertionError(f"release.yml has no step {name!r}")


CHECK = "action.yml names the package's version, which is not released yet"
REWRITE = "name the published image in action.yml"
COMMIT = "commit, tag the release and move the major tag"


def run_step(name: str, clone: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script, declared = step(name)
    assert set(env) - {"GITHUB_OUTPUT"} == set(declared), (name, declared)
    return subprocess.run([*BASH, "-c", script], cwd=clone, env={**git_env(), **env},
                          capture_output=True, text=True, check=False)


def repository(tmp_path: Path, version: str = __version__) -> tuple[Path, Path]:
    """A clone of a bare origin whose main holds this action.yml and `version`."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work.mkdir()
    init_repo(work)
    (work / "gate").mkdir()
    (work / "gate" / "__init__.py").write_text(f'__version__ = "{version}"\n', "utf-8")
    (work / "action.yml").write_text(ACTION.read_text("utf-8"), "utf-8")
    commit_all(work, "main")
    git(work, "remote", "add", "origin", str(origin))
    git(work, "push", "-q", "origin", "main")
    return origin, work


def outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text("utf-8").splitlines())


def test_a_release_commit_names_the_pushed_image_and_is_tagged(tmp_path: Path) -> None:
    origin, work = repository(tmp_path)
    main_head = git(origin, "rev-parse", "main")
    out = tmp_path / "out"
    out.touch()
    checked = run_step(CHECK, work, {"GITHUB_OUTPUT": str(out)})
    assert checked.returncode == 0, checked.stdout + checked.stderr
    tag, major = outputs(out)["tag"], outputs(out)["major"]
    assert (tag, major) == (f"v{__version__}", f"v{__version__.split('.')[0]}")
    rewrite = run_step(REWRITE, work, {"TAG": tag, "OWNER": RELEASE_OWNER, "DIGEST": DIGEST})
    assert rewrite.returncode == 0, rewrite.stdout + rewrite.stderr
    committed = run_step(COMMIT, work, {"TAG": tag, "MAJOR": major})
    assert committed.returncode == 0, committed.stdout + committed.stderr
    for name in (tag, major):
        assert git(origin, "rev-parse", f"{name}^{{commit}}^") == main_head
        shipped = tmp_path / f"{name}.yml"
        shipped.write_text(git(origin, "show", f"{name}:action.yml") + "\n", "utf-8")
        assert action_image(shipped) == released(unreleased(__version__), RELEASE_OWNER, DIGEST)
        # Only the image line moved: the inputs the runner applies are main's.
        expected = ACTION.read_text("utf-8").replace(unreleased(__version__), action_image(shipped))
        assert shipped.read_text("utf-8") == expected
    assert git(origin, "rev-parse", "main") == main_head  # main is not written


def test_the_check_refuses_a_version_released_already(tmp_path: Path) -> None:
    _, work = repository(tmp_path)
    git(work, "tag", f"v{__version__}")
    git(work, "push", "-q", "origin", f"v{__version__}")
    checked = run_step(CHECK, work, {"GITHUB_OUTPUT": str(tmp_path / "out")})
    assert checked.returncode != 0
    assert f"v{__version__} is released already" in checked.stdout


def test_the_check_refuses_a_version_action_yml_does_not_name(tmp_path: Path) -> None:
    _, work = repository(tmp_path, version="9.8.7")
    checked = run_step(CHECK, work, {"GITHUB_OUTPUT": str(tmp_path / "out")})
    assert checked.returncode != 0
    assert "does not name ghcr.io/OWNER/claim-gate:v9.8.7" in checked.stdout


@pytest.mark.parametrize("digest", ["", "sha256:abc", f"{DIGEST}\n  image: Dockerfile"])
def test_the_rewrite_refuses_a_missing_or_odd_digest(tmp_path: Path, digest: str) -> None:
    _, work = repository(tmp_path)
    rewrite = run_step(REWRITE, work, {"TAG": f"v{__version__}", "OWNER": "acme",
                                       "DIGEST": digest})
    assert rewrite.returncode != 0
    assert "gave no digest" in rewrite.stdout
    assert (work / "action.yml").read_text("utf-8") == ACTION.read_text("utf-8")


def test_the_rewrite_refuses_an_action_yml_naming_another_version(tmp_path: Path) -> None:
    _, work = repository(tmp_path)
    rewrite = run_step(REWRITE, work, {"TAG": "v9.8.7", "OWNER": "acme", "DIGEST": DIGEST})
    assert rewrite.returncode != 0
    assert "does not hold the line" in rewrite.stdout
