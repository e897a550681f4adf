"""What the gate read of the change itself, from outside the agent's reach.

CI runs the change's code, so a change that can reach into the test machinery or the process
that writes the results is a change to the evidence's producer. Collectors read the changed
files at the head SHA (git on the command line, the API on GitHub) and record each place that
reaches in (`ReachFinding`, with file and line) and each file they could not read; the engine
turns findings the owner did not allow into `producer_modified`, and an incomplete reading into
unverified. "Could not read" is never "nothing there".
"""

from __future__ import annotations

from dataclasses import dataclass

#: The kinds of reach a reading records (`ReachFinding.rule`), each a short stable id an owner
#: can name in `evidence_chain.allow_reach`; docs/trust-model.md says what each one covers.
REACH_RULES: tuple[str, ...] = (
    "test-machinery",  # the test framework's internals: _pytest, hooks, report classes, pytest.exit
    "import-system",  # sys.modules, sys.meta_path, sys.path_hooks, import hooks and loaders
    "builtins",  # writes to builtins / __builtins__
    "stdlib-patch",  # a lasting write to a standard-library module the run itself uses
    "interpreter-hook",  # sys.settrace / setprofile / audit hooks / excepthook
    "process-exit",  # atexit, os._exit, signal handlers, fork, exec: the end of the run
    "results-path",  # report or evidence files (JUnit, the gate's records)
    "site-packages",  # the installed packages, .pth files: trusted by path
    "source-rewrite",  # writes to the repository's own source files (__file__)
    "shadow-module",  # a top-level module that shadows the test framework or the standard library
    "native-code",  # ctypes, cffi: memory and C functions, beyond what Python can see
    "obfuscation",  # exec/eval, imports and attributes by computed name, marshal, code objects
)


@dataclass(frozen=True)
class ReachFinding:
    """One place in the change's own files that reaches the test machinery or the process."""

    path: str
    line: int
    rule: str  # a short stable id: "test-machinery", "import-system", "process-exit", ...
    reached: str  # what it reaches, for a reviewer: "_pytest.runner.TestReport", "atexit", ...

    def where(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class UnreadChange:
    """A changed file the reading needed and could not read (too large, too many, an error)."""

    path: str
    problem: str


@dataclass(frozen=True)
class ChangeReading:
    """The findings over every added or modified file of the change, and what was not read."""

    source: str  # e.g. "git diff BASE...HEAD at 1a2b3c4d5e6f" or "GitHub compare base...head"
    findings: tuple[ReachFinding, ...] = ()
    unread: tuple[UnreadChange, ...] = ()
    files_read: int = 0

    @property
    def complete(self) -> bool:
        return not self.unread


@dataclass(frozen=True)
class ChainFileChange:
    """A modified structured file on the evidence chain (pyproject.toml, package.json,
    setup.cfg) read at base and head: the parts that differ, each as its key path
    (`("project", "version")`, `("tool:pytest", "addopts")`). A version bump is not an edit
    to how the tests run; the engine (`gate/engine/chain_parts.py`) decides which parts are.
    `parsed` False: a version could not be read or parsed (`problem` says why), and the
    engine keeps the whole file on the chain."""

    path: str
    parts: tuple[tuple[str, ...], ...] = ()
    parsed: bool = True
    problem: str | None = None
