"""Read one Python file of the change for reach into the test machinery or the process.

Text in, findings out (no I/O): the file is parsed with `ast`, never imported or run. Names
are resolved through every alias first (`gate/evidence/reach_fold.py`), then each import,
attribute, subscript, call and string constant is held against the tables in
`gate/evidence/reach_names.py`. A test file is read like any other (a new test module is code
that runs in the session); what a test may do is decided by *how* it writes: through the
`monkeypatch` fixture or `mock.patch` (undone after the test) a write to the code under test,
to builtins or to the standard library is ordinary, while the test machinery, the import
system and the process are reached whichever way they are written.
"""

from __future__ import annotations

import ast
import doctest
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from gate.claim.change_facts import ReachFinding
from gate.evidence.reach_file_writes import FileWrites, Places, module_names
from gate.evidence.reach_fold import Bindings, bindings_of
from gate.evidence.reach_names import (
    HOOK_PREFIXES,
    NAMESPACE_ATTRIBUTES,
    REPORT_NAME,
    STAR_GUARDED,
    STDLIB,
    TELLING_ATTRIBUTES,
    Access,
    Reach,
    classify,
    module_key_reaches,
    telling,
)
from gate.evidence.reach_writes import TempRoots, command_writes_code

#: Modules whose namespace read by a computed name is a way to reach the machinery.
_GUARDED_MODULES = frozenset({"sys", "builtins", "importlib", "os", "gc", "atexit", "signal",
                              "pytest", "unittest", "ctypes", "types"})
_ATTRIBUTE_BUILTINS = frozenset({"builtins.getattr", "builtins.setattr", "builtins.delattr",
                                 "builtins.hasattr"})
_FIXTURE_NAMES = frozenset({"monkeypatch", "mocker"})
_PATCHERS = frozenset({"setattr", "delattr", "setitem", "delitem", "object", "dict", "patch",
                       "multiple"})
_MOCK_ROOTS = ("unittest.mock.", "mock.")
_MODULES_METHODS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__",
                              "__delitem__"})
_READERS = frozenset({f"builtins.{name}" for name in (
    "list", "tuple", "set", "frozenset", "sorted", "len", "iter", "dict", "enumerate",
    "reversed", "any", "all", "isinstance", "id", "repr", "str", "print", "hasattr", "type")})
#: A frame's tracing attributes: a trace function of its own (it runs where any tracer is on,
#: one of the standard library's or a coverage tool's written in Python) and the line it is
#: at, which a tracer may set to jump.
FRAME_TRACING = frozenset({"f_trace", "f_lineno", "f_trace_lines", "f_trace_opcodes"})
#: Calls that run a command: what the command names is judged like a write (`sed -i` on the
#: report, `cp fake.xml report.xml`), and a child put in a session of its own outlives the run.
_COMMANDS = frozenset({"subprocess.run", "subprocess.call", "subprocess.check_call",
                       "subprocess.check_output", "subprocess.Popen", "subprocess.getoutput",
                       "subprocess.getstatusoutput", "os.system", "os.popen",
                       "asyncio.create_subprocess_exec", "asyncio.create_subprocess_shell"})
#: Calls that find files by their kind: the report found at run time without naming it.
_SEARCHES = frozenset({"glob", "iglob", "rglob", "endswith", "fnmatch", "fnmatchcase", "filter"})
_DETACHED = re.compile(r"(?:^|[\s;&|(])(?:nohup|setsid|disown|daemonize)\b|&\s*$")
#: Deserialisers that run code named by the bytes they are given.
_PROC_FILE = re.compile(r"/proc/[^/]+/(?:mem|cmdline)\b")
_UNPICKLERS = frozenset({"pickle.loads", "pickle.load", "_pickle.loads", "_pickle.load",
                         "pickle.Unpickler", "dill.loads", "cloudpickle.loads"})
#: The pytest objects a test or fixture is handed (`request`, `pytestconfig`) and the parts of
#: them that are the run's own state: a write there (`request.session.testsfailed = 0`,
#: `pytestconfig.option.xmlpath = p`, `pytestconfig.stash[k] = v`) changes the run itself.
_RUN_OBJECTS = frozenset({"request", "pytestconfig"})
_RUN_PARTS = frozenset({"config", "session", "_pyfuncitem", "option", "stash", "_store",
                        "pluginmanager", "hook", "ihook", "_fixturemanager", "node"})
#: Attributes that lead into another frame, where pytest's own objects are locals
#: (`sys._getframe(3).f_locals["report"].outcome = "passed"`).
_FRAME_PARTS = frozenset({"f_locals", "f_globals", "f_back", "tb_frame", "gi_frame",
                          "cr_frame", "ag_frame", "f_builtins"})


def read_python(path: str, text: str | Prepared,
                imported: Mapping[str, Places] | None = None,
                elsewhere: frozenset[str] = frozenset()) -> tuple[ReachFinding, ...]:
    """Every reach in one file (its text, or what `prepare` made of it); SyntaxError when it
    does not parse (the caller records the file as unread: a file the gate cannot read is
    never a file with nothing in it). `imported`: the writing helpers of the change's other
    modules (`writing_helpers`); `elsewhere`: this module's names they import
    (`imported_names`)."""
    prepared = prepare(path, text) if isinstance(text, str) else text
    return _read_tree(path, prepared.tree, None, imported=imported, prepared=prepared,
                      elsewhere=elsewhere)


def imported_names(path: str, prepared: Prepared) -> set[str]:
    """The dotted names one module imports (`from tests.test_a import test_x`:
    `tests.test_a.test_x`; `import tests.test_a`: `tests.test_a`; a star import:
    `tests.test_a.*`), relative imports resolved against the module's own package."""
    package = path.split("/")[:-1]
    found: set[str] = set()
    for node in prepared.parents:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                base = ".".join([*kept, *([node.module] if node.module else [])])
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


@dataclass(frozen=True)
class Prepared:
    """One module parsed, its names bound and each node's parent found: made once for both
    of the change's passes over it (its writing helpers, then its reading)."""

    tree: ast.Module
    names: Bindings
    parents: dict[ast.AST, ast.AST]
    #: Its binding statements (`_BINDERS`), gathered in the same walk as the parents.
    binders: tuple[ast.AST, ...]


def prepare(path: str, text: str) -> Prepared:
    """Parse one module and walk it once; SyntaxError as `read_python`."""
    tree = ast.parse(text, filename=path)
    parents, binders = _structure(tree)
    return Prepared(tree, bindings_of(tree), parents, binders)


def writing_helpers(path: str, prepared: Prepared) -> dict[str, Places]:
    """The functions of one module that write a path built of what they are handed, by every
    dotted name they may be imported as (`app.util.put`)."""
    writes = FileWrites(prepared.names, None, prepared.parents)
    writes.bind_helpers()
    return {f"{module}.{name}": places for module in module_names(path)
            for name, places in writes.helpers.items()}


_BINDERS = (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.comprehension)
#: Code read inside code (a doctest in a docstring, a decoded blob) is read this deep at most:
#: text that decodes to itself again cannot keep the reading going.
_MAX_NESTING = 4


def _structure(tree: ast.AST) -> tuple[dict[ast.AST, ast.AST], tuple[ast.AST, ...]]:
    """Each node's parent, and every binding statement, in one walk."""
    parents: dict[ast.AST, ast.AST] = {}
    binders: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        parent = stack.pop()
        if isinstance(parent, _BINDERS):
            binders.append(parent)
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
            stack.append(child)
    return parents, tuple(binders)


def _read_tree(path: str, tree: ast.Module, outer: Bindings | None, depth: int = 0,
               imported: Mapping[str, Places] | None = None,
               prepared: Prepared | None = None,
               elsewhere: frozenset[str] = frozenset()) -> tuple[ReachFinding, ...]:
    if prepared is None:
        names = bindings_of(tree)
        if outer is not None:  # a doctest runs with its module's globals
            for alias, dotted in outer.aliases.items():
                names.aliases.setdefault(alias, dotted)
            for name, value in outer.strings.items():
                names.strings.setdefault(name, value)
        parents, binders = _structure(tree)
    else:
        names, parents, binders = prepared.names, prepared.parents, prepared.binders
    reader = _Reader(path, names, lambda: TempRoots(tree, names, elsewhere), depth, imported,
                     parents)
    reader.writes.bind(list(binders))
    reader.bind_taken_modules(list(binders))
    reader.visit(tree)
    return tuple(reader.findings.values())


def read_doctests(path: str, text: str, first_line: int = 1,
                  outer: Bindings | None = None, depth: int = 0) -> tuple[ReachFinding, ...]:
    """The `>>>` examples in a text (a `test*.txt` pytest collects by default, a `.rst` or
    `.md` collected under `--doctest-glob`, a docstring under `--doctest-modules`), read as the
    Python they are, each at its own line. An example that does not parse runs nothing but its
    own failure, so it is passed over."""
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:  # inconsistent indentation: doctest fails the whole text
        return ()
    lines: list[str] = []
    for example in examples:
        at = first_line - 1 + example.lineno
        source = example.source.splitlines() or [""]
        try:
            ast.parse(example.source)
        except (SyntaxError, ValueError):
            continue
        lines += [""] * max(0, at - len(lines))
        lines[at:at + len(source)] = source
    if not lines:
        return ()
    try:
        tree = ast.parse("\n".join(lines) + "\n", filename=path)
    except (SyntaxError, ValueError):  # two examples sharing a line: read each alone
        found: list[ReachFinding] = []
        for example in examples:
            padded = "\n" * (first_line - 1 + example.lineno) + example.source
            try:
                found += _read_tree(path, ast.parse(padded, filename=path), outer, depth)
            except (SyntaxError, ValueError):
                continue
        return tuple(found)
    return _read_tree(path, tree, outer, depth)


class _Reader(ast.NodeVisitor):
    def __init__(self, path: str, bindings: Bindings, temp: Callable[[], TempRoots],
                 depth: int = 0,
                 imported: Mapping[str, Places] | None = None,
                 parents: dict[ast.AST, ast.AST] | None = None) -> None:
        self.path = path
        self.depth = depth
        self.names = bindings
        self.findings: dict[tuple[int, str], ReachFinding] = {}
        self.params: list[frozenset[str]] = []
        self.parents: dict[ast.AST, ast.AST] = {} if parents is None else parents
        #: What the module's file writes reach (`reach_file_writes`).
        self.writes = FileWrites(bindings, temp, self.parents, imported)
        #: Names bound to a module taken out of `sys.modules` by a computed name, or to a
        #: frame's or function's namespace (`ns = frame.f_globals`): a write through them.
        self.taken: set[str] = set()
        self.namespaces: set[str] = set()
        #: Names bound to an object of another frame, and to a part of the run's state.
        self.framed: set[str] = set()
        self.run_aliases: dict[str, str] = {}

    def add(self, node: ast.AST, reach: Reach | None) -> None:
        if reach is not None:
            line = getattr(node, "lineno", 0)
            self.findings.setdefault((line, reach.rule),
                                     ReachFinding(self.path, line, reach.rule, reach.reached))

    # -- statements ------------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.add(node, classify(alias.name, Access.READ))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return  # the project's own modules
        self.add(node, classify(node.module, Access.READ))
        for alias in node.names:
            if alias.name == "*" and node.module.split(".")[0] in STAR_GUARDED:
                self.add(node, Reach("obfuscation", f"from {node.module} import * (its names"
                                                    " are used unseen)"))
            elif alias.name != "*":
                self.add(node, classify(f"{node.module}.{alias.name}", Access.READ))

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name.startswith(HOOK_PREFIXES):
            self.add(node, Reach("test-machinery", f"the pytest hook {node.name}()"))
        arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        self.params.append(frozenset(a.arg for a in arguments))
        self.generic_visit(node)
        self.params.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815 - the name ast.NodeVisitor calls

    def visit_Expr(self, node: ast.Expr) -> None:
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            self.generic_visit(node)  # a bare string is a docstring: prose, not code...
            return
        if ">>>" in node.value.value:  # ...but its examples run under --doctest-modules
            for found in self._doctests(node.value.value, node.lineno):
                self.findings.setdefault((found.line, found.rule), found)

    # -- expressions -----------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        if node.id == "__builtins__":
            self.add(node, Reach("builtins", "__builtins__"))
        elif node.id == "pytest_plugins" and isinstance(node.ctx, ast.Store):
            self.add(node, Reach("test-machinery", "pytest_plugins (loads plugins)"))
        dotted = self.names.resolve(node)
        if dotted is not None:  # binding a name is never a write to what it was bound to
            self.add(node, classify(dotted, Access.READ))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        access = _access(node.ctx)
        if access is Access.WRITE and _root_name(node) in self.names.shadowed:
            access = Access.READ  # `io = StringIO(); io.read = f` is not a write to io
        dotted = self.names.resolve(node)
        if dotted is not None:
            self.add(node, classify(dotted, access))
        self.add(node, self._attribute_name(node, access))
        if access is Access.WRITE:
            self.add(node, self._written_object(node.value))
        self.generic_visit(node)

    def _written_object(self, target: ast.AST) -> Reach | None:
        """A write to an object the scan cannot name by itself: a module taken out of
        `sys.modules` by a computed name, an object of another frame, or one of the run's
        own objects a fixture hands."""
        if self._taken(target):
            return Reach("import-system", "a module taken out of sys.modules by a computed"
                                          " name, written")
        if self._from_frame(target):
            return Reach("obfuscation", "an object of another frame written")
        run_part = self._run_object(target)
        if run_part is not None:
            return Reach("test-machinery", f"{run_part} written (the run's own state)")
        return None

    def _taken(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.taken
        if isinstance(node, ast.Subscript):
            key = node.slice
            return self.names.resolve(node.value) == "sys.modules" \
                and self.names.fold(key) is None \
                and not (isinstance(key, ast.Name) and key.id == "__name__")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and node.args:
            key = node.args[0]
            return self.names.resolve(node.func.value) == "sys.modules" \
                and self.names.fold(key) is None \
                and not (isinstance(key, ast.Name) and key.id == "__name__")
        return False

    def _from_frame(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
            if isinstance(node, ast.Attribute) and node.attr in _FRAME_PARTS:
                return True
            node = node.func if isinstance(node, ast.Call) else node.value
        return isinstance(node, ast.Name) and node.id in self.framed

    def _run_object(self, node: ast.AST) -> str | None:
        """`request.session`, `pytestconfig.option`, `request.node.config.stash`: the dotted
        text when `node` is a part of the run's state reached from a fixture parameter, or
        from a name bound to one (`s = request.session`)."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute | ast.Subscript):
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        root = self.run_aliases.get(node.id)
        if root is None and node.id in _RUN_OBJECTS \
                and any(node.id in scope for scope in self.params):
            root = node.id
        if root is None:
            return None
        dotted = ".".join([root, *reversed(parts)])
        if root.startswith("pytestconfig") or _RUN_PARTS & set(dotted.split(".")[1:]):
            return dotted
        return None

    def bind_taken_modules(self, binders: list[ast.AST]) -> None:
        """Names bound to a module taken out of `sys.modules` by a computed name
        (`m = sys.modules[n]`, `for m in sys.modules.values()`), and names bound to a namespace
        (`ns = frame.f_globals`, `g = vars(sys)`)."""
        for node in binders:
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) \
                    and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        if self._taken(node.value):
                            self.taken.add(target.id)
                        if self._namespace(node.value):
                            self.namespaces.add(target.id)
                        if self._from_frame(node.value):
                            self.framed.add(target.id)
                        self._bind_run_alias(target.id, node.value)
            elif isinstance(node, ast.For | ast.comprehension) and _over_modules(
                    node.iter, self.names):
                self.taken |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}

    def _bind_run_alias(self, name: str, value: ast.AST) -> None:
        """`s = request.session`, `cfg = pytestconfig`: the name stands for that part."""
        parts: list[str] = []
        while isinstance(value, ast.Attribute):
            parts.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and (value.id in _RUN_OBJECTS
                                            or value.id in self.run_aliases):
            root = self.run_aliases.get(value.id, value.id)
            self.run_aliases[name] = ".".join([root, *reversed(parts)])

    def _namespace(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Attribute):
            return node.attr in NAMESPACE_ATTRIBUTES or (
                node.attr == "__dict__" and self.names.resolve(node.value) is not None)
        if isinstance(node, ast.Call):
            func = self.names.resolve(node.func)
            return func == "builtins.vars" and bool(node.args) \
                and self.names.resolve(node.args[0]) is not None
        return isinstance(node, ast.Name) and node.id in self.namespaces

    def _attribute_name(self, node: ast.Attribute, access: Access) -> Reach | None:
        if node.attr in NAMESPACE_ATTRIBUTES and self._written_through(node):
            return Reach("obfuscation", f".{node.attr} written")
        if node.attr in TELLING_ATTRIBUTES:
            return Reach(TELLING_ATTRIBUTES[node.attr], f".{node.attr}")
        if node.attr == "__dict__" and self.names.resolve(node.value):
            return Reach("obfuscation", f"{self.names.resolve(node.value)}.__dict__")
        if node.attr.startswith(HOOK_PREFIXES):
            return Reach("test-machinery", f".{node.attr}")
        if node.attr == "__code__" and access is not Access.READ:
            return Reach("obfuscation", "a function's __code__ replaced")
        if node.attr in FRAME_TRACING and access is not Access.READ:
            return Reach("interpreter-hook", f"a frame's {node.attr} written (it steers the"
                                             " frame's lines: a test's assertions skipped)")
        return None

    def _written_through(self, node: ast.AST) -> bool:
        """Whether a namespace is written through this expression: assigned to, stored into
        by subscript, or changed by a method; `.get(...)` and `[...]` reads are ordinary."""
        parent = self.parents.get(node)
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            return True
        while isinstance(parent, ast.IfExp | ast.BoolOp):  # `a.f_globals if a else None`
            node, parent = parent, self.parents.get(parent)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            return not isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return parent.attr in ("update", "setdefault", "__setitem__", "pop", "clear",
                                   "__delitem__", "popitem")
        return not isinstance(parent, ast.Compare | ast.Call | ast.Assign | ast.AnnAssign
                              | ast.Return | ast.keyword)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        base = self.names.resolve(node.value)
        if base == "sys.modules" and not isinstance(node.ctx, ast.Load):
            self.add(node, self._modules_key(node.slice))
        elif _is_globals(node.value) and not isinstance(node.ctx, ast.Load) \
                and self.names.fold(node.slice) is None:
            self.add(node, Reach("obfuscation", "globals()[<computed name>] written"))
        elif not isinstance(node.ctx, ast.Load):
            if isinstance(node.value, ast.Name) and node.value.id in self.namespaces:
                self.add(node, Reach("obfuscation", f"the namespace {node.value.id} written"))
            else:
                self.add(node, self._written_object(node.value))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        text = self.names.fold(node)
        if text is not None:
            self.add(node, telling(text))
        if isinstance(node.value, str) and ">>>" in node.value:  # `__test__`, `f.__doc__ = s`
            for found in self._doctests(node.value, node.lineno):
                self.findings.setdefault((found.line, found.rule), found)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._folded(node)
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._folded(node)
        self.generic_visit(node)

    def _folded(self, node: ast.AST) -> None:
        text = self.names.fold(node)
        if text is None:
            if isinstance(node, ast.JoinedStr | ast.BinOp) \
                    and _PROC_FILE.search(skeleton := self._skeleton(node)):
                self.add(node, Reach("native-code" if "mem" in skeleton else "results-path",
                                     f"{skeleton!r} (the process's own memory or command)"))
            return
        self.add(node, telling(text))
        if isinstance(node, ast.Call):
            self._decoded_code(node, text)

    def _doctests(self, text: str, line: int) -> tuple[ReachFinding, ...]:
        if self.depth >= _MAX_NESTING:
            return ()
        return read_doctests(self.path, text, line, self.names, self.depth + 1)

    def _skeleton(self, node: ast.AST) -> str:
        """A string built at run time with `*` for what is computed (`f"/proc/{pid}/mem"`)."""
        if isinstance(node, ast.JoinedStr):
            return "".join(self._skeleton(v.value if isinstance(v, ast.FormattedValue) else v)
                           for v in node.values)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self._skeleton(node.left) + self._skeleton(node.right)
        text = self.names.fold(node)
        return "*" if text is None else text

    def _decoded_code(self, node: ast.Call, text: str) -> None:
        """Code a call makes from a blob the change carries (base64, zlib, rot13, a reversed
        string): read as the Python it is, each finding at the line of the decoding. A
        single name or constant is not code here (the call's own rules judge a name)."""
        if self.depth >= _MAX_NESTING:
            return
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) \
                and isinstance(tree.body[0].value, ast.Name | ast.Constant | ast.Attribute):
            return
        for found in _read_tree(self.path, tree, self.names, self.depth + 1):
            self.add(node, Reach(found.rule, f"decoded code: {found.reached}"))

    def visit_Call(self, node: ast.Call) -> None:
        for reach in self._call(node):
            self.add(node, reach)
        self._folded(node)
        self.generic_visit(node)

    def _call(self, node: ast.Call) -> Iterator[Reach]:
        func = self.names.resolve(node.func)
        dunder = _dunder_setter(node)
        if func in ("builtins.__import__", "importlib.import_module", "importlib.__import__"):
            yield from self._import_call(node, func)
        elif func in _ATTRIBUTE_BUILTINS:
            yield from self._attribute_call(node.args, func)
        elif dunder is not None:  # object.__setattr__(m, "x", v), m.__setattr__("x", v)
            yield from self._attribute_call(*dunder)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _MODULES_METHODS \
                and isinstance(node.func.value, ast.Name) \
                and node.func.value.id in self.namespaces:
            yield Reach("obfuscation", f"the namespace {node.func.value.id} written")
        elif func in _UNPICKLERS and any(isinstance(n, ast.Constant) and n.value
                                         for a in node.args for n in ast.walk(a)):
            yield Reach("obfuscation", f"{func} of bytes the change carries (it runs code"
                                       " they name)")
        elif func == "builtins.vars" and node.args and self.names.resolve(node.args[0]):
            yield Reach("obfuscation", f"vars({self.names.resolve(node.args[0])})")
        elif isinstance(node.func, ast.Attribute) and _is_globals(node.func.value) \
                and node.func.attr in ("update", "__setitem__", "setdefault"):
            yield Reach("obfuscation", f"globals().{node.func.attr}()")
        elif _patcher(node.func, func):
            yield from self._patch_call(node, func)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in _MODULES_METHODS \
                and self.names.resolve(node.func.value) == "sys.modules":
            yield from self._modules_method(node)
        else:
            yield from self._handed_over(node)
        yield from self.writes.reaches(node, func)
        if func in _COMMANDS:
            yield from self._command(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in _SEARCHES and any(
                (t := self.names.fold(a)) is not None and t.lower().endswith(".xml")
                for a in node.args):
            yield Reach("results-path", "a search for XML files at run time (the report is one)")

    def _command(self, node: ast.Call) -> Iterator[Reach]:
        """A command run from the change: one that names a test report handles it (`sed -i`,
        `cp`), and one started in a session of its own outlives the run."""
        texts = [t for part in ast.walk(node) if isinstance(part, ast.expr)
                 and (t := self.names.fold(part)) is not None]
        named = next((t for t in texts if REPORT_NAME.search(t.lower())), None)
        if named is not None:
            yield Reach("results-path", f"a command that names the report {named[:50]!r}")
        code = command_writes_code(texts)
        if code is not None:
            yield Reach("source-rewrite", f"a command that writes the Python file {code!r}")
        if any(k.arg in ("start_new_session", "process_group") for k in node.keywords) \
                or any(_DETACHED.search(t) for t in texts):
            yield Reach("process-exit", "a child process detached from the run (it outlives"
                                        " the session)")

    def _import_call(self, node: ast.Call, func: str) -> Iterator[Reach]:
        first = node.args[0] if node.args else None
        if isinstance(first, ast.Name) and first.id in self.names.choices:
            for choice in self.names.choices[first.id]:  # for lib in ("a", "b"): import_module
                found = classify(choice, Access.READ)
                yield from (found,) if found else ()
            return
        name = self.names.fold(first) if first is not None else None
        if name is None:
            yield Reach("obfuscation", f"{func.removeprefix('builtins.')}(<computed name>)")
        else:
            found = classify(name, Access.READ)
            if found is not None:
                yield found

    def _attribute_call(self, args: list[ast.expr], func: str) -> Iterator[Reach]:
        if len(args) < 2:
            return
        base, name = self.names.resolve(args[0]), self.names.fold(args[1])
        access = Access.READ if func in ("builtins.getattr", "builtins.hasattr") \
            or _root_name(args[0]) in self.names.shadowed else Access.WRITE
        short = func.removeprefix("builtins.")
        if access is Access.WRITE:
            found = self._written_object(args[0])
            yield from (found,) if found else ()
            if name == "__code__":
                yield Reach("obfuscation", f"a function's __code__ replaced by {short}")
        if name is None:
            guarded = base is not None and (base in _GUARDED_MODULES or (
                access is Access.WRITE and base.split(".")[0] in STDLIB | {"pytest"}))
            if guarded:
                yield Reach("obfuscation", f"{short}({base}, <computed name>)")
            return
        if name in NAMESPACE_ATTRIBUTES:
            yield Reach("obfuscation", f"{short}(..., {name!r})")
        if name in FRAME_TRACING and access is Access.WRITE:
            yield Reach("interpreter-hook", f"{short}(..., {name!r}): a frame's tracing")
        if base is not None:
            found = classify(f"{base}.{name}", access)
            if found is not None:
                yield found

    def _patch_call(self, node: ast.Call, func: str | None) -> Iterator[Reach]:
        access = Access.FIXTURE if self._restored(node.func, func) else Access.WRITE
        if not node.args:
            return
        if _root_name(node.args[0]) in self.names.shadowed:
            access = Access.READ
        first = node.args[0]
        target = self.names.fold(first)
        if target is not None and "." in target:  # monkeypatch.setattr("a.b.c", value)
            found = classify(target, access)
            yield from (found,) if found else ()
            if target == "sys.modules":
                yield from self._mapping_keys(node.args[1:], access)
            return
        base = self.names.resolve(first)
        if base == "sys.modules":
            yield from self._mapping_keys(node.args[1:], access)
            return
        name = self.names.fold(node.args[1]) if len(node.args) > 1 else None
        if base in _GUARDED_MODULES and name is None and len(node.args) > 1:
            yield Reach("obfuscation", f"a patch of {base} by a computed name")
        elif base is not None and name is not None:
            found = classify(f"{base}.{name}", access)
            yield from (found,) if found else ()

    def _restored(self, func_node: ast.AST, func: str | None) -> bool:
        """Through the `monkeypatch` fixture (a parameter of an enclosing function) or
        `mock.patch`: the write is undone after the test."""
        if func is not None and func.startswith(_MOCK_ROOTS):
            return True
        receiver = func_node.value if isinstance(func_node, ast.Attribute) else None
        while isinstance(receiver, ast.Attribute):
            receiver = receiver.value
        if not isinstance(receiver, ast.Name):
            return False
        return receiver.id in self.names.fixtures or (receiver.id in _FIXTURE_NAMES and any(
            receiver.id in scope for scope in self.params))

    def _mapping_keys(self, rest: list[ast.expr],
                      access: Access = Access.WRITE) -> Iterator[Reach]:
        if not rest:
            yield Reach("import-system", "sys.modules written")
            return
        values = rest[0]
        if isinstance(values, ast.Dict):
            keys: list[ast.expr | None] = list(values.keys)
        else:
            keys = [values]
        for key in keys:
            found = Reach("import-system", "sys.modules updated from a computed mapping") \
                if key is None else self._modules_key(key, access)
            if found is not None:
                yield found

    def _modules_method(self, node: ast.Call) -> Iterator[Reach]:
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if attr in ("update",):
            yield from self._mapping_keys(list(node.args))
        elif attr in ("popitem", "clear") or not node.args:
            yield Reach("import-system", f"sys.modules.{attr}()")
        else:
            found = self._modules_key(node.args[0])
            yield from (found,) if found else ()

    def _modules_key(self, key: ast.AST, access: Access = Access.WRITE) -> Reach | None:
        text = self.names.fold(key)
        if text is None:
            if isinstance(key, ast.Name) and key.id == "__name__":
                return None  # a module replacing its own entry (a lazy module)
            prefix = _prefix(key)
            if "." in prefix:  # f"requests.packages.{name}": the package is known
                return module_key_reaches(prefix.split(".", 1)[0], access)
            return Reach("import-system", "sys.modules[<computed name>] written")
        return module_key_reaches(text, access)

    def _handed_over(self, node: ast.Call) -> Iterator[Reach]:
        """`operator.setitem(sys.modules, ...)`, `helper(sys, name)`: the guarded modules
        handed to other code, which can then write them by any name (`list(sys.modules)`
        only reads)."""
        if self.names.resolve(node.func) in _READERS:
            return
        for argument in node.args:
            dotted = self.names.resolve(argument)
            if dotted == "sys.modules":
                yield Reach("import-system", "sys.modules handed to other code")
            elif dotted in _GUARDED_MODULES - {"os", "types", "pytest", "unittest"} \
                    and isinstance(argument, ast.Name):
                yield Reach("obfuscation", f"the module {dotted} handed to other code")

def _dunder_setter(node: ast.Call) -> tuple[list[ast.expr], str] | None:
    """`object.__setattr__(target, name, value)` (through the class: the target comes first)
    or `target.__setattr__(name, value)`, as the arguments of the builtin it stands for."""
    if not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in ("__setattr__", "__delattr__"):
        return None
    builtin = "builtins." + node.func.attr.strip("_")
    unbound = 3 if node.func.attr == "__setattr__" else 2
    if len(node.args) >= unbound:
        return list(node.args), builtin
    return [node.func.value, *node.args], builtin


def _over_modules(node: ast.AST, names: Bindings) -> bool:
    """An iteration over the modules in `sys.modules` (`.values()`, `.items()`, a copy)."""
    while isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("values", "items", "copy"):
            node = node.func.value
        elif node.args:
            node = node.args[0]  # list(...), sorted(...), tuple(...)
        else:
            return False
    return names.resolve(node) == "sys.modules"


def _prefix(node: ast.AST) -> str:
    """The constant start of a string built at run time (`f"pkg.{x}"`, `"pkg." + x`)."""
    if isinstance(node, ast.JoinedStr) and node.values \
            and isinstance(node.values[0], ast.Constant):
        return str(node.values[0].value)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _prefix(node.left)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return ""


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _access(ctx: ast.expr_context) -> Access:
    return Access.READ if isinstance(ctx, ast.Load) else Access.WRITE


def _is_globals(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "globals"


def _patcher(func_node: ast.AST, func: str | None) -> bool:
    if func is not None and func.startswith(_MOCK_ROOTS):
        return func.rsplit(".", 1)[-1] in _PATCHERS
    return isinstance(func_node, ast.Attribute) and func_node.attr in _PATCHERS \
        and func_node.attr != "dict"

