"""Issue 21, item 3: plain setup/call/teardown hooks and fixtures that write to the test item,
each turning a failing test into a reported pass, beside honest conftests that do what
conftests do every day (skip by marker, check the environment, mark xfail, add properties,
use the stash, unittest and subtests).

One real pytest session in a temporary git repository holds every attack (each in its own
directory, with its own conftest or a `pytest_plugins` module), another every control: the
suite is near its time limit, so the sessions are shared by the module.
"""

from __future__ import annotations

import pytest

from tests.tampering_support import (
    CALC,
    Session,
    junit_key,
    junit_outcomes,
    new_project,
    session_over,
    unmet,
)

BROKEN = "def test_broken():\n    assert 1 == 2\n"

#: A plain setup hook gives the item a class whose `runtest` does nothing.
CLASS_SWAP = (
    "def pytest_runtest_setup(item):\n"
    "    class Green(type(item)):\n"
    "        def runtest(self):\n"
    "            pass\n"
    "    item.__class__ = Green\n"
)
#: A hook relay that passes every name on but the makereport its user defines next.
RELAY_HEAD = (
    "class _Relay:\n"
    "    def __init__(self, real):\n"
    "        self._real = real\n"
    "    def __getattr__(self, name):\n"
    "        return getattr(self._real, name)\n"
)
#: A `pytest_plugins` module hands the item another session, whose hook proxy turns the
#: report green after pytest's makereport, and puts the real one back at teardown.
SESSION_PLUGIN = (
    RELAY_HEAD +
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        report = self._real.pytest_runtest_makereport(item=item, call=call)\n"
    "        report.outcome, report.longrepr = 'passed', None\n"
    "        return report\n"
    "class _Session:\n"
    "    def __init__(self, real):\n"
    "        self.__dict__['_real'] = real\n"
    "    def __getattr__(self, name):\n"
    "        return getattr(self._real, name)\n"
    "    def gethookproxy(self, path):\n"
    "        return _Relay(self._real.gethookproxy(path))\n"
    "def pytest_runtest_setup(item):\n"
    "    if 'b_session' in item.nodeid:\n"
    "        item.session = _Session(item.session)\n"
    "def pytest_runtest_teardown(item):\n"
    "    item.session = item.session.__dict__.get('_real', item.session)\n"
)
#: A plain call hook replaces the test function on the item and in its module alike (the
#: end-of-session check compared the two and found them equal).
MODULE_AND_OBJ = (
    "def pytest_runtest_call(item):\n"
    "    green = lambda *args, **kwargs: None\n"
    "    setattr(item.module, item.originalname, green)\n"
    "    item.obj = green\n"
)
#: A fixture swaps the code object of the test function: the item, the module and the
#: function object are all what they were.
CODE_SWAP = (
    "import pytest\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def _quiet(request):\n"
    "    request.function.__code__ = (lambda: None).__code__\n"
)
#: A plain call hook swaps a unittest test's code after its setup report was made (unittest
#: items are not held to `pytest_pyfunc_call`), for code that puts the original back as it
#: runs: by the call report the function is what it was (heard as the write itself).
CODE_PUT_BACK = (
    "def _green(self):  # runs as the test method, in the test module's globals\n"
    "    T.test_broken.__code__ = T.test_broken._saved\n\n"
    "def pytest_runtest_call(item):\n"
    "    method = item.obj.__func__\n"
    "    method._saved = method.__code__\n"
    "    method.__code__ = _green.__code__\n"
)
UNITTEST_BROKEN = (
    "import unittest\n\n"
    "class T(unittest.TestCase):\n"
    "    def test_broken(self):\n"
    "        self.assertEqual(1, 2)\n"
)

#: A fixture leaves the item's session as it was and sets `gethookproxy` on the session
#: instance instead: its relay makes a passing report of its own, and
#: pytest's makereport (with every wrapper on it) is never called for the call's report.
INSTANCE_PROXY = (
    "import pytest\n\n"
    + RELAY_HEAD +
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        return pytest.TestReport(item.nodeid, item.location, {}, 'passed', None,"
    " call.when)\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def _relay(request):\n"
    "    session = request.session\n"
    "    real = session.gethookproxy\n"
    "    session.gethookproxy = lambda path: _Relay(real(path))\n"
    "    yield\n"
    "    del session.gethookproxy\n"
)

ATTACKS: dict[str, tuple[str, str]] = {
    # route: (the failing test's node id, what the finding names)
    "a plain setup hook swaps the item's class": (
        "a_class/test_a.py::test_broken", "its class replaced by pytest_runtest_setup"),
    "a pytest_plugins module swaps the item's session": (
        "b_session/test_b.py::test_broken", "item.session replaced by a _Session"),
    "a plain call hook replaces the function on the item and in the module": (
        "c_module/test_c.py::test_broken", "its test function (item.obj) replaced"),
    "a fixture swaps the test function's code object": (
        "d_code/test_d.py::test_broken", "the __code__ of its test function replaced"),
    "a call hook swaps a unittest test's code for code that puts the original back": (
        "f_back/test_f.py::T::test_broken", "the __code__ of its test function replaced"),
}
ATTACK_FILES = {
    "a_class/conftest.py": CLASS_SWAP, "a_class/test_a.py": BROKEN,
    "conftest.py": "pytest_plugins = ['s_helper']\n", "s_helper.py": SESSION_PLUGIN,
    "b_session/test_b.py": BROKEN,
    "c_module/conftest.py": MODULE_AND_OBJ, "c_module/test_c.py": BROKEN,
    "d_code/conftest.py": CODE_SWAP, "d_code/test_d.py": BROKEN,
    "e_proxy/conftest.py": INSTANCE_PROXY, "e_proxy/test_e.py": BROKEN,
    "f_back/conftest.py": CODE_PUT_BACK, "f_back/test_f.py": UNITTEST_BROKEN,
}
FILE_OF = {"a_class": "a_class/conftest.py", "b_session": "s_helper.py",
           "c_module": "c_module/conftest.py", "d_code": "d_code/conftest.py",
           "f_back": "f_back/conftest.py"}

#: What honest conftests do with the item every day: none of it is a finding.
HONEST_CONFTEST = (
    "import os\n"
    "import pytest\n\n"
    "_SEEN = pytest.StashKey[str]()\n\n"
    "def pytest_configure(config):\n"
    "    config.addinivalue_line('markers', 'slow: a slow test')\n\n"
    "def pytest_runtest_setup(item):\n"
    "    item.stash[_SEEN] = item.nodeid\n"
    "    item.user_properties.append(('os', os.name))\n"
    "    if item.get_closest_marker('slow') and not os.environ.get('RUN_SLOW'):\n"
    "        pytest.skip('slow tests need RUN_SLOW')\n"
    "    if item.name == 'test_known_bug':\n"
    "        item.add_marker(pytest.mark.xfail(reason='known bug'))\n\n"
    "def pytest_runtest_call(item):\n"
    "    assert item.stash[_SEEN] == item.nodeid\n\n"
    "def pytest_runtest_teardown(item):\n"
    "    item.user_properties.append(('done', 'yes'))\n\n"
    "@pytest.fixture\n"
    "def value(request):\n"
    "    request.node.user_properties.append(('value', 2))\n"
    "    return 2\n"
)
HONEST_TESTS = (
    "import unittest\n"
    "import pytest\n\n"
    "@pytest.mark.slow\n"
    "def test_slow():\n"
    "    assert 1 == 2\n\n"
    "def test_known_bug():\n"
    "    assert 1 == 2\n\n"
    "def test_value(value):\n"
    "    assert value == 2\n\n"
    "@pytest.mark.parametrize('n', [1, 2])\n"
    "def test_param(n):\n"
    "    assert n > 0\n\n"
    "class TestGrouped:\n"
    "    def test_method(self):\n"
    "        assert True\n\n"
    "    @staticmethod\n"
    "    def test_static():\n"
    "        assert True\n\n"
    "class Case(unittest.TestCase):\n"
    "    def test_unittest(self):\n"
    "        self.assertEqual(1, 1)\n\n"
    "def test_subtests(subtests):\n"
    "    for n in range(2):\n"
    "        with subtests.test(n=n):\n"
    "            assert n >= 0\n"
)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return session_over(tmp_path_factory.mktemp("attacked"), ATTACK_FILES)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return session_over(tmp_path_factory.mktemp("honest"),
                    {"conftest.py": HONEST_CONFTEST, "test_honest.py": HONEST_TESTS})


def _findings(session: Session) -> list[dict[str, str]]:
    found: list[dict[str, str]] = session.record["x-producer-inventory"]["findings"]
    return found


@pytest.mark.parametrize("route", list(ATTACKS))
def test_an_item_write_that_greens_a_failing_test_is_named(attacked: Session, route: str) -> None:
    node, named = ATTACKS[route]
    # The attack works: pytest, the record's counts and the JUnit file all say passed.
    assert attacked.returncode == 0, attacked.output
    assert attacked.record["observed_value"]["failures"] == 0
    assert attacked.junit[junit_key(node)] == "passed", attacked.junit
    findings = [f for f in _findings(attacked)
                if f["code"] == "item_state" and f["what"].startswith(node)]
    assert any(named in f["what"] for f in findings), _findings(attacked)
    assert {f["file"] for f in findings} == {FILE_OF[node.split("/", 1)[0]]}


def test_the_gate_refuses_the_attacked_run(attacked: Session) -> None:
    code, verdict = attacked.verdict
    assert (code, verdict["state"]) == (1, "unverified")
    assert "item.session replaced" in unmet(verdict)["producer_modified"]


def test_a_report_turned_green_after_makereport_is_named(attacked: Session) -> None:
    # The session swap's relay flips pytest's own report: the second line sees that too.
    reports = [f["what"] for f in _findings(attacked) if f["code"] == "item_report"]
    flipped = [what for what in reports if what.startswith("b_session/")]
    reports = [what for what in reports if not what.startswith("e_proxy/")]
    assert flipped == [
        "b_session/test_b.py::test_broken (call): its outcome changed from failed to passed"
        " after makereport"]
    # The class swap's do-nothing runtest never called the test function (`test_item_called`).
    assert [what for what in reports if what not in flipped] == [
        "a_class/test_a.py::test_broken (call): passed without pytest calling its test"
        " function (pytest_pyfunc_call)"]


def test_a_report_made_past_pytest_makereport_is_named(attacked: Session) -> None:
    # The session instance's own `gethookproxy`: the item is as collected, so only the
    # reports show it, logged without pytest's makereport having made them. pytest takes the
    # proxy before each phase runs: the setup's is the real one (the fixture sets the relay
    # during setup); the call's and the teardown's are the relay's (it is removed inside
    # the teardown, after pytest took it).
    assert attacked.junit["e_proxy/test_e.py::test_broken"] == "passed", attacked.junit
    made_past = [f["what"] for f in _findings(attacked)
                 if f["code"] == "item_report" and f["what"].startswith("e_proxy/")]
    assert made_past == [
        f"e_proxy/test_e.py::test_broken ({when}): a report pytest's makereport did not make"
        for when in ("call", "teardown")], _findings(attacked)
    code, verdict = attacked.verdict
    assert code == 1
    assert made_past[0] in unmet(verdict)["producer_modified"]


def test_control_honest_item_use_is_no_finding_and_verifies(honest: Session) -> None:
    assert honest.returncode == 0, honest.output
    assert _findings(honest) == []
    inventory = honest.record["x-producer-inventory"]
    assert (inventory["item_changes"], inventory["item_reports"]) == ([], [])
    assert honest.junit["test_honest.py::test_slow"] == "skipped"
    assert honest.junit["test_honest.py::test_known_bug"] == "skipped"  # xfail shows as such
    code, verdict = honest.verdict
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])


#: The code under test rewrites a test module when imported, and the rewritten module puts
#: the commit's bytes back as pytest imports it (`tests/test_watch_wider.py` in one process).
RESTORE_ON_IMPORT = (
    "import pathlib\n"
    "_file = pathlib.Path('test_z_broken.py')\n"
    "_original = _file.read_text()\n"
    "if '1 == 2' in _original:\n"
    "    _file.write_text('import pathlib\\npathlib.Path(__file__).write_text(%r)\\n' % _original\n"
    "                     + _original.replace('1 == 2', '1 == 1'))\n"
)


def test_under_xdist_the_workers_watch_reaches_the_controller(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # One worker (`-n 1`) keeps the order of imports fixed; the routes are those a single
    # process already catches: a module restored on import, an item's class swapped.
    project = new_project(tmp_path_factory.mktemp("xdist"))
    project.commit({
        "calc.py": CALC + RESTORE_ON_IMPORT, "test_a.py": "import calc  # noqa: F401\n",
        "test_z_broken.py": BROKEN, "a_class/conftest.py": CLASS_SWAP,
        "a_class/test_swapped.py": BROKEN,
    })
    run = project.pytest("-n", "1")
    assert run.returncode == 0, run.stdout  # both failing tests reported as passed
    outcomes = junit_outcomes(project.junit)
    assert outcomes["test_z_broken.py::test_broken"] == "passed", outcomes
    assert outcomes["a_class/test_swapped.py::test_broken"] == "passed", outcomes
    findings = project.record()["x-producer-inventory"]["findings"]
    shown = {(f["code"], f["file"]) for f in findings}
    assert ("test_source", "test_z_broken.py") in shown, findings
    assert ("item_state", "a_class/conftest.py") in shown, findings
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"]) == (1, "unverified")
    assert "producer_modified" in unmet(verdict)
