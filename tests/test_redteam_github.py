"""Issue 21 "Done when", another round, on GitHub: the PR's files read at the head SHA through
the stand-in's contents API, and the JUnit artifact of a run that executed the PR's code.
Spellings the reading let through before (tests/test_redteam_reach.py has the reading alone),
each beside an honest control with the same kinds of files, which gets `success`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.action_support import T0, claim_json, edit, junit_xml, scenario
from tests.github_standin.hub import Hub
from tests.test_attacks import _run

AT = T0 - timedelta(minutes=3)


def _claim(*paths: str) -> str:
    return claim_json([edit(at=AT), *(edit(f"m{n}", AT, p) for n, p in enumerate(paths, 2))])


ATTACKS: dict[str, tuple[dict[str, str], str]] = {
    # name: (the PR's files besides app/parser.py and the claim, what the check must name)
    "bytecode committed beside the source": (
        {"app/__pycache__/parser.cpython-312.pyc": "(bytes)"},
        "app/__pycache__/parser.cpython-312.pyc:0 compiled bytecode"),
    "a doctest text pytest collects by default": (
        {"tests/test_notes.txt": "Notes\n\n>>> import _pytest.runner as r\n"
                                 ">>> r.TestReport = object\n"},
        "tests/test_notes.txt:3 _pytest.runner (test-machinery)"),
    "a star import whose names reach in": (
        {"app/tools.py": "from os import *\n\n\ndef stop():\n    _exit(0)\n"},
        "app/tools.py:1 from os import *"),
    "the package manager's run-time settings": (
        {".npmrc": "node-options=--require ./web/hook.txt\n"}, ".npmrc:0 .npmrc"),
    "a report rewritten under a name without 'junit'": (
        {"app/tools.py": "from pathlib import Path\n\nPath('reports/results.xml')"
                         ".write_text('<testsuite failures=\"0\"/>')\n"},
        "app/tools.py:3 writes the report 'reports/results.xml' (results-path)"),
    "a 'coding: utf-7' cookie that turns a comment into code": (
        {"app/tools.py": "# -*- coding: utf-7 -*-\nx = 1\n#+AAo-import atexit\n"},
        "app/tools.py:4 atexit (process-exit)"),
    "the runner's module named in rot13": (
        {"app/tools.py": "import codecs, importlib\n\n"
                         "r = importlib.import_module(codecs.decode('_clgrfg.ehaare', 'rot13'))\n"},
        "app/tools.py:3 _pytest.runner (test-machinery)"),
    "process aliased in JavaScript, then ended": (
        {"web/setup.js": "const p = process;\np.exit(0);\n"}, "web/setup.js:1"),
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_a_pr_with_another_spelling_is_producer_modified(name: str, github_hub: Hub,
                                                         tmp_path: Path) -> None:
    files, named = ATTACKS[name]
    s = scenario(github_hub, _claim(*files), files=files)
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "action_required", seen.words
    assert "producer_modified" in seen.words
    assert named in seen.words, seen.words


def test_control_the_same_kinds_of_files_written_honestly_succeed(github_hub: Hub,
                                                                  tmp_path: Path) -> None:
    """A doctest text and a README with honest examples, a frozen dataclass's
    `object.__setattr__`, a `git` subprocess, an XML fixture read, JavaScript that reads
    `process.env`: read, and nothing in them reaches into the run."""
    files = {
        "tests/test_notes.txt": "Notes\n\n>>> from app.parser import x\n>>> x\n2\n",
        "README.md": "# app\n\n```\n>>> 1 + 1\n2\n```\n",
        "app/tools.py": (
            "import subprocess\nfrom dataclasses import dataclass\nfrom pathlib import Path\n\n"
            "@dataclass(frozen=True)\nclass P:\n    x: int\n\n    def __post_init__(self):\n"
            "        object.__setattr__(self, 'x', abs(self.x))\n\n\ndef head():\n"
            "    return subprocess.run(['git', 'rev-parse', 'HEAD'], check=True)\n\n\n"
            "FIXTURE = Path('tests/data/report.xml').read_text()\n"),
        "web/setup.js": "const { env } = process;\nexport const debug = env.DEBUG;\n",
    }
    s = scenario(github_hub, _claim(*files), files=files)
    s.add_run(junit_xml(passed=5))
    seen = _run(s, tmp_path)
    assert seen.conclusion == "success", seen.words
    assert seen.record is not None
    [evidence] = seen.record["evidence"]
    assert evidence["x-change-reach"]["findings"] == []
    assert evidence["x-change-reach"]["files_read"] == 5  # app/parser.py and the four above
