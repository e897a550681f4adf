"""The namespaces of pytest, pluggy and the gate that the pytest plugin watches, in one place.

The plugin snapshots each of them when it loads and compares them after every test; the gate
refuses a record whose inventory does not list every one (an inventory with a short or empty
list was written by a plugin that watched less, or edited to hide what it saw). Both read
this tuple, so the list the gate expects is the list the plugin of the same version walks.

A name is `module` (the module's whole namespace: every name its code calls through, such as
`_pytest.runner.TestReport`) or `module:Class` (the class's own `__dict__`: its methods and
properties). Function code objects in a watched namespace are compared too.
"""

from __future__ import annotations

WATCHED_NAMESPACES: tuple[str, ...] = (
    "pytest",
    "_pytest.runner",
    "_pytest.runner:CallInfo",
    "_pytest.reports",
    "_pytest.reports:BaseReport",
    "_pytest.reports:TestReport",
    "_pytest.reports:CollectReport",
    "_pytest.python",
    "_pytest.python:PyobjMixin",
    "_pytest.python:Function",
    "_pytest.nodes:Node",
    "_pytest.nodes:Item",
    "_pytest.main",
    "_pytest.main:Session",
    "_pytest.skipping",
    "_pytest.outcomes",
    "_pytest.junitxml",
    "_pytest.junitxml:LogXML",
    "_pytest.junitxml:_NodeReporter",
    "_pytest.terminal",
    "_pytest.terminal:TerminalReporter",
    "pluggy._hooks:HookCaller",
    "pluggy._hooks:HookImpl",
    "pluggy._manager:PluginManager",
    "pluggy._callers",
    "gate.faces.pytest_plugin",
    "gate.faces.pytest_plugin:_Recorder",
    "gate.evidence.pytest_record",
    "gate.evidence.pytest_record:Tally",
    "gate.evidence.producer_inventory",
    "gate.evidence.pytest_watch",
    "gate.evidence.pytest_watch:Watch",
    "gate.evidence.watch_namespaces",
    "gate.evidence.item_state",
    "gate.evidence.item_state:HeldItems",
    "gate.evidence.item_state:ItemWatch",
    "gate.evidence.xdist_channel:XdistChannel",
    "gate.evidence.audit_events",
    "gate.evidence.audit_watch",
    "gate.evidence.audit_watch:AuditWatch",
)

#: The import machinery lists whose new entries (after the plugin loaded) can rewrite the
#: source of any module imported afterwards, test modules included.
WATCHED_IMPORT_LISTS: tuple[str, ...] = ("sys.meta_path", "sys.path_hooks")


def split_name(name: str) -> tuple[str, str | None]:
    """`module:Class` -> (module, Class); `module` -> (module, None)."""
    module, _, cls = name.partition(":")
    return module, cls or None


def missing_names(listed: object) -> list[str]:
    """The watched namespaces an inventory's `internals` list does not name (all of them when
    it is not a list)."""
    names = {
        entry.get("name") for entry in listed if isinstance(entry, dict)
    } if isinstance(listed, list) else set()
    return [name for name in WATCHED_NAMESPACES if name not in names]
