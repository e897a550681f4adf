"""The reading of the change: every added or modified file, read for reach into the test
machinery or the process, with the limits stated and what could not be read recorded.

The files come from a source the agent cannot shape (git at the head commit, GitHub's
contents API at the head SHA): `fetch` is that source, and this module only reads what it
returns. Python is read by `ast` (`reach_python`), JavaScript and TypeScript by token patterns
(`reach_js`); files in other languages are not read (docs/trust-model.md says so), but every
changed path is still checked for a `.pth` start-up file and for a top-level module that
shadows the test framework or the standard library. Past a limit the rest is recorded as
unread, so the reading is incomplete and the engine's rule makes the claim unverified.
"""

from __future__ import annotations

import contextlib
import io
import posixpath
import tokenize
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from gate.claim.change_facts import ChangeReading, ReachFinding, UnreadChange
from gate.claim.trust_policy import DEFAULT_CHAIN, TrustPolicy
from gate.claim.wording import plural
from gate.evidence.reach_file_writes import Places, module_names
from gate.evidence.reach_js import read_javascript
from gate.evidence.reach_names import FRAMEWORK_ROOTS, STDLIB
from gate.evidence.reach_python import (
    Prepared,
    imported_names,
    prepare,
    read_doctests,
    read_python,
    writing_helpers,
)
from gate.evidence.reach_writes import EVERY_NAME

#: At most this many files are read in one change; the rest make the reading incomplete.
MAX_FILES = 1000
#: A file larger than this is not read (generated or vendored code is rarely this large).
MAX_FILE_BYTES = 1_048_576
#: All files read together stay under this.
MAX_TOTAL_BYTES = 33_554_432
PYTHON_SUFFIXES = (".py", ".pyw")
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
#: Texts whose `>>>` examples pytest runs: `test*.txt` by default, `.rst` and `.md` under the
#: `--doctest-glob` many projects set.
DOCTEST_SUFFIXES = (".rst", ".md")
#: Files Python or Node loads as code that the reading cannot read: compiled bytecode (an
#: unchecked-hash `.pyc` in `__pycache__` is imported without looking at its source, and a
#: `.pyc` with no source is imported as it is) and extension modules (a `.so` or `.pyd` is
#: found before the `.py` of the same name).
_COMPILED = (".pyc", ".pyo")
_EXTENSIONS = (".so", ".pyd", ".node")
#: Run-time configuration of the tools that start the tests, by file name: `.npmrc`'s
#: `node-options=--require ./x` loads code into every `npm test`, an environment file sets
#: `PYTEST_ADDOPTS`, `PYTHONPATH` or `NODE_OPTIONS` for the tools that read it, and a Babel
#: or SWC file names plugins that transform every test file (any path, `.txt` included).
#: Copies of an environment file kept to be filled in: no tool loads them.
_TEMPLATES = (".example", ".sample", ".template")
_TOOL_CONFIG = frozenset({".npmrc", ".yarnrc", ".yarnrc.yml", "bunfig.toml", ".env",
                          ".pdbrc", ".noderc", ".babelrc", ".babelrc.json", "babel.config.json",
                          ".swcrc"})
#: Top-level names that would shadow the framework or the standard library from the
#: repository root (`python -m pytest` puts it first on sys.path). `test` is the stdlib's
#: own regression suite and an ordinary name for a project's tests directory.
_SHADOWED = (FRAMEWORK_ROOTS | {"pytest"} | STDLIB) - {"test", "__future__"}
#: Names that shadow the framework from any depth: pytest's prepend mode puts a test folder
#: first on sys.path (`py` is too plain a folder name; the gate's own `gate` is imported by
#: the plugin before any test folder is put there, and a `gate.py` deep in a project is an
#: ordinary name).
_FRAMEWORK_NAMES = (FRAMEWORK_ROOTS | {"pytest"}) - {"py", "gate"}
#: Modules `site` imports when the interpreter starts, before any test tool.
_STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})


class UnreadableFile(Exception):  # noqa: N818 - named for what it records
    """The source could not give a file's bytes; the message says why."""


@dataclass(frozen=True)
class _Budget:
    files: int = 0
    total: int = 0


def doctest_text(path: str) -> bool:
    """A text whose examples pytest may collect as doctests."""
    name = posixpath.basename(path).casefold()  # fnmatch folds case where the disk does
    return name.endswith(DOCTEST_SUFFIXES) or (name.startswith("test") and name.endswith(".txt"))


def readable(path: str) -> bool:
    """Whether the reading reads this file's content (Python, JavaScript, TypeScript, and the
    examples of a doctest text)."""
    return path.endswith(PYTHON_SUFFIXES + SCRIPT_SUFFIXES) or doctest_text(path)


def fetch_order(paths: Iterable[str]) -> list[str]:
    """The paths `read_change` asks `fetch` for, in its order (a source may read ahead)."""
    return [path for path in sorted(set(paths)) if readable(path)][:MAX_FILES]


def read_change(source: str, paths: Iterable[str], fetch: Callable[[str], bytes]) -> ChangeReading:
    """Read each added or modified path through `fetch` (which raises UnreadableFile). The
    texts are fetched first, so that a call of a writing helper another module of the change
    defines is read with that helper known (`writing_helpers`)."""
    unread: list[UnreadChange] = []
    budget = _Budget()
    texts: dict[str, str] = {}
    ordered = sorted(set(paths))
    for path in ordered:
        if not readable(path):
            continue
        if budget.files >= MAX_FILES:
            unread.append(UnreadChange(path, f"over the reading's limit of"
                                             f" {plural(MAX_FILES, 'file')}"))
            continue
        text, problem, size = _text_of(path, fetch, MAX_TOTAL_BYTES - budget.total)
        budget = _Budget(budget.files + 1, budget.total + size)
        if problem is not None:
            unread.append(UnreadChange(path, problem))
        if text is not None:
            texts[path] = text
    trees = _prepared(texts)
    imported: dict[str, Places] = {}
    for path, prepared in trees.items():
        imported.update(writing_helpers(path, prepared))
    elsewhere = _imported_elsewhere(trees)
    findings: list[ReachFinding] = []
    for path in ordered:
        findings += path_findings(path)
        if path in texts:
            found, problem = _reach_of(path, trees.get(path, texts[path]), imported,
                                       elsewhere.get(path, frozenset()))
            findings += found
            if problem is not None:
                unread.append(UnreadChange(path, problem))
    place = {path: index for index, path in enumerate(ordered)}
    unread.sort(key=lambda u: place[u.path])
    return ChangeReading(source, tuple(findings), tuple(unread), budget.files)


def _prepared(texts: Mapping[str, str]) -> dict[str, Prepared]:
    """The change's Python modules that parse, prepared once for both passes (one that does
    not is parsed again when read, and recorded unread with the reason)."""
    trees: dict[str, Prepared] = {}
    for path, text in texts.items():
        if path.endswith(PYTHON_SUFFIXES):
            with contextlib.suppress(SyntaxError, ValueError):
                trees[path] = prepare(path, text)
    return trees


def _text_of(path: str, fetch: Callable[[str], bytes],
             room: int) -> tuple[str | None, str | None, int]:
    """(the file's text, why it has none, the bytes it took of the reading's budget)."""
    try:
        data = fetch(path)
    except UnreadableFile as exc:
        return None, str(exc), 0
    if len(data) > MAX_FILE_BYTES:
        return None, f"{plural(len(data), 'byte')}, over the limit of" \
                     f" {plural(MAX_FILE_BYTES, 'byte')} a file", 0
    if len(data) > room:
        return None, f"over the reading's limit of {plural(MAX_TOTAL_BYTES, 'byte')} in all", 0
    encoding = "utf-8"
    if path.endswith(PYTHON_SUFFIXES):
        try:  # as Python reads it: a `# coding: utf-7` cookie turns a "comment" into code
            encoding = tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        except SyntaxError as exc:  # bytes that are no text at all are said so below
            if data.isascii() or _is_utf8(data):
                return None, f"declares an encoding Python would refuse ({exc.msg})", len(data)
    try:
        return data.decode(encoding), None, len(data)
    except UnicodeDecodeError as exc:
        shown = "UTF-8" if encoding.startswith("utf-8") else encoding
        return None, f"not {shown} text (byte {exc.start})", len(data)
    except LookupError:
        return None, f"declares the encoding {encoding!r}, which cannot be read", len(data)


def _imported_elsewhere(trees: Mapping[str, Prepared]) -> dict[str, frozenset[str]]:
    """For each module of the change, its names that the change's other modules import
    (EVERY_NAME: the module itself): a function called from another module may be handed
    anything there, whatever its parameters are called."""
    whole: dict[str, set[str]] = {}  # a dotted name imported -> who imports it
    parts: dict[str, set[tuple[str, str]]] = {}  # a module -> (a name of it, who imports it)
    for path, prepared in trees.items():
        for name in imported_names(path, prepared):
            whole.setdefault(name, set()).add(path)
            module, _, last = name.rpartition(".")
            parts.setdefault(module, set()).add((last, path))
    found: dict[str, frozenset[str]] = {}
    for path in trees:
        names: set[str] = set()
        for own in module_names(path):
            if whole.get(own, set()) - {path}:
                names.add(EVERY_NAME)
            names |= {EVERY_NAME if last == "*" else last
                      for last, importer in parts.get(own, ()) if importer != path}
        found[path] = frozenset(names)
    return found


def _reach_of(path: str, text: str | Prepared, imported: Mapping[str, Places],
              elsewhere: frozenset[str]) -> tuple[tuple[ReachFinding, ...], str | None]:
    if isinstance(text, str) and path.endswith(SCRIPT_SUFFIXES):
        return read_javascript(path, text), None
    if isinstance(text, str) and not path.endswith(PYTHON_SUFFIXES):
        return read_doctests(path, text), None
    try:
        return read_python(path, text, imported, elsewhere), None
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" at line {line}" if line else ""
        return (), f"does not parse as Python{where}: {getattr(exc, 'msg', exc)}"


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def path_findings(path: str) -> tuple[ReachFinding, ...]:
    """What a changed path reaches by its name alone."""
    name = posixpath.basename(path)
    if path.endswith(".pth"):
        return (ReachFinding(path, 0, "site-packages",
                             "a .pth file: its import lines run at interpreter start-up"),)
    started = posixpath.basename(posixpath.dirname(path)) if name == "__init__.py" \
        else name.removesuffix(".py") if name.endswith(".py") else ""
    if started in _STARTUP_MODULES:
        return (ReachFinding(path, 0, "site-packages",
                             f"{started}: imported at interpreter start-up wherever its folder"
                             " is on the path (an editable install puts it there)"),)
    if name.endswith(_COMPILED) or "__pycache__" in path.split("/"):
        return (ReachFinding(path, 0, "obfuscation",
                             "compiled bytecode: imported in place of (or without) a source"
                             " the reading can read"),)
    if name.endswith(_EXTENSIONS):
        return (ReachFinding(path, 0, "native-code",
                             "an extension module: imported before a source of the same name,"
                             " and not readable"),)
    if name in _TOOL_CONFIG or (name.startswith(".env.") and not name.endswith(_TEMPLATES)):
        return (ReachFinding(path, 0, "test-machinery",
                             f"{name}: run-time settings of the tools that start the tests"),)
    lookalike = _chain_lookalike(path)
    if lookalike is not None:
        return (ReachFinding(path, 0, "test-machinery",
                             f"named like the evidence-chain file {lookalike!r} but for case or"
                             " Unicode form (a case-insensitive checkout reads it as that)"),)
    top, _, rest = path.partition("/")
    name = top.removesuffix(".py") if not rest else top
    shadows = (not rest and top.endswith(".py")) or rest == "__init__.py"
    if shadows and name in _SHADOWED:
        return (ReachFinding(path, 0, "shadow-module",
                             f"a top-level {name!r} that shadows the installed module"),)
    parts = path.split("/")
    module = parts[-2] if len(parts) > 1 and parts[-1] == "__init__.py" \
        else parts[-1].removesuffix(".py") if parts[-1].endswith(".py") else ""
    if module in _FRAMEWORK_NAMES:  # below the root: pytest's prepend mode puts its folder first
        return (ReachFinding(path, 0, "shadow-module",
                             f"a {module!r} below the root that shadows the test framework from"
                             " a folder the run puts on sys.path"),)
    return ()


def _chain_lookalike(path: str) -> str | None:
    """The default evidence-chain glob a path matches once case and Unicode form are folded
    (`tests/CONFTEST.py`, `Pytest.ini`), when the path itself matches none: on a macOS or
    Windows runner the tools open it by the chain file's name."""
    if any(fnmatchcase(path, glob) for glob in DEFAULT_CHAIN):
        return None
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFD", path)).casefold()
    return next((glob for glob in DEFAULT_CHAIN if fnmatchcase(folded, glob.casefold())), None)


def reading_note(reading: ChangeReading, trust: TrustPolicy) -> str:
    """What was read, for the check: how many files, how many places reach in, and which of
    them the owner allows (`evidence_chain.allow_reach`), so an allowance is never silent."""
    allowed = [f for f in reading.findings if any(a.allows(f) for a in trust.allow_reach)]
    note = (f"change reading ({reading.source}): {plural(reading.files_read, 'file')} read,"
            f" {plural(len(reading.findings), 'place')} reaching into the test run")
    if allowed:
        shown = "; ".join(f"{f.where()} {f.reached} ({f.rule})" for f in allowed[:5])
        more = f"; and {len(allowed) - 5} more" if len(allowed) > 5 else ""
        note += f", {len(allowed)} of them allowed by the owner's evidence_chain.allow_reach:" \
                f" {shown}{more}"
    if reading.unread:
        note += f", {plural(len(reading.unread), 'file')} not read"
    return note
