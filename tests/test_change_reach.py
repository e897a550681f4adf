"""Issue 21 item 1: the change reading, text in and findings out. Every spelling an agent would
try of each class of reach is found (with its rule and line), beside ordinary code and
ordinary tests that must stay clean; the limits make a reading incomplete, never shorter."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from gate.claim.change_facts import REACH_RULES, ReachFinding
from gate.claim.errors import InvalidInput
from gate.claim.trust_policy import ReachAllowance, parse_trust_policy
from gate.evidence.change_reach import (
    MAX_FILE_BYTES,
    MAX_FILES,
    UnreadableFile,
    path_findings,
    read_change,
    reading_note,
)
from gate.evidence.reach_js import read_javascript
from gate.evidence.reach_python import read_python

#: (source, rule, line): one spelling of a reach, the rule it must be found under and where.
PYTHON_REACHES: dict[str, tuple[str, str, int]] = {
    "import of _pytest": ("import _pytest.runner\n", "test-machinery", 1),
    "rebinding the runner's TestReport through an alias": (
        "import os\nimport _pytest.runner as r\nr.TestReport = object\n", "test-machinery", 2),
    "from-import as another name": (
        "from _pytest import reports as rep\n", "test-machinery", 1),
    "a method of a report class replaced": (
        "from pytest import TestReport as T\nT.from_item_and_call = classmethod(f)\n",
        "test-machinery", 1),
    "sys.modules entry of _pytest through from-import as": (
        "from sys import modules as m\nm['_pytest.runner'].TestReport = 1\n", "test-machinery", 2),
    "pytest.exit mid-test": (
        "import pytest\n\ndef test_x():\n    pytest.exit('done', returncode=0)\n",
        "test-machinery", 4),
    "a pytest hook in a module": ("def pytest_runtest_logreport(report):\n    pass\n",
                                  "test-machinery", 1),
    "pytest_plugins in a test module": ("pytest_plugins = ['helpers.plugin']\n",
                                        "test-machinery", 1),
    "the plugin manager reached from a fixture": (
        "def test_x(request):\n    request.config.pluginmanager.register(object())\n",
        "test-machinery", 2),
    "unittest's result class": ("import unittest\nunittest.TestResult.addFailure = f\n",
                                "test-machinery", 2),
    "monkeypatch of _pytest by dotted string": (
        "def test_x(monkeypatch):\n    monkeypatch.setattr('_pytest.runner.TestReport', X)\n",
        "test-machinery", 2),
    "meta_path insert": ("import sys\nsys.meta_path.insert(0, Finder())\n", "import-system", 2),
    "path_hooks through an alias of sys": ("import sys as s\ns.path_hooks.append(h)\n",
                                           "import-system", 2),
    "getattr with a concatenated name": (
        "import sys\ngetattr(sys, 'meta' + '_path').insert(0, F())\n", "import-system", 2),
    "sys.modules written under a computed key": ("import sys\nsys.modules[name] = fake\n",
                                                 "import-system", 2),
    "sys.modules entry of a stdlib module": ("import sys\nsys.modules['json'] = fake\n",
                                             "import-system", 2),
    "sys.modules entry of _pytest through the fixture": (
        "import sys\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setitem(sys.modules, '_pytest.runner', fake)\n", "import-system", 3),
    "sys.modules under an f-string of the framework": (
        "import sys\nsys.modules[f'_pytest.{name}'] = fake\n", "import-system", 2),
    "meta_path through a conditional alias": (
        "import sys\ns = sys if flag else None\ns.meta_path.append(F())\n", "import-system", 3),
    "a frame's globals updated": (
        "import sys\nsys._getframe(1).f_globals.update(patched)\n", "obfuscation", 2),
    "sys.modules handed to operator.setitem": (
        "import sys, operator\noperator.setitem(sys.modules, k, v)\n", "import-system", 2),
    "sys.modules.update from a variable": ("import sys\nsys.modules.update(found)\n",
                                           "import-system", 2),
    "an importlib loader": ("from importlib.machinery import SourceFileLoader\n",
                            "import-system", 1),
    "builtins written": ("import builtins\nbuiltins.open = my_open\n", "builtins", 2),
    "__builtins__ written": ("__builtins__['print'] = p\n", "builtins", 1),
    "a standard-library function replaced for good": ("import json\njson.dumps = f\n",
                                                      "stdlib-patch", 2),
    "setattr on a stdlib module with a constant name": (
        "import xml.etree.ElementTree as ET\nsetattr(ET.ElementTree, 'write', w)\n",
        "stdlib-patch", 2),
    "sys.settrace": ("import sys\nsys.settrace(tracer)\n", "interpreter-hook", 2),
    "atexit": ("import atexit\n", "process-exit", 1),
    "atexit through from-import as": ("from atexit import register as later\nlater(f)\n",
                                      "process-exit", 1),
    "os._exit": ("import os\n\ndef test_x():\n    os._exit(0)\n", "process-exit", 4),
    "a signal handler": ("import signal\nsignal.signal(signal.SIGTERM, h)\n", "process-exit", 2),
    "os.fork": ("import os\nif os.fork() == 0:\n    rewrite()\n", "process-exit", 2),
    "a JUnit path": ("REPORT = 'out/junit.xml'\n", "results-path", 1),
    "the gate's evidence option": ("args = ['--claim-evidence', p]\n", "results-path", 1),
    "site-packages from site": ("import site\nroot = site.getsitepackages()[0]\n",
                                "site-packages", 2),
    "a .pth file name": ("name = 'zz_hook.pth'\n", "site-packages", 1),
    "a test file rewritten on disk": (
        "from pathlib import Path\nPath(__file__).write_text('x')\n", "source-rewrite", 2),
    "open(__file__, 'w')": ("open(__file__, 'w').write('')\n", "source-rewrite", 1),
    "exec": ("exec(code)\n", "obfuscation", 1),
    "eval through an alias": ("run = eval\nrun(text)\n", "obfuscation", 1),
    "exec of compiled code": ("code = compile(src, 'x', 'exec')\nexec(code)\n",
                              "obfuscation", 2),
    "__import__ with a computed name": ("m = __import__(name)\n", "obfuscation", 1),
    "__import__ with an implicitly joined literal": ("m = __import__('_py' 'test')\n",
                                                    "test-machinery", 1),
    "import_module with a name built by join": (
        "import importlib\nm = importlib.import_module(''.join(['_py', 'test']))\n",
        "test-machinery", 2),
    "import_module with a name folded from a variable": (
        "import importlib\nn = '_py' + 'test.runner'\nimportlib.import_module(n)\n",
        "test-machinery", 2),
    "import_module with a computed name": (
        "import importlib\nimportlib.import_module(base + suffix)\n", "obfuscation", 2),
    "setattr on sys with a computed name": ("import sys\nsetattr(sys, name, v)\n",
                                            "obfuscation", 2),
    "vars() of a module": ("import sys\nvars(sys)['modules']['x'] = 1\n", "obfuscation", 2),
    "a module's __dict__": ("import sys\nns = sys.__dict__\n", "obfuscation", 2),
    "globals() written by a computed name": ("globals()[name] = value\n", "obfuscation", 1),
    "a frame's globals": ("import inspect\ninspect.currentframe().f_back.f_globals['x'] = 1\n",
                          "obfuscation", 2),
    "ctypes": ("import ctypes\n", "native-code", 1),
    "marshal": ("import marshal\n", "obfuscation", 1),
    "a code object built": ("import types\nf = types.FunctionType(code, {})\n",
                            "obfuscation", 2),
    "__code__ replaced": ("def f(): pass\nf.__code__ = g.__code__\n", "obfuscation", 2),
    "a guarded module handed to a helper": ("import sys\nhelper(sys)\n", "obfuscation", 2),
    "__subclasses__": ("x = object.__subclasses__()\n", "obfuscation", 1),
}

ORDINARY_PYTHON: dict[str, str] = {
    "logging, dataclasses, typing": (
        "import logging\nfrom dataclasses import dataclass, field\nfrom typing import Any\n\n"
        "log = logging.getLogger(__name__)\n\n@dataclass(frozen=True)\nclass A:\n"
        "    x: int = field(default=0)\n    def get(self, name: str) -> Any:\n"
        "        return getattr(self, name)\n"),
    "plain imports and a docstring that names the machinery": (
        '"""Unlike _pytest.runner, this module uses sys.meta_path only in prose."""\n'
        "import os\nimport sys\nimport json\nfrom pathlib import Path\n"
        "print(os.path.join('a', 'b'), sys.argv, json.dumps({}), Path('x'))\n"),
    "an ordinary test with fixtures": (
        "import sys\nimport pytest\n\n@pytest.fixture\ndef value():\n    return 1\n\n"
        "@pytest.mark.parametrize('n', [1, 2])\ndef test_x(n, value, tmp_path, capsys):\n"
        "    (tmp_path / 'out.txt').write_text('x')\n    with pytest.raises(ValueError):\n"
        "        int('x')\n    sys.path.insert(0, str(tmp_path))\n"),
    "monkeypatch of the code under test, builtins and the stdlib": (
        "import os, sys\nimport app\n\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setattr(app, 'fetch', lambda: 1)\n"
        "    monkeypatch.setattr('builtins.input', lambda _: 'y')\n"
        "    monkeypatch.setattr(sys, 'argv', ['x'])\n    monkeypatch.setattr(os, 'getcwd', f)\n"
        "    monkeypatch.setenv('HOME', '/tmp')\n"
        "    monkeypatch.setitem(sys.modules, 'numpy', None)\n"),
    "mock.patch of builtins and the code under test": (
        "from unittest import mock\n\n@mock.patch('builtins.open')\ndef test_x(m):\n"
        "    with mock.patch.object(app, 'fetch'), mock.patch.dict('os.environ', {'A': '1'}):\n"
        "        pass\n"),
    "a lazy module replacing its own entry": ("import sys\nsys.modules[__name__] = Lazy()\n"),
    "re.compile and a method named compile": (
        "import re\nPATTERN = re.compile('x')\nclass Q:\n    def compile(self):\n"
        "        return PATTERN\n"),
    "getattr by a computed name on the project's own module": (
        "import app.handlers as handlers\ndef pick(name):\n    return getattr(handlers, name)\n"),
    "faking an optional dependency in sys.modules": (
        "import sys\nsys.modules['yaml'] = None\ndel sys.modules['yaml']\n"),
    "reading a data file next to the test": (
        "from pathlib import Path\nDATA = (Path(__file__).parent / 'data.txt').read_text()\n"
        "with open(Path(__file__).with_name('x.json')) as f:\n    pass\n"),
    "compile() to check an expression (it runs nothing)": (
        "def valid(text):\n    compile(text, '', 'eval')\n    return True\n"),
    "vendored modules aliased under the package's own name": (
        "import sys\nfor mod in list(sys.modules):\n"
        "    sys.modules[f'requests.packages.{mod}'] = sys.modules[mod]\n"),
    "a frame's globals read": (
        "import inspect\nf = inspect.currentframe()\n"
        "g = f.f_back.f_globals if f is not None else None\nname = g.get('__name__')\n"),
    "a shadowing local written through setattr": (
        "import io\ndef test_x():\n    io = Buffer()\n    setattr(io, 'read', f)\n"),
    "importlib.reload of the module under test": (
        "import importlib\nimport app\ndef test_x():\n    importlib.reload(app)\n"),
    "a stdlib module faked through the fixture": (
        "import sys\ndef test_x(monkeypatch):\n"
        "    monkeypatch.setitem(sys.modules, 'ctypes', None)\n"
        "    with monkeypatch.context() as m:\n        m.setattr(sys, 'platform', 'linux')\n"),
    "sys.exit in a command-line entry point": (
        "import sys\n\ndef main() -> None:\n    sys.exit(run())\n"),
}


@pytest.mark.parametrize("name", list(PYTHON_REACHES))
def test_each_spelling_of_a_reach_is_found(name: str) -> None:
    source, rule, line = PYTHON_REACHES[name]
    found = read_python("src/app/mod.py", source)
    assert (line, rule) in {(f.line, f.rule) for f in found}, found
    assert all(f.path == "src/app/mod.py" and f.rule in REACH_RULES for f in found)


@pytest.mark.parametrize("name", list(ORDINARY_PYTHON))
def test_ordinary_code_is_clean(name: str) -> None:
    assert read_python("tests/test_mod.py", ORDINARY_PYTHON[name]) == ()


def test_a_monkeypatch_that_is_not_the_fixture_is_a_lasting_write() -> None:
    """`monkeypatch` as a parameter is pytest's fixture, which undoes the write; the same name
    bound at module level is the agent's own object, and its write lasts."""
    fixture = ("import builtins\ndef test_x(monkeypatch):\n"
               "    monkeypatch.setattr(builtins, 'open', f)\n")
    assert read_python("t.py", fixture) == ()
    own = "import builtins\nmonkeypatch = M()\nmonkeypatch.setattr(builtins, 'open', f)\n"
    assert [f.rule for f in read_python("t.py", own)] == ["builtins"]


def test_a_finding_names_what_was_reached() -> None:
    [finding] = read_python("calc.py", "import _pytest.runner as r\n")
    assert finding == ReachFinding("calc.py", 1, "test-machinery", "_pytest.runner")
    assert finding.where() == "calc.py:1"


JS_REACHES: dict[str, tuple[str, str, int]] = {
    "jest-circus internals": ("const c = require('jest-circus/build/state');\n",
                              "test-machinery", 1),
    "a Jest reporter package": ("import { BaseReporter } from '@jest/reporters';\n",
                                "test-machinery", 1),
    "Vitest's runner": ("import { VitestRunner } from 'vitest/runners'\n", "test-machinery", 1),
    "@vitest/runner": ("import { getCurrentSuite } from \"@vitest/runner\";\n",
                       "test-machinery", 1),
    "require.cache": ("// a comment\ndelete require.cache[key]\n", "import-system", 2),
    "Module._load": ("const Module = require('module');\nModule._load = hook;\n",
                     "import-system", 1),
    "process.exit": ("\n\nprocess.exit(0)\n", "process-exit", 3),
    "process.on('exit')": ("process.on('exit', () => rewrite())\n", "process-exit", 1),
    "process.exitCode": ("process.exitCode = 0;\n", "process-exit", 1),
    "eval": ("const x = eval(text)\n", "obfuscation", 1),
    "new Function": ("const f = new Function('a', body)\n", "obfuscation", 1),
    "globalThis by a computed key": ("globalThis[name] = value\n", "obfuscation", 1),
    "a JUnit report path": ("fs.writeFileSync('reports/junit.xml', xml)\n", "results-path", 1),
    "a Jest global replaced": ("globalThis.expect = fakeExpect\n", "builtins", 1),
}
#: Jest and Vitest read a module from disk when it is first required: one rewritten around
#: that moment, and put back, ran though the tree is the commit's at both ends. Each is a
#: `source-rewrite` at the line given.
JS_SCRIPT_WRITES: dict[str, tuple[int, str]] = {
    "a module rewritten by its path": (
        2, "const fs = require('fs');\nfs.writeFileSync('src/validate.js', patched);\n"),
    "a test file put back by a rename": (1, "fs.renameSync('saved.bak', 'test/app.test.js')\n"),
    "the file itself rewritten": (1, "fs.writeFileSync(__filename, '')\n"),
    "through fs.promises and path.join": (
        1, "await fsp.writeFile(path.join(root, 'src', 'validate.ts'), x)\n"),
    "a copy onto a module": (1, "fs.copyFileSync('saved.txt', 'src/a.mjs')\n"),
    "a module found by require.resolve": (1, "fs.writeFileSync(require.resolve('../src/a'), x)\n"),
    "a name bound to a module's path": (
        2, "const target = path.join(__dirname, '..', 'src', 'rules.ts');\n"
           "fs.writeFileSync(target, x)\n"),
    "a command that copies onto a module": (1, "execSync('cp saved.txt src/rules.js')\n"),
    "a helper function the file defines": (
        4, "function put(p, text) {\n  fs.writeFileSync(p, text);\n}\nput('src/rules.js', 'x');\n"),
    "an arrow helper that writes its second parameter": (
        2, "const save = (text, file) => fs.writeFileSync(file, text);\nsave('x', 'src/a.ts');\n"),
    "git putting a module back through spawnSync": (
        1, "spawnSync('git', ['checkout', '--', 'src/rules.js'])\n"),
    "a redirection in a template command": (1, "exec(`cat evil > src/rules.ts`)\n"),
    "a temporary folder climbed out of": (
        1, "fs.writeFileSync(path.join(os.tmpdir(), '../../src/mod.js'), s)\n"),
}
JS_REACHES.update({name: (source, "source-rewrite", line)
                   for name, (line, source) in JS_SCRIPT_WRITES.items()})
#: Writes that are not reach: a script copied out, data written, a module written into a
#: test's temporary folder, a list of names written.
ORDINARY_JS_WRITES = (
    "fs.copyFileSync('src/a.js', 'out/a.txt');\nfs.writeFileSync('out/report.txt', s);\n"
    "fs.writeFileSync(path.join(os.tmpdir(), 'case', 'mod.js'), s);\n"
    "fs.writeFileSync(path.join(fs.mkdtempSync('x-'), 'index.ts'), s);\n"
    "fs.writeFileSync('out/list.txt', names.join(', ') + ' a.js');\n"
    "const text = fs.readFileSync('src/a.js', 'utf8');\n"
    "fs.writeFileSync('out/paths.txt', require.resolve('x'));\n"
    "const scratch = path.join(os.tmpdir(), 'case', 'a.js');\nfs.writeFileSync(scratch, s);\n"
    "const source = 'src/a.js';\nfs.writeFileSync('out/b.txt', fs.readFileSync(source));\n"
    "function put(p, text) {\n  fs.writeFileSync(p, text);\n}\nput('out/data.txt', 'rules.js');\n"
    "function show(p) {\n  console.log(fs.readFileSync(p, 'utf8'));\n}\nshow('src/rules.js');\n"
    "execSync('node scripts/build.js 2>&1');\nspawnSync('npx', ['tsc', '-p', 'tsconfig.json']);\n"
)
ORDINARY_JS = (
    "import { describe, it, expect, vi } from 'vitest';\nimport { add } from '../src/add';\n"
    "// process.exit is not called here\n/* eval( in a comment */\n"
    "describe('add', () => {\n  it('adds', () => {\n    const spy = vi.fn();\n"
    "    expect(add(1, 2)).toBe(3);\n  });\n});\nconst url = 'https://example.com/x';\n"
)


@pytest.mark.parametrize("name", list(JS_REACHES))
def test_each_javascript_reach_is_found(name: str) -> None:
    source, rule, line = JS_REACHES[name]
    found = read_javascript("src/x.test.ts", source)
    assert (line, rule) in {(f.line, f.rule) for f in found}, found


@pytest.mark.parametrize("text", [
    "writeFile(" * 5000 + "'a'" + ")" * 5000,
    "function put(p) {\n  fs.writeFileSync(p, 'x');\n}\n" + "put('out/x.txt');\n" * 3000,
    "exec`" * 3000,
])
def test_a_javascript_file_built_to_make_the_reading_slow_is_named(text: str) -> None:
    """Past 2,000 writing calls, commands or helper calls in one file the rest are not read,
    and the file is named for it: never taken for clean."""
    found = [f.reached for f in read_javascript("src/x.js", text)]
    assert any("the rest not read" in r for r in found), found


def test_ordinary_javascript_is_clean() -> None:
    assert read_javascript("src/add.test.ts", ORDINARY_JS) == ()
    assert read_javascript("src/globals.test.js", "import { jest } from '@jest/globals'\n") == ()
    assert read_javascript("src/build.test.js", ORDINARY_JS_WRITES) == ()


@pytest.mark.parametrize(("path", "rule"), [
    ("pytest/__init__.py", "shadow-module"), ("_pytest/runner.py", None),
    ("_pytest/__init__.py", "shadow-module"), ("json.py", "shadow-module"),
    ("pluggy.py", "shadow-module"), ("src/json.py", None), ("test/__init__.py", None),
    ("app/__init__.py", None), ("lib/zz_hook.pth", "site-packages"),
    ("sitecustomize.py", "site-packages"), ("src/usercustomize.py", "site-packages"),
    ("src/sitecustomize/__init__.py", "site-packages"), ("src/app/site_config.py", None),
    ("gate/__init__.py", "shadow-module"), ("src/logic/gate.py", None),
])
def test_a_path_alone_can_reach(path: str, rule: str | None) -> None:
    assert [f.rule for f in path_findings(path)] == ([rule] if rule else [])


def _fetch(files: dict[str, bytes]) -> Callable[[str], bytes]:
    def fetch(path: str) -> bytes:
        if path not in files:
            raise UnreadableFile("not at the head commit")
        return files[path]
    return fetch


def test_a_writing_helper_of_another_module_of_the_change_is_followed() -> None:
    """The helper is ordinary in its own file and the call is ordinary in its own; together
    they rewrite a module. The same helper handed a data file stays clean."""
    helper = b"def put(path, text):\n    with open(path, 'w') as f:\n        f.write(text)\n"
    files = {
        "src/app/util.py": helper,
        "tests/test_x.py": b"from app.util import put\n\ndef test_x():\n"
                           b"    put('src/app/rules.py', 'LIMIT = 0')\n",
        "tests/test_y.py": b"import app.util\n\ndef test_y():\n"
                           b"    app.util.put(path='src/app/rules.py', text='')\n",
        "tests/test_ok.py": b"from app.util import put\n\ndef test_ok():\n"
                            b"    put('out/data.txt', 'rules.py')\n",
    }
    reading = read_change("test", list(files), _fetch(files))
    assert [(f.path, f.line, f.rule) for f in reading.findings] == [
        ("tests/test_x.py", 4, "source-rewrite"), ("tests/test_y.py", 4, "source-rewrite")]
    assert "to app.util.put(), which writes it" in reading.findings[0].reached
    alone = read_change("test", ["tests/test_x.py"], _fetch(files))
    assert alone.findings == ()  # the helper is not in this change: not followed (the watch's)


@pytest.mark.parametrize(("importer", "named"), [
    (b"from tests.test_a import test_x\nfrom pathlib import Path\n\ndef test_y():\n"
     b"    test_x(Path('src/app'))\n", True),
    (b"import tests.test_a\n", True),
    (b"from .test_a import test_x\n", True),
    (b"from tests.test_a import *\n", True),
    (b"from tests.test_a import helper\n", False),
])
def test_a_tmp_path_write_is_no_exemption_in_a_function_another_module_imports(
        importer: bytes, named: bool) -> None:
    """`tmp_path` is a temporary folder only where pytest hands it over: a test function
    another module of the change imports can be called there with any path. A control:
    another name of the module imported."""
    files = {"tests/test_a.py": b"def test_x(tmp_path):\n"
                                b"    (tmp_path / 'core.py').write_text('x')\n",
             "tests/test_b.py": importer}
    reading = read_change("test", list(files), _fetch(files))
    found = [(f.path, f.line, f.rule) for f in reading.findings]
    assert found == ([("tests/test_a.py", 2, "source-rewrite")] if named else []), found


def test_a_reading_reads_code_and_records_what_it_could_not_read() -> None:
    files = {"a.py": b"import atexit\n", "b.py": b"def f(:\n", "c.py": b"\xff\xfe",
             "big.py": b"#" * (MAX_FILE_BYTES + 1), "d.js": b"process.exit(1)\n",
             "notes.md": b"import atexit\n"}
    reading = read_change("test", [*files, "gone.py"], _fetch(files))
    assert {(f.path, f.rule) for f in reading.findings} == {
        ("a.py", "process-exit"), ("d.js", "process-exit")}
    unread = {u.path: u.problem for u in reading.unread}
    assert set(unread) == {"b.py", "c.py", "big.py", "gone.py"}
    assert unread["b.py"].startswith("does not parse as Python at line 1")
    assert "not UTF-8" in unread["c.py"]
    assert "over the limit of 1048576 bytes a file" in unread["big.py"]
    assert not reading.complete
    assert reading.files_read == 7  # notes.md is read for `>>>` examples only: it has none


def test_past_the_file_limit_the_reading_is_incomplete() -> None:
    files = {f"m{n:04}.py": b"x = 1\n" for n in range(MAX_FILES + 2)}
    reading = read_change("test", files, _fetch(files))
    assert reading.files_read == MAX_FILES
    assert [u.path for u in reading.unread] == ["m1000.py", "m1001.py"]
    assert reading.unread[0].problem == "over the reading's limit of 1000 files"


def test_the_policy_allows_named_places_and_the_note_says_so() -> None:
    trust = parse_trust_policy({"evidence_chain": {"allow_reach": [
        {"path": "src/app/*.py", "rule": "process-exit"}]}}, "policy.yaml")
    assert trust.allow_reach == (ReachAllowance("src/app/*.py", "process-exit"),)
    files = {"src/app/cleanup.py": b"import atexit\n", "tests/test_x.py": b"import atexit\n"}
    reading = read_change("git diff", files, _fetch(files))
    allowed = [f for f in reading.findings if trust.allow_reach[0].allows(f)]
    assert [f.path for f in allowed] == ["src/app/cleanup.py"]
    note = reading_note(reading, trust)
    assert "2 files read, 2 places reaching into the test run" in note
    assert "1 of them allowed by the owner's evidence_chain.allow_reach:" \
           " src/app/cleanup.py:1 atexit (process-exit)" in note


@pytest.mark.parametrize(("entry", "words"), [
    ({"path": "a.py"}, "exactly `path` (a glob) and `rule`"),
    ({"path": "a.py", "rule": "exit"}, "'exit' is not a rule of the change reading"),
    ({"path": "", "rule": "process-exit"}, "exactly `path`"),
    ("a.py", "exactly `path`"),
])
def test_a_malformed_allowance_is_invalid_input(entry: object, words: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(words)):
        parse_trust_policy({"evidence_chain": {"allow_reach": [entry]}}, "policy.yaml")
