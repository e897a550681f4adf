"""Where a file write in the change lands: the expressions a writing call writes to, whether
one of them stays inside a temporary directory the test was handed, and the other tools that
make the same write (a path found from a module, a command that writes a file of code,
bytecode writers, archives unpacked).

A module of the repository rewritten just before its import and put back just after is the
commit's at both of the plugin's tree checks, and one written new and then imported never was
in the tree: so a write that names a file of Python code is reach into what the run executes,
whoever's module it is. Tests of build and import tools write Python files all the time, into
pytest's `tmp_path`/`tmpdir` or a `tempfile` directory, where nothing the run imports comes
from; such a write is not reach, but only when every part of its path after that directory is
a relative constant without `..` (a computed or absolute part could land anywhere), and only
when the directory's name cannot stand for something else: a fixture parameter of a function
that the module never calls or hands on itself, and that no other module of the change
imports, in a module that defines no function or other binding of that name; or a name bound
only to a `tempfile` directory.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator

from gate.evidence.reach_fold import Bindings

#: A path naming a file of Python code, source or bytecode (a `.pth` is the site rule's).
PYTHON_FILE = re.compile(r"\.py[cw]?$")

#: The arguments a file function writes, by place and keyword (a copy's source is only read;
#: a move writes both ends).
_WRITTEN_ARGUMENTS: dict[str, tuple[tuple[int, str], ...]] = {
    **dict.fromkeys(("shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree",
                     "os.link", "os.symlink"), ((1, "dst"),)),
    **dict.fromkeys(("shutil.move", "os.rename", "os.replace"), ((0, "src"), (1, "dst"))),
    "os.renames": ((0, "old"), (1, "new")),
}
#: The first argument, for every other file function and opener (`open(file=...)`).
_FIRST = ((0, "file"), (0, "path"), (0, "filename"))
#: Path methods that write their one argument as well as their receiver.
_MOVES = frozenset({"rename", "replace"})
#: Calls whose value is what a file held or other text, not a path: inside a write's
#: arguments, the file they name is read (`Path("out.txt").write_text(Path("a.py").read_text())`).
_READ_CALLS = frozenset({"read_text", "read_bytes", "read", "readlines", "load", "loads",
                         "getsource", "dumps"})

#: pytest's fixtures that hand a test a new directory of its own.
TEMP_FIXTURES = frozenset({"tmp_path", "tmpdir"})
_TEMP_FACTORIES = frozenset({"tmp_path_factory", "tmpdir_factory"})
#: Calls that make or name a temporary directory.
_TEMP_CALLS = frozenset({"tempfile.mkdtemp", "tempfile.gettempdir", "tempfile.TemporaryDirectory"})
#: Calls that join a path under their first argument.
_JOINS = frozenset({"os.path.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})


#: `pathlib.Path`'s writing methods called through the class or a name bound to one
#: (`write = Path.write_text; write(p, x)`): the path is the first argument.
PATH_METHODS = frozenset(f"pathlib.Path.{name}" for name in (
    "write_text", "write_bytes", "touch", "unlink", "rename", "replace", "symlink_to",
    "hardlink_to", "chmod", "open"))


def destinations(node: ast.Call, func: str | None, file_functions: Collection[str],
                 openers: Collection[str]) -> list[ast.expr]:
    """The expressions the writing call `node` writes to (`func`: its resolved name)."""
    if func in _WRITTEN_ARGUMENTS:
        return _arguments(node, _WRITTEN_ARGUMENTS[func])
    if func in PATH_METHODS:
        moves = func.rsplit(".", 1)[-1] in _MOVES
        return list(node.args[:2] if moves else node.args[:1])
    if func in file_functions or func in openers:
        return _arguments(node, _FIRST)
    if isinstance(node.func, ast.Attribute):
        if node.func.attr in _MOVES:  # Path.replace(target); `str.replace(old, new)` writes none
            one = len(node.args) + len(node.keywords) == 1
            return [node.func.value, *node.args, *(k.value for k in node.keywords)] if one else []
        return [node.func.value]
    return list(node.args[:1])


def _arguments(node: ast.Call, places: tuple[tuple[int, str], ...]) -> list[ast.expr]:
    found: list[ast.expr] = []
    for index, keyword in places:
        if index < len(node.args):
            found.append(node.args[index])
        found.extend(k.value for k in node.keywords if k.arg == keyword)
    return found


def named_parts(node: ast.AST) -> Iterator[ast.AST]:
    """The parts of a written path that may name it, leaving out what nested reads read."""
    stack: list[ast.AST] = [node]
    while stack:
        part = stack.pop()
        if part is not node and isinstance(part, ast.Call) and isinstance(
                part.func, ast.Attribute | ast.Name) and (
                part.func.attr if isinstance(part.func, ast.Attribute) else part.func.id
        ) in _READ_CALLS:
            continue
        yield part
        stack.extend(ast.iter_child_nodes(part))


class TempRoots:
    """Which names and calls in one module stand for a temporary directory (see the module's
    docstring for why each condition is there)."""

    def __init__(self, tree: ast.AST, names: Bindings,
                 elsewhere: frozenset[str] = frozenset()) -> None:
        """`elsewhere`: the module's names other modules of the change import (EVERY_NAME
        among them: the module itself, whose every function they may call)."""
        self._names = names
        known: dict[ast.AST, ast.AST] = {}  # a Name bound to a value the module shows: it
        bound: dict[str, list[object]] = {}  # name -> each binding's value, PARAM or UNKNOWN
        defined: set[str] = set()
        functions: set[str] = set()
        loaded: set[str] = set()
        for node in ast.walk(tree):  # a binding comes before its names (the walk is by level)
            known.update(_bindings(node))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                defined.add(node.name)
                if not isinstance(node, ast.ClassDef):
                    functions.add(node.name)
            elif isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loaded.add(node.id)
                else:  # a store or a `del`: what it binds, if this module shows it
                    bound.setdefault(node.id, []).append(known.get(node, _UNKNOWN))
            elif isinstance(node, ast.arg):
                bound.setdefault(node.arg, []).append(_PARAM)
            elif isinstance(node, ast.alias):
                bound.setdefault((node.asname or node.name).split(".")[0], []).append(_UNKNOWN)
            elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and isinstance(
                    getattr(node, "name", None), str):
                bound.setdefault(str(node.name), []).append(_UNKNOWN)
            elif isinstance(node, ast.Global | ast.Nonlocal):
                for name in node.names:
                    bound.setdefault(name, []).append(_UNKNOWN)
        self._fixture_names = (TEMP_FIXTURES | _TEMP_FACTORIES) - defined - {
            name for name, values in bound.items() if any(v is not _PARAM for v in values)}
        self._uncalled = set() if EVERY_NAME in elsewhere else functions - loaded - elsewhere
        self._temp_names = {
            name for name, values in bound.items()
            if values and name not in defined and all(
                isinstance(v, ast.AST) and self._made_temp(v) for v in values)}

    def handed(self, functions: list[ast.AST]) -> frozenset[str]:
        """The temporary-directory fixtures in scope inside `functions` (outermost first): a
        function's parameters hide its outer scope's, and a function the module itself calls
        or hands on, or another module of the change imports, is handed none (its caller
        chooses what they are)."""
        found: frozenset[str] = frozenset()
        for node in functions:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            params = frozenset(a.arg for a in arguments)
            found -= params
            if not isinstance(node, ast.Lambda) and node.name in self._uncalled:
                found |= params & self._fixture_names
        return found

    def stays_inside(self, path: ast.AST, handed: frozenset[str]) -> bool:
        """Whether the written path is a temporary directory joined with relative constants
        only (`tmp_path / "pkg" / "mod.py"`, `os.path.join(d, "setup.py")`)."""
        root, parts = self._split(path)
        if not self._temp_root(root, handed):
            return False
        for part in parts:
            text = self._names.fold(part)
            if text is None or text.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", text) \
                    or ".." in re.split(r"[/\\]", text):
                return False
        return True

    def _split(self, node: ast.AST) -> tuple[ast.AST, list[ast.AST]]:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            root, parts = self._split(node.left)
            return root, [*parts, node.right]
        if isinstance(node, ast.Call) and node.args and not node.keywords:
            func = self._names.resolve(node.func)
            if func in _JOINS:
                root, parts = self._split(node.args[0])
                return root, [*parts, *node.args[1:]]
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("joinpath", "join") \
                    and not isinstance(node.func.value, ast.Constant):
                root, parts = self._split(node.func.value)  # py.path's `tmpdir.join("x.py")`
                return root, [*parts, *node.args]
        return node, []

    def _temp_root(self, root: ast.AST, handed: frozenset[str]) -> bool:
        if isinstance(root, ast.Name):
            return (root.id in handed and root.id in TEMP_FIXTURES) or root.id in self._temp_names
        if isinstance(root, ast.Call) and isinstance(root.func, ast.Attribute) \
                and root.func.attr in ("mktemp", "mkdir") and isinstance(root.func.value, ast.Name):
            return root.func.value.id in handed  # tmp_path_factory.mktemp("x")
        return isinstance(root, ast.Call) and self._names.resolve(root.func) in _TEMP_CALLS

    def _made_temp(self, value: ast.AST) -> bool:
        return isinstance(value, ast.Call) and self._names.resolve(value.func) in _TEMP_CALLS


#: In TempRoots' `elsewhere`: the whole module is imported by another.
EVERY_NAME = "*"
#: What a binding binds when the module does not show it, and a function's parameter.
_UNKNOWN = object()
_PARAM = object()


def _bindings(node: ast.AST) -> Iterator[tuple[ast.Name, ast.AST]]:
    """(name, its value) for each binding of a plain name to a value the module shows that
    `node` makes: `d = tempfile.mkdtemp()`, `with tempfile.TemporaryDirectory() as d`."""
    if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and node.value:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        yield from ((t, node.value) for t in targets if isinstance(t, ast.Name))
    elif isinstance(node, ast.withitem) and isinstance(node.optional_vars, ast.Name):
        yield node.optional_vars, node.context_expr


#: Ways to find a module's own file from the module: a write to what they give rewrites code
#: the run imports, whatever the file is called.
_MODULE_FILE_ATTRIBUTES = frozenset({"__file__", "__cached__", "origin", "cached"})
_MODULE_FILE_CALLS = frozenset({"inspect.getfile", "inspect.getsourcefile", "inspect.getabsfile",
                                "importlib.util.find_spec", "importlib.util.cache_from_source",
                                "importlib.resources.files", "importlib.resources.path",
                                "importlib.machinery.PathFinder.find_spec"})


def module_file_named(node: ast.AST, names: Bindings, whole: bool = False) -> str | None:
    """How a written path was found from a module (`m.__file__`, `__cached__`, a spec's
    `origin`, `inspect.getfile(m)`, `importlib.resources.files(pkg)`), if it was; `whole`:
    only if `node` itself is what was found (not a folder or a sibling built from it)."""
    for part in (node,) if whole else ast.walk(node):
        if isinstance(part, ast.Name) and part.id in ("__file__", "__cached__"):
            return part.id
        if isinstance(part, ast.Attribute) and part.attr in _MODULE_FILE_ATTRIBUTES:
            return part.attr
        if isinstance(part, ast.Call) and names.resolve(part.func) in _MODULE_FILE_CALLS:
            return f"{names.resolve(part.func)}()"
    return None


#: Programs a command runs that write the files it names.
_WRITING_PROGRAMS = re.compile(
    r"(?:^|[\s;&|(/])(?:cp|mv|install|ln|rsync|tee|dd|truncate|patch|touch|sed\s+(?:-\w*\s+)*-i|"
    r"perl\s+(?:-\w*\s+)*-[a-z]*i|git\s+(?:checkout|restore|stash|apply|reset|am|cherry-pick|"
    r"revert|merge|pull|switch))\b")
#: A shell redirection onto a file (`echo x > core.py`; not `2>&1` beside `tool.py`).
_REDIRECTED = re.compile(r""">>?\s*['"]?([^\s'";&|>]+)""")


def command_writes_code(texts: list[str], code: re.Pattern[str] = PYTHON_FILE) -> str | None:
    """The file of code (`code`: Python's by default) a command writes: one it redirects
    output onto, or one its words name beside a writing program (`cp saved src/app/core.py`,
    `sed -i ... core.py`, `git checkout -- x.py`); not `python tool.py 2>&1`."""
    words = " ".join(texts)
    for redirected in _REDIRECTED.finditer(words):
        if code.search(redirected.group(1)):
            return redirected.group(1)[:60]
    if not _WRITING_PROGRAMS.search(words):
        return None
    named = [word.rstrip(";&|)") for text in texts for word in re.split(r"[\s'\"=]+", text)
             if code.search(word.rstrip(";&|)"))]
    return named[-1][:60] if named else None  # the last: a copy's or a move's destination


#: Calls that write bytecode: a module's `.pyc` of other source is code the run imports.
BYTECODE_WRITERS = frozenset({"py_compile.compile", "compileall.compile_file",
                              "compileall.compile_dir", "compileall.compile_path"})
#: Calls that write the files an archive holds, wherever they are aimed.
ARCHIVE_WRITERS = frozenset({"extractall", "extract", "unpack_archive"})
