"""The watch's audit listener in process: the interpreter's audit events heard as they happen,
so a watched function's code swapped and put back, or a trace function set and removed, is
seen although no compare could find it afterwards."""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gate.evidence.audit_events import subscribe
from gate.evidence.audit_watch import HEARD, UNKNOWN_DIRECTORY, AuditWatch, written_paths
from gate.evidence.producer_inventory import derive_findings
from gate.evidence.watch_namespaces import NamespaceWatch

MODULE = "claim_gate_audit_probe"


def _probe_module() -> types.ModuleType:
    module = types.ModuleType(MODULE)
    exec("def report(x):\n    return 'failed'\n", module.__dict__)  # noqa: S102 - our own text
    return module


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch) -> tuple[types.ModuleType, NamespaceWatch]:
    module = _probe_module()
    monkeypatch.setitem(sys.modules, MODULE, module)
    return module, NamespaceWatch.take((MODULE,))


def _listening(namespaces: NamespaceWatch, origin: Any = None) -> AuditWatch:
    audit = AuditWatch(namespaces, origin or (lambda file: "repository"), lambda file: str(file))
    audit.start()
    return audit


def test_a_code_object_swapped_and_put_back_is_heard(
    watched: tuple[types.ModuleType, NamespaceWatch],
) -> None:
    module, namespaces = watched
    audit = _listening(namespaces)
    try:
        original = module.report.__code__
        module.report.__code__ = (lambda x: "passed").__code__
        module.report.__code__ = original  # nothing is left for a compare to find
    finally:
        audit.stop()
    assert namespaces.unchanged(full=True)
    what, now, seen = namespaces.changes[MODULE]["report"]
    assert (what, seen) == ("code replaced", HEARD)
    assert now is not original


@pytest.mark.parametrize("attribute", ["__defaults__", "__kwdefaults__"])
def test_defaults_replaced_are_heard(
    watched: tuple[types.ModuleType, NamespaceWatch], attribute: str,
) -> None:
    module, namespaces = watched
    audit = _listening(namespaces)
    try:
        setattr(module.report, attribute, ("passed",) if attribute == "__defaults__" else {})
    finally:
        audit.stop()
    assert namespaces.changes[MODULE]["report"][0].endswith("defaults replaced")


def test_functions_nobody_watches_are_not_heard(
    watched: tuple[types.ModuleType, NamespaceWatch],
) -> None:
    _, namespaces = watched
    audit = _listening(namespaces)

    def mine() -> None:
        return None

    try:
        mine.__defaults__ = ()
    finally:
        audit.stop()
    assert namespaces.changes == {}


def _tracer(frame: Any, event: str, arg: object) -> None:
    return None


def test_a_trace_function_set_by_the_repository_is_named_with_its_line(
    watched: tuple[types.ModuleType, NamespaceWatch],
) -> None:
    _, namespaces = watched
    here = __file__
    audit = _listening(namespaces, lambda file: "repository" if file == here else "installed")
    previous = sys.gettrace()
    try:
        sys.settrace(_tracer)
        sys.settrace(previous)  # removed at once: heard all the same
        sys.setprofile(None)
    finally:
        audit.stop()
    assert [(t["what"], t["file"], t["origin"]) for t in audit.traces] == [
        ("sys.settrace", here, "repository")] * 2 + [("sys.setprofile", here, "repository")]
    assert all(t["line"].isdigit() for t in audit.traces)
    findings = derive_findings({"trace_functions": audit.traces, "audit": {"listening": True}})
    assert {f["code"] for f in findings} == {"trace_function"}


def test_a_trace_function_set_by_installed_code_alone_is_not_listed(
    watched: tuple[types.ModuleType, NamespaceWatch],
) -> None:
    _, namespaces = watched  # coverage started by an installed plugin: no repository frame
    audit = _listening(namespaces, lambda file: "installed")
    previous = sys.gettrace()
    try:
        sys.settrace(previous)
    finally:
        audit.stop()
    assert audit.traces == []


def test_a_listener_that_fails_never_stops_the_audited_action() -> None:
    def broken(event: str, args: tuple[Any, ...]) -> None:
        raise RuntimeError("a listener's own bug")

    end = subscribe(broken, frozenset({"sys.settrace"}))
    previous = sys.gettrace()
    try:
        sys.settrace(previous)  # would raise here if the hook passed the error on
    finally:
        end()


def test_a_listener_that_ended_hears_nothing_more() -> None:
    heard: list[str] = []
    end = subscribe(lambda event, args: heard.append(event), frozenset({"sys.settrace"}))
    previous = sys.gettrace()
    sys.settrace(previous)
    end()
    end()  # ending twice is harmless
    sys.settrace(previous)
    assert heard == ["sys.settrace"]


def test_a_listener_taken_out_is_not_listening(
    watched: tuple[types.ModuleType, NamespaceWatch],
) -> None:
    _, namespaces = watched
    audit = AuditWatch(namespaces, lambda file: "repository", str)
    assert not audit.listening()  # never started
    audit.start()
    assert audit.listening()
    from gate.evidence import audit_events

    kept = list(audit_events._listeners)
    audit_events._listeners.clear()  # what code in the process could do
    try:
        assert not audit.listening()
        findings = derive_findings({"audit": {"listening": audit.listening()}})
        assert [f["code"] for f in findings] == ["audit_listener"]
    finally:
        audit_events._listeners[:] = kept
        audit.stop()
    assert derive_findings({"audit": {"listening": True}}) == []


def _through_proc(module: Path) -> None:
    with module.open() as reading:
        Path(f"/proc/self/fd/{reading.fileno()}").write_text("x = 3\n")


def _through_link(module: Path) -> None:
    alias = module.with_name("alias.txt")
    alias.symlink_to(module)
    alias.write_text("x = 2\n")


def _renamed_away_and_back(module: Path) -> None:
    away = module.with_name("away.txt")
    module.rename(away)
    away.rename(module)


def _through_a_directory_descriptor(module: Path) -> None:
    """`os.open` relative to a directory descriptor: the `open` event names the path alone."""
    folder = os.open(module.parent, os.O_RDONLY)
    try:
        written = os.open(module.name, os.O_WRONLY | os.O_TRUNC, dir_fd=folder)
        os.write(written, b"x = 2\n")
        os.close(written)
    finally:
        os.close(folder)


def _renamed_relative_to_a_directory_descriptor(module: Path) -> None:
    folder = os.open(module.parent, os.O_RDONLY)
    try:
        os.rename(module.name, "away.txt", src_dir_fd=folder, dst_dir_fd=folder)
        os.rename("away.txt", module.name, src_dir_fd=folder, dst_dir_fd=folder)
    finally:
        os.close(folder)


#: Each way of writing the module: by its name, through a link of another name, through
#: /proc's name for an open file, renamed away and back, hard-linked under another name,
#: opened or renamed by a name relative to a directory descriptor (`dir_fd`).
WRITES: dict[str, Callable[[Path], object]] = {
    "through a name relative to a directory descriptor (/proc)": (
        _through_a_directory_descriptor),
    "renamed relative to a directory descriptor (/proc)": (
        _renamed_relative_to_a_directory_descriptor),
    "by its name": lambda module: module.write_text("x = 2\n"),
    "through a symbolic link named otherwise": lambda module: _through_link(module),
    "through /proc's name for a descriptor open for reading": _through_proc,
    "renamed away and back": _renamed_away_and_back,
    "hard-linked under another name": lambda module: os.link(module,
                                                             module.with_name("hard.txt")),
}


@pytest.mark.parametrize("how", list(WRITES))
def test_a_python_file_written_is_kept_by_its_own_path(
    watched: tuple[types.ModuleType, NamespaceWatch], tmp_path: Path, how: str,
) -> None:
    if "/proc" in how and not Path("/proc/self/fd").is_dir():
        pytest.skip("no /proc on this system")
    _, namespaces = watched
    module = tmp_path / "validate.py"
    module.write_text("x = 1\n")
    audit = _listening(namespaces)
    try:
        WRITES[how](module)
    finally:
        audit.stop()
    assert str(module.resolve()) in audit.written, audit.written
    # An `open` by a relative name is kept under the current directory too: its event does
    # not say whether a directory descriptor was meant.
    assert set(audit.written) <= {str(module.resolve()), str(Path.cwd() / module.name)}
    if "directory descriptor" not in how:
        assert list(audit.written) == [str(module.resolve())]


def test_reads_and_other_files_are_not_kept(
    watched: tuple[types.ModuleType, NamespaceWatch], tmp_path: Path,
) -> None:
    _, namespaces = watched
    module = tmp_path / "validate.py"
    module.write_text("x = 1\n")
    audit = _listening(namespaces)
    try:
        module.read_text()
        module.read_bytes()
        (tmp_path / "data.txt").write_text("not Python\n")
    finally:
        audit.stop()
    assert audit.written == {}


@pytest.mark.parametrize(("event", "args", "expected"), [
    ("open", ("a.py", "r", 0), []),
    ("open", ("a.py", "rb", 0), []),
    ("open", ("a.py", "r+", 0), [("a.py", UNKNOWN_DIRECTORY)]),
    ("open", ("a.py", "ab", 0), [("a.py", UNKNOWN_DIRECTORY)]),
    ("open", ("a.py", None, os.O_RDONLY), []),
    ("open", ("a.py", None, os.O_WRONLY | os.O_TRUNC), [("a.py", UNKNOWN_DIRECTORY)]),
    ("os.rename", ("a.py", "b.txt", -1, -1), [("b.txt", None), ("a.py", None)]),
    ("os.rename", ("a.py", "b.txt", 5, 7), [("b.txt", 7), ("a.py", 5)]),
    ("os.link", ("a.py", "b.py", None, 3), [("b.py", 3), ("a.py", None)]),
    ("os.symlink", ("target", "a.py", 4), [("a.py", 4)]),
    ("shutil.copyfile", ("saved", "a.py"), [("a.py", None)]),
    ("os.truncate", ("a.py", 0), [("a.py", None)]),
    ("open", ("a.py",), []),
])
def test_the_files_an_event_writes(event: str, args: tuple[Any, ...],
                                   expected: list[tuple[str, object]]) -> None:
    assert written_paths(event, args) == expected


def test_a_process_that_refuses_new_audit_hooks_leaves_the_compares_reading_code(
    watched: tuple[types.ModuleType, NamespaceWatch], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An audit hook of the environment may refuse `sys.addaudithook`; the session goes on.
    from gate.evidence import audit_events

    def refused(hook: object) -> None:
        raise RuntimeError("no more audit hooks")

    monkeypatch.setattr(audit_events, "_installed", [])
    monkeypatch.setattr(sys, "addaudithook", refused)
    _, namespaces = watched
    audit = AuditWatch(namespaces, lambda file: "repository", str)
    assert audit.start() is False
    assert not audit.listening()
    assert namespaces.code_heard is False
    assert [f["code"] for f in derive_findings({"audit": {"listening": audit.listening()}})] \
        == ["audit_listener"]


def test_a_python_file_behind_a_link_that_cannot_be_followed_is_kept_as_named(
    watched: tuple[types.ModuleType, NamespaceWatch], tmp_path: Path,
) -> None:
    # A loop of links: the write fails, yet the audit event came first; what could not be
    # resolved is kept by the name it was written under, never dropped.
    _, namespaces = watched
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    audit = _listening(namespaces)
    try:
        with pytest.raises(OSError, match=r"(?i)too many levels of symbolic links"):
            (tmp_path / "a.py").write_text("x = 1\n")
    finally:
        audit.stop()
    assert list(audit.written) == [str(tmp_path / "a.py")]
