"""Issue 21, item 3: the in-process routes the narrow watch did not see, each beside its honest
control, end to end (a real git repository, the plugin's record, `claim-gate verify`).

None of these files is on the evidence chain: the code under test (`calc.py`) or a test module
does the tampering. The record must name the route and the gate refuse it as
`producer_modified`; the honest control beside them verifies.
"""

from __future__ import annotations

import sysconfig
import uuid
from pathlib import Path
from typing import Any

import pytest

from gate.evidence.producer_inventory import describe
from tests.tampering_support import CALC, PASSING, Project, new_project, unmet

#: A failing test that an attack below turns green (the import of calc comes first).
BROKEN = "import calc  # noqa: F401\n\ndef test_broken():\n    assert 1 == 2\n"

GREEN_REPORT = (
    "import _pytest.reports\n"
    "class _Green(_pytest.reports.TestReport):\n"
    "    @classmethod\n"
    "    def from_item_and_call(cls, item, call):\n"
    "        report = super().from_item_and_call(item, call)\n"
    "        report.outcome = 'passed'\n"
    "        report.longrepr = None\n"
    "        return report\n"
)
#: The runner calls `TestReport.from_item_and_call` through its own global name.
RUNNER_NAME = GREEN_REPORT + "import _pytest.runner\n_pytest.runner.TestReport = _Green\n"
#: The same name, reached by a computed lookup instead of an attribute write.
RUNNER_NAME_SETATTR = GREEN_REPORT + (
    "import importlib\n"
    "setattr(importlib.import_module('_pytest' + '.runner'), 'Test' + 'Report', _Green)\n"
)
#: A method of a watched class replaced (not the class, not a hook).
CLASS_METHOD = (
    "import _pytest.reports as _r\n"
    "_init = _r.TestReport.__init__\n"
    "def _green(self, *args, **kwargs):\n"
    "    _init(self, *args, **kwargs)\n"
    "    self.outcome = 'passed'\n"
    "    self.longrepr = None\n"
    "_r.TestReport.__init__ = _green\n"
)
#: The code object of pytest's own `pytest_pyfunc_call` swapped in place: every name and the
#: hook registration still point where they did; no test function is called any more.
CODE_SWAP = (
    "import _pytest.python\n"
    "def _skip_the_call(pyfuncitem):\n"
    "    return True\n"
    "_pytest.python.pytest_pyfunc_call.__code__ = _skip_the_call.__code__\n"
)
#: A source-rewriting import hook: the failing test module runs with its assertion rewritten.
META_PATH = (
    "import importlib.abc, importlib.util, pathlib, sys\n"
    "class _Rewriter(importlib.abc.MetaPathFinder, importlib.abc.Loader):\n"
    "    def find_spec(self, name, path, target=None):\n"
    "        if name != 'test_z_broken':\n"
    "            return None\n"
    "        return importlib.util.spec_from_loader(name, self, origin='test_z_broken.py')\n"
    "    def create_module(self, spec):\n"
    "        return None\n"
    "    def exec_module(self, module):\n"
    "        path = pathlib.Path('test_z_broken.py').resolve()\n"
    "        module.__file__ = str(path)\n"
    "        text = path.read_text().replace('1 == 2', '1 == 1')\n"
    "        exec(compile(text, str(path), 'exec'), module.__dict__)\n"
    "sys.meta_path.insert(0, _Rewriter())\n"
)
PATH_HOOK = (
    "import sys\n"
    "def _hook(path):\n"
    "    raise ImportError\n"
    "sys.path_hooks.insert(0, _hook)\n"
    "sys.path_importer_cache.clear()\n"
)
#: A test file rewritten after the clean-tree check at session start, put back at exit...
REWRITE_RESTORE_AT_EXIT = (
    "import atexit, pathlib\n"
    "_file = pathlib.Path('test_z_broken.py')\n"
    "_original = _file.read_text()\n"
    "_file.write_text(_original.replace('1 == 2', '1 == 1'))\n"
    "atexit.register(_file.write_text, _original)\n"
)
#: ... or put back by the rewritten module itself as pytest imports it.
REWRITE_RESTORE_ON_IMPORT = (
    "import pathlib\n"
    "_file = pathlib.Path('test_z_broken.py')\n"
    "_original = _file.read_text()\n"
    "_file.write_text('import pathlib\\npathlib.Path(__file__).write_text(%r)\\n' % _original\n"
    "                 + _original.replace('1 == 2', '1 == 1'))\n"
)
#: A fixture in the test module hands pytest another function to call for the test.
ITEM_FUNCTION = (
    "import pytest\n\n"
    "@pytest.fixture(autouse=True)\n"
    "def _quiet(request):\n"
    "    request.node.obj = lambda *args, **kwargs: None\n\n"
    "def test_broken():\n"
    "    assert 1 == 2\n"
)
#: A fixture patches a watched class for its own test and the patch is undone at teardown,
#: before the compare after the test: the call report was made while it was in place.
FIXTURE_PATCH = (
    "import pytest\n"
    "import _pytest.reports as reports\n\n"
    "@pytest.fixture\n"
    "def green(monkeypatch):\n"
    "    made = reports.TestReport.from_item_and_call.__func__\n"
    "    def from_item_and_call(cls, item, call):\n"
    "        report = made(cls, item, call)\n"
    "        report.outcome, report.longrepr = 'passed', None\n"
    "        return report\n"
    "    monkeypatch.setattr(reports.TestReport, 'from_item_and_call',\n"
    "                        classmethod(from_item_and_call))\n\n"
    "def test_broken(green):\n"
    "    assert 1 == 2\n"
)
#: A fixture registers a plugin for its own test and unregisters it at teardown: its
#: makereport wrapper turns the call report green while no compare is looking.
FIXTURE_PLUGIN = (
    "import pytest\n\n"
    "class _Green:\n"
    "    @pytest.hookimpl(wrapper=True)\n"
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        report = yield\n"
    "        report.outcome, report.longrepr = 'passed', None\n"
    "        return report\n\n"
    "@pytest.fixture\n"
    "def green(request):\n"
    "    plugin = _Green()\n"
    "    request.config.pluginmanager.register(plugin, 'green-for-one-test')\n"
    "    yield\n"
    "    request.config.pluginmanager.unregister(plugin)\n\n"
    "def test_broken(green):\n"
    "    assert 1 == 2\n"
)
#: A trace function that jumps over every assertion of a test (`frame.f_lineno`), set by the
#: code under test and removed again by the first line it skips: nothing it leaves behind
#: is there for a compare to read.
TRACE_JUMP = (
    "import linecache, sys\n"
    "def _local(frame, event, arg):\n"
    "    if event == 'line':\n"
    "        text = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()\n"
    "        if text.startswith('assert '):\n"
    "            sys.settrace(None)\n"
    "            frame.f_lineno += 1\n"
    "    return _local\n"
    "def _global(frame, event, arg):\n"
    "    return _local if frame.f_code.co_name.startswith('test_') else None\n"
    "sys.settrace(_global)\n"
)
#: pytest's own function given another code object for one call, which puts the original
#: back as it runs: by the next compare the function is as it was.
CODE_PUT_BACK = (
    "import importlib, sys\n"
    "FUNC = importlib.import_module('_pytest.' + 'reports').TestReport.from_item_and_call"
    ".__func__\n"
    "ORIGINAL = FUNC.__code__\n"
    "def _green(cls, item, call):  # runs as pytest's own function, in its module's globals\n"
    "    import sys\n"
    "    mine = sys.modules['calc']\n"
    "    mine.FUNC.__code__ = mine.ORIGINAL\n"
    "    report = mine.FUNC(cls, item, call)\n"
    "    report.outcome, report.longrepr = 'passed', None\n"
    "    return report\n"
    "def swap():\n"
    "    FUNC.__code__ = _green.__code__\n"
)
SWAPS_THEN_FAILS = "import calc\n\ndef test_broken():\n    calc.swap()\n    assert 1 == 2\n"
#: A committed module of the repository (not a test module) rewritten just before it is
#: imported and put back just after: the tree is as it was at both checks, the code that ran
#: was not the commit's.
VALIDATE = "def check(x):\n    if x != 5:\n        raise ValueError(x)\n"
REWRITE_AROUND_IMPORT = (
    "from pathlib import Path\n"
    "_T = Path('validate.py')\n"
    "_SAVED = _T.read_text()\n"
    "_T.write_text(_SAVED.replace('raise ValueError(x)', 'return None'))\n"
    "import validate  # noqa: E402, F401\n"
    "_T.write_text(_SAVED)\n"
)
#: The same, by names relative to a directory descriptor (`dir_fd`): the `open` event names
#: the path alone, and the process's current directory is elsewhere.
REWRITE_THROUGH_DIR_FD = (
    "import os\n"
    "_D = os.open(os.path.dirname(os.path.abspath(__file__)), os.O_RDONLY)\n"
    "os.chdir('/')\n"
    "_F = os.open('validate.py', os.O_RDONLY, dir_fd=_D)\n"
    "_SAVED = os.read(_F, 1 << 16)\n"
    "os.close(_F)\n"
    "def _put(data):\n"
    "    f = os.open('validate.py', os.O_WRONLY | os.O_TRUNC, dir_fd=_D)\n"
    "    os.write(f, data)\n"
    "    os.close(f)\n"
    "_put(_SAVED.replace(b'raise ValueError(x)', b'return None'))\n"
    "import validate  # noqa: E402, F401\n"
    "_put(_SAVED)\n"
)
CHECKS = "import calc  # noqa: F401\nimport validate\n\ndef test_check():\n    validate.check(4)\n"
#: The listener taken out of the list by the first test, which rewrites a committed module
#: around its import unheard, and put back by the last test, before the session's end.
LISTENER_OUT = (
    "from pathlib import Path\nfrom gate.evidence import audit_events\n"
    "_KEPT = list(audit_events._listeners)\n\n"
    "def test_a_out():\n    audit_events._listeners.clear()\n"
    "    target = Path('validate.py')\n    saved = target.read_text()\n"
    "    target.write_text(saved.replace('raise ValueError(x)', 'return None'))\n"
    "    import validate\n    target.write_text(saved)\n    validate.check(4)\n"
)
LISTENER_BACK = (
    "from test_a_out import _KEPT\nfrom gate.evidence import audit_events\n\n"
    "def test_z_back():\n    audit_events._listeners[:] = _KEPT\n"
)
IMPORTS_CALC = "import calc  # noqa: F401\n\ndef test_imports():\n    assert True\n"
Z_BROKEN = "def test_broken():\n    assert 1 == 2\n"

ATTACKS: dict[str, tuple[dict[str, str], str]] = {
    "the runner's own name for TestReport rebound": (
        {"calc.py": CALC + RUNNER_NAME, "test_broken.py": BROKEN},
        "_pytest.runner.TestReport from calc.py",
    ),
    "the same name by a computed setattr": (
        {"calc.py": CALC + RUNNER_NAME_SETATTR, "test_broken.py": BROKEN},
        "_pytest.runner.TestReport from calc.py",
    ),
    "a method of a watched class replaced": (
        {"calc.py": CALC + CLASS_METHOD, "test_broken.py": BROKEN},
        "_pytest.reports:TestReport.__init__",
    ),
    "a function's code object swapped": (
        {"calc.py": CALC + CODE_SWAP, "test_broken.py": BROKEN},
        "_pytest.python.pytest_pyfunc_call",
    ),
    "a source-rewriting finder on sys.meta_path": (
        {"calc.py": CALC + META_PATH, "test_a.py": IMPORTS_CALC, "test_z_broken.py": Z_BROKEN},
        "_Rewriter added to sys.meta_path",
    ),
    "a test file rewritten after the start check, restored at exit": (
        {"calc.py": CALC + REWRITE_RESTORE_AT_EXIT, "test_a.py": IMPORTS_CALC,
         "test_z_broken.py": Z_BROKEN},
        "other bytes than the commit's when collected from test_z_broken.py",
    ),
    "a test file rewritten and restored by itself on import": (
        {"calc.py": CALC + REWRITE_RESTORE_ON_IMPORT, "test_a.py": IMPORTS_CALC,
         "test_z_broken.py": Z_BROKEN},
        "other bytes than the commit's when collected from test_z_broken.py",
    ),
    "the test function replaced on the item by a fixture": (
        {"test_z_broken.py": ITEM_FUNCTION},
        "test_z_broken.py::test_broken: its runtest/setup/teardown or test function was replaced",
    ),
    "a watched class patched by a fixture for one test, undone at its teardown": (
        {"test_z_broken.py": FIXTURE_PATCH}, "_pytest.reports:TestReport.from_item_and_call",
    ),
    "a plugin registered by a fixture for one test, unregistered at its teardown": (
        {"test_z_broken.py": FIXTURE_PLUGIN},
        "pytest_runtest_makereport (wrapper) in green-for-one-test",
    ),
    "a path hook on sys.path_hooks": (
        {"calc.py": CALC + PATH_HOOK, "test_a.py": IMPORTS_CALC}, "added to sys.path_hooks",
    ),
    "a trace function that jumps over assertions, removed by itself": (
        {"calc.py": CALC + TRACE_JUMP, "test_broken.py": BROKEN + "    return\n"},
        "sys.settrace while calc.py:13 ran",
    ),
    "pytest's function given other code for one call, put back as it runs": (
        {"calc.py": CALC + CODE_PUT_BACK, "test_broken.py": SWAPS_THEN_FAILS},
        "_pytest.reports:TestReport.from_item_and_call from calc.py",
    ),
    "a committed module rewritten before its import and put back after": (
        {"calc.py": CALC + REWRITE_AROUND_IMPORT, "validate.py": VALIDATE,
         "test_check.py": CHECKS},
        "a committed Python file written from validate.py",
    ),
    "the audit listener taken out by one test and put back by a later one": (
        {"validate.py": VALIDATE, "test_a_out.py": LISTENER_OUT,
         "test_z_back.py": LISTENER_BACK},
        "the plugin's audit listener",
    ),
    "a committed module rewritten around its import through a directory descriptor": (
        {"calc.py": CALC + REWRITE_THROUGH_DIR_FD, "validate.py": VALIDATE,
         "test_check.py": CHECKS},
        "a committed Python file written from validate.py",
    ),
}

#: Attacks whose effect is only to be seen, not a flipped result (the run still fails).
SEEN_ONLY = {"a path hook on sys.path_hooks"}


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return new_project(tmp_path)


def _verified_without_findings(project: Project, files: dict[str, str]) -> dict[str, Any]:
    """An honest control: the project with `files` passes, its record names no finding and
    the gate verifies it; the record's inventory, for what else the control checks."""
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, **files})
    assert project.pytest().returncode == 0
    inventory: dict[str, Any] = project.record()["x-producer-inventory"]
    assert inventory["findings"] == [], inventory["findings"]
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"], verdict["unmet"]) == (0, "verified", [])
    return inventory


def test_control_an_honest_run_that_monkeypatches_its_own_code_is_verified(
    project: Project,
) -> None:
    # Patching the code under test (not pytest's), importing modules, a finder that was
    # there before the plugin loaded: none of it is a finding.
    honest = (
        "import calc\nimport importlib\n\n"
        "def test_patched(monkeypatch):\n"
        "    monkeypatch.setattr(calc, 'add', lambda a, b: 5)\n"
        "    assert calc.add(2, 2) == 5\n\n"
        "def test_imports():\n"
        "    assert importlib.import_module('json').dumps(1) == '1'\n"
    )
    inventory = _verified_without_findings(project, {"test_honest.py": honest})
    assert inventory["import_hooks"] == []


def test_control_python_files_written_outside_the_commit_are_verified(project: Project) -> None:
    # Generated modules in the test's temporary directory, and one under the root that git
    # ignores: written while the tests ran, but not the commit's files.
    (project.repo / ".gitignore").write_text("out/\ngenerated.py\n")
    honest = (
        "def test_generates(tmp_path):\n"
        "    (tmp_path / 'mod.py').write_text('x = 1\\n')\n"
        "    with open('generated.py', 'w') as out:\n"
        "        out.write('y = 2\\n')\n"
    )
    inventory = _verified_without_findings(project, {"test_generates.py": honest})
    assert inventory["tree_at_end"]["written_committed"] == []


def test_control_a_fixture_that_registers_a_plugin_that_changes_no_result_is_verified(
    project: Project,
) -> None:
    # The plugin manager's tags move when the fixture registers its plugin, so the watch
    # compares everything at the call report: a plugin whose only hook writes a summary line
    # is recorded (seen at the call), not a finding.
    honest = (
        "import pytest\n\n"
        "class _Summary:\n"
        "    def pytest_terminal_summary(self, terminalreporter):\n"
        "        terminalreporter.write_line('summary')\n\n"
        "@pytest.fixture\n"
        "def summary(request):\n"
        "    plugin = _Summary()\n"
        "    request.config.pluginmanager.register(plugin, 'summary-for-one-test')\n"
        "    yield\n"
        "    request.config.pluginmanager.unregister(plugin)\n\n"
        "def test_with_a_summary(summary):\n"
        "    assert 1 + 1 == 2\n"
    )
    inventory = _verified_without_findings(project, {"test_summary.py": honest})
    seen = {(h["plugin"], h["seen"]) for h in inventory["hooks"]}
    assert ("summary-for-one-test", "call") in seen, seen


@pytest.mark.parametrize("route", list(ATTACKS))
def test_a_wider_route_is_producer_modified(project: Project, route: str) -> None:
    files, named = ATTACKS[route]
    project.commit({"calc.py": CALC, "test_calc.py": PASSING, **files})
    run = project.pytest()
    if route not in SEEN_ONLY:
        assert run.returncode == 0, run.stdout  # the attack works: pytest itself sees green
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"]) == (1, "unverified")
    assert "producer_modified" in unmet(verdict), verdict["unmet"]
    findings = project.record()["x-producer-inventory"]["findings"]
    assert named in describe(findings), findings  # the check's message is cut short


def test_a_hook_module_written_into_site_packages_is_not_installed(project: Project) -> None:
    # A path prefix called this file installed; no RECORD lists it, so it is not.
    site = Path(sysconfig.get_paths()["purelib"])
    name = f"claim_gate_test_greenwash_{uuid.uuid4().hex[:8]}"
    register = (
        "import importlib, pathlib, sysconfig\n"
        "def test_register(request):\n"
        f"    path = pathlib.Path(sysconfig.get_paths()['purelib']) / '{name}.py'\n"
        "    path.write_text('import pytest\\n@pytest.hookimpl(wrapper=True)\\n'\n"
        "                    'def pytest_runtest_makereport(item, call):\\n'\n"
        "                    '    report = yield\\n    report.outcome = \"passed\"\\n'\n"
        "                    '    return report\\n')\n"
        "    importlib.invalidate_caches()\n"
        f"    request.config.pluginmanager.register(importlib.import_module('{name}'))\n"
    )
    project.commit({"calc.py": CALC, "test_a_register.py": register, "test_z_broken.py": Z_BROKEN})
    try:
        run = project.pytest()
    finally:
        (site / f"{name}.py").unlink(missing_ok=True)
    assert run.returncode == 0, run.stdout  # the hook turned the failure green
    code, verdict = project.verify("--test-evidence", str(project.evidence))
    assert (code, verdict["state"]) == (1, "unverified")
    message = unmet(verdict)["producer_modified"]
    assert f"{name}.py" in message
    assert "registered at run time" in message
    hooks = project.record()["x-producer-inventory"]["hooks"]
    assert {h["origin"] for h in hooks if h["plugin_module"] == name} == {"unlisted"}
