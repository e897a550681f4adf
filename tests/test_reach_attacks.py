"""Issue 21 item 1 on the command line: a change whose own code reaches into its test run is
the run's producer, in the documented two-job recipe (a test job in the agent's workspace,
then `claim-gate verify --diff-base origin/main` from a fresh clone with only its artifacts).
Each attack beside its honest control; the control verifies."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.other_ci_support import CALC, claim_text, edits, new_pipeline, outcome

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
#: The code under test ends the session as a success in the middle of a test.
EXITS_EARLY = FLOAT_CALC.replace(
    "def sub(a, b):", "def sub(a, b):\n    import pytest\n    pytest.exit('done', returncode=0)")
#: An exit handler that rewrites the report after pytest wrote it.
REWRITES_AT_EXIT = FLOAT_CALC + (
    "\nimport atexit\n\n\ndef _clean():\n    from pathlib import Path\n"
    "    report = Path('out') / ('jun' + 'it.xml')\n"
    "    if report.exists():\n"
    "        report.write_text(report.read_text().replace('failures=\"1\"', 'failures=\"0\"'))\n"
    "\n\natexit.register(_clean)\n")
#: The runner's report class rebound through an alias from a module the tests import.
REBINDS_REPORT = FLOAT_CALC + (
    "\n\ndef _install():\n    import _pytest.runner as r\n    r.TestReport = r.TestReport\n")
#: The same reach, hidden: the module and attribute names built at run time.
HIDDEN = FLOAT_CALC + (
    "\n\ndef _install():\n    mod = __import__('sy' + 's')\n"
    "    getattr(mod, 'meta' + '_path').insert(0, object())\n")
NEW_TEST_WITH_HOOK = ("from calc import add\n\n\ndef pytest_runtest_makereport(item, call):\n"
                      "    pass\n\n\ndef test_more():\n    assert add(1, 1) == 2\n")


@dataclass(frozen=True)
class Case:
    files: Mapping[str, str | None]
    exit_code: int = 1
    codes: frozenset[str] = frozenset({"producer_modified"})
    named: str = ""  # file:line the reason must name
    policy: str | None = None


CASES: dict[str, Case] = {
    "control: an honest change": Case({"calc.py": FLOAT_CALC}, exit_code=0, codes=frozenset()),
    "pytest.exit(returncode=0) from the code under test": Case(
        {"calc.py": EXITS_EARLY}, named="calc.py:6 pytest.exit (test-machinery)",
        codes=frozenset({"producer_modified", "removed_tests"})),  # test_sub never ran
    "an atexit handler that rewrites the JUnit": Case(
        {"calc.py": REWRITES_AT_EXIT}, named="calc.py:7 atexit (process-exit)"),
    "the runner's TestReport rebound through an alias": Case(
        {"calc.py": REBINDS_REPORT}, named="calc.py:9 _pytest.runner (test-machinery)"),
    "sys.meta_path reached by computed names": Case(
        {"calc.py": HIDDEN}, named="calc.py:10 sys.meta_path.insert (import-system)"),
    "a new test module that implements a pytest hook": Case(
        {"calc.py": FLOAT_CALC, "test_more.py": NEW_TEST_WITH_HOOK},
        named="test_more.py:4 the pytest hook pytest_runtest_makereport() (test-machinery)"),
    "a JavaScript file that ends the process": Case(
        {"calc.py": FLOAT_CALC, "web/setup.js": "process.on('exit', () => {});\n"},
        named="web/setup.js:1"),
    "a committed dist-info with a pytest11 entry point (a chain edit)": Case(
        {"calc.py": FLOAT_CALC,
         "greenwash-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: greenwash\n"
                                             "Version: 1.0\n",
         "greenwash-1.0.dist-info/entry_points.txt": "[pytest11]\ngreenwash = calc\n"},
        named="greenwash-1.0.dist-info/"),
    "a changed Python file the gate cannot parse": Case(
        {"calc.py": FLOAT_CALC, "tools/broken.py": "def f(:\n"},
        codes=frozenset({"change_unread"})),
    "control: the owner allows the exit handler in calc.py": Case(
        # an honest handler: a cache file, not a report (the report's own `failures="`
        # markup is a results-path finding the process-exit allowance does not cover)
        {"calc.py": REWRITES_AT_EXIT.replace("('jun' + 'it.xml')", "'cache.txt'")
         .replace("'failures=\"1\"', 'failures=\"0\"'", "'stale', 'fresh'")},
        policy="id: reach\nevidence_chain:\n  allow_reach:\n"
               "    - {path: calc.py, rule: process-exit}\n",
        exit_code=0, codes=frozenset()),
    "the owner's allowance does not cover another rule": Case(
        {"calc.py": REWRITES_AT_EXIT},
        policy="id: reach\nevidence_chain:\n  allow_reach:\n"
               "    - {path: calc.py, rule: process-exit}\n",
        named="(results-path)"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_change_that_reaches_into_its_run(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    pipeline = new_pipeline(tmp_path)
    pipeline.branch(case.files, claim_text(edits(case.files)))
    pipeline.test_job()
    more: list[str] = []
    if case.policy is not None:
        policy = tmp_path / "policy.yaml"
        policy.write_text(case.policy)
        more += ["--policy", str(policy)]
    result = pipeline.gate_job(*more)
    assert outcome(result) == (case.exit_code, set(case.codes)), result.stdout + result.stderr
    verdict = json.loads(result.stdout)["verdict"]
    assert case.named in verdict["reason"] + json.dumps(verdict["unmet"]), verdict["reason"]
    if case.policy is not None and case.exit_code == 0:  # the allowed place is on the record
        readings = [e["x-change-reach"] for e in json.loads(result.stdout)["evidence"]]
        assert readings
        assert all(r["findings"] == [] and {a["path"] for a in r["allowed"]} == {"calc.py"}
                   for r in readings), readings
