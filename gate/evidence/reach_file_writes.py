"""The reading of one Python module's file writes: which calls write, where to (the
destinations `reach_writes` finds), and what that reaches: a file of Python code or a path
found from a module (`source-rewrite`), pytest's configuration (`test-machinery`), a test
report (`results-path`); not when the write stays inside a temporary folder the test was
handed. The writing calls are path methods, openers, file functions, bytecode writers,
archives and folder copies, and the module's own helpers that write what they are handed
(or those of another module of the change, by the names they are imported as); a command's
words are `reach_python`'s. The reader hands it every call; names bound to such paths and
the helpers are gathered first (`bind`), flow-insensitive like the bindings pass.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping

from gate.evidence.reach_fold import Bindings
from gate.evidence.reach_names import REPORT_NAME, Reach
from gate.evidence.reach_writes import (
    ARCHIVE_WRITERS,
    BYTECODE_WRITERS,
    PATH_METHODS,
    PYTHON_FILE,
    TempRoots,
    destinations,
    module_file_named,
    named_parts,
)

_FILE_WRITERS = frozenset({"write_text", "write_bytes", "unlink", "rename", "replace", "touch",
                           "chmod", "symlink_to", "hardlink_to"})
#: A path naming a test module pytest would collect, or a conftest.
_TEST_MODULE = re.compile(r"(?:^|[/\\])(?:test_\w*|\w+_test|conftest)\.py$")
_PATH_BUILDERS = frozenset({"join", "joinpath", "resolve", "absolute", "with_name",
                            "with_suffix", "expanduser"})
_FILE_FUNCTIONS = frozenset({"os.remove", "os.unlink", "os.rename", "os.replace", "os.open",
                             "os.truncate", "shutil.copy", "shutil.copy2", "shutil.copyfile",
                             "shutil.move", "shutil.rmtree", "os.link", "os.symlink",
                             "shutil.copytree", "os.renames"})
#: A Python file's suffix as a listing is filtered by it.
_PYTHON_SUFFIXES = frozenset({".py", "py", ".pyc", ".pyw"})
#: Calls that copy a whole folder: the files they write may be Python modules.
FOLDER_COPIERS = frozenset({"shutil.copytree", "distutils.dir_util.copy_tree",
                            "setuptools._distutils.dir_util.copy_tree"})
#: The files pytest reads its configuration from (xdist's workers read them again).
TEST_CONFIGURATION = frozenset({"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg",
                                "tox.ini"})
#: Calls that make a new file in a folder they are given (`dir=`), named with a suffix.
_TEMP_FILES = frozenset({"tempfile.NamedTemporaryFile", "tempfile.mkstemp",
                         "tempfile.TemporaryFile", "tempfile.SpooledTemporaryFile"})
#: Calls that make a path from the parts they are handed.
_PATH_CALLS = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath",
                         "pathlib.PurePosixPath", "os.path.join", "os.path.abspath",
                         "os.path.realpath", "os.path.normpath", "os.fspath", "builtins.str"})
_OPENERS = frozenset({"builtins.open", "io.open", "pathlib.Path.open", "codecs.open", "os.fdopen",
                      "io.FileIO", "_io.open", "_io.FileIO"})


#: A writing helper's parameters that it writes: by place, and by name.
Places = tuple[frozenset[int], frozenset[str]]


def module_names(path: str) -> tuple[str, ...]:
    """The dotted names a module at `path` may be imported by (`src/app/util.py`:
    `src.app.util`, `app.util`, `util`; a package's `__init__.py` by the package's)."""
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return tuple(".".join(parts[i:]) for i in range(len(parts)) if parts[i:])


class FileWrites:
    """One module's file writes. `parents` is the reader's map of each node to its parent
    (which functions a write sits in decides which temporary folders it was handed: `temp`
    makes the module's temporary roots); `imported` the writing helpers of the change's
    other modules, by dotted name (`app.util.put`), which a call of an imported name is
    looked up in."""

    def __init__(self, names: Bindings, temp: Callable[[], TempRoots] | None,
                 parents: dict[ast.AST, ast.AST],
                 imported: Mapping[str, Places] | None = None) -> None:
        self.names = names
        self._temp = temp
        self._roots: TempRoots | None = None
        self.parents = parents
        self.imported = imported or {}
        #: Names bound to a path naming a Python file (`p = Path("test_x.py")`).
        self.code_paths: dict[str, str] = {}
        #: The module's functions that write a path they are handed: name -> (the places,
        #: the names of those parameters).
        self.helpers: dict[str, Places] = {}

    def reaches(self, node: ast.Call, func: str | None) -> Iterator[Reach]:
        """What a call of the module reaches by the files it writes."""
        if func in BYTECODE_WRITERS:
            yield Reach("source-rewrite", f"{func} writes bytecode the run may import")
            return
        if (isinstance(node.func, ast.Attribute) and node.func.attr in ARCHIVE_WRITERS) or (
                func == "shutil.unpack_archive"):
            yield from self._archive_write(node, func)
            return
        if func in FOLDER_COPIERS and len(node.args) + len(node.keywords) >= 2:
            target = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg in ("dst", "dest")), None)
            if target is not None and not self._in_temp(target):
                shown = self.names.fold(target) or "<computed>"
                yield Reach("source-rewrite", f"{func} copies a folder into {shown!r} (its"
                                              " files may be Python)")
            return
        if func in ("fileinput.input", "fileinput.FileInput") and any(
                k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                for k in node.keywords) and node.args:
            named = self._code_file_named(node.args[0]) or module_file_named(
                node.args[0], self.names)
            if named:
                yield Reach("source-rewrite", f"rewrites {named!r} in place (fileinput)")
            return
        method = self._computed_method(node)
        if method is not None:  # getattr(Path("x.py"), "write_text")(...)
            node = ast.Call(func=method, args=node.args, keywords=node.keywords)
        if func in _TEMP_FILES and "dir" in {k.arg for k in node.keywords} and any(
                k.arg in ("suffix", "prefix") and (t := self.names.fold(k.value)) is not None
                and PYTHON_FILE.search(t) for k in node.keywords):
            folder = next(k.value for k in node.keywords if k.arg == "dir")
            if not self._in_temp(folder):
                yield Reach("source-rewrite", f"{func} makes a Python file in"
                                              f" {self.names.fold(folder) or '<computed>'!r}")
            return
        helper = self._helper_write(node)
        if helper is not None:
            yield helper
            return
        written = self.written(node, func)
        if written is None:
            return
        found_from = next(filter(None, (module_file_named(w, self.names) for w in written)), None)
        if found_from == "__file__":
            yield Reach("source-rewrite", "writes a file found from __file__")
        elif found_from is not None:
            yield Reach("source-rewrite", f"writes a module's file found from {found_from}")
        elif named := next(filter(None, map(self._code_file_named, written)), None):
            what = "the test module" if _TEST_MODULE.search(named) else "the Python file"
            yield Reach("source-rewrite", f"writes {what} {named!r}")
        elif config := next(filter(None, map(self._config_named, written)), None):
            yield Reach("test-machinery", f"writes the test configuration {config!r} (xdist's"
                                          " workers and every later session read it)")
        elif report := self._report_named(node):
            yield Reach("results-path", f"writes the report {report!r}")

    def written(self, node: ast.Call, func: str | None) -> list[ast.expr] | None:
        """The expressions a plain writing call writes to (a path method, an opener for
        writing, a file function); None when the call writes nothing."""
        writer = func in _FILE_FUNCTIONS or func in PATH_METHODS or (
            isinstance(node.func, ast.Attribute) and node.func.attr in _FILE_WRITERS
            and (node.func.attr not in ("replace", "rename")  # not `str.replace(old, new)`
                 or len(node.args) + len(node.keywords) == 1))
        if func in _OPENERS or (
                isinstance(node.func, ast.Attribute) and node.func.attr == "open"):
            writer = self._write_mode(node)
        return destinations(node, func, _FILE_FUNCTIONS, _OPENERS) if writer else None

    def _helper_write(self, node: ast.Call) -> Reach | None:
        """A call of one of the module's own functions that writes the path it is handed
        (`put("src/app/core.py")` where `def put(path): open(path, "w")...`), with a Python
        file or a module's own file: the write is the helper's, the path the caller's."""
        places = self._helper_places(node.func)
        if places is None:
            return None
        handed = [a for i, a in enumerate(node.args) if i in places[0]]
        handed += [k.value for k in node.keywords if k.arg in places[1]]
        for argument in handed:
            named = self._code_file_named(argument) or module_file_named(argument, self.names)
            if named is not None:
                shown = self.names.resolve(node.func) or ast.unparse(node.func)
                return Reach("source-rewrite", f"hands the Python file {named!r} to"
                                               f" {shown[:60]}(), which writes it")
        return None

    def _helper_places(self, func: ast.expr) -> Places | None:
        """Where a called function writes what it is handed: one of this module's helpers,
        or one another module of the change defines, called by the name it is imported as."""
        if isinstance(func, ast.Name) and func.id in self.helpers:
            return self.helpers[func.id]
        dotted = self.names.resolve(func)
        return self.imported.get(dotted) if dotted is not None else None

    def bind_helpers(self) -> None:
        """The module's functions that write a path built of what they are handed, by the
        places and names of those parameters (`open(os.path.join(folder, name), "w")`: both),
        and those that hand a parameter on to such a function in a place it writes (a helper
        of a helper, to a few levels). The calls and their plain writes are found once; each
        round reads again only what the calls hand to the helpers known so far."""
        functions = [n for n in self.parents
                     if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        if not functions:
            return
        params: dict[ast.AST, dict[str, int]] = {f: _params(f) for f in functions}
        direct: dict[ast.AST, set[str]] = {function: set() for function in functions}
        calls: dict[ast.AST, list[ast.Call]] = {function: [] for function in functions}
        for call in (n for n in self.parents if isinstance(n, ast.Call)):
            around = [f for f in self._functions_around(call) if f in direct]
            targets = (self.written(call, self.names.resolve(call.func)) or []) if around \
                else []
            for function in around:  # a call in a nested function is the outer one's too
                calls[function].append(call)
                for target in targets:
                    direct[function] |= _parameters_in(target, params[function])
        for _ in range(3):  # each round follows one more level of helpers
            before = dict(self.helpers)
            for function in functions:
                self._bind_helper(function, params[function], direct[function],
                                  calls[function])
            if self.helpers == before:
                return

    def _bind_helper(self, function: ast.FunctionDef | ast.AsyncFunctionDef,
                     params: Mapping[str, int], direct: set[str],
                     calls: list[ast.Call]) -> None:
        written = set(direct)
        for call in calls:
            found = self._helper_places(call.func)
            if found is not None:
                places, keywords = found
                for target in (*(a for i, a in enumerate(call.args) if i in places),
                               *(k.value for k in call.keywords if k.arg in keywords)):
                    written |= _parameters_in(target, params)
        if written:
            self.helpers[function.name] = (
                frozenset(params[n] for n in written if params[n] >= 0), frozenset(written))

    def _computed_method(self, node: ast.Call) -> ast.Attribute | None:
        """`getattr(obj, "write_text")` as the called function: the method it names."""
        inner = node.func
        if isinstance(inner, ast.Call) and self.names.resolve(inner.func) == "builtins.getattr" \
                and len(inner.args) >= 2 and (name := self.names.fold(inner.args[1])):
            return ast.Attribute(value=inner.args[0], attr=name, ctx=ast.Load())
        return None

    def _archive_write(self, node: ast.Call, func: str | None) -> Iterator[Reach]:
        """An archive unpacked outside a test's temporary folder (its files may be Python
        modules, written over the repository's); `extractall()` with no folder is the
        current directory. A call on a receiver that is not an archive the module opened
        (`TarFile`, `ZipFile`, `shutil`) still counts: the name is rare elsewhere."""
        keywords = {k.arg: k.value for k in node.keywords}
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        args = node.args if method == "extractall" and func != "shutil.unpack_archive" \
            else node.args[1:]  # extract(member, path), unpack_archive(file, extract_dir)
        target = args[0] if args else keywords.get("extract_dir", keywords.get("path"))
        if target is not None and self._in_temp(target):
            return
        shown = self.names.fold(target) if target is not None else "the current directory"
        yield Reach("source-rewrite", f"unpacks an archive into {shown or '<computed>'!r}"
                                      " (its files may be Python)")

    def _report_named(self, node: ast.Call) -> str | None:
        """A file name a test report is written under, in a write (`Path("out/report.xml")
        .write_text`, `shutil.copy(fake, "results.xml")`, a name bound to such a path)."""
        for part in ast.walk(node):
            if isinstance(part, ast.expr):
                text = self.names.fold(part)
                if text is not None and REPORT_NAME.search(text.lower()):
                    return text[:60]
        return None

    def _code_file_named(self, node: ast.AST, through_names: bool = True) -> str | None:
        """A Python file named in a written path (`Path("tests/test_x.py")`, the target of
        `os.replace(saved, "src/app/core.py")`, `root / f"{name}.py"`, a name bound to one): a
        rewrite of the session's own tests or of code it imports, after or around the tree
        checks, which a path from `__file__` alone would not catch (`reach_writes`). A path
        inside a temporary directory the test was handed names none."""
        return self._named_in(node, PYTHON_FILE.search, self.code_paths if through_names
                              else None)

    def _config_named(self, node: ast.AST) -> str | None:
        """A file of pytest's configuration named in a written path, outside a test's
        temporary folder (tests of build tools write a `pyproject.toml` there)."""
        return self._named_in(
            node, lambda text: re.split(r"[/\\]", text)[-1] in TEST_CONFIGURATION, {})

    def _named_in(self, node: ast.AST, names_it: Callable[[str], object],
                  bound: Mapping[str, str] | None) -> str | None:
        """The first text in a written path, outside a test's temporary folder, that
        `names_it`; a name in `bound` gives what it was bound to (None: names are not
        followed at all, not even to the constants they fold to). The folder is asked about
        only once something is named: most paths name nothing."""
        for part in named_parts(node):
            if isinstance(part, ast.Name) and bound is None:
                continue
            if isinstance(part, ast.Name) and bound and part.id in bound:
                return None if self._in_temp(node) else bound[part.id]
            if isinstance(part, ast.Constant | ast.Name):
                text = self.names.fold(part)
                if text is not None and names_it(text):
                    return None if self._in_temp(node) else text
        return None

    def _in_temp(self, node: ast.AST) -> bool:
        """A path inside a temporary folder the test was handed, where the write sits (none
        without `temp`: the helpers' pass, which names no write, reads none). The module's
        temporary roots are worked out the first time a write needs them."""
        if self._temp is None:
            return False
        if self._roots is None:
            self._roots = self._temp()
        return self._roots.stays_inside(node, self._roots.handed(self._functions_around(node)))

    def _functions_around(self, node: ast.AST) -> list[ast.AST]:
        """The functions and lambdas `node` sits in, outermost first."""
        around: list[ast.AST] = []
        while (node := self.parents.get(node)) is not None:  # type: ignore[assignment]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                around.append(node)
        return around[::-1]

    def bind(self, binders: list[ast.AST]) -> None:
        """Names bound to paths of Python files (below), and helpers that write what they are
        handed (`bind_helpers`)."""
        self.bind_helpers()
        self._bind_paths(binders)

    def _bind_paths(self, binders: list[ast.AST]) -> None:
        """Names bound anywhere to an expression that names a Python file, through names
        bound the same way (flow-insensitive, like the bindings pass): `t = Path("test_x.py")`."""
        assigned = [(target.id, node.value) for node in binders
                    if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
                    for target in (node.targets if isinstance(node, ast.Assign)
                                   else [node.target])
                    if isinstance(target, ast.Name) and _path_like(node.value)]
        for bound in binders:  # `p = importlib.util.find_spec("app.core").origin`
            if isinstance(bound, ast.Assign | ast.AnnAssign) and bound.value is not None and (
                    found := module_file_named(self._unwrapped(bound.value), self.names,
                                               whole=True)):
                holders = bound.targets if isinstance(bound, ast.Assign) else [bound.target]
                for holder in holders:
                    if isinstance(holder, ast.Name):
                        self.code_paths.setdefault(holder.id, f"<a module's file, from {found}>")
        for loop in binders:  # `for p in Path("src").rglob("*.py")`: each p names a module
            if isinstance(loop, ast.For | ast.comprehension) \
                    and (pattern := self._code_search(loop)) is not None:
                for part in ast.walk(loop.target):
                    if isinstance(part, ast.Name):
                        self.code_paths.setdefault(part.id, pattern)
        for _ in range(3):  # a name bound to a name bound to a path settles quickly
            for name, value in assigned:
                # What a call of the module's own makes is a path only from the text it is
                # handed (`p = where("core.py")`), not from every name it is handed
                # (`cmd = sdist(dist)`, whose `dist` was built with a `setup.py` in it).
                through = not isinstance(value, ast.Call) or self._builds_path(value)
                if name not in self.code_paths and (
                        named := self._code_file_named(value, through)):
                    self.code_paths[name] = named

    def _unwrapped(self, node: ast.expr) -> ast.expr:
        """What a path constructor was handed (`Path(m.__file__)` is `m.__file__`); a
        folder of it (`os.path.dirname(__file__)`) is not the module's file."""
        while isinstance(node, ast.Call) and len(node.args) == 1 and self._path_call(node) \
                and self.names.resolve(node.func) != "os.path.join":
            node = node.args[0]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("resolve", "absolute") and not node.args:
            return self._unwrapped(node.func.value)
        return node

    def _code_search(self, loop: ast.For | ast.comprehension) -> str | None:
        """What a loop over found files stands for when it finds Python files: the pattern
        of a search for them (`glob.glob("src/**/*.py")`, `.rglob("*.py")`), or a listing
        (`os.listdir`, `os.scandir`, `os.walk`, `.iterdir()`) that the loop filters by a
        Python suffix (`if f.endswith(".py")`, `p.suffix == ".py"`)."""
        node = loop.iter
        if isinstance(node, ast.ListComp | ast.GeneratorExp | ast.SetComp) and node.generators:
            return self._code_search(node.generators[0])  # `for m in [f for f in ... if ...]`
        if not isinstance(node, ast.Call):
            return None
        name = node.func.attr if isinstance(node.func, ast.Attribute) else (
            node.func.id if isinstance(node.func, ast.Name) else "")
        if name in ("glob", "iglob", "rglob"):
            for argument in node.args:
                text = self.names.fold(argument)
                if text is not None and PYTHON_FILE.search(text):
                    return text
            return None
        if name not in ("listdir", "scandir", "walk", "iterdir"):
            return None
        kept = [*loop.ifs] if isinstance(loop, ast.comprehension) else [*loop.body]
        for part in (n for statement in kept for n in ast.walk(statement)):
            if isinstance(part, ast.Constant | ast.Name) and (
                    text := self.names.fold(part)) is not None and text in _PYTHON_SUFFIXES:
                return f"<each {text} file {name} lists>"
        return None

    def _builds_path(self, node: ast.Call) -> bool:
        return (isinstance(node.func, ast.Attribute) and node.func.attr in _PATH_BUILDERS) or \
            self._path_call(node)

    def _path_call(self, node: ast.Call) -> bool:
        """A call of a path constructor (`Path(...)`, `os.path.join(...)`, `str(...)`)."""
        return self.names.resolve(node.func) in _PATH_CALLS or (
            isinstance(node.func, ast.Name) and node.func.id in ("Path", "PurePath"))

    def _write_mode(self, node: ast.Call) -> bool:
        mode: ast.AST | None = None
        if isinstance(node.func, ast.Attribute) and node.func.attr == "open" \
                and not isinstance(node.func.value, ast.Name | ast.Attribute):
            mode = node.args[0] if node.args else None  # Path(...).open("w")
        elif len(node.args) > 1:
            mode = node.args[1]
        mode = next((k.value for k in node.keywords if k.arg == "mode"), mode)
        text = self.names.fold(mode) if mode is not None else "r"
        return text is None or any(flag in text for flag in "wax+")


def _params(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, int]:
    """A function's parameters by their places (-1: by keyword only)."""
    arguments = function.args.posonlyargs + function.args.args
    params = {a.arg: i for i, a in enumerate(arguments)}
    params.update({a.arg: -1 for a in function.args.kwonlyargs})
    return params


def _parameters_in(target: ast.AST, params: Mapping[str, int]) -> set[str]:
    """The parameters a written path is built of."""
    return {part.id for part in named_parts(target)
            if isinstance(part, ast.Name) and part.id in params}


def _path_like(node: ast.AST) -> bool:
    """An expression that stands for a path, not for what was read from it: `Path("t.py")`,
    `root / "t.py"`, `os.path.join(d, "t.py")`; never `Path("t.py").read_text()`."""
    if isinstance(node, ast.Call):
        func = node.func
        return isinstance(func, ast.Name) or (
            isinstance(func, ast.Attribute) and func.attr in _PATH_BUILDERS)
    return isinstance(node, ast.Constant | ast.JoinedStr | ast.BinOp | ast.Name)

