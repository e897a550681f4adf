"""Issue 16, item 3: every route by which repository code can rewrite a pytest run's results,
beside its honest control, end to end: the plugin's record through `claim-gate verify`.

Each attack makes a failing test look green to pytest itself (the inner run exits 0); the
record the plugin writes names the route, and the gate refuses it as `producer_modified`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tampering_support import CALC, FAILING, PASSING, Project, new_project, unmet

FLIP = (
    "import pytest\n\n"
    "@pytest.hookimpl(wrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    report = yield\n"
    "    report.outcome = 'passed'\n"
    "    return report\n"
)
PATCH_REPORT = (
    "import _pytest.reports as _reports\n"
    "_original = _reports.TestReport.from_item_and_call.__func__\n"
    "def _green(cls, item, call):\n"
    "    report = _original(cls, item, call)\n"
    "    report.outcome = 'passed'\n"
    "    return report\n"
    "_reports.TestReport.from_item_and_call = classmethod(_green)\n"
)
PATCH_IN_TEST = (
    "import _pytest.runner as _runner\n\n"
    "def test_installs_a_patch():\n"
    "    original = _runner.CallInfo.from_call.__func__\n"
    "    def quiet(cls, func, when, reraise=None):\n"
    "        info = original(cls, func, when, reraise)\n"
    "        info.excinfo = None\n"
    "        return info\n"
    "    _runner.CallInfo.from_call = classmethod(quiet)\n"
)
QUIET_ITEMS = (
    "def pytest_collection_modifyitems(items):\n"
    "    for item in items:\n"
    "        item.runtest = lambda: None\n"
)

ATTACKS: dict[str, tuple[dict[str, str], str]] = {
    "conftest makereport hook": ({"conftest.py": FLIP}, "conftest.py (conftest)"),
    "pytest_plugins module": (
        {"conftest.py": "pytest_plugins = ['greenwash']\n", "greenwash.py": FLIP},
        "pytest_plugins = ['greenwash']",
    ),
    "-p in pyproject.toml addopts": (
        {"greenwash.py": FLIP,
         "pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-p greenwash'\n"},
        "-p greenwash (addopts in pyproject.toml)",
    ),
    "-p in tox.ini addopts": (
        {"greenwash.py": FLIP, "tox.ini": "[pytest]\naddopts = -p greenwash\n"},
        "-p greenwash (addopts in tox.ini)",
    ),
    "-p in pytest.ini addopts": (
        {"greenwash.py": FLIP, "pytest.ini": "[pytest]\naddopts = -p greenwash\n"},
        "-p greenwash (addopts in pytest.ini)",
    ),
    "-p in .pytest.ini addopts": (
        {"greenwash.py": FLIP, ".pytest.ini": "[pytest]\naddopts = -p greenwash\n"},
        "-p greenwash (addopts in .pytest.ini)",
    ),
    "-p in pytest.toml addopts": (
        {"greenwash.py": FLIP, "pytest.toml": "[pytest]\naddopts = ['-p', 'greenwash']\n"},
        "-p greenwash (addopts in pytest.toml)",
    ),
    "import-time patch in the code under test": (
        {"calc.py": CALC + PATCH_REPORT}, "TestReport.from_item_and_call from calc.py",
    ),
    "patch made by a test module": (
        {"test_aaa_patch.py": PATCH_IN_TEST}, "CallInfo.from_call from test_aaa_patch.py",
    ),
    "runtest replaced on the items": (
        {"conftest.py": QUIET_ITEMS}, "test_broken.py::test_broken: its runtest",
    ),
}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path)


def test_control_an_honest_run_is_clean_and_verified(project: Project) -> None:
    project.commit({"calc.py": CALC, "test_calc.py": PASSING,
                    "conftest.py": "def pytest_configure(config):\n    pass\n"})
    assert project.pytest().returncode == 0
    inventory = project.record()["x-producer-inventory"]
    assert inventory["findings"] == []
    assert [c["path"] for c in inventory["conftests"]] == ["conftest.py"]
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])


@pytest.mark.parametrize("route", list(ATTACKS))
def test_a_route_that_rewrites_results_is_producer_modified(project: Project, route: str) -> None:
    files, named = ATTACKS[route]
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "test_broken.py": FAILING, **files})
    run = project.pytest()
    assert run.returncode == 0, run.stdout  # the attack works: pytest itself sees green
    record = project.record()
    assert record["observed_value"]["failures"] == 0
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"]) == (1, "unverified")
    found = unmet(verdict)
    assert set(found) == {"producer_modified"}
    assert named in found["producer_modified"]


def test_the_junit_report_carries_the_judgement(project: Project) -> None:
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, "conftest.py": FLIP})
    project.pytest()
    text = project.junit.read_text("utf-8")
    assert 'name="claim-gate.producer_modified" value="true"' in text
    assert "pytest_runtest_makereport (wrapper)" in text
    assert project.record()["x-producer-inventory"]["digest"] in text
