"""Issue 21 "Done when": other spellings of the same moves, not only the ones the issue lists.
First the change reading alone (text in, findings out; no session), one or more new spellings
per route class beside ordinary code that must stay clean; then a few of them end to end in
the documented two-job recipe (a test job in the agent's workspace, the gate in a fresh
clone), each attack beside its honest control. The recipe's base repository and its base run
are made once for the module and copied per case, so each case costs one pytest session."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.claim.test_job import INVENTORY_FIELD
from gate.claim.watched_internals import WATCHED_NAMESPACES
from gate.evidence.producer_inventory import seal
from gate.evidence.reach_python import read_python
from tests.gitrepo import git
from tests.other_ci_support import CALC, Pipeline, claim_text, edits, new_pipeline, outcome

#: route class -> spelling -> (source, rule, line): each must be found under that rule there.
SPELLINGS: dict[str, tuple[str, str, int]] = {
    "runner name: importlib.import_module(...).TestReport =": (
        "import importlib\nimportlib.import_module('_pytest.runner').TestReport = X\n",
        "test-machinery", 2),
    "runner name: setattr(sys.modules[...], ...)": (
        "import sys\nsetattr(sys.modules['_pytest.runner'], 'TestReport', X)\n",
        "test-machinery", 2),
    "runner name: sys.modules.get(...).TestReport =": (
        "import sys\nsys.modules.get('_pytest.runner').TestReport = X\n", "test-machinery", 2),
    "runner name: __import__ with fromlist, then written": (
        "r = __import__('_pytest.runner', fromlist=['x'])\nr.TestReport = X\n",
        "test-machinery", 1),
    "watched method: pytest.Function.runtest replaced": (
        "import pytest\npytest.Function.runtest = lambda self: None\n", "test-machinery", 2),
    "watched method: unittest.result.TestResult through from-import": (
        "from unittest import result\nresult.TestResult.addFailure = f\n", "test-machinery", 1),
    "import hook: meta_path by a name decoded from bytes": (
        "import sys\ngetattr(sys, b'meta_path'.decode()).insert(0, F)\n", "import-system", 2),
    "import hook: a module taken out of sys.modules to be imported again": (
        "import sys\ndel sys.modules['_pytest.runner']\n", "import-system", 2),
    "import hook: sys.modules.update": (
        "import sys\nsys.modules.update({'_pytest.runner': m})\n", "import-system", 2),
    "test file rewritten: a literal path": (
        "from pathlib import Path\nPath('tests/test_calc.py').write_text(x)\n",
        "source-rewrite", 2),
    "test file rewritten: put back with os.replace": (
        "import os\nos.replace('tests/test_x.py.bak', 'tests/test_x.py')\n", "source-rewrite", 2),
    "test file rewritten: shutil.copy over it": (
        "import shutil\nshutil.copy('saved', 'tests/test_calc.py')\n", "source-rewrite", 2),
    "test file rewritten: Path / name": (
        "from pathlib import Path\n(Path('tests') / 'test_calc.py').write_text('')\n",
        "source-rewrite", 2),
    "test file rewritten: a name bound to the path": (
        "p = 'test_calc.py'\nopen(p, 'w').write('')\n", "source-rewrite", 2),
    "test file rewritten: a conftest appended to": (
        "open('pkg/conftest.py', 'a').write(hook)\n", "source-rewrite", 1),
    # Any file of Python code, not only a test module: one the run imports can be rewritten
    # around its import and put back, and a new one written and imported was never committed.
    "code rewritten: a module of the package by its literal path": (
        "from pathlib import Path\nPath('src/app/core.py').write_text(x)\n", "source-rewrite", 2),
    "code rewritten: a version module written while the tests run": (
        "open('pkg/_version.py', 'w').write(v)\n", "source-rewrite", 1),
    "code rewritten: a module's cached bytecode": (
        "open('src/app/__pycache__/core.cpython-311.pyc', 'wb').write(b)\n", "source-rewrite", 1),
    "code rewritten: put back with Path.replace": (
        "from pathlib import Path\nPath('core.bak').replace('src/app/core.py')\n",
        "source-rewrite", 2),
    "code rewritten: a path made by the module's own function": (
        "def where(name):\n    return name\n\np = where('src/app/core.py')\np.write_text(x)\n",
        "source-rewrite", 5),
    "code rewritten: tmp_path with a part that climbs out": (
        "def test_x(tmp_path):\n    (tmp_path / '../../src/app/core.py').write_text(x)\n",
        "source-rewrite", 2),
    "code rewritten: tmp_path with an absolute part": (
        "def test_x(tmp_path):\n    (tmp_path / '/work/src/app/core.py').write_text(x)\n",
        "source-rewrite", 2),
    "code rewritten: a helper named tmp_path that the module calls itself": (
        "from pathlib import Path\n\ndef put(tmp_path):\n    (tmp_path / 'core.py').write_text(x)\n"
        "\nput(Path('src/app'))\n", "source-rewrite", 4),
    "code rewritten: a tmp_path fixture the module defines itself": (
        "import pytest\nfrom pathlib import Path\n\n@pytest.fixture\ndef tmp_path():\n"
        "    return Path('src/app')\n\ndef test_x(tmp_path):\n"
        "    (tmp_path / 'core.py').write_text(x)\n", "source-rewrite", 9),
    "code rewritten: tmp_path rebound inside the test": (
        "from pathlib import Path\n\ndef test_x(tmp_path):\n    tmp_path = Path('src/app')\n"
        "    (tmp_path / 'core.py').write_text(x)\n", "source-rewrite", 5),
    "code rewritten: a lambda's parameter named tmp_path": (
        "put = lambda tmp_path: (tmp_path / 'core.py').write_text(x)\n", "source-rewrite", 1),
    "code rewritten: a path method named by getattr": (
        "from pathlib import Path\ngetattr(Path('src/app/core.py'), 'write_text')(x)\n",
        "source-rewrite", 2),
    "code rewritten: Path.write_text bound to a name": (
        "from pathlib import Path\nwrite = Path.write_text\nwrite(Path('src/app/core.py'), x)\n",
        "source-rewrite", 3),
    "code rewritten: io.FileIO opened for writing": (
        "import io\nio.FileIO('src/app/core.py', 'w').write(b)\n", "source-rewrite", 2),
    "code rewritten: a new module made in the package by tempfile": (
        "import tempfile\ntempfile.NamedTemporaryFile(dir='src/app', suffix='.py', delete=False)\n",
        "source-rewrite", 2),
    "code rewritten: through a helper the module defines": (
        "def put(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n\n"
        "put('src/app/core.py', x)\n", "source-rewrite", 5),
    "code rewritten: a helper that joins the folder and the name it is handed": (
        "import os\n\ndef put(folder, name):\n    open(os.path.join(folder, name), 'w')\n\n"
        "put('src/app', 'core.py')\n", "source-rewrite", 6),
    "code rewritten: through a helper of a helper": (
        "def put(path):\n    open(path, 'w').write('')\n\ndef rewrite(target):\n    put(target)\n\n"
        "rewrite('src/app/core.py')\n", "source-rewrite", 7),
    "code rewritten: cp onto a module by subprocess": (
        "import subprocess\nsubprocess.run(['cp', 'saved', 'src/app/core.py'])\n",
        "source-rewrite", 2),
    "code rewritten: sed -i through os.system": (
        "import os\nos.system('sed -i s/raise/pass/ src/app/core.py')\n", "source-rewrite", 2),
    "code rewritten: git checkout puts a module back": (
        "import subprocess\nsubprocess.run('git checkout -- src/app/core.py', shell=True)\n",
        "source-rewrite", 2),
    "code rewritten: a shell redirection onto a module": (
        "import os\nos.system('cat evil >> src/app/core.py')\n", "source-rewrite", 2),
    "code rewritten: py_compile with another module's cfile": (
        "import py_compile\npy_compile.compile('evil.py', cfile='src/app/__pycache__/"
        "core.cpython-311.pyc')\n", "source-rewrite", 2),
    "code rewritten: a module's file from inspect.getfile": (
        "import inspect\nimport app.core\nopen(inspect.getfile(app.core), 'w').write(x)\n",
        "source-rewrite", 3),
    "code rewritten: a spec's origin bound to a name": (
        "import importlib.util\np = importlib.util.find_spec('app.core').origin\n"
        "open(p, 'w').write(x)\n", "source-rewrite", 3),
    "code rewritten: a module's __cached__ bytecode": (
        "import app.core\nopen(app.core.__cached__, 'wb').write(b)\n", "source-rewrite", 2),
    "code rewritten: fileinput in place": (
        "import fileinput\nfor line in fileinput.input('src/app/core.py', inplace=True):\n"
        "    print(line.replace('raise', 'pass'))\n", "source-rewrite", 2),
    "code rewritten: every module glob finds": (
        "import glob\nfor p in glob.glob('src/**/*.py', recursive=True):\n"
        "    open(p, 'w').write(x)\n", "source-rewrite", 3),
    "code rewritten: every module rglob finds": (
        "from pathlib import Path\nfor p in Path('src').rglob('*.py'):\n    p.write_text(x)\n",
        "source-rewrite", 3),
    "code rewritten: each .py file a listing finds": (
        "import os\nfor f in os.listdir('src/app'):\n    if f.endswith('.py'):\n"
        "        open(os.path.join('src/app', f), 'w').write(x)\n", "source-rewrite", 4),
    "code rewritten: each file iterdir finds with a .py suffix": (
        "from pathlib import Path\nfor p in Path('src').iterdir():\n    if p.suffix == '.py':\n"
        "        p.write_text(x)\n", "source-rewrite", 4),
    "code rewritten: the modules a comprehension picked from a listing": (
        "import os\nfor m in [f for f in os.listdir('.') if f.endswith('.py')]:\n"
        "    open(m, 'w')\n", "source-rewrite", 3),
    "code rewritten: a folder copied over the package": (
        "import shutil\nshutil.copytree('evil', 'src/app', dirs_exist_ok=True)\n",
        "source-rewrite", 2),
    "code rewritten: an archive unpacked over the package": (
        "import zipfile\nzipfile.ZipFile(blob).extractall('src/app')\n", "source-rewrite", 2),
    "code rewritten: an archive unpacked into the current directory": (
        "import tarfile\ntarfile.open(blob).extractall()\n", "source-rewrite", 2),
    "code rewritten: shutil.unpack_archive": (
        "import shutil\nshutil.unpack_archive('a.zip', 'src')\n", "source-rewrite", 2),
    # The gate's plugin is the run's own machinery, every module of it: the audit listener's
    # list, the item check, the namespace snapshot, not only its record and JUnit writers.
    "the gate's watch: its audit listeners taken out": (
        "from gate.evidence import audit_events\naudit_events._listeners.clear()\n",
        "test-machinery", 1),
    "the gate's watch: the namespace snapshot reached by import_module": (
        "import importlib\nw = importlib.import_module('gate.evidence.watch_namespaces')\n",
        "test-machinery", 2),
    "the gate's watch: the item check's class patched": (
        "import gate.evidence.item_state as s\ns.HeldItems.same = lambda *a: True\n",
        "test-machinery", 1),
    # A frame's own trace function runs wherever a tracer is on (a coverage tool's written in
    # Python, a debugger's), and a tracer that sets f_lineno jumps over a test's assertions.
    "trace: a frame's f_trace set": (
        "import sys\nf = sys._getframe(1)\nf.f_trace = jump\n", "interpreter-hook", 3),
    "trace: f_lineno set by a tracer": (
        "def jump(frame, event, arg):\n    frame.f_lineno += 2\n    return jump\n",
        "interpreter-hook", 2),
    "trace: f_trace by setattr": ("setattr(frame, 'f_trace', jump)\n", "interpreter-hook", 1),
    # pytest's configuration written while the run goes on: xdist's workers read it again.
    "configuration: pytest.ini rewritten": (
        "open('pytest.ini', 'w').write('[pytest]\\npython_functions = test_ok*\\n')\n",
        "test-machinery", 1),
    "configuration: pyproject.toml by Path": (
        "from pathlib import Path\nPath('pyproject.toml').write_text(x)\n", "test-machinery", 2),
    "site-packages: site.addsitedir": ("import site\nsite.addsitedir(d)\n", "site-packages", 2),
    "early end: os.kill(os.getpid(), SIGTERM) at the end of a test": (
        "import os, signal\n\ndef test_x():\n    os.kill(os.getpid(), signal.SIGTERM)\n",
        "process-exit", 4),
    "early end: kill from a from-import": (
        "from os import kill, getpid\nkill(getpid(), 15)\n", "process-exit", 2),
    "early end: signal.raise_signal": (
        "import signal\nsignal.raise_signal(signal.SIGKILL)\n", "process-exit", 2),
    "early end: os.abort": ("import os\nos.abort()\n", "process-exit", 2),
    "early end: raise pytest.exit.Exception": (
        "import pytest\n\ndef test_x():\n    raise pytest.exit.Exception('x', returncode=0)\n",
        "test-machinery", 4),
    "builtins: __builtins__ as a mapping": ("__builtins__['open'] = f\n", "builtins", 1),
    "builtins: __builtins__ as a module": ("__builtins__.open = f\n", "builtins", 1),
    "builtins: setattr(builtins, ...)": (
        "import builtins\nsetattr(builtins, 'print', f)\n", "builtins", 2),
    "results: the plugin turned off through PYTEST_ADDOPTS": (
        "import os\nos.environ['PYTEST_ADDOPTS'] = '-p no:claim_gate'\n", "results-path", 2),
}

#: Ordinary code beside them: reading a test module, writing data files, a test of a build
#: or import tool writing Python files into the directory pytest or tempfile handed it, a
#: fixture that cleans up after itself.
ORDINARY: dict[str, str] = {
    "a test module read": "print(open('tests/test_calc.py').read())\n",
    "a data file written": "open('out/data.txt', 'w').write('x')\n",
    "a test module's text read into a name, then written elsewhere": (
        "from pathlib import Path\nTEXT = Path('tests/test_app.py').read_text()\n"
        "Path('out/copy.txt').write_text(TEXT)\n"),
    "a module's text read inside the write of a data file": (
        "from pathlib import Path\nPath('out/copy.txt').write_text(Path('src/app/core.py')"
        ".read_text())\n"),
    "a module copied out to a data file": (
        "import shutil\nshutil.copy('src/app/core.py', 'out/a')\n"),
    "a file name's suffix replaced (str.replace)": "name = path.replace('.py', '.txt')\n",
    "a Python file written under tmp_path": (
        "def test_x(tmp_path):\n    (tmp_path / 'pkg' / 'mod.py').write_text('x = 1')\n"),
    "a Python file written under tmp_path, through a name": (
        "def test_x(tmp_path):\n    mod = tmp_path / 'mod.py'\n    mod.write_text('x = 1')\n"),
    "a setup.py written under tmpdir (py.path)": (
        "def test_x(tmpdir):\n    tmpdir.join('setup.py').write_text('x')\n"),
    "a Python file written under a tempfile directory": (
        "import os, tempfile\n\ndef test_x():\n    with tempfile.TemporaryDirectory() as d:\n"
        "        open(os.path.join(d, 'setup.py'), 'w').write('x')\n"),
    "a temporary Python file where tempfile puts it": (
        "import tempfile\nf = tempfile.NamedTemporaryFile(suffix='.py')\n"),
    "a module opened by io.FileIO to be read": "import io\nio.FileIO('src/app/core.py').read()\n",
    "a frame's line read for a message": (
        "import sys\nprint(sys._getframe(1).f_lineno)\n"),
    "a pyproject.toml written under tmp_path, and one read": (
        "def test_x(tmp_path):\n    (tmp_path / 'pyproject.toml').write_text(x)\n"
        "    print(open('pyproject.toml').read())\n"),
    "the modules a listing finds, read": (
        "import os\nfor f in os.listdir('src/app'):\n    if f.endswith('.py'):\n"
        "        print(open(os.path.join('src/app', f)).read())\n"),
    "text files a listing finds, written": (
        "import os\nfor f in os.listdir('out'):\n    if f.endswith('.txt'):\n"
        "        open(os.path.join('out', f), 'w').write('')\n"),
    "a fixture project copied under tmp_path": (
        "import shutil\n\ndef test_x(tmp_path):\n"
        "    shutil.copytree('tests/fixtures/proj', tmp_path / 'proj')\n"),
    "a helper that writes what it is handed, given a data file": (
        "def put(path, text):\n    open(path, 'w').write(text)\n\n"
        "put('out/data.txt', 'core.py')\n"),
    "a helper that reads what it is handed, given a module": (
        "def show(path):\n    print(open(path).read())\n\nshow('src/app/core.py')\n"),
    "a tool run with python": "import subprocess\nsubprocess.run(['python', 'tools/gen.py'])\n",
    "a build whose errors go to its output (2>&1)": (
        "import subprocess\nsubprocess.run('python setup.py build 2>&1', shell=True)\n"),
    "a module's source copied out": "import shutil\nshutil.copy(spec.origin, dest)\n",
    "modules found by rglob and read": (
        "from pathlib import Path\nfor p in Path('src').rglob('*.py'):\n"
        "    print(p.read_text())\n"),
    "a module read line by line with fileinput": (
        "import fileinput\nfor line in fileinput.input('src/app/core.py'):\n    print(line)\n"),
    "an archive unpacked under tmp_path": (
        "import zipfile\n\ndef test_x(tmp_path):\n"
        "    zipfile.ZipFile(blob).extractall(tmp_path / 'out')\n"),
    "a fixture that cleans up": (
        "import pytest\n\n@pytest.fixture\ndef fx(tmp_path):\n    yield tmp_path\n"
        "    (tmp_path / 'test_notes.txt').unlink(missing_ok=True)\n"),
}


@pytest.mark.parametrize("name", list(SPELLINGS))
def test_another_spelling_is_found(name: str) -> None:
    source, rule, line = SPELLINGS[name]
    found = read_python("src/app/mod.py", source)
    assert (line, rule) in {(f.line, f.rule) for f in found}, found


@pytest.mark.parametrize("name", list(ORDINARY))
def test_control_ordinary_code_beside_them_is_clean(name: str) -> None:
    assert read_python("src/app/mod.py", ORDINARY[name]) == ()


FLOAT_CALC = CALC.replace("return a + b", "return float(a) + float(b)")
BROKEN_SUB = FLOAT_CALC.replace("return a - b", "return a + b")
#: The runner's report class reached through `importlib` and rebound (to itself: the reach is
#: what counts, whatever is put there).
IMPORT_MODULE = FLOAT_CALC + (
    "\n\ndef _install():\n    import importlib\n"
    "    r = importlib.import_module('_pytest.runner')\n    r.TestReport = r.TestReport\n")
#: The code under test, imported while an earlier test module is collected, rewrites the test
#: module that is collected next (so its broken test asserts nothing), and the earlier
#: module's fixture puts it back before the session ends: the tree is clean at both ends.
REWRITES_TEST = BROKEN_SUB + (
    "\nfrom pathlib import Path\n\n_TESTS = Path('test_calc.py')\nSAVED = _TESTS.read_text()\n"
    "_TESTS.write_text(SAVED.replace('assert sub(3, 2) == 1', 'assert True'))\n")
PUTS_IT_BACK = ("import pytest\nimport calc\n\n\n@pytest.fixture(scope='module', autouse=True)\n"
                "def _restore():\n    yield\n    open('test_calc.py', 'w').write(calc.SAVED)\n\n\n"
                "def test_first():\n    assert True\n")
#: A fixture's teardown raises SystemExit(0) before the broken test runs: pytest reports an
#: error, never an early, clean end (nothing here for the reading to flag).
SYSTEM_EXIT = ("import pytest\n\n\n@pytest.fixture\ndef leaves():\n    yield\n"
               "    raise SystemExit(0)\n\n\ndef test_first(leaves):\n    assert True\n")


@dataclass(frozen=True)
class Case:
    files: Mapping[str, str]
    exit_code: int = 1
    codes: frozenset[str] = frozenset({"producer_modified"})
    named: str = ""  # what the reason must name
    found: tuple[str, int, str] | None = None  # (path, line, rule) the change reading holds


CASES: dict[str, Case] = {
    "control: an honest change": Case({"calc.py": FLOAT_CALC}, exit_code=0, codes=frozenset()),
    "the runner's TestReport rebound through importlib.import_module": Case(
        {"calc.py": IMPORT_MODULE}, named="calc.py:11 _pytest.runner.TestReport (test-machinery)"),
    "a test module rewritten after the tree check and put back before the end": Case(
        {"calc.py": REWRITES_TEST, "test_a.py": PUTS_IT_BACK},
        named="test_calc.py (rewritten during the run)", found=("calc.py", 11, "source-rewrite")),
    "a module the tests import rewritten by its path, around its import": Case(
        {"calc.py": FLOAT_CALC, "rules.py": "LIMIT = 5\n", "test_rules.py": (
            "from pathlib import Path\n_R = Path('rules.py')\n_SAVED = _R.read_text()\n"
            "_R.write_text('LIMIT = 0\\n')\nimport rules  # noqa: E402\n_R.write_text(_SAVED)\n"
            "\ndef test_limit():\n    assert rules.LIMIT == 0\n")},
        named="a committed Python file written from rules.py",
        found=("test_rules.py", 4, "source-rewrite")),
    "a Jest test file that rewrites a module by its path": Case(
        {"calc.py": FLOAT_CALC, "test/rules.test.js": (
            "const fs = require('fs');\n"
            "fs.writeFileSync('src/rules.js', 'module.exports = 0');\n")},
        named="test/rules.test.js:2 writes 'src/rules.js'",
        found=("test/rules.test.js", 2, "source-rewrite")),
    "SystemExit(0) from a fixture's teardown": Case(
        {"calc.py": BROKEN_SUB, "test_a.py": SYSTEM_EXIT}, exit_code=2,
        codes=frozenset({"contradicted"}), named="errors: expected 0, observed 2"),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The base branch and its own test run, made once: each case works on a copy."""
    root = tmp_path_factory.mktemp("recipe-base")
    new_pipeline(root)
    return root


@pytest.mark.parametrize("name", list(CASES))
def test_a_spelling_in_the_two_job_recipe(name: str, base: Path, tmp_path: Path) -> None:
    case = CASES[name]
    root = tmp_path / "pipeline"
    shutil.copytree(base, root, symlinks=True)
    pipeline = Pipeline(root)
    pipeline.branch(case.files, claim_text(edits(case.files)))
    pipeline.test_job()
    result = pipeline.gate_job()
    assert outcome(result) == (case.exit_code, set(case.codes)), result.stdout + result.stderr
    verdict = json.loads(result.stdout)["verdict"]
    assert case.named in verdict["reason"] + json.dumps(verdict["unmet"]), verdict["reason"]
    if case.found is not None:  # the first line, the reading, sees it too, beside the watch
        for evidence in json.loads(result.stdout)["evidence"]:
            findings = evidence["x-change-reach"]["findings"]
            assert case.found in {(f["path"], f["line"], f["rule"]) for f in findings}, findings


@pytest.fixture(scope="module")
def tested(base: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An honest change after its test job, made once: each case edits a copy of its record."""
    root = tmp_path_factory.mktemp("recipe-tested") / "pipeline"
    shutil.copytree(base, root, symlinks=True)
    pipeline = Pipeline(root)
    files = {"calc.py": FLOAT_CALC}
    pipeline.branch(files, claim_text(edits(files)))
    pipeline.test_job()
    return root


@pytest.mark.parametrize("keep", [None, 0, 1])
def test_a_record_whose_inventory_watched_less_is_refused(keep: int | None, tested: Path,
                                                          tmp_path: Path) -> None:
    """Code in the test job (an exit handler the owner allowed, say) empties or shortens the
    handed-on record's list of watched internals and seals it again, so its digest holds;
    the gate in its fresh clone still wants every namespace this plugin version watches.
    Control (`None`): the same record sealed again unchanged verifies."""
    root = tmp_path / "pipeline"
    shutil.copytree(tested, root, symlinks=True)
    pipeline = Pipeline(root, head=git(root / "work", "rev-parse", "HEAD"))
    handed_on = pipeline.artifacts / "evidence.json"
    record = json.loads(handed_on.read_text())
    inventory = record[INVENTORY_FIELD]
    if keep is not None:
        inventory["internals"] = inventory["internals"][:keep]
    record[INVENTORY_FIELD] = seal({k: v for k, v in inventory.items() if k != "digest"})
    handed_on.write_text(json.dumps(record))
    result = pipeline.gate_job()
    if keep is None:
        assert outcome(result) == (0, set()), result.stdout + result.stderr
        return
    assert outcome(result)[0] == 1, result.stdout + result.stderr
    assert f"does not list {len(WATCHED_NAMESPACES) - keep} watched internals" in result.stdout

ROUTES_PAGE = Path(__file__).parent.parent / "docs" / "tamper-routes.md"


def test_every_test_the_route_table_names_exists() -> None:
    """A cell that names a test renamed or removed would claim a route is covered when it is
    not: each `file::test` (and `::test` after it, of the same file) must be a real def."""
    text = ROUTES_PAGE.read_text("utf-8")
    named = re.findall(r"`(tests/\w+\.py)?::(test_\w+)`", text)
    assert len(named) > 30, named
    current = ""
    for path, name in named:
        current = path or current
        source = (ROUTES_PAGE.parent.parent / current).read_text("utf-8")
        assert f"def {name}(" in source, f"{current}::{name}"
