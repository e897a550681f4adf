"""Issue 21, item 3 under pytest-xdist: the workers run the tests, so a patch the code under
test makes lives in a worker, and a watch in the controller alone saw none of it (every route
below reported a failing test as passed with an inventory that found nothing). Each worker now
runs the watch and hands what it saw to the controller (`gate/evidence/worker_view.py`).

One real session holds every route (each failing test turned green its own way, in both
workers: each collects and so imports every module), another the honest control.
"""

from __future__ import annotations

import pytest

from tests.tampering_support import CALC, PASSING, Session, session_over, unmet
from tests.test_watch_wider import REWRITE_AROUND_IMPORT, VALIDATE

#: Each module below is imported by its own failing test; what it changes turns every report
#: green from then on, so each route is checked by its own finding, not by its test's outcome.
ROUTES = {
    # A method of a watched class replaced (what pytest's runner calls to make a report).
    "route_method.py": (
        "import _pytest.reports as reports\n"
        "_made = reports.TestReport.from_item_and_call.__func__\n"
        "def _green(cls, item, call):\n"
        "    report = _made(cls, item, call)\n"
        "    report.outcome, report.longrepr = 'passed', None\n"
        "    return report\n"
        "reports.TestReport.from_item_and_call = classmethod(_green)\n"
    ),
    # The name the runner calls through rebound (to a class of the same name, so that
    # xdist still carries its reports), the class left alone.
    "route_name.py": (
        "import importlib\n"
        "runner = importlib.import_module('_pytest.' + 'runner')\n"
        "_made = runner.TestReport\n"
        "class TestReport(_made):\n"
        "    @classmethod\n"
        "    def from_item_and_call(cls, item, call):\n"
        "        report = _made.from_item_and_call(item, call)\n"
        "        report.outcome, report.longrepr = 'passed', None\n"
        "        return report\n"
        "runner.TestReport = TestReport\n"
    ),
    # A trace function set (and taken off again) by the code under test.
    "route_trace.py": (
        "import sys\n"
        "def _quiet(frame, event, arg):\n"
        "    return None\n"
        "sys.settrace(_quiet)\n"
        "sys.settrace(None)\n"
    ),
    # A committed module rewritten just before its import and put back just after.
    "route_rewrite.py": REWRITE_AROUND_IMPORT,
    # A source-rewriting import hook put first in `sys.meta_path`.
    "route_finder.py": (
        "import sys\n"
        "class Rewriter:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        return None\n"
        "sys.meta_path.insert(0, Rewriter())\n"
    ),
}

#: A plugin registered from a test module's fixture, in the worker that runs the test.
PLUGIN_TEST = (
    "import pytest\n"
    "class Green:\n"
    "    @pytest.hookimpl(wrapper=True)\n"
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        report = yield\n"
    "        report.outcome, report.longrepr = 'passed', None\n"
    "        return report\n"
    "@pytest.fixture(autouse=True)\n"
    "def _green(request):\n"
    "    if not request.config.pluginmanager.has_plugin('green'):\n"
    "        request.config.pluginmanager.register(Green(), 'green')\n"
    "def test_broken():\n"
    "    assert 1 == 2\n"
)


def _failing_test_of(module: str) -> str:
    return f"import {module}  # noqa: F401\n\ndef test_broken():\n    assert 1 == 2\n"


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Session:
    files = {name: CALC + text for name, text in ROUTES.items()}
    files.update({f"test_{name}": _failing_test_of(name.removesuffix(".py")) for name in ROUTES})
    files["test_plugin.py"] = PLUGIN_TEST
    files["validate.py"] = VALIDATE
    return session_over(tmp_path_factory.mktemp("xdist-attacks"), files, "-n", "2")


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Session:
    files = {
        "test_more.py": PASSING.replace("test_add", "test_more"),
        "test_unit.py": ("import unittest\nclass T(unittest.TestCase):\n"
                         "    def test_x(self):\n        self.assertTrue(True)\n"),
        "conftest.py": ("import pytest\n@pytest.fixture(autouse=True)\n"
                        "def env(monkeypatch):\n    monkeypatch.setenv('CALC_MODE', '1')\n"),
    }
    return session_over(tmp_path_factory.mktemp("xdist-honest"), files, "-n", "2")


def _findings(session: Session) -> list[dict[str, str]]:
    found: list[dict[str, str]] = session.record["x-producer-inventory"]["findings"]
    return found


def test_every_route_turned_a_failing_test_green(attacked: Session) -> None:
    assert attacked.returncode == 0, attacked.output
    assert set(attacked.junit.values()) == {"passed"}, attacked.junit


@pytest.mark.parametrize(("code", "what"), [
    ("patched_internal", "_pytest.reports:TestReport.from_item_and_call"),
    ("patched_internal", "_pytest.runner.TestReport"),
    ("import_hook", "Rewriter added to sys.meta_path"),
    ("report_hook", "pytest_runtest_makereport (wrapper) in green"),
    ("trace_function", "sys.settrace while route_trace.py:6 ran"),  # after CALC's two lines
    ("tree_changed", "a committed Python file written"),
])
def test_a_workers_patch_is_named_in_the_controllers_record(
    attacked: Session, code: str, what: str,
) -> None:
    named = [f for f in _findings(attacked) if f["code"] == code and what in f["what"]]
    assert named, _findings(attacked)
    assert all("xdist worker gw" in f["route"] for f in named
               if f["code"] == "patched_internal"), named


def test_the_gate_refuses_the_attacked_run(attacked: Session) -> None:
    code, verdict = attacked.verdict
    assert (code, verdict["state"]) == (1, "unverified")
    assert "producer_modified" in unmet(verdict)


def test_the_honest_run_under_xdist_finds_nothing_and_verifies(honest: Session) -> None:
    assert honest.returncode == 0, honest.output
    assert _findings(honest) == []
    assert honest.record["x-xdist-workers"] == 2
    code, verdict = honest.verdict
    assert (code, verdict["state"]) == (0, "verified"), unmet(verdict)


#: The patch made inside the first test (so a worker xdist starts again does not make it), and
#: the worker ended at its session end, before it sends what its watch saw: every test has
#: reported by then, so the tally is complete and xdist only says the node went down.
PATCH_THEN_LEAVE = {
    "test_a.py": (
        "def test_aaa_patch():\n"
        + "".join(f"    {line}\n" for line in ROUTES["route_method.py"].splitlines())
        + "\n\ndef test_broken():\n    assert 1 == 2\n"
    ),
    "test_b.py": (
        "import os\nimport pytest\n"
        "class Leave:\n"
        "    @pytest.hookimpl(tryfirst=True)\n"
        "    def pytest_sessionfinish(self):\n"
        "        os._exit(0)\n"
        "@pytest.fixture(autouse=True)\n"
        "def _leave(request):\n"
        "    if not request.config.pluginmanager.has_plugin('leave'):\n"
        "        request.config.pluginmanager.register(Leave(), 'leave')\n"
        "def test_ok():\n    assert True\n"
    ),
}


def test_a_worker_that_ends_itself_before_sending_its_watch_is_not_nothing_seen(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    session = session_over(tmp_path_factory.mktemp("xdist-leave"), PATCH_THEN_LEAVE, "-n", "1")
    assert session.returncode == 0, session.output
    assert session.junit["test_a.py::test_broken"] == "passed"
    observed = session.record["observed_value"]
    assert (observed["unfinished"], observed["failures"]) == (0, 0)  # the tally is complete
    [finding] = _findings(session)
    assert finding["code"] == "test_source"
    assert "gw0 went down (" in finding["route"]
    assert "what its watch saw" in finding["route"]
    code, verdict = session.verdict
    assert (code, verdict["state"]) == (1, "unverified")
    assert "producer_modified" in unmet(verdict)
