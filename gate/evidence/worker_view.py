"""What an xdist worker's watch saw, carried to the controller that writes the record.

Under pytest-xdist the workers run the tests: a patch the code under test makes lives in a
worker's namespaces, never in the controller's, so a watch in the controller alone sees
nothing of it. Each worker runs the watch as a single process does (its compares at each call
report, after each test and at its end) and hands the controller, in xdist's `workeroutput`,
what that found: the changes to the watched namespaces, the hook implementations it scanned
and the import hooks added (`Watch.seen_here`). The controller adds them to its own here; a
view in another shape is a problem the caller reports, never "nothing seen". A worker is the
change's process like any other: this makes the known routes visible under xdist, as in one
process, and cannot make the worker honest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: The lists a worker's view holds (`Watch.seen_here`).
VIEW_LISTS = ("internal_changes", "hooks", "import_hooks", "trace_functions",
              "written_files", "listening")

#: At most this many entries of each list are taken from one worker (the inventory caps its
#: own lists lower; a finding among the first ones stands).
MAX_ENTRIES = 200

#: The fields each kind of entry carries (what `Watch` writes); any other is dropped.
_FIELDS = {
    "internal_changes": ("namespace", "name", "change", "now", "seen", "data", "file", "origin",
                         "was_file", "was_origin"),
    "hooks": ("hook", "plugin", "function", "file", "origin", "kind", "plugin_module", "seen"),
    "import_hooks": ("list", "what", "file", "origin", "seen"),
    "trace_functions": ("what", "file", "line", "origin", "seen"),
    "written_files": ("path", "event"),
    "listening": ("listening",),
}
#: The fields that name one hook implementation across processes (a plugin registered without
#: a name is named by its id, which differs from process to process: not part of it then).
_HOOK_FIELDS = ("hook", "function", "file", "kind", "origin")
_CHANGE_FIELDS = ("name", "change", "file", "now")
_IMPORT_FIELDS = ("list", "what", "file")
_TRACE_FIELDS = ("what", "file", "line")
#: A field's text is cut here (the inventory's own texts are shorter).
MAX_TEXT = 500


def _plain(value: object) -> object:
    """A bool or None as it is (the judgement reads `data` as a bool), a number or text as
    text, anything else (a worker sends what it likes) as a mark, never its repr."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, str | int | float):
        return str(value)[:MAX_TEXT]
    return "<not a plain value>"


def _entries(listed: list[object], kind: str, where: str) -> list[dict[str, Any]]:
    """The first MAX_ENTRIES entries of one list that are mappings, each with the fields of
    its kind only, as plain values, and `seen` saying `where`."""
    found: list[dict[str, Any]] = []
    for entry in listed[:MAX_ENTRIES]:
        if isinstance(entry, Mapping):
            plain = {field: _plain(entry.get(field)) for field in _FIELDS[kind] if field in entry}
            found.append({**plain, "seen": f"{plain.get('seen')}{where}"})
    return found


def _key(entry: Mapping[str, Any], fields: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(str(entry.get(field)) for field in fields)


def hook_key(entry: Mapping[str, Any]) -> tuple[str, ...]:
    plugin = str(entry.get("plugin"))
    return (*_key(entry, _HOOK_FIELDS), "" if plugin.isdigit() else plugin)


class WorkerViews:
    """The views of every worker of one session, merged (the controller owns it)."""

    def __init__(self) -> None:
        self.changes: dict[str, list[dict[str, Any]]] = {}
        self._hooks: dict[tuple[str, ...], dict[str, Any]] = {}
        self._imports: dict[tuple[str, ...], dict[str, Any]] = {}
        self._traces: dict[tuple[str, ...], dict[str, Any]] = {}
        #: Python files a worker wrote (absolute paths: the workers share the controller's
        #: machine and rootdir), told against the commit at the controller's end.
        self.written: dict[str, str] = {}
        #: Every worker's audit listener was still listening at its end.
        self.all_listening = True

    def merge(self, view: object, worker: str) -> str | None:
        """Add one worker's view; why it could not be read, or None."""
        if not isinstance(view, Mapping) or not all(
                isinstance(view.get(name), list) for name in VIEW_LISTS):
            return f"xdist worker {worker} sent its watch in another shape than the plugin writes"
        where = f" in xdist worker {worker}"
        for entry in _entries(view["internal_changes"], "internal_changes", where):
            namespace = str(entry.pop("namespace", ""))
            listed = self.changes.setdefault(namespace, [])
            if all(_key(kept, _CHANGE_FIELDS) != _key(entry, _CHANGE_FIELDS) for kept in listed):
                listed.append(entry)
        for entry in _entries(view["hooks"], "hooks", where):
            self._hooks.setdefault(hook_key(entry), entry)
        for entry in _entries(view["import_hooks"], "import_hooks", where):
            self._imports.setdefault(_key(entry, _IMPORT_FIELDS), entry)
        for entry in _entries(view["trace_functions"], "trace_functions", where):
            self._traces.setdefault(_key(entry, _TRACE_FIELDS), entry)
        for entry in _entries(view["written_files"], "written_files", where):
            if isinstance(entry.get("path"), str):
                self.written.setdefault(entry["path"], str(entry.get("event")))
        said = _entries(view["listening"], "listening", where)
        self.all_listening = self.all_listening and [e.get("listening") for e in said] == [True]
        return None

    def changes_beside(self, namespace: str, own: Iterable[Mapping[str, Any]]
                       ) -> list[dict[str, Any]]:
        """The workers' changes to this namespace that the controller did not see itself."""
        known = {_key(entry, _CHANGE_FIELDS) for entry in own}
        return [entry for entry in self.changes.get(namespace, [])
                if _key(entry, _CHANGE_FIELDS) not in known]

    def hooks_beside(self, own: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The workers' hook implementations that the controller's own scan did not list."""
        return _beside(self._hooks, own, hook_key)

    def imports_beside(self, own: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return _beside(self._imports, own, lambda entry: _key(entry, _IMPORT_FIELDS))

    def traces_beside(self, own: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
        return _beside(self._traces, own, lambda entry: _key(entry, _TRACE_FIELDS))


def _beside(kept: Mapping[tuple[str, ...], dict[str, Any]], own: Iterable[Mapping[str, Any]],
            key: Callable[[Mapping[str, Any]], tuple[str, ...]]) -> list[dict[str, Any]]:
    """The workers' entries (by `key`) that are not among the controller's `own`."""
    known = {key(entry) for entry in own}
    return [entry for name, entry in kept.items() if name not in known]
