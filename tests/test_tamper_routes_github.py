"""Issue 21 "Done when", the GitHub face: each route through the stand-in, with the JUnit
artifact of a real pytest run that executed the change's code (the plugin's own properties in
it), attack beside its honest control. Two real sessions, made once for the module: an honest
run, and a run whose test module patches pytest's CallInfo so that a failing test reports as
passed (the plugin sees the patch and says so in the JUnit). The Action reads the PR's files at
the head SHA (the contents API) and that artifact; nothing else of the test job reaches it
(no record, no `--evidence`), so the record-only routes (an empty list of watched internals,
records handed on) have no GitHub cell: see docs/tamper-routes.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, add_baseline, claim_json, edit, scenario
from tests.github_standin.hub import Hub
from tests.tampering_support import CALC, FAILING, PASSING, new_project
from tests.test_attacks import _run
from tests.test_producer_tampering import PATCH_IN_TEST
from tests.test_watch_wider import (
    CHECKS,
    CODE_PUT_BACK,
    FIXTURE_PATCH,
    FIXTURE_PLUGIN,
    REWRITE_AROUND_IMPORT,
    TRACE_JUMP,
    VALIDATE,
)

AT = T0 - timedelta(minutes=3)


@dataclass(frozen=True)
class Reports:
    honest: str  # the JUnit of a run of the honest change
    patched: str  # the JUnit of a run that patched pytest: its failing test "passed"
    honest_xdist: str  # the same two under pytest-xdist (`-n 1`): the patch is in a worker
    patched_xdist: str


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Reports:
    texts = []
    for options in ((), ("-n", "1")):  # one worker: the patching test runs before the other
        for files in ({"calc.py": CALC, "test_calc.py": PASSING},
                      {"calc.py": CALC, "test_calc.py": PASSING, "test_broken.py": FAILING,
                       "test_aaa_patch.py": PATCH_IN_TEST}):
            project = new_project(tmp_path_factory.mktemp("run"))
            project.commit(files)
            run = project.pytest(*options)
            assert run.returncode == 0, run.stdout  # the patched run is green to pytest too
            texts.append(project.junit.read_text())
    for honest, patched in (texts[0:2], texts[2:4]):
        assert 'name="claim-gate.producer_modified" value="true"' in patched
        assert 'name="claim-gate.producer_modified" value="false"' in honest
    return Reports(*texts)


def _pr(hub: Hub, tmp_path: Path, files: dict[str, str], junit: str,
        **inputs: str) -> tuple[str, str, str]:
    """The PR changes `files` (each claimed); its CI run's artifact is `junit`, re-bound to
    the PR's head commit; the base's run of the same tests is the honest report."""
    paths = dict.fromkeys(["app/parser.py", *files])  # the scenario edits app/parser.py too
    claim = claim_json([edit(f"m{i}", AT, path) for i, path in enumerate(paths, 1)])
    s = scenario(hub, claim, files=files, baseline=())
    add_baseline(hub, s.repo, xml=_bound(junit, s.repo.branches["main"]))
    s.add_run(_bound(junit, s.head.sha))
    seen = _run(s, tmp_path, **inputs)
    conclusion = seen.conclusion or ""
    problems = "" if seen.record is None else " ".join(
        str((e["x-claim-gate"].get("problem") or {}).get("code")) for e in seen.record["evidence"])
    return conclusion, seen.words, problems


def _bound(junit: str, sha: str) -> str:
    """The run's report as the stand-in's CI job would have written it on `sha`."""
    return re.sub(r'(name="claim-gate.commit" value=")[^"]*', rf"\g<1>{sha}", junit)


PATCH = {"test_aaa_patch.py": PATCH_IN_TEST}
ALLOW_PATCH = ("id: owners\nevidence_chain:\n  allow_reach:\n"
               "    - {path: test_aaa_patch.py, rule: test-machinery}\n")


def test_control_the_honest_runs_report_succeeds(reports: Reports, github_hub: Hub,
                                                 tmp_path: Path) -> None:
    conclusion, words, _ = _pr(github_hub, tmp_path, {"app/parser.py": "x = 2\n"}, reports.honest)
    assert conclusion == "success", words


#: The same two runs in one process and under pytest-xdist (`-n 1`: the patch is in the worker
#: that ran the tests, and the controller wrote the report with what that worker sent it).
MODES = {"in one process": ("patched", "honest", "claim-gate.producer_modified"),
         "under xdist": ("patched_xdist", "honest_xdist", "xdist worker gw")}


@pytest.mark.parametrize("mode", list(MODES))
def test_one_run_one_verdict_the_report_of_a_patched_run_does_not_count(
        reports: Reports, github_hub: Hub, tmp_path: Path, mode: str) -> None:
    """The owner allows the patching module's reach, so only the report's own word stands
    between the green JUnit and the check: the plugin said its run was modified."""
    patched, _, said = MODES[mode]
    conclusion, words, problems = _pr(github_hub, tmp_path, PATCH, getattr(reports, patched),
                                      policy=ALLOW_PATCH)
    assert conclusion == "action_required", words
    assert said in words
    assert problems == "producer_modified"


@pytest.mark.parametrize("mode", list(MODES))
def test_control_the_allowed_module_beside_an_honest_report_succeeds(
        reports: Reports, github_hub: Hub, tmp_path: Path, mode: str) -> None:
    _, honest, _ = MODES[mode]
    conclusion, words, _ = _pr(github_hub, tmp_path, PATCH, getattr(reports, honest),
                               policy=ALLOW_PATCH)
    assert conclusion == "success", words


#: A module rewritten around its import. The reading names the write (a Python file by its
#: path); an owner who allows that one file for that rule leaves it to the run's report.
AROUND_IMPORT = {"calc.py": CALC + REWRITE_AROUND_IMPORT, "validate.py": VALIDATE,
                 "test_check.py": CHECKS}
ALLOW_REWRITE = ("id: owners\nevidence_chain:\n  allow_reach:\n"
                 "    - {path: calc.py, rule: source-rewrite}\n")


@pytest.fixture(scope="module")
def rewritten_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    project = new_project(tmp_path_factory.mktemp("run"))
    project.commit(AROUND_IMPORT)
    run = project.pytest()
    assert run.returncode == 0, run.stdout  # validate.check(4) raised nothing
    text = project.junit.read_text()
    assert 'name="claim-gate.producer_modified" value="true"' in text
    return text


def test_a_module_rewritten_around_its_import_is_named_by_the_reading(
        reports: Reports, github_hub: Hub, tmp_path: Path) -> None:
    """Even beside an honest report: the change can rewrite what its run imports."""
    conclusion, words, problems = _pr(github_hub, tmp_path, AROUND_IMPORT, reports.honest)
    assert conclusion == "action_required", words
    assert "calc.py:6 writes the Python file 'validate.py' (source-rewrite)" in words
    assert problems == "producer_modified"


def test_a_module_rewritten_around_its_import_makes_the_runs_report_not_count(
        rewritten_report: str, github_hub: Hub, tmp_path: Path) -> None:
    conclusion, words, problems = _pr(github_hub, tmp_path, AROUND_IMPORT, rewritten_report,
                                      policy=ALLOW_REWRITE)
    assert conclusion == "action_required", words
    assert "a committed Python file written" in words
    assert ("2 of them allowed by the owner's evidence_chain.allow_reach: calc.py:6 writes the"
            " Python file 'validate.py' (source-rewrite)") in words  # shown, and the report decides
    assert problems == "producer_modified"


def test_control_the_same_files_allowed_with_an_honest_report_succeed(
        reports: Reports, github_hub: Hub, tmp_path: Path) -> None:
    conclusion, words, _ = _pr(github_hub, tmp_path, AROUND_IMPORT, reports.honest,
                               policy=ALLOW_REWRITE)
    assert conclusion == "success", words


GREEN_INIT = ("import _pytest.reports as _r\n_init = _r.TestReport.__init__\n"
              "def _green(self, *a, **k):\n    _init(self, *a, **k)\n    self.outcome = 'passed'\n"
              "_r.TestReport.__init__ = _green\n")
META_PATH = "import sys\nfrom app import rewriter\nsys.meta_path.insert(0, rewriter.Finder())\n"
ON_DISK = ("from pathlib import Path\n_T = Path('tests') / 'test_app.py'\nSAVED = _T.read_text()\n"
           "_T.write_text(SAVED.replace('assert', 'assert True or'))\n")
SITE = ("import sysconfig\nfrom pathlib import Path\n"
        "(Path(sysconfig.get_paths()['purelib']) / 'zz_hook.py').write_text(HOOK)\n")

#: route -> (the PR's files, what the check must name)
ROUTES: dict[str, tuple[dict[str, str], str]] = {
    "in-process: the runner's TestReport through importlib.import_module": (
        {"app/parser.py": "import importlib\nr = importlib.import_module('_pytest.runner')\n"
                          "r.TestReport = object\n"},
        "app/parser.py:3 _pytest.runner.TestReport (test-machinery)"),
    "in-process: a method of a watched class replaced": (
        {"app/parser.py": GREEN_INIT}, "app/parser.py:1 _pytest.reports (test-machinery)"),
    "in-process: a source-rewriting import hook from tests/__init__.py": (
        {"tests/__init__.py": META_PATH}, "tests/__init__.py:3 sys.meta_path"),
    "in-process: a test module rewritten on disk by its path": (
        {"app/parser.py": ON_DISK},
        "app/parser.py:4 writes the test module 'test_app.py' (source-rewrite)"),
    "in-process: a module of the package rewritten by its path": (
        {"app/parser.py": "from pathlib import Path\n\ndef parse(text):\n"
                          "    Path('app/rules.py').write_text(text)\n"},
        "app/parser.py:4 writes the Python file 'app/rules.py' (source-rewrite)"),
    "in-process: a module rewritten through a helper another file of the PR defines": (
        {"app/util.py": "def put(path, text):\n    with open(path, 'w') as f:\n"
                        "        f.write(text)\n",
         "tests/test_rules.py": "from app.util import put\n\ndef test_rules():\n"
                                "    put('app/rules.py', 'LIMIT = 0')\n"},
        "tests/test_rules.py:4 hands the Python file 'app/rules.py' to app.util.put(), which"
        " writes it (source-rewrite)"),
    "in-process: a module rewritten by a command, then put back by git": (
        {"app/parser.py": "import subprocess\n\ndef parse(text):\n"
                          "    subprocess.run('sed -i s/raise/pass/ app/rules.py', shell=True)\n"
                          "    subprocess.run(['git', 'checkout', '--', 'app/rules.py'])\n"},
        "app/parser.py:4 a command that writes the Python file 'app/rules.py' (source-rewrite)"),
    "in-process: the gate's own audit listener taken out of its list": (
        {"tests/test_quiet.py": "from gate.evidence import audit_events\n\n"
                                "def test_quiet():\n    audit_events._listeners.clear()\n"},
        "tests/test_quiet.py:1 gate.evidence (test-machinery)"),
    "in-process (Jest, Vitest): a module rewritten by its path from a test file": (
        {"test/parser.test.js": "const fs = require('fs');\n"
                                "fs.writeFileSync('src/rules.js', 'module.exports = {}');\n"},
        "test/parser.test.js:2 writes 'src/rules.js' (fs.writeFileSync) (source-rewrite)"),
    "in-process: a hook module written into site-packages": (
        {"app/parser.py": SITE}, "(site-packages)"),
    "before the plugin: a committed dist-info with a pytest11 entry point": (
        {"greenwash-1.0.dist-info/entry_points.txt": "[pytest11]\ngreenwash = app.parser\n"},
        "greenwash-1.0.dist-info/"),
    "before the plugin: a sitecustomize.py run at interpreter start-up": (
        {"src/sitecustomize.py": "import app.parser  # noqa: F401\n"},
        "src/sitecustomize.py"),
    "before the plugin: a pytest/ package that shadows pytest": (
        {"pytest/__init__.py": "from _pytest.config import main\n"},
        "pytest/__init__.py"),
    "early end: pytest.exit(returncode=0) from the code under test": (
        {"app/parser.py": "import pytest\n\ndef parse(text):\n    pytest.exit('', returncode=0)\n"},
        "app/parser.py:4 pytest.exit (test-machinery)"),
    "early end: os.kill(os.getpid(), SIGTERM) at the end of a test": (
        {"tests/test_end.py": "import os, signal\n\ndef test_zz_last():\n"
                              "    os.kill(os.getpid(), signal.SIGTERM)\n"},
        "tests/test_end.py:4 os.kill (process-exit)"),
    "in-process: a watched class patched by a fixture for one test, undone at teardown": (
        {"tests/test_green.py": FIXTURE_PATCH}, "tests/test_green.py:2 _pytest.reports"),
    "in-process: a plugin registered by a fixture for one test, unregistered at teardown": (
        {"tests/test_green.py": FIXTURE_PLUGIN},
        "tests/test_green.py:5 the pytest hook pytest_runtest_makereport()"),
    "builtins: __builtins__ written from the code under test": (
        {"app/parser.py": "__builtins__['print'] = len\n"}, "app/parser.py:1 __builtins__"),
    "in-process: a trace function that jumps over assertions, removed by itself": (
        {"app/parser.py": TRACE_JUMP}, "app/parser.py:11 sys.settrace"),
    "in-process: pytest's function given other code for one call, put back as it runs": (
        {"app/parser.py": CODE_PUT_BACK}, "app/parser.py:7 a function's __code__ replaced"),
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_a_route_in_the_prs_code_makes_its_run_producer_modified(
        route: str, reports: Reports, github_hub: Hub, tmp_path: Path) -> None:
    files, named = ROUTES[route]
    conclusion, words, problems = _pr(github_hub, tmp_path, files, reports.honest)
    assert conclusion == "action_required", words
    assert problems == "producer_modified"
    assert named in words.replace("\\", ""), words


def test_control_ordinary_code_and_tests_in_the_pr_succeed(reports: Reports, github_hub: Hub,
                                                           tmp_path: Path) -> None:
    """The same kinds of file, written the ordinary way: a test module read (not written), a
    data file written, Python and JavaScript modules written into a test's temporary folder,
    the standard library patched through the fixture."""
    files = {"app/parser.py": "from pathlib import Path\nTEXT = Path('tests/test_app.py')"
                              ".read_text()\nPath('out/data.txt').write_text(TEXT)\n",
             "tests/__init__.py": "",
             "tests/test_build.py": "def test_builds(tmp_path):\n"
                                    "    (tmp_path / 'pkg' / 'setup.py').write_text('x = 1')\n",
             "test/build.test.js": "fs.writeFileSync(path.join(os.tmpdir(), 'case', 'a.js'), s);\n",
             "tests/test_end.py": "def test_zz_last(monkeypatch):\n"
                                  "    monkeypatch.setattr('os.getpid', lambda: 1)\n"}
    conclusion, words, problems = _pr(github_hub, tmp_path, files, reports.honest)
    assert conclusion == "success", words
    assert problems == "None"
