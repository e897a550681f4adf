"""Which dotted names reach the test machinery or the process: the tables the change reading
(`gate/evidence/reach_python.py`) classifies every resolved name and folded string against.

A name is judged by what it *is* once aliases are resolved (`import _pytest.runner as r;
r.TestReport` is `_pytest.runner.TestReport`), and whether it is read, or written for good,
or written through a fixture that undoes the write after the test (`monkeypatch`, `mock.patch`).
Ordinary code (logging, dataclasses, typing, plain imports, `monkeypatch` of the code under
test) names nothing here.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from enum import Enum

#: Packages whose code is the test run's own machinery: the gate's own (`gate`) is the plugin
#: that writes the record and watches the run, every module of it (its audit listener, item
#: check and namespace watch as much as its JUnit reader), and a package of that name in the
#: change shadows it.
FRAMEWORK_ROOTS = frozenset({"_pytest", "pluggy", "xdist", "py", "gate"})
#: `pytest.<name>` that is the runner's internals rather than the test-writing API.
PYTEST_INTERNALS = frozenset({
    "TestReport", "CollectReport", "CallInfo", "hookimpl", "hookspec", "exit", "main",
    "PytestPluginManager", "Session", "Config", "Item", "Collector", "Package", "Module",
    "Function", "Class", "console_main",
})
UNITTEST_INTERNALS = frozenset({
    "unittest.result", "unittest.runner", "unittest.TestResult", "unittest.TextTestResult",
    "unittest.TextTestRunner", "unittest.case._Outcome", "unittest.suite",
})
IMPORT_SYSTEM = frozenset({
    "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache", "importlib.abc",
    "importlib.machinery.SourceFileLoader", "importlib.machinery.SourcelessFileLoader",
    "importlib.machinery.FileFinder", "importlib.machinery.PathFinder",
    "importlib.util.spec_from_file_location",
    "importlib.util.spec_from_loader", "importlib.util.module_from_spec",
    "sys.modules",
})
INTERPRETER_HOOKS = frozenset({
    "sys.settrace", "sys.setprofile", "sys.addaudithook", "sys.monitoring", "sys.excepthook",
    "sys.unraisablehook", "sys.breakpointhook", "threading.settrace", "threading.setprofile",
    "threading.settrace_all_threads", "threading.setprofile_all_threads", "threading.excepthook",
})
PROCESS = frozenset({
    "atexit", "os._exit", "os.kill", "os.killpg", "os.abort", "os.fork", "os.forkpty",
    "os.setsid", "os.daemon", "signal.signal", "signal.setitimer", "signal.alarm",
    "signal.pthread_kill", "signal.raise_signal", "signal.siginterrupt", "os.register_at_fork",
    "multiprocessing.util.Finalize", "weakref.finalize", "pty.fork",
    # the private registrars of the same: run at shutdown, after the report is written
    "threading._register_atexit", "multiprocessing.util._exit_function",
    "concurrent.futures.thread._python_exit", "sys.remote_exec",
})
PROCESS_PREFIXES = ("os.exec", "os.spawn", "os.posix_spawn")
NATIVE = frozenset({"ctypes", "_ctypes", "cffi"})
OBFUSCATION = frozenset({
    "marshal", "types.CodeType", "types.FunctionType", "gc.get_referrers",
    "gc.get_referents", "gc.get_objects", "builtins.exec", "builtins.eval",
    "code.InteractiveInterpreter", "runpy", "zipimport",
})
SITE = frozenset({
    "site.getsitepackages", "site.getusersitepackages", "site.addsitedir", "site.USER_SITE",
    "site.ENABLE_USER_SITE", "sysconfig.get_paths", "sysconfig.get_path",
    "distutils.sysconfig.get_python_lib", "site.PREFIXES",
})
#: Writes here are ordinary (captured output, arguments, environment for a subprocess).
ORDINARY_WRITES = frozenset({
    "sys.argv", "sys.stdin", "sys.stdout", "sys.stderr", "sys.dont_write_bytecode",
    "sys.tracebacklimit", "os.environ",
})
#: Attribute names that reach a namespace whatever object they are on; reading one is
#: ordinary (`frame.f_globals.get("__name__")`), writing through it is not.
NAMESPACE_ATTRIBUTES = frozenset({"f_locals", "f_globals", "f_builtins", "__globals__",
                                  "__builtins__"})
#: Attribute names that are the machinery whatever they are reached through (an alias the
#: bindings pass cannot follow, `(sys if x else sys).meta_path`, still names them).
TELLING_ATTRIBUTES: dict[str, str] = {
    "meta_path": "import-system", "path_hooks": "import-system",
    "path_importer_cache": "import-system", "TestReport": "test-machinery",
    "CollectReport": "test-machinery", "pluginmanager": "test-machinery",
    "_exit": "process-exit", "settrace": "interpreter-hook", "setprofile": "interpreter-hook",
    "__subclasses__": "obfuscation", "xmlpath": "results-path",
    "invocation_params": "results-path",
}
#: The names pytest's hooks start with: a function or attribute of one of these names is
#: a hook implementation or a call through `config.hook` (`pytest_args` is not).
HOOK_PREFIXES = (
    "pytest_runtest", "pytest_report", "pytest_collect", "pytest_session", "pytest_terminal",
    "pytest_make", "pytest_pyfunc", "pytest_configure", "pytest_unconfigure", "pytest_plugin",
    "pytest_load", "pytest_cmdline", "pytest_addhooks", "pytest_itemcollected",
    "pytest_deselected", "pytest_exception", "pytest_internalerror", "pytest_keyboard",
    "pytest_warning", "pytest_assertrepr", "pytest_assertion", "pytest_fixture",
    "pytest_generate", "pytest_ignore", "pytest_markeval", "pytest_enter_pdb",
    "pytest_leave_pdb", "pytest_addoption", "pytest_pycollect", "pytest_xdist",
    "pytest_handlecrashitem", "pytest_testnodedown", "pytest_testnodeready",
)
#: Substrings of a (folded) string constant that name the machinery, whatever uses them.
TELLING_STRINGS: tuple[tuple[str, str], ...] = (
    ("_pytest", "test-machinery"), ("pytest_runtest", "test-machinery"),
    ("testreport", "test-machinery"), ("pytest11", "test-machinery"),
    ("meta_path", "import-system"), ("path_hooks", "import-system"),
    ("__builtins__", "builtins"), ("site-packages", "site-packages"),
    ("dist-packages", "site-packages"), ("junit", "results-path"),
    ("claim-gate", "results-path"), ("claim_gate", "results-path"),
    ("x-junit-report", "results-path"), ("claim-evidence", "results-path"),
    ("xmlpath", "results-path"), ("<testsuite", "results-path"), ("<testcase", "results-path"),
    ('failures="', "results-path"), ('errors="', "results-path"),
    ("/proc/self/cmdline", "results-path"), ("/proc/self/mem", "native-code"),
    ("pytestconfig", "test-machinery"),
    # the CI job's own files: what is written there shapes the job's later steps (its
    # environment, its PATH), and so what they upload
    ("github_env", "results-path"), ("github_path", "results-path"),
    ("github_output", "results-path"), ("bash_env", "results-path"),
)
#: A file name a test report is written under (`report.xml`, `test-results.xml`,
#: `xunit.xml`): JUnit is XML, and the CI command names its path, which the agent can read.
#: Judged where a file is written or a command run, never where one is only read.
REPORT_NAME = re.compile(
    r"(?:^|[/\\\s=])[\w.-]*(?:result|report|junit|xunit|surefire|pytest)[\w.-]*\.xml\b")
#: Modules a star import of binds names that reach in (`from os import *; _exit(0)`): the
#: names cannot be resolved, so the import itself is the finding.
STAR_GUARDED = frozenset({"sys", "os", "signal", "builtins", "importlib", "gc", "atexit",
                          "ctypes", "types", "threading", "site", "sysconfig", "marshal",
                          "inspect", "posix", "nt", "_thread", "pty", "weakref", "operator"})
STDLIB = frozenset(sys.stdlib_module_names)


class Access(Enum):
    READ = "read"
    WRITE = "write"  # for good: assignment, setattr, del
    FIXTURE = "fixture"  # through monkeypatch / mock.patch: undone after the test


@dataclass(frozen=True)
class Reach:
    rule: str
    reached: str


def _framework(dotted: str) -> bool:
    root = dotted.split(".", 1)[0]
    return root in FRAMEWORK_ROOTS


def _pytest_internal(dotted: str, access: Access) -> bool:
    parts = dotted.split(".")
    if parts[0] != "pytest" or len(parts) < 2:
        return False
    return access is not Access.READ or parts[1] in PYTEST_INTERNALS


def _within(dotted: str, names: frozenset[str]) -> bool:
    return any(dotted == name or dotted.startswith(name + ".") for name in names)


def classify(dotted: str, access: Access) -> Reach | None:
    """What a resolved name reaches, or None for ordinary code."""
    if _framework(dotted) or _pytest_internal(dotted, access) \
            or _within(dotted, UNITTEST_INTERNALS):
        return Reach("test-machinery", dotted)
    if dotted == "sys.modules" or dotted.startswith("sys.modules."):
        return None  # judged by what is written into it (reach_python._modules_write)
    if _within(dotted, IMPORT_SYSTEM):
        return Reach("import-system", dotted)
    if _within(dotted, INTERPRETER_HOOKS):
        return Reach("interpreter-hook", dotted)
    if _within(dotted, PROCESS) or dotted.startswith(PROCESS_PREFIXES):
        return Reach("process-exit", dotted)
    if _within(dotted, NATIVE):
        return Reach("native-code", dotted)
    if _within(dotted, OBFUSCATION):
        return Reach("obfuscation", dotted)
    if _within(dotted, SITE):
        return Reach("site-packages", dotted)
    return _written(dotted, access)


def _written(dotted: str, access: Access) -> Reach | None:
    if access is Access.READ or "." not in dotted:
        return None
    if access is Access.FIXTURE and dotted.startswith(REPORT_WRITER_LIBRARIES):
        return Reach("results-path", f"{dotted} (the JUnit writer's XML library)")
    if dotted.startswith("builtins."):
        return None if access is Access.FIXTURE else Reach("builtins", dotted)
    if access is Access.WRITE and dotted.split(".", 1)[0] in STDLIB \
            and not _within(dotted, ORDINARY_WRITES):
        return Reach("stdlib-patch", dotted)
    return None


def telling(text: str) -> Reach | None:
    """A string constant that names the machinery (`getattr(sys, "meta" + "_path")` folds to
    one), or a `.pth` file name: a start-up hook in site-packages."""
    lowered = text.lower()
    for needle, rule in TELLING_STRINGS:
        if needle in lowered:
            return Reach(rule, repr(text) if len(text) <= 60 else repr(text[:57] + "..."))
    if lowered.endswith(".pth"):
        return Reach("site-packages", repr(text))
    return None


#: The library pytest's JUnit writer builds the report with while the tests run: patched
#: even through a fixture (undone after the test), it writes that test's own report.
REPORT_WRITER_LIBRARIES = ("xml.etree", "xml.dom", "xml.sax")


def module_key_reaches(key: str, access: Access = Access.WRITE) -> Reach | None:
    """A `sys.modules` entry written under `key`: the framework's modules are the run's own
    whoever writes them, the standard library's unless through a fixture that undoes it
    (`monkeypatch.setitem(sys.modules, "ctypes", None)`); a project faking an optional
    dependency is ordinary."""
    root = key.split(".", 1)[0]
    if _framework(key) or root == "pytest" or (root in STDLIB and access is not Access.FIXTURE):
        return Reach("import-system", f"sys.modules[{key!r}]")
    return None
