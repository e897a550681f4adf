"""A producer inventory as an honest pytest plugin run writes it, for hand-built records."""

from __future__ import annotations

from typing import Any

from gate.claim.watched_internals import WATCHED_NAMESPACES
from gate.evidence.producer_inventory import INVENTORY_FIELD, INVENTORY_VERSION, seal


def clean_inventory(**changes: Any) -> dict[str, Any]:
    """Nothing from the repository could rewrite results; sealed like the plugin seals it."""
    inventory: dict[str, Any] = {
        "version": INVENTORY_VERSION,
        "rootdir": "/work/repo",
        "hooks": [{
            "hook": "pytest_runtest_makereport", "plugin": "runner",
            "function": "pytest_runtest_makereport", "file": "/site-packages/_pytest/runner.py",
            "origin": "installed", "kind": "plain", "plugin_module": "_pytest.runner",
            "seen": "load", "route": "installed plugin",
        }],
        "internals": [
            {"name": name, "present": True, "names": 10,
             "file": f"/site-packages/{name.split(':')[0].replace('.', '/')}.py",
             "origin": "gate" if name.startswith("gate.") else "installed",
             "unchanged": True, "changes": []}
            for name in WATCHED_NAMESPACES
        ],
        "import_hooks": [],
        "patched_items": [],
        "item_changes": [],
        "item_reports": [],
        "trace_functions": [],
        "audit": {"listening": True},
        "config": {"inifile": None, "addopts": [], "plugins": []},
        "conftests": [],
        "repository_plugins": [],
    }
    inventory.update(changes)
    return seal(inventory)


def with_inventory(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**record, INVENTORY_FIELD: clean_inventory(**changes)}
