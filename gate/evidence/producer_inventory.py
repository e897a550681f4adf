"""What could have rewritten a pytest run's results, and the judgement the gate draws from it.

The pytest plugin records an inventory (`x-producer-inventory`) of every implementation of a
hook that can change a test's outcome or its report, pytest's report internals and whether
they stayed the originals, the configuration and the conftest files. This module holds the
pure half: which hooks matter and why, the inventory's digest, and the findings that make a
record `producer_modified`. The gate re-derives the findings from the entries rather than
trusting a verdict written beside them, so a record whose entries, findings and digest do not
agree was edited after the plugin wrote it.

It makes tampering visible, not impossible: the process that runs the tests can lie about
all of it (see docs/pytest-plugin.md).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

# Named in the claim part (the engine reads it too); collectors import it from here.
from gate.claim.test_job import INVENTORY_FIELD as INVENTORY_FIELD
from gate.claim.watched_internals import missing_names
from gate.claim.wording import plural

INVENTORY_VERSION = 3
PRODUCER_MODIFIED = "producer_modified"

#: Hooks whose every implementation can decide or rewrite a result: firstresult hooks that
#: replace pytest's own step (protocol, run loop, makereport, pyfunc_call, teststatus, the
#: collect report), and hooks handed the report object before the JUnit writer and the
#: plugin see it (logreport, collectreport), plus xdist's report transfer.
REWRITE_HOOKS: tuple[str, ...] = (
    "pytest_runtest_protocol",
    "pytest_runtestloop",
    "pytest_runtest_makereport",
    "pytest_runtest_logreport",
    "pytest_report_teststatus",
    "pytest_pyfunc_call",
    "pytest_make_collect_report",
    "pytest_collectreport",
    "pytest_report_to_serializable",
    "pytest_report_from_serializable",
)

#: Hooks that change results only as wrappers (a wrapper can swallow the exception of the
#: phase it wraps) or, for `pytest_sessionfinish`, when they run after pytest's JUnit writer
#: (wrapper or trylast): a plain implementation can add a failure or a skip, which the
#: totals show, or write to the item, which the item check judges (`item_state`).
WRAPPER_HOOKS: tuple[str, ...] = (
    "pytest_runtest_setup",
    "pytest_runtest_call",
    "pytest_runtest_teardown",
    "pytest_fixture_setup",
    "pytest_sessionfinish",
)

#: Recorded for the reader, never disqualifying on their own: honest conftests implement them
#: every day (markers, ordering, custom collectors), and what they can do shows elsewhere:
#: a narrowed selection in the totals and against the base branch's report, a patch of
#: pytest's objects in the internals check, a rewritten file in the JUnit digest.
RECORDED_HOOKS: tuple[str, ...] = (
    "pytest_collection",
    "pytest_collection_modifyitems",
    "pytest_deselected",
    "pytest_ignore_collect",
    "pytest_collect_file",
    "pytest_pycollect_makeitem",
    "pytest_generate_tests",
    "pytest_terminal_summary",
    "pytest_configure",
    "pytest_unconfigure",
)

WATCHED_HOOKS: tuple[str, ...] = REWRITE_HOOKS + WRAPPER_HOOKS + RECORDED_HOOKS

#: Where a hook's code lives. Only the installed environment (site-packages, the standard
#: library) and the gate itself are outside the agent's change; a file under the rootdir is
#: the repository's, and anything else (a temporary file, code made by exec) is unexplained.
TRUSTED_ORIGINS = frozenset({"installed", "gate"})

MAX_LISTED_FINDINGS = 20

#: The item check's lists (`gate/evidence/item_state.py`) and the audit listener's
#: (`audit_watch.py`): an inventory without them was written by a plugin that did not check
#: items or did not listen (version 3 added `trace_functions` and `audit`).
ITEM_CHECK_FIELDS = ("item_changes", "item_reports", "trace_functions")

#: How the watch names an attribute of the session's plugin manager instance it compares.
MANAGER_SUFFIX = "(of the session's plugin manager)"


def hook_entry_rewrites(entry: Mapping[str, Any]) -> bool:
    """Can this hook implementation change a result (whatever its origin)?"""
    hook, kind = entry.get("hook"), entry.get("kind")
    if hook in REWRITE_HOOKS:
        return True
    if hook == "pytest_sessionfinish":
        return kind in ("wrapper", "trylast")
    return hook in WRAPPER_HOOKS and kind == "wrapper"


def derive_findings(inventory: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every reason the run's results may not be pytest's own, from the inventory's entries."""
    findings: list[dict[str, str]] = []
    for entry in _dicts(inventory.get("hooks")):
        if hook_entry_rewrites(entry) and entry.get("origin") not in TRUSTED_ORIGINS:
            findings.append({
                "code": "report_hook",
                "what": f"{entry.get('hook')} ({entry.get('kind')}) in {entry.get('plugin')}",
                "file": str(entry.get("file")),
                "route": str(entry.get("route")),
            })
    findings.extend(_internal_findings(inventory))
    for entry in _dicts(inventory.get("import_hooks")):
        findings.append({
            "code": "import_hook",
            "what": f"{entry.get('what')} added to {entry.get('list')}",
            "file": str(entry.get("file")),
            "route": f"added at {entry.get('seen')}",
        })
    audit = inventory.get("audit")
    if not isinstance(audit, Mapping) or audit.get("listening") is not True:
        findings.append({"code": "audit_listener", "what": "the plugin's audit listener",
                         "file": "<unknown>", "route": "not listening at the end of the session"
                         " (taken out during the run, or never added)"})
    for entry in _dicts(inventory.get("trace_functions")):  # set while that code ran
        if entry.get("origin") in TRUSTED_ORIGINS:
            continue
        findings.append({
            "code": "trace_function",
            "what": f"{entry.get('what')} while {entry.get('file')}:{entry.get('line')} ran",
            "file": str(entry.get("file")),
            "route": "a trace or profile function sees every line of a test and can jump"
                     " over its assertions",
        })
    findings.extend(_source_findings(inventory))
    for entry in _dicts(inventory.get("preloaded")):  # ran before the plugin (plugin_preload)
        findings.append({"code": "preloaded_code", "what": str(entry.get("what")),
                         "file": str(entry.get("file")), "route": str(entry.get("route"))})
    for node in inventory.get("patched_items") or ():
        findings.append({
            "code": "patched_item",
            "what": f"{node}: its runtest/setup/teardown or test function was replaced on"
            " the item",
            "file": str(node).split("::", 1)[0],
            "route": "item attribute",
        })
    findings.extend(_item_findings(inventory))
    return findings


def _item_findings(inventory: Mapping[str, Any]) -> list[dict[str, str]]:
    """What a hook, fixture or the code under test wrote to an item that changes which code
    runs for it or where its reports go (`item_state`), and a report logged for an item that
    is not the one pytest's makereport made, or not with the outcome it had then."""
    findings: list[dict[str, str]] = []
    for entry in _dicts(inventory.get("item_changes")):
        findings.append({
            "code": "item_state",
            "what": f"{entry.get('node')}: {entry.get('what')} replaced by {entry.get('now')}",
            "file": str(entry.get("file")),
            "route": f"written to the item, seen at {entry.get('seen')}",
        })
    for entry in _dicts(inventory.get("item_reports")):
        findings.append({
            "code": "item_report",
            "what": f"{entry.get('node')} ({entry.get('when')}): {entry.get('what')}",
            "file": str(entry.get("file")),
            "route": str(entry.get("route") or "between makereport and the loggers"),
        })
    return findings


def _internal_findings(inventory: Mapping[str, Any]) -> list[dict[str, str]]:
    """A watched namespace that was absent at load, not pytest's (or the gate's) own bytes, or
    changed during the session: one finding for each name replaced, added or removed."""
    findings: list[dict[str, str]] = []
    for entry in _dicts(inventory.get("internals")):
        name = str(entry.get("name"))
        if entry.get("present") is not True:
            findings.append({"code": "patched_internal", "what": name, "file": "<unknown>",
                             "route": f"not found at load ({entry.get('problem')})"})
            continue
        if entry.get("origin") not in TRUSTED_ORIGINS:
            findings.append({"code": "patched_internal", "what": name,
                             "file": str(entry.get("file")),
                             "route": f"not pytest's own at load ({entry.get('origin')})"})
        changes = _dicts(entry.get("changes"))
        for change in changes:
            if _setup_addition(change) or _setup_again(change, entry):
                continue
            findings.append({
                "code": "patched_internal",
                "what": f"{name}.{change.get('name')}",
                "file": str(change.get("file")),
                "route": f"{change.get('change')} at run time, first seen at {change.get('seen')}",
            })
        if entry.get("unchanged") is not True and not changes:
            findings.append({"code": "patched_internal", "what": name,
                             "file": str(entry.get("file")), "route": "replaced at run time"})
    return findings


def _source_findings(inventory: Mapping[str, Any]) -> list[dict[str, str]]:
    """A test module that was not the commit's bytes when collected or at the end, one git
    could not compare, and a tree clean at the start and dirty at the end."""
    findings: list[dict[str, str]] = []
    sources = inventory.get("test_sources")
    if isinstance(sources, Mapping):
        if sources.get("problem"):
            findings.append({"code": "test_source", "what": "the collected test modules",
                             "file": "<git>", "route": str(sources.get("problem"))})
        for entry in _dicts(sources.get("differing")):
            when = (
                "not in the commit" if entry.get("commit") is None
                else "other bytes than the commit's when collected"
                if entry.get("collected") != [entry.get("commit")]
                else "other bytes than the commit's at session end"
            )
            findings.append({"code": "test_source", "what": f"test module {when}",
                             "file": str(entry.get("path")), "route": "rewritten during the run"})
    tree = inventory.get("tree_at_end")
    changed = tree.get("changed_committed") if isinstance(tree, Mapping) else None
    if isinstance(tree, Mapping) and tree.get("start_clean") is True and changed:
        shown = [str(p) for p in changed][:5]
        findings.append({"code": "tree_changed", "what": "a committed file clean at the start",
                         "file": ", ".join(shown), "route": "changed before the session ended"})
    written = tree.get("written_committed") if isinstance(tree, Mapping) else None
    if isinstance(written, list) and written:  # heard as it happened: even if put back
        findings.append({"code": "tree_changed", "what": "a committed Python file written",
                         "file": ", ".join(str(p) for p in written[:5]),
                         "route": "opened for writing, renamed or copied onto while the tests"
                                  " ran, even if put back"})
    if isinstance(tree, Mapping) and tree.get("start_clean") is True and tree.get("unread"):
        findings.append({"code": "tree_changed", "what": "the tree clean at the start",
                         "file": "<git>", "route": str(tree.get("unread"))})
    return findings


def _setup_addition(change: Mapping[str, Any]) -> bool:
    """pytest's own plugins add new names to its classes after load (`_pytest.legacypath` adds
    `Node.fspath`; a warning flag on `Function`): a new name (hiding nothing inherited or
    builtin) holding plain data or code from the installed environment changes no result.
    pytester's `HookRecorder` wraps the plugin manager's `_inner_hookexec` with installed code.
    A replaced, removed or hiding name is a finding whatever it holds."""
    trusted = change.get("origin") in TRUSTED_ORIGINS
    if str(change.get("name", "")).endswith(MANAGER_SUFFIX):
        return trusted
    return change.get("change") == "added" and (change.get("data") is True or trusted)


def _setup_again(change: Mapping[str, Any], entry: Mapping[str, Any]) -> bool:
    """An addition set up again by the code that added it (pytest's `legacypath` re-adds
    `TerminalReporter.startdir` in every session of one process, as under pytester): both the
    old and the new value come from one installed file that is not the namespace's own. A
    namespace's own name replaced, even by its own module's code, is a finding."""
    return (
        change.get("change") == "replaced"
        and change.get("origin") in TRUSTED_ORIGINS and change.get("was_origin") in TRUSTED_ORIGINS
        and change.get("file") == change.get("was_file") != entry.get("file")
    )


def _dicts(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def digest(inventory: Mapping[str, Any]) -> str:
    """sha256 of the inventory as canonical JSON, without its own `digest` field."""
    body = {key: value for key, value in inventory.items() if key != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def seal(inventory: dict[str, Any]) -> dict[str, Any]:
    """The inventory with its findings and digest filled in (what the plugin writes)."""
    sealed = {**inventory, "findings": derive_findings(inventory)}
    sealed["digest"] = digest(sealed)
    return sealed


def describe(findings: list[dict[str, str]]) -> str:
    shown = [
        f"{f.get('what')} from {f.get('file')} ({f.get('route')})"
        for f in findings[:MAX_LISTED_FINDINGS]
    ]
    more = len(findings) - len(shown)
    return "; ".join(shown) + (f" and {more} more" if more > 0 else "")


def judge(inventory: object) -> str | None:
    """Why a record that says the plugin wrote it is not the plugin's honest account, or None.

    No inventory (hand-written, or an older plugin), one that does not list every watched
    namespace of `gate.claim.watched_internals` (a plugin that watched less, or entries cut
    out), a digest or findings list that does not follow from the entries (edited
    afterwards), or findings (something from the repository could rewrite results) all make
    the record `producer_modified`."""
    if not isinstance(inventory, Mapping):
        return (
            f"the record names the claim-gate pytest plugin but carries no {INVENTORY_FIELD}:"
            " it was written by hand or by an older plugin; run the tests again with this"
            " plugin"
        )
    if inventory.get("version") != INVENTORY_VERSION or not isinstance(
        inventory.get("hooks"), list
    ) or not isinstance(inventory.get("internals"), list) or not all(
        isinstance(inventory.get(name), list) for name in ITEM_CHECK_FIELDS
    ):
        return (
            f"the record's {INVENTORY_FIELD} is not an inventory this gate reads"
            f" (version {INVENTORY_VERSION}): run the tests again with this gate's plugin"
        )
    missing = missing_names(inventory.get("internals"))
    if missing:
        return (
            f"the record's {INVENTORY_FIELD} does not list"
            f" {plural(len(missing), 'watched internal')}"
            f" ({', '.join(missing[:MAX_LISTED_FINDINGS])}): a plugin that watched less wrote it,"
            " or it was edited; run the tests again with this gate's plugin"
        )
    if inventory.get("digest") != digest(inventory):
        return (
            f"the record's {INVENTORY_FIELD} does not match its digest: it was edited after the"
            " plugin wrote it"
        )
    findings = derive_findings(inventory)
    if inventory.get("findings") != findings:
        return (
            f"the findings in the record's {INVENTORY_FIELD} do not follow from its entries:"
            " it was edited after the plugin wrote it"
        )
    if findings:
        return (
            "code from the repository could rewrite the test results: "
            + describe(findings)
            + "; the run is not pytest's own account (remove the hook or patch, or run the"
            " gate's tests without it)"
        )
    return None
