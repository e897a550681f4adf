"""JUnit reports written by the real tools, for the reader's dialect tests (issue 26).

No third-party report is committed: each fixture runs a tool from the registries on a small
suite written here (or in tests/node-junit/specs/) and hands back the file it wrote with the
figures the tool itself printed, which the tests compare with the reader's. pytest,
pytest-rerunfailures and unittest-xml-reporting come with the `test` extra; jest, jest-junit,
mocha and mocha-junit-reporter are installed from tests/node-junit/package-lock.json by
`npm ci` into a cache outside the repository, and their tests skip, saying why, where node
or npm cannot be had (an offline machine).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

NODE_PROJECT = Path(__file__).resolve().parent / "node-junit"
#: npm gives up quickly where the registry cannot be reached, and the whole install is bounded.
NPM_CI = ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--fetch-retries=1",
          "--fetch-retry-mintimeout=2000", "--fetch-retry-maxtimeout=5000",
          "--fetch-timeout=20000"]
NPM_TIMEOUT_S = 420
TOOL_TIMEOUT_S = 180

PYTEST_SAMPLE = '''\
import os
from pathlib import Path

import pytest


def test_passes():
    assert True


def test_fails():
    assert 1 == 2, "one is not two"


@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")


def test_errors_in_fixture(broken):
    pass


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known")
def test_known_bug():
    assert False


@pytest.mark.parametrize("n", [1, 2])
def test_param(n):
    assert n


def test_flaky():
    mark = Path(os.environ["SAMPLE_FLAKY_MARK"])
    if not mark.exists():
        mark.write_text("failed once")
        assert False, "first try fails"
'''

UNITTEST_SAMPLE = '''\
import unittest


class Cart(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(1, 1)

    def test_totals(self):
        self.assertEqual(2, 3, "two is not three")

    def test_breaks(self):
        raise RuntimeError("boom")

    @unittest.skip("not today")
    def test_later(self):
        pass

    @unittest.expectedFailure
    def test_known(self):
        self.assertEqual(1, 2)

    def test_sub(self):
        for n in (1, 2):
            with self.subTest(n=n):
                self.assertEqual(n, 1)
'''


@dataclass(frozen=True)
class ToolReport:
    """A report a tool wrote, and the figures the tool printed about the same run."""

    tool: str
    path: Path
    said: Mapping[str, int]


def _environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The caller's environment without what would steer an inner pytest (CI sets
    PYTEST_ADDOPTS=--junitxml=...), plus `extra`."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "JEST_JUNIT_OUTPUT_DIR")}
    env.update(extra or {})
    return env


def _run(command: list[str], folder: Path, extra: Mapping[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=folder, env=_environment(extra), capture_output=True,
                          text=True, timeout=TOOL_TIMEOUT_S, check=False)
    return done.stdout + done.stderr


def _wrote(report: Path, summarised: bool, output: str) -> None:
    """The tool wrote its report and printed its summary, or the test fails with its output."""
    if not report.is_file() or not summarised:
        raise AssertionError(f"the tool wrote no report or no summary ({report}):\n{output}")


def run_pytest(folder: Path, family: str, reruns: int = 0) -> ToolReport:
    """`pytest --junitxml` with `junit_family` (xunit1 or xunit2), optionally under
    pytest-rerunfailures' `--reruns`; `said` is pytest's own closing line."""
    folder.mkdir(parents=True)
    (folder / "pytest.ini").write_text(f"[pytest]\njunit_family = {family}\n")
    (folder / "test_sample.py").write_text(PYTEST_SAMPLE)
    report = folder / "report.xml"
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
               "no:xdist", f"--junitxml={report}", "test_sample.py"]
    if reruns:
        command.append(f"--reruns={reruns}")
    output = _run(command, folder, {"SAMPLE_FLAKY_MARK": str(folder / "flaky.mark")})
    closing = [line for line in output.splitlines() if re.search(r" in [\d.]+s", line)]
    _wrote(report, bool(closing), output)
    said = {name: int(number) for number, name in re.findall(
        r"(\d+) (failed|passed|skipped|xfailed|xpassed|errors?|rerun)", closing[-1])}
    return ToolReport(f"pytest {family}" + (" --reruns" if reruns else ""), report, said)


def xmlrunner_report(folder: Path) -> ToolReport:
    """unittest-xml-reporting (`python -m xmlrunner`); `said` is unittest's own summary."""
    folder.mkdir(parents=True)
    (folder / "sample_unit.py").write_text(UNITTEST_SAMPLE)
    report = folder / "report.xml"
    output = _run([sys.executable, "-m", "xmlrunner", "--output-file", str(report),
                   "sample_unit"], folder)
    ran = re.findall(r"^Ran (\d+) tests?", output, re.MULTILINE)
    _wrote(report, len(ran) == 1, output)
    said = {"ran": int(ran[0])} | {
        name.replace(" ", "_"): int(number)
        for name, number in re.findall(r"(failures|errors|skipped|expected failures)=(\d+)",
                                       output)
    }
    return ToolReport("unittest-xml-reporting", report, said)


# -- node -------------------------------------------------------------------------------
def _cache_home() -> Path:
    named = os.environ.get("CLAIM_GATE_NODE_CACHE")
    if named:
        return Path(named)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "claim-gate"


def install_node_tools() -> Path | str:
    """node_modules for tests/node-junit's lock file, installed once per lock into the
    cache (`npm ci`, under a lock shared by xdist workers); or why it cannot be had."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            return f"{tool} is not on PATH; the JavaScript reporters' tests need node and npm"
    manifest = (NODE_PROJECT / "package.json").read_bytes()
    lock = (NODE_PROJECT / "package-lock.json").read_bytes()
    target = _cache_home() / f"node-junit-{hashlib.sha256(manifest + lock).hexdigest()[:16]}"
    target.mkdir(parents=True, exist_ok=True)
    with (target.parent / "node-junit.lock").open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if (target / "installed").is_file():
            return target / "node_modules"
        (target / "package.json").write_bytes(manifest)
        (target / "package-lock.json").write_bytes(lock)
        try:
            done = subprocess.run(NPM_CI, cwd=target, env=_environment(), capture_output=True,
                                  text=True, timeout=NPM_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            return f"npm ci did not finish in {NPM_TIMEOUT_S} s (no registry reachable?)"
        if done.returncode != 0:
            tail = " ".join((done.stderr or done.stdout).split()[-40:])
            return f"npm ci failed (exit {done.returncode}) in {target}: {tail}"
        (target / "installed").write_text("npm ci done\n")
    return target / "node_modules"


def _node_folder(folder: Path, modules: Path) -> Path:
    shutil.copytree(NODE_PROJECT / "specs", folder)
    (folder / "node_modules").symlink_to(modules, target_is_directory=True)
    return folder


def jest_report(folder: Path, modules: Path) -> ToolReport:
    """jest with jest-junit; `said` is jest's own `--json` result."""
    _node_folder(folder, modules)
    report, summary = folder / "jest.xml", folder / "jest.json"
    output = _run(["node", str(modules / "jest" / "bin" / "jest.js"), "--ci", "--config",
                   "jest.config.json", "--json", f"--outputFile={summary}"],
                  folder, {"JEST_JUNIT_OUTPUT_DIR": str(folder),
                           "JEST_JUNIT_OUTPUT_NAME": report.name})
    _wrote(report, summary.is_file(), output)
    said = {k: v for k, v in json.loads(summary.read_text()).items()
            if k.startswith("num") and isinstance(v, int)}
    return ToolReport("jest-junit", report, said)


def mocha_report(folder: Path, modules: Path) -> ToolReport:
    """mocha with mocha-junit-reporter; `said` is the same run under mocha's JSON reporter."""
    _node_folder(folder, modules)
    mocha = str(modules / "mocha" / "bin" / "mocha.js")
    report = folder / "mocha.xml"
    output = _run(["node", mocha, "--reporter", "mocha-junit-reporter", "--reporter-option",
                   f"mochaFile={report}", "api.spec.js"], folder)
    _wrote(report, True, output)
    stats = _run(["node", mocha, "--reporter", "json", "api.spec.js"], folder)
    said = json.loads(stats[stats.index("{"):stats.rindex("}") + 1])["stats"]
    return ToolReport("mocha-junit-reporter", report,
                      {k: v for k, v in said.items() if isinstance(v, int)})


def node_test_report(folder: Path) -> ToolReport:
    """node's own runner, `--test-reporter=junit`; `said` is its TAP summary of the run."""
    shutil.copytree(NODE_PROJECT / "specs", folder)
    report = folder / "node.xml"
    output = _run(["node", "--test", "--test-reporter=junit",
                   f"--test-reporter-destination={report}", "--test-reporter=tap",
                   "--test-reporter-destination=stdout", "parser.test.mjs"], folder)
    _wrote(report, True, output)
    said = re.findall(r"^# (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$", output,
                      re.MULTILINE)
    return ToolReport("node --test", report, {name: int(number) for name, number in said})


# -- fixtures (a plugin of tests/conftest.py) -----------------------------------------------
@pytest.fixture(scope="session")
def xunit1_report(tmp_path_factory: pytest.TempPathFactory) -> ToolReport:
    return run_pytest(tmp_path_factory.mktemp("tools") / "xunit1", "xunit1")


@pytest.fixture(scope="session")
def xunit2_report(tmp_path_factory: pytest.TempPathFactory) -> ToolReport:
    return run_pytest(tmp_path_factory.mktemp("tools") / "xunit2", "xunit2")


@pytest.fixture(scope="session")
def reruns_report(tmp_path_factory: pytest.TempPathFactory) -> ToolReport:
    return run_pytest(tmp_path_factory.mktemp("tools") / "reruns", "xunit2", reruns=2)


@pytest.fixture(scope="session")
def xmlrunner(tmp_path_factory: pytest.TempPathFactory) -> ToolReport:
    return xmlrunner_report(tmp_path_factory.mktemp("tools") / "xmlrunner")


@pytest.fixture(scope="session")
def node_modules() -> Path:
    found = install_node_tools()
    if isinstance(found, str):
        pytest.skip(found)
    return found


@pytest.fixture(scope="session")
def jest_junit(tmp_path_factory: pytest.TempPathFactory, node_modules: Path) -> ToolReport:
    return jest_report(tmp_path_factory.mktemp("tools") / "jest", node_modules)


@pytest.fixture(scope="session")
def mocha_junit(tmp_path_factory: pytest.TempPathFactory, node_modules: Path) -> ToolReport:
    return mocha_report(tmp_path_factory.mktemp("tools") / "mocha", node_modules)


@pytest.fixture(scope="session")
def node_junit(tmp_path_factory: pytest.TempPathFactory) -> ToolReport:
    if shutil.which("node") is None:
        pytest.skip("node is not on PATH; its --test-reporter=junit cannot be run")
    return node_test_report(tmp_path_factory.mktemp("tools") / "node")
