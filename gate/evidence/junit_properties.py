"""What a JUnit file says about its run rather than its tests: properties and timestamps.

The commit a run tested, whether its tree was clean, the pytest plugin's own judgement of
the run, and when it ran. Kept as stated (the evidence collector binds them to the
decision's subject); a time without a zone is never read as UTC.
"""

from __future__ import annotations

from datetime import datetime

from gate.claim.decimal_text import decimal
from gate.claim.junit_facts import TimeSource
from gate.claim.test_job import BASE_CODE_PROPERTY
from gate.evidence.junit_node import Node
from gate.evidence.junit_tags import ROOTS, local
from gate.evidence.junit_time import parse_suite_timestamp

#: Properties naming the commit a run tested (the pytest plugin writes the first).
COMMIT_PROPERTIES = ("claim-gate.commit", "git.commit", "vcs.revision")
TREE_CLEAN_PROPERTY = "claim-gate.tree_clean"
#: The plugin's judgement of its own run (`inventory_properties`): a run it saw modified
#: never counts, whichever file reports it.
PLUGIN_MODIFIED_PROPERTY = "claim-gate.producer_modified"
PLUGIN_FINDING_PROPERTY = "claim-gate.finding"
_MAX_PLUGIN_FINDINGS = 20
#: The plugin's word that its run did not finish (`completion_properties`): how many collected
#: tests have no result of their own, and what ended the session early ("false": nothing).
PLUGIN_UNFINISHED_PROPERTY = "claim-gate.unfinished"
PLUGIN_INTERRUPTED_PROPERTY = "claim-gate.interrupted"
#: Written by claim-gate's pytest plugin: when the session started, with a zone.
STARTED_AT_PROPERTY = "claim-gate.started_at"
#: `claim-gate.tree_clean` values that say the tree was clean; any other stated value (false,
#: dirty, maybe, ...) means it was not: a run is trusted clean only when it says so plainly.
CLEAN = frozenset({"true", "1", "yes", "clean"})


class RunProperties:
    """Accumulates one file's run properties. Mutable on purpose: it lives for one parse."""

    def __init__(self) -> None:
        self.zoned: list[datetime] = []
        self.started: list[datetime] = []  # claim-gate.started_at (the pytest plugin's)
        self.time_problems: list[str] = []
        self.commits: dict[tuple[str, str], None] = {}
        self.tree_clean: str | None = None
        self.base_code: dict[str, None] = {}  # claim-gate.base_code values (a set, in order)
        self.plugin_modified: str | None = None
        self.plugin_findings: list[str] = []
        self.plugin_unfinished = 0
        self.plugin_interrupted: str | None = None

    def suite_timestamp(self, stamp: str) -> None:
        parsed = parse_suite_timestamp(stamp)
        if parsed.at is not None:
            self.zoned.append(parsed.at)
        elif parsed.problem is not None and len(self.time_problems) < 3:
            self.time_problems.append(parsed.problem)

    def property(self, prop: Node) -> None:
        """A `<property>`; only one of a suite's or the root's `<properties>` counts."""
        holder = prop.getparent()
        owner = holder.getparent() if holder is not None else None
        if owner is None or not isinstance(owner.tag, str) or local(owner.tag) not in ROOTS:
            return
        name = prop.get("name")
        value = (prop.get("value") or prop.text or "").strip()
        if name == STARTED_AT_PROPERTY and value:
            parsed = parse_suite_timestamp(value)
            if parsed.at is not None:
                self.started.append(parsed.at)  # a naive value is ignored, never read as UTC
        elif name in COMMIT_PROPERTIES and value:
            self.commits[(name, value)] = None
        elif name == BASE_CODE_PROPERTY:
            self.base_code[value] = None
        elif name == TREE_CLEAN_PROPERTY and (
            self.tree_clean is None or value.lower() not in CLEAN
        ):
            self.tree_clean = value  # shards merged into one file: any dirty one decides
        elif name == PLUGIN_MODIFIED_PROPERTY and (
            self.plugin_modified is None or value.lower() != "false"
        ):
            self.plugin_modified = value  # any shard the plugin saw modified decides
        elif name == PLUGIN_FINDING_PROPERTY and len(self.plugin_findings) < _MAX_PLUGIN_FINDINGS:
            self.plugin_findings.append(value[:200])
        elif name == PLUGIN_UNFINISHED_PROPERTY:
            # Shards merged into one file each say theirs; a value that is no count (a
            # Unicode digit, a number too long to be one) is no "nothing unfinished" either.
            counted = decimal(value)
            self.plugin_unfinished += 1 if counted is None else counted
        elif name == PLUGIN_INTERRUPTED_PROPERTY and value.lower() != "false":
            self.plugin_interrupted = value[:300]

    def time_source(self, mtime: datetime) -> TimeSource:
        if self.started:
            return TimeSource(min(self.started), "timestamp",
                              "claim-gate.started_at, written by the pytest plugin with a zone")
        if self.time_problems:
            return TimeSource(
                mtime, "mtime",
                f"{self.time_problems[0]}; using the file's modification time on this machine"
                " (a time without a zone is never read as UTC)",
            )
        if self.zoned:
            return TimeSource(min(self.zoned), "timestamp",
                              "the earliest suite timestamp (it carries a zone)")
        return TimeSource(mtime, "mtime",
                          "no suite timestamp; using the file's modification time on this machine")
