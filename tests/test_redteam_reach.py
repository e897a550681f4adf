"""Issue 21 "Done when", another round: spellings of the known routes that the change reading
let through, each closed as a class (not the one spelling), beside ordinary code that must
stay clean. The reading alone: text in, findings out, no session (the recipe and GitHub cases
are in tests/test_redteam_recipe.py and tests/test_redteam_github.py)."""

from __future__ import annotations

import pytest

from gate.evidence.change_reach import path_findings, read_change
from gate.evidence.reach_js import read_javascript
from gate.evidence.reach_python import read_doctests, read_python

#: class: spelling -> (source, rule, line): each must be found under that rule at that line.
PYTHON: dict[str, tuple[str, str, int]] = {
    # names the reading cannot resolve: a star import of a module whose names reach in
    "star import: from os import *, then _exit": (
        "from os import *\n_exit(0)\n", "obfuscation", 1),
    "star import: from sys import *, then meta_path": (
        "from sys import *\nmeta_path.insert(0, F)\n", "obfuscation", 1),
    "star import: from signal import *": ("from signal import *\nsignal(15, h)\n",
                                          "obfuscation", 1),
    # the builtin setattr spelled as the slot it calls
    "object.__setattr__ on a stdlib module": (
        "import json\nobject.__setattr__(json, 'dumps', f)\n", "stdlib-patch", 2),
    "type.__setattr__ on the runner's module": (
        "import sys\ntype.__setattr__(sys.modules['_pytest.runner'], 'TestReport', X)\n",
        "test-machinery", 2),
    "a module's bound __setattr__": ("import json\njson.__setattr__('loads', f)\n",
                                     "stdlib-patch", 2),
    "object.__delattr__ on builtins": ("import builtins\nobject.__delattr__(builtins, 'open')\n",
                                       "builtins", 2),
    "setattr of a function's __code__": ("def f(): pass\nsetattr(f, '__code__', g.__code__)\n",
                                         "obfuscation", 2),
    # a namespace held in a name first, then written
    "a caller's globals through two names": (
        "import sys\nframe = sys._getframe(1)\nns = frame.f_globals\nns['calc'] = fake\n",
        "obfuscation", 4),
    "a module's namespace from vars(), updated": (
        "import json\nns = vars(json)\nns.update(dumps=f)\n", "obfuscation", 3),
    # a module taken out of sys.modules by a computed name, then written
    "setattr(sys.modules[name], attr, value)": (
        "import sys\nsetattr(sys.modules[name], attr, value)\n", "import-system", 2),
    "sys.modules.get(name) bound, then written": (
        "import sys\nm = sys.modules.get(name)\nm.TestReport = X\n", "import-system", 3),
    "every module in sys.modules written in a loop": (
        "import sys\nfor m in list(sys.modules.values()):\n    setattr(m, a, v)\n",
        "import-system", 3),
    # the run's own state, reached through the objects a fixture hands a test
    "request.session.testsfailed reset": (
        "def test_x(request):\n    request.session.testsfailed = 0\n", "test-machinery", 2),
    "pytestconfig.option written": (
        "def test_x(pytestconfig):\n    pytestconfig.option.xmlpath = 'elsewhere.xml'\n",
        "test-machinery", 2),
    "pytestconfig.stash entry written": (
        "def test_x(pytestconfig):\n    pytestconfig.stash[key] = None\n", "test-machinery", 2),
    "setattr on request.node.session": (
        "def test_x(request):\n    setattr(request.node.session, 'shouldfail', False)\n",
        "test-machinery", 2),
    # the report found and written by its name or kind
    "a report written by a name without 'junit'": (
        "from pathlib import Path\nPath('out/report.xml').write_text(x)\n", "results-path", 2),
    "a report replaced with shutil": ("import shutil\nshutil.copy(fake, 'test-results.xml')\n",
                                      "results-path", 2),
    "a report linked over": ("import os\nos.symlink(fake, 'out/results.xml')\n",
                             "results-path", 2),
    "a report opened with codecs": ("import codecs\ncodecs.open('report.xml', 'w').write(x)\n",
                                    "results-path", 2),
    "a report rewritten from __del__ of a global": (
        "class K:\n    def __del__(self):\n        open('out/report.xml', 'w').write(x)\n"
        "KEEP = K()\n", "results-path", 3),
    "the report's counters edited with sed": (
        "import subprocess\nsubprocess.run(['sed', '-i', 's/failures=\"1\"/failures=\"0\"/', p])\n",
        "results-path", 2),
    "a report copied over by a shell command": (
        "import os\nos.system('cp fake.xml out/report.xml')\n", "results-path", 2),
    "every XML file found by glob": (
        "import glob\nfor p in glob.glob('**/*.xml', recursive=True):\n    rewrite(p)\n",
        "results-path", 2),
    "the report path read from the run's options": (
        "def test_x(pytestconfig):\n    p = pytestconfig.getoption('xmlpath')\n",
        "results-path", 2),
    "the CI job's environment file": (
        "import os\nopen(os.environ['GITHUB_ENV'], 'a').write('PATH=/tmp/x')\n",
        "results-path", 2),
    # processes that outlive the run
    "a child in a session of its own": (
        "import subprocess\nsubprocess.Popen(cmd, start_new_session=True)\n", "process-exit", 2),
    "a shell child detached with nohup": (
        "import os\nos.system('nohup python rewrite.py &')\n", "process-exit", 2),
    "pty.fork": ("import pty\npty.fork()\n", "process-exit", 2),
    # code carried as data
    "pickle.loads of bytes the change carries": (
        "import pickle\npickle.loads(b'cos\\nsystem\\n(S\"true\"\\ntR.')\n", "obfuscation", 2),
    "zipimport": ("import zipimport\nzipimport.zipimporter('hook.zip')\n", "obfuscation", 1),
    # a module reached as another standard module's attribute
    "os.sys.modules written": ("import os\nos.sys.modules['_pytest.runner'] = m\n",
                               "import-system", 2),
    "importlib.sys.meta_path": ("import importlib\nimportlib.sys.meta_path.insert(0, F)\n",
                                "import-system", 2),
    # names and code carried encoded, decoded as the run decodes them
    "import_module of a rot13 name": (
        "import codecs, importlib\n"
        "m = importlib.import_module(codecs.decode('_clgrfg', 'rot13'))\n", "test-machinery", 2),
    "import_module of a reversed name": (
        "import importlib\nm = importlib.import_module('rennur.tsetyp_'[::-1])\n",
        "test-machinery", 2),
    "import_module of chr codes": (
        "import importlib\nm = importlib.import_module(''.join(map(chr, [95, 112, 121, 116,"
        " 101, 115, 116])))\n", "test-machinery", 2),
    "code written from a compressed base64 blob": (
        "import base64, zlib\nfrom pathlib import Path\n"
        "Path('hook.py').write_bytes(zlib.decompress(base64.b64decode("
        "'eJzLzC3ILypRSCxJrcgs4YJQekWp6ZnFJalFGgVFmXklmlwAEyEN/w==')))\n", "process-exit", 3),
    # objects of another frame, where pytest's own objects are locals
    "a report in a caller's frame written": (
        "import sys\nsys._getframe(3).f_locals['report'].outcome = 'passed'\n",
        "obfuscation", 2),
    "a report from inspect.stack, through a name": (
        "import inspect\nrep = inspect.stack()[2].frame.f_locals['report']\n"
        "rep.outcome = 'passed'\n", "obfuscation", 3),
    # the run's state through a name bound to it
    "request.session through a name": (
        "def test_x(request):\n    s = request.session\n    s.testsfailed = 0\n",
        "test-machinery", 3),
    "the test item's function replaced": (
        "def test_x(request):\n    request.node.obj = lambda: None\n", "test-machinery", 2),
    "pytestconfig fetched by name": (
        "def test_x(request):\n    c = request.getfixturevalue('pytestconfig')\n",
        "test-machinery", 2),
    "the run's own arguments": (
        "def test_x(pytestconfig):\n    args = pytestconfig.invocation_params.args\n",
        "results-path", 2),
    # the JUnit writer's XML library, patched even through the fixture
    "xml.etree patched through monkeypatch": (
        "def test_x(monkeypatch):\n    import xml.etree.ElementTree as ET\n"
        "    monkeypatch.setattr(ET, 'Element', Fake)\n", "results-path", 3),
    # the process's own memory and command line
    "/proc/<pid>/mem": ("import os\nf = open(f'/proc/{os.getpid()}/mem', 'r+b')\n",
                        "native-code", 2),
    "/proc/self/cmdline": ("args = open('/proc/self/cmdline').read()\n", "results-path", 1),
    # registrars that run at shutdown, after the report is written
    "threading._register_atexit": ("import threading\nthreading._register_atexit(f)\n",
                                   "process-exit", 2),
    # examples doctest runs that are not a docstring
    "a __test__ string": ('__test__ = {"x": """\n>>> import atexit\n"""}\n', "process-exit", 2),
    # a docstring's examples run under --doctest-modules
    "a docstring example that reaches in": (
        "import sys\n\ndef add(a, b):\n    \"\"\"Add.\n\n    >>> sys.meta_path.insert(0, F)\n"
        "    \"\"\"\n    return a + b\n", "import-system", 6),
}

#: Ordinary code beside them: what honest projects write, which must stay clean.
ORDINARY: dict[str, str] = {
    "a frozen dataclass setting a field in __post_init__": (
        "from dataclasses import dataclass\n\n@dataclass(frozen=True)\nclass P:\n    x: int\n"
        "    def __post_init__(self):\n        object.__setattr__(self, 'x', abs(self.x))\n"),
    "super().__setattr__ in a class's own __setattr__": (
        "class C:\n    def __setattr__(self, name, value):\n"
        "        super().__setattr__(name, value)\n"),
    "a module setting its own globals": (
        "import sys\nsetattr(sys.modules[__name__], name, value)\n"),
    "a frame's globals read through a name": (
        "import sys\nns = sys._getframe(1).f_globals\nwho = ns.get('__name__')\n"),
    "star import of an ordinary module": "from math import *\nx = sqrt(2)\n",
    "subprocess running git": (
        "import subprocess\nsubprocess.run(['git', 'status'], check=True)\n"),
    "a child process waited for": (
        "import subprocess\nsubprocess.run([sys.executable, '-c', 'pass'], timeout=5)\n"),
    "a data file written with os.path.join": (
        "import os\nopen(os.path.join(d, 'data.json'), 'w').write(x)\n"),
    "an XML fixture read": (
        "from pathlib import Path\nxml = Path('tests/data/report.xml').read_text()\n"),
    "an XML file written to tmp_path under a plain name": (
        "def test_x(tmp_path):\n    (tmp_path / 'feed.xml').write_text('<a/>')\n"),
    "request and pytestconfig read": (
        "def test_x(request, pytestconfig):\n    name = request.node.name\n"
        "    root = pytestconfig.rootpath\n    request.node.add_marker('slow')\n"
        "    v = pytestconfig.getoption('verbose')\n"),
    "pickle round trip": "import pickle\nassert pickle.loads(pickle.dumps(obj)) == obj\n",
    "logging set up": ("import logging\nlogging.basicConfig(level=logging.INFO)\n"
                       "log = logging.getLogger(__name__)\n"),
    "a docstring with honest examples": (
        "def add(a, b):\n    \"\"\"Add.\n\n    >>> add(1, 2)\n    3\n    \"\"\"\n"
        "    return a + b\n"),
    "a REPL prompt in a string": "PROMPT = '>>> '\nassert out.startswith('>>> ')\n",
    "a blob decoded to plain data": "import base64\nlogo = base64.b64decode('aGVsbG8=')\n",
    "a path joined under os": "import os\nx = os.path.join(a, b)\n",
    "fixtures writing the test class, the documented idiom": (
        "import pytest\n\n@pytest.fixture\ndef db(request):\n    request.cls.db = 1\n"
        "    request.instance.cache = {}\n"),
    "xml.etree used to write a data file": (
        "import xml.etree.ElementTree as ET\n"
        "ET.ElementTree(ET.Element('a')).write('out/a.xml')\n"),
    "a docstring whose example does not parse": (
        "def f():\n    \"\"\"Shows a prompt.\n\n    >>> def (\n    \"\"\"\n"),
}

JAVASCRIPT: dict[str, tuple[str, str]] = {
    "process aliased, then exit": ("const p = process;\np.exit(0);\n", "process-exit"),
    "process by bracket": ("process['ex' + 'it'](0);\n", "process-exit"),
    "exit destructured from process": ("const { exit } = process;\nexit(0);\n", "process-exit"),
    "exit imported from node:process": ("import { exit } from 'node:process';\n",
                                        "process-exit"),
    "process imported under another name": ("import proc from 'node:process';\n",
                                            "process-exit"),
    "a detached child": ("spawn('node', ['x.js'], { detached: true });\n", "process-exit"),
    "a computed require": ("const r = require('jest-' + 'circus');\n", "obfuscation"),
    "a computed dynamic import": ("const m = await import(name);\n", "obfuscation"),
    "the Function constructor reached from a function": (
        "const f = (() => {}).constructor('return process')();\n", "obfuscation"),
    "Module._load through module.constructor": ("module.constructor._load = f;\n",
                                                "import-system"),
    "globals set through Reflect": ("Reflect.set(globalThis, 'expect', fake);\n", "builtins"),
    "globals set through Object.assign": ("Object.assign(globalThis, { test: t });\n",
                                          "builtins"),
    "a report written by a name without 'junit'": (
        "fs.writeFileSync('reports/results.xml', x);\n", "results-path"),
    "a text file loaded as a script": ("require('./hooks/setup.txt');\n", "obfuscation"),
}

ORDINARY_JAVASCRIPT = (
    "import process from 'node:process';\nconst { env, argv } = process;\n"
    "const fs = require('fs');\nimport path from 'path';\nconst m = await import('./mod.js');\n"
    "const x = require(`./fixtures`);\nconst o = { exit: 1 };\nlet p = process.env.X;\n"
    "const merge = require('lodash.merge');\nconst data = require('./data.json');\n"
    "spawn('node', ['x.js'], { stdio: 'inherit' });\n"
)

#: Paths whose name alone reaches in: code the reading cannot read, tool settings, look-alikes.
PATHS: dict[str, str] = {
    "src/app/__pycache__/calc.cpython-312.pyc": "obfuscation",
    "calc.pyc": "obfuscation",
    "src/app/calc.cpython-312-x86_64-linux-gnu.so": "native-code",
    "src/app/calc.abi3.so": "native-code",
    "src/app/calc.pyd": "native-code",
    "web/addon.node": "native-code",
    ".npmrc": "test-machinery",
    "web/.yarnrc.yml": "test-machinery",
    ".env": "test-machinery",
    ".env.test": "test-machinery",
    "tests/CONFTEST.py": "test-machinery",
    "Pytest.ini": "test-machinery",
    "SETUP.CFG": "test-machinery",
    "tests/pytest.py": "shadow-module",
    "tests/_pytest/__init__.py": "shadow-module",
    ".babelrc": "test-machinery",
    "web/babel.config.json": "test-machinery",
}
ORDINARY_PATHS = ("src/app/calc.py", "docs/conf.py", "src/py/__init__.py", "tests/test_pytest.py",
                  "environment.yml", "src/app/types.py", "README.md", "tests/data/sample.xml",
                  ".env.example")


@pytest.mark.parametrize("name", list(PYTHON))
def test_a_python_spelling_is_found(name: str) -> None:
    source, rule, line = PYTHON[name]
    found = read_python("src/app/mod.py", source)
    assert (line, rule) in {(f.line, f.rule) for f in found}, found


@pytest.mark.parametrize("name", list(ORDINARY))
def test_control_ordinary_python_stays_clean(name: str) -> None:
    assert read_python("src/app/mod.py", ORDINARY[name]) == ()


@pytest.mark.parametrize("name", list(JAVASCRIPT))
def test_a_javascript_spelling_is_found(name: str) -> None:
    source, rule = JAVASCRIPT[name]
    assert rule in {f.rule for f in read_javascript("web/a.js", source)}


def test_control_ordinary_javascript_stays_clean() -> None:
    assert read_javascript("web/a.js", ORDINARY_JAVASCRIPT) == ()


@pytest.mark.parametrize("path", list(PATHS))
def test_a_path_reaches_by_its_name(path: str) -> None:
    assert [f.rule for f in path_findings(path)] == [PATHS[path]]


@pytest.mark.parametrize("path", ORDINARY_PATHS)
def test_control_an_ordinary_path_reaches_nothing(path: str) -> None:
    assert path_findings(path) == ()


NOTES = ("Notes\n=====\n\nThe calculator:\n\n>>> import _pytest.runner as r\n"
         ">>> r.TestReport = object\n")
HONEST_NOTES = "Notes\n=====\n\n>>> from calc import add\n>>> add(1, 2)\n3\n"


def test_the_examples_of_a_doctest_text_are_read_where_they_stand() -> None:
    """pytest collects `test*.txt` as doctests by default (and `.rst`/`.md` under a
    `--doctest-glob` the base's unchanged config may set): the examples run in the session."""
    files = {"tests/test_notes.txt": NOTES.encode(), "docs/usage.rst": HONEST_NOTES.encode(),
             "README.md": ("```\n" + NOTES + "```\n").encode(), "notes.txt": NOTES.encode()}
    reading = read_change("test", files, files.__getitem__)
    assert {(f.path, f.line, f.rule) for f in reading.findings} == {
        ("tests/test_notes.txt", 6, "test-machinery"),
        ("tests/test_notes.txt", 7, "test-machinery"),
        ("README.md", 7, "test-machinery"), ("README.md", 8, "test-machinery")}
    assert reading.complete
    assert reading.files_read == 3  # notes.txt is not a name pytest collects by default


def test_a_doctest_text_that_is_not_python_is_passed_over() -> None:
    assert read_doctests("docs/x.rst", "Prose only.\n\n>>> def (\n\nMore prose.\n") == ()


UTF7 = b"# -*- coding: utf-7 -*-\nx = 1\n#+AAo-import atexit+AAo-atexit.register(print)\n"


def test_a_python_file_is_read_in_the_encoding_it_declares() -> None:
    """Under `coding: utf-7` the "comment" on line 3 is two lines of code to Python: the
    reading decodes the file as Python does, never as UTF-8 regardless."""
    reading = read_change("test", ["calc.py"], {"calc.py": UTF7}.__getitem__)
    assert {f.rule for f in reading.findings} == {"process-exit"}
    refused = read_change("test", ["calc.py"], {"calc.py": b"# coding: nope\nx = 1\n"}.__getitem__)
    assert [u.problem for u in refused.unread] == [
        "declares an encoding Python would refuse (unknown encoding: nope)"]
    latin = "# coding: latin-1\nx = '\u00e9'\n".encode("latin-1")
    honest = read_change("test", ["calc.py"], {"calc.py": latin}.__getitem__)
    assert honest.findings == ()
    assert honest.complete
