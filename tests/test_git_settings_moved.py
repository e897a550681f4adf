"""git as the plugin found it at load (`gate/evidence/git_settings.py`): what a test changes in
git's configuration, attributes or environment during the run cannot make the end's `git status`
and `git hash-object` answer "the commit's bytes" for a rewritten test module.

The attack each test stands for: the code under test rewrites a collected test module (a failing
test made to pass) and adds a clean filter that hands git the commit's bytes for it, so the
confirmation by `git hash-object` and the end's `git status` both see the commit's module."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from gate.evidence.git_probe import git_runner, probe_tree
from gate.evidence.git_settings import GitView, git_view
from gate.evidence.producer_inventory import derive_findings
from gate.evidence.test_sources import SourceWatch, end_facts
from tests.gitrepo import commit_all, git, git_env, init_repo

HONEST = "def test_total():\n    assert 1 + 1 == 3\n"
REWRITTEN = "def test_total():\n    assert 1 + 1 == 2\n"
#: A clean filter that stores the commit's bytes whatever the file holds.
SAME_AS_COMMIT = "git show HEAD:test_calc.py"


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    init_repo(repo)
    (repo / "test_calc.py").write_text(HONEST)
    commit_all(repo, "start")
    return repo


def _environ(tmp_path: Path) -> dict[str, str]:
    """The session's environment: the tests' isolated git, with a HOME of its own."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = git_env()
    del env["GIT_CONFIG_GLOBAL"]  # ~/.gitconfig is read, as on a CI runner
    return {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}


def _end(
    repo: Path, view: GitView, attack: Callable[[], object] = lambda: None,
    rewritten: bool = True,
) -> list[dict[str, str]]:
    """The session: the tree probed at its start, then the test's code (`attack`), the module
    rewritten before it is collected, and the findings of the end: the test modules against
    the commit and the tree probed again."""
    start = probe_tree(repo, [], view.environ, view.run, [repo])
    assert start.clean is True
    attack()
    sources = SourceWatch(repo)
    if rewritten:
        (repo / "test_calc.py").write_text(REWRITTEN)
    sources.collected([repo / "test_calc.py"])
    ended = end_facts(sources, start, repo, [], view, [repo])
    return [f for f in derive_findings(ended) if f["code"] in ("tree_changed", "test_source")]


def _add_same_filter(repo: Path, config: Path) -> None:
    """What the test's code does: a filter driver that cleans to the commit's bytes, and an
    attribute outside the tree that applies it."""
    git(repo, "config", "--file", str(config), "filter.same.clean", SAME_AS_COMMIT)
    attributes = repo / ".git" / "info" / "attributes"
    attributes.parent.mkdir(exist_ok=True)
    attributes.write_text("test_calc.py filter=same\n")


def test_control_an_honest_session_has_no_finding(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    assert _end(repo, git_view(repo, _environ(tmp_path)), rewritten=False) == []


def test_control_a_filter_set_before_the_plugin_loaded_is_not_a_change(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    git(repo, "config", "filter.tidy.clean", "cat")
    assert _end(repo, git_view(repo, _environ(tmp_path)), rewritten=False) == []


def test_a_filter_added_to_the_repository_config_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    view = git_view(repo, _environ(tmp_path))
    found = _end(repo, view, lambda: _add_same_filter(repo, repo / ".git" / "config"))
    # Without the settings check the filter fools both: the module reads as the commit's.
    assert [f["code"] for f in found] == ["tree_changed"], found
    assert "configuration or attributes changed" in found[0]["route"]


def test_a_filter_added_to_the_users_config_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    environ = _environ(tmp_path)
    view = git_view(repo, environ)
    found = _end(repo, view, lambda: _add_same_filter(repo, Path(environ["HOME"]) / ".gitconfig"))
    assert [f["code"] for f in found] == ["tree_changed"], found


def test_an_included_file_changed_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    included = tmp_path / "extra.gitconfig"
    included.write_text("[core]\n\tfileMode = true\n")
    git(repo, "config", "include.path", str(included))
    view = git_view(repo, _environ(tmp_path))
    found = _end(repo, view, lambda: _add_same_filter(repo, included))
    assert [f["code"] for f in found] == ["tree_changed"], found


def test_a_gitattributes_written_in_the_tree_is_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    git(repo, "config", "filter.same.clean", SAME_AS_COMMIT)  # before load: an honest driver
    view = git_view(repo, _environ(tmp_path))
    found = _end(repo, view, lambda: (repo / ".gitattributes").write_text(
        "test_calc.py filter=same\n"))
    assert any(".gitattributes was written" in f["route"] for f in found), found


def test_environment_set_during_the_run_does_not_reach_gits_runs(tmp_path: Path) -> None:
    """`GIT_DIR`, `HOME` or `GIT_CONFIG_*` set in os.environ by a test: the runner kept its own
    copy of the environment at load."""
    repo = _repo(tmp_path)
    environ = _environ(tmp_path)
    view = git_view(repo, environ)
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    init_repo(decoy)
    environ.update(GIT_DIR=str(decoy / ".git"), GIT_CONFIG_COUNT="1",
                   GIT_CONFIG_KEY_0="filter.same.clean", GIT_CONFIG_VALUE_0=SAME_AS_COMMIT)
    assert view.run(["rev-parse", "--absolute-git-dir"], repo).decode().strip() == \
        str((repo / ".git").resolve())
    assert b"filter.same" not in view.run(["config", "--list"], repo)


def test_settings_git_cannot_read_at_the_end_are_not_the_same(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    view = git_view(repo, _environ(tmp_path))

    def break_config() -> None:
        with (repo / ".git" / "config").open("a") as config:
            config.write("[broken\n")

    found = _end(repo, view, break_config, rewritten=False)
    assert found, "an unreadable configuration passed for an unchanged one"


def test_the_runner_copies_the_environment_it_was_given(tmp_path: Path) -> None:
    environ = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    run = git_runner(environ)
    environ["GIT_CONFIG_COUNT"] = "1"
    environ["GIT_CONFIG_KEY_0"] = "user.name"
    environ["GIT_CONFIG_VALUE_0"] = "set after the runner was made"
    assert b"set after the runner" not in run(["config", "--list"], tmp_path)


def test_control_settings_that_do_not_touch_the_tree_are_not_a_change(tmp_path: Path) -> None:
    """A fixture that sets who commits, or a CI step that trusts the directory, changes
    nothing git reads the tree with."""
    repo = _repo(tmp_path)
    environ = _environ(tmp_path)
    view = git_view(repo, environ)

    def honest_settings() -> None:
        git(repo, "config", "--file", str(Path(environ["HOME"]) / ".gitconfig"),
            "user.email", "fixture@example.invalid")
        git(repo, "config", "--file", str(Path(environ["HOME"]) / ".gitconfig"),
            "--add", "safe.directory", "*")
        git(repo, "config", "init.defaultBranch", "trunk")
        git(repo, "config", "core.editor", "true")

    assert _end(repo, view, honest_settings, rewritten=False) == []


def test_a_stat_setting_changed_during_the_run_is_named(tmp_path: Path) -> None:
    """`core.trustctime=false` lets `git status` trust a restored modification time."""
    repo = _repo(tmp_path)
    view = git_view(repo, _environ(tmp_path))
    found = _end(repo, view, lambda: git(repo, "config", "core.trustctime", "false"),
                 rewritten=False)
    assert [f["code"] for f in found] == ["tree_changed"], found
