"""Issue 21 item 4, the plugin's side: nothing from the repository runs before the plugin
unseen. A committed `*.dist-info`/`*.egg-info` with a `pytest11` entry point, or a `pytest/`,
`_pytest/` or `pytest.py` at the repository root, runs before any plugin hook when pytest is
started as the recipe starts it (`python -m pytest` puts the root on `sys.path`); here its
code patches pytest so that the patch looks like pytest's own, and the failing test passes.
The plugin records what ran (`preloaded` in its inventory), which makes the run
`producer_modified`, named. Real pytest runs in temporary git repositories, each attack
beside its honest control."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from gate.evidence.plugin_preload import Locator, repository_entry_points, shadowed_modules
from tests.tampering_support import CALC, FAILING, PASSING, Project, new_project, unmet

#: Patches pytest's CallInfo so that a failing call reports no exception, disguised as
#: pytest's own code (its co_filename is pytest's file): the watch alone sees nothing.
DISGUISED_PATCH = (
    "import _pytest.runner as _runner\n\n"
    "_original = _runner.CallInfo.from_call.__func__\n\n\n"
    "def quiet(cls, func, when, reraise=None):\n"
    "    info = _original(cls, func, when, reraise)\n"
    "    info.excinfo = None\n"
    "    return info\n\n\n"
    "quiet.__code__ = quiet.__code__.replace(co_filename=_runner.__file__)\n"
    "_runner.CallInfo.from_call = classmethod(quiet)\n"
)


def _shadow(package: str) -> str:
    """A `package/__init__.py` that runs the installed package's own `__init__` in its place
    (so everything still works) and then the disguised patch."""
    return (
        "import os\nimport sysconfig\n\n"
        f"_real = os.path.join(sysconfig.get_paths()['purelib'], {package!r}, '__init__.py')\n"
        "__path__ = [os.path.dirname(_real)]\n"
        "with open(_real, encoding='utf-8') as _stream:\n"
        "    exec(compile(_stream.read(), _real, 'exec'))\n"
        "import greenwash  # noqa: E402,F401\n"
    )


#: `python -m pytest` runs this file instead of pytest: it patches, then hands over.
PYTEST_SCRIPT = (
    "import os\nimport sys\n\n"
    "_root = os.getcwd()\n"
    "sys.path = [p for p in sys.path if os.path.abspath(p or '.') != _root]\n"
    "import pytest  # noqa: E402 - the installed one\n\n"
    "sys.path.append(_root)\n"
    "import greenwash  # noqa: E402,F401\n\n"
    "raise SystemExit(pytest.console_main())\n"
)


def _distribution(info: str, entry_points: str) -> dict[str, str]:
    return {f"{info}/METADATA": "Metadata-Version: 2.1\nName: greenwash\nVersion: 1.0\n",
            f"{info}/entry_points.txt": entry_points}


PYTEST11 = "[pytest11]\ngreenwash = greenwash\n"

#: name: (files of the change, what the finding names)
ATTACKS: dict[str, tuple[dict[str, str], str]] = {
    "a committed dist-info with a pytest11 entry point": (
        {"greenwash.py": DISGUISED_PATCH,
         **_distribution("greenwash-1.0.dist-info", PYTEST11)},
        "pytest11 entry point greenwash = greenwash from greenwash-1.0.dist-info"),
    "a committed egg-info with a pytest11 entry point": (
        {"greenwash.py": DISGUISED_PATCH,
         "greenwash.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: greenwash\nVersion: 1.0\n",
         "greenwash.egg-info/entry_points.txt": PYTEST11},
        "pytest11 entry point greenwash = greenwash from greenwash.egg-info"),
    "a pytest/ package shadowing pytest": (
        {"greenwash.py": DISGUISED_PATCH, "pytest/__init__.py": _shadow("pytest")},
        "pytest from pytest/__init__.py"),
    "a _pytest/ package shadowing pytest's internals": (
        {"greenwash.py": DISGUISED_PATCH, "_pytest/__init__.py": _shadow("_pytest")},
        "_pytest from _pytest/__init__.py"),
    "a pytest.py that python -m pytest runs instead": (
        {"greenwash.py": DISGUISED_PATCH, "pytest.py": PYTEST_SCRIPT},
        "the program that started the session from pytest.py"),
}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path)


def test_control_an_installed_looking_distribution_without_pytest11_verifies(
        project: Project) -> None:
    """A project's own metadata at its root (an egg-info from `setup.py develop`) with other
    entry points, and a package of its own: nothing ran before the plugin."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    **_distribution("calc-1.0.dist-info",
                                    "[console_scripts]\ncalc = calc:add\n"),
                    "calcpkg/__init__.py": "VALUE = 1\n"})
    assert project.pytest().returncode == 0
    inventory = project.record()["x-producer-inventory"]
    assert (inventory["preloaded"], inventory["findings"]) == ([], [])
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert (code, verdict["unmet"]) == (0, []), verdict["reason"]


@pytest.mark.parametrize("name", list(ATTACKS))
def test_code_that_ran_before_the_plugin_makes_the_run_producer_modified(
        project: Project, name: str) -> None:
    files, named = ATTACKS[name]
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "test_broken.py": FAILING,
                    **files})
    result = project.pytest()
    assert result.returncode == 0, result.stdout + result.stderr  # the attack works
    inventory = project.record()["x-producer-inventory"]
    codes = [f["code"] for f in inventory["findings"]]
    # The preload scan names it; the watch may name the same code again (a shadowing pytest
    # package is also an internal that is not pytest's own at load).
    assert "preloaded_code" in codes
    assert set(codes) <= {"preloaded_code", "patched_internal"}
    assert 'name="claim-gate.producer_modified" value="true"' in project.junit.read_text()
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    assert code == 1
    found = unmet(verdict)
    assert set(found) == {"producer_modified"}
    assert named in found["producer_modified"]


def test_a_path_is_the_repositorys_by_its_real_location(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "pytest").mkdir(parents=True)
    (root / "pytest" / "__init__.py").write_text("")
    venv = root / ".venv" / "lib" / "site-packages"
    venv.mkdir(parents=True)
    (venv / "pytest.py").write_text("")
    link = tmp_path / "elsewhere"
    link.symlink_to(root)
    locator = Locator(root, [venv.resolve()])
    assert locator.repository_path(link / "pytest" / "__init__.py") == "pytest/__init__.py"
    # A virtualenv made inside the checkout is installed code, not the change.
    assert locator.repository_path(venv / "pytest.py") is None
    assert locator.repository_path(tmp_path / "other.py") is None
    assert locator.repository_path("<frozen importlib._bootstrap>") is None
    assert locator.repository_path(None) is None


@pytest.mark.parametrize("startup", [True, False])
def test_a_sitecustomize_of_the_repository_run_at_start_up_is_named(
        project: Project, startup: bool) -> None:
    """The repository on the path when the interpreter starts (an editable install's `.pth`
    puts it there; here `PYTHONPATH`) runs its `sitecustomize.py` before pytest: it patches
    pytest disguised as pytest's own code, and the failing test passes. Control (`startup`
    False): the same files with the repository off the path at start-up verify."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "greenwash.py": DISGUISED_PATCH,
                    "sitecustomize.py": "import greenwash  # noqa: F401\n",
                    **({"test_broken.py": FAILING} if startup else {})})
    result = project.pytest(environ={"PYTHONPATH": str(project.repo)} if startup else None)
    assert result.returncode == 0, result.stdout + result.stderr  # green either way
    code, verdict = project.verify("--test-evidence", str(project.evidence),
                                   "--junit", str(project.junit))
    if not startup:
        assert (code, verdict["unmet"]) == (0, []), verdict["reason"]
        return
    assert code == 1
    found = unmet(verdict)
    assert set(found) == {"producer_modified"}
    assert "sitecustomize from sitecustomize.py" in found["producer_modified"]


def test_every_module_of_the_repository_imported_before_the_plugin_is_judged(
        tmp_path: Path) -> None:
    root = tmp_path.resolve()
    locator = Locator(root, [])
    modules = {name: SimpleNamespace(__file__=str(root / f"{name}.py"))
               for name in ("calc", "sitecustomize", "pytest", "pluggy", "gate", "__main__")}
    modules["_pytest.runner"] = SimpleNamespace(__file__=str(root / "_pytest" / "runner.py"))
    modules["json"] = SimpleNamespace(__file__=str(tmp_path.parent / "lib" / "json.py"))
    found = {e["what"]: e["route"] for e in shadowed_modules(modules, locator)}
    assert set(found) == {"pytest", "pluggy", "gate", "the program that started the session",
                          "_pytest.runner", "calc", "sitecustomize"}
    assert "shadows the installed one" in found["pytest"]
    assert "imported before the plugin loaded" in found["sitecustomize"]
    # A package from the repository is named once, not with each of its modules.
    modules["pytest.__main__"] = SimpleNamespace(__file__=str(root / "pytest" / "__main__.py"))
    modules["pytest"] = SimpleNamespace(__file__=str(root / "pytest" / "__init__.py"))
    named = [e["what"] for e in shadowed_modules(modules, locator)]
    assert named.count("pytest") == 1
    assert "pytest.__main__" not in named


def test_an_installed_entry_point_whose_module_is_the_repositorys(tmp_path: Path) -> None:
    """An editable install of a pytest plugin under test: its metadata is installed, its
    module is the repository's (the plugin being changed is the producer)."""
    root = tmp_path.resolve()
    point = SimpleNamespace(group="pytest11", name="mine", value="mine.plugin")
    other = SimpleNamespace(group="console_scripts", name="x", value="mine.cli:main")
    installed = SimpleNamespace(_path=tmp_path.parent / "site" / "mine.dist-info",
                                entry_points=[point, other])
    modules = {"mine.plugin": SimpleNamespace(__file__=str(root / "mine" / "plugin.py"))}
    found = repository_entry_points([installed], modules, Locator(root, []))
    assert [(e["what"], e["file"]) for e in found] == [
        ("pytest11 entry point mine = mine.plugin", "mine/plugin.py")]
    assert repository_entry_points([installed], {}, Locator(root, [])) == []
