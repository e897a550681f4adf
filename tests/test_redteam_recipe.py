"""Issue 21 "Done when", another round, in the documented two-job recipe (a test job in the
agent's workspace, then `claim-gate verify --diff-base origin/main` in a fresh clone): code the
test run executes that the change reading did not read. A committed unchecked-hash `.pyc` is
imported in place of the source the reading reads (so a broken `sub` passes its test), a
`test*.txt` file is collected by pytest as a doctest by default (its examples run in the
session), and a `coding: utf-7` cookie makes a "comment" code to Python. Each beside its
honest control, which verifies. The base repository and its run are made once for the module
and copied per case: one pytest session a case."""

from __future__ import annotations

import importlib.util
import json
import py_compile
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.other_ci_support import CALC, Pipeline, claim_text, edits, new_pipeline, outcome

FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
BROKEN_SUB = FLOAT_CALC.replace("return a - b", "return a + b")
#: Where Python looks for calc's bytecode: this interpreter's tag, as the test job's is.
PYC = str(Path(importlib.util.cache_from_source("calc.py")))
NOTES_WITH_HOOK = ("The calculator\n==============\n\n>>> import atexit\n"
                   ">>> _ = atexit.register(print)\n")
#: Under the declared UTF-7, `+AAo-` is a newline: the last "comment" is two lines of code.
UTF7_CALC = "# -*- coding: utf-7 -*-\n" + FLOAT_CALC.replace("+", "+-") + (  # "+-" is a "+"
    "#+AAo-import atexit+AAo-atexit.register(print)\n")
HONEST_NOTES = "The calculator\n==============\n\n>>> from calc import add\n>>> add(1, 2)\n3.0\n"


@dataclass(frozen=True)
class Case:
    files: dict[str, str]
    pyc_of: str | None = None  # source compiled into calc's unchecked-hash bytecode
    exit_code: int = 1
    codes: frozenset[str] = field(default_factory=lambda: frozenset({"producer_modified"}))
    named: str = ""  # what the reason must name


CASES: dict[str, Case] = {
    "control: an honest change with an honest doctest text and README": Case(
        {"calc.py": FLOAT_CALC, "test_notes.txt": HONEST_NOTES,
         "README.md": "# calc\n\n```\n" + HONEST_NOTES + "```\n"},
        exit_code=0, codes=frozenset()),
    "a committed unchecked-hash .pyc imported in place of a broken source": Case(
        {"calc.py": BROKEN_SUB}, pyc_of=FLOAT_CALC,
        named=f"{PYC}:0 compiled bytecode: imported in place of (or without) a source"),
    "a 'coding: utf-7' cookie that turns a comment into an exit handler": Case(
        {"calc.py": UTF7_CALC}, named="calc.py:8 atexit (process-exit)"),
    "a doctest text pytest collects by default, with an exit handler": Case(
        {"calc.py": FLOAT_CALC, "test_notes.txt": NOTES_WITH_HOOK},
        named="test_notes.txt:4 atexit (process-exit)"),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The base branch and its own test run, made once: each case works on a copy."""
    root = tmp_path_factory.mktemp("redteam-base")
    new_pipeline(root)
    return root


def _compiled(source: str, into: Path, scratch: Path) -> None:
    """`source` compiled as calc's bytecode that Python takes without checking calc.py."""
    scratch.write_text(source)
    into.parent.mkdir(parents=True, exist_ok=True)
    py_compile.compile(str(scratch), cfile=str(into), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


@pytest.mark.parametrize("name", list(CASES))
def test_code_the_run_executes_unread_is_found(name: str, base: Path, tmp_path: Path) -> None:
    case = CASES[name]
    root = tmp_path / "pipeline"
    shutil.copytree(base, root, symlinks=True)
    pipeline = Pipeline(root)
    changed = list(case.files)
    if case.pyc_of is not None:
        _compiled(case.pyc_of, pipeline.work / PYC, tmp_path / "calc.py")
        changed.append(PYC)
    pipeline.branch(case.files, claim_text(edits(changed)))
    pipeline.test_job()
    junit = (pipeline.artifacts / "junit.xml").read_text()
    assert 'failures="0"' in junit, junit  # the run itself passed: only the reading can tell
    result = pipeline.gate_job()
    assert outcome(result) == (case.exit_code, set(case.codes)), result.stdout + result.stderr
    verdict = json.loads(result.stdout)["verdict"]
    assert case.named in verdict["reason"] + json.dumps(verdict["unmet"]), verdict["reason"]
