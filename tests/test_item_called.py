"""The item check at the moment pytest calls the test function (`gate/evidence/item_state.py`):
a write to the item that is put back before its next report no longer passes unseen.

Each attack turns a failing test into a reported pass and leaves the item as collected by the
time pytest makes the call report: a class whose `runtest` restores the item's own class, a
`runtest` set on the item that removes itself, a test function swapped in by a call hook and
put back by a later one. The controls are honest tests that pytest does not run through its
`Function.runtest`, or that end early: unittest, doctest, a conftest's own kind of item, a
skip or xfail from inside the test. (A repository's own `pytest_pyfunc_call`, the async
plugins' way of calling a test, is a `report_hook` finding of its own; installed plugins that
do so still reach this check, which wraps the hook.)

One real pytest session in a temporary git repository holds every attack, another every
control (the suite is near its time limit)."""

from __future__ import annotations

import pytest

from tests.tampering_support import Session, session_over, unmet

BROKEN = "def test_broken():\n    assert 1 == 2\n"

#: A call hook gives the item a class whose `runtest` puts the real class back and passes.
CLASS_RESTORED = (
    "def pytest_runtest_call(item):\n"
    "    real = type(item)\n"
    "    class Green(real):\n"
    "        def runtest(self):\n"
    "            self.__class__ = real\n"
    "    item.__class__ = Green\n"
)
#: A call hook sets a `runtest` on the item that deletes itself when called.
RUNTEST_REMOVED = (
    "def pytest_runtest_call(item):\n"
    "    def runtest():\n"
    "        del item.runtest\n"
    "    item.runtest = runtest\n"
)
#: A call hook swaps in a passing test function; a plugin's last one puts the failing one back.
FUNCTION_RESTORED = (
    "import pytest\n\n"
    "def pytest_runtest_call(item):\n"
    "    item._saved = item.obj\n"
    "    item.obj = lambda *args, **kwargs: None\n\n"
    "class _PutBack:\n"
    "    @pytest.hookimpl(trylast=True)\n"
    "    def pytest_runtest_call(self, item):\n"
    "        saved = item.__dict__.pop('_saved', None)\n"
    "        if saved is not None:\n"
    "            item.obj = saved\n\n"
    "def pytest_configure(config):\n"
    "    config.pluginmanager.register(_PutBack())\n"
)
ATTACKS = {
    "a class whose runtest restores the item's class": (
        "a_class/test_a.py::test_broken", "passed without pytest calling its test function"),
    "a runtest set on the item that removes itself": (
        "b_method/test_b.py::test_broken", "passed without pytest calling its test function"),
    "a test function swapped in and put back after the call": (
        "c_function/test_c.py::test_broken", "its test function (item.obj) replaced"),
}
ATTACK_FILES = {
    "a_class/conftest.py": CLASS_RESTORED, "a_class/test_a.py": BROKEN,
    "b_method/conftest.py": RUNTEST_REMOVED, "b_method/test_b.py": BROKEN,
    "c_function/conftest.py": FUNCTION_RESTORED,
    "c_function/test_c.py": BROKEN,
}

#: A conftest's own kind of test item (its `runtest` is its own, not pytest's `Function`'s).
OWN_ITEM = (
    "import pytest\n\n"
    "class YamlItem(pytest.Item):\n"
    "    def runtest(self):\n"
    "        assert self.name == 'case'\n\n"
    "class YamlFile(pytest.File):\n"
    "    def collect(self):\n"
    "        yield YamlItem.from_parent(self, name='case')\n\n"
    "def pytest_collect_file(parent, file_path):\n"
    "    if file_path.suffix == '.yaml' and file_path.name.startswith('test'):\n"
    "        return YamlFile.from_parent(parent, path=file_path)\n"
)
HONEST_TESTS = (
    "import unittest\n"
    "import pytest\n\n"
    "def twice(n):\n"
    "    '''\n"
    "    >>> twice(2)\n"
    "    4\n"
    "    '''\n"
    "    return 2 * n\n\n"
    "def test_plain():\n"
    "    assert twice(1) == 2\n\n"
    "@pytest.mark.parametrize('n', [1, 2])\n"
    "def test_param(n):\n"
    "    assert n > 0\n\n"
    "def test_skips_itself():\n"
    "    pytest.skip('not here')\n\n"
    "@pytest.mark.xfail(reason='known')\n"
    "def test_known_bug():\n"
    "    assert 1 == 2\n\n"
    "@pytest.mark.xfail(reason='fixed since', strict=False)\n"
    "def test_fixed_since():\n"
    "    assert True\n\n"
    "class TestGrouped:\n"
    "    def test_method(self):\n"
    "        assert True\n\n"
    "class Case(unittest.TestCase):\n"
    "    def test_unittest(self):\n"
    "        self.assertEqual(1, 1)\n"
)


@pytest.fixture(scope="module")
def attacked(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return session_over(tmp_path_factory.mktemp("attacked"), ATTACK_FILES)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Session:
    return session_over(tmp_path_factory.mktemp("honest"),
                    {"conftest.py": OWN_ITEM, "test_honest.py": HONEST_TESTS,
                     "test_data.yaml": "case: 1\n"}, "--doctest-modules")


def _item_findings(session: Session) -> list[dict[str, str]]:
    found: list[dict[str, str]] = session.record["x-producer-inventory"]["findings"]
    return [f for f in found if f["code"] in ("item_state", "item_report")]


@pytest.mark.parametrize("route", list(ATTACKS))
def test_a_write_put_back_before_the_report_is_named(attacked: Session, route: str) -> None:
    node, named = ATTACKS[route]
    # The attack works: pytest says every test passed.
    assert attacked.returncode == 0, attacked.output
    assert attacked.record["observed_value"]["failures"] == 0
    findings = [f for f in _item_findings(attacked) if f["what"].startswith(node)]
    assert any(named in f["what"] for f in findings), _item_findings(attacked)
    assert attacked.verdict[0] != 0
    assert "producer_modified" in unmet(attacked.verdict[1])


def test_control_honest_ways_of_calling_a_test_are_not_findings(honest: Session) -> None:
    assert honest.returncode == 0, honest.output
    assert _item_findings(honest) == []
    counted = honest.record["observed_value"]
    assert counted["tests"] >= 10, counted  # the doctest, the custom item, unittest all ran
    assert honest.verdict[0] == 0, honest.verdict[1]
