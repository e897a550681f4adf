"""What marks an evidence record as the pytest plugin's, written inside the test job.

The test job runs the change's own code, so the file it hands on is the agent's account: the
gate takes from it only the plugin's `test_run` records (`verify --test-evidence`), and only
those records carry these marks. An operator's record (`verify --evidence`) is produced outside
the test job; one that carries a mark was written inside it, whoever passes it on.
It also names what the plugin shares with `claim-gate base-code`: the plan's place, and the
property the plugin writes on a run over the base's code.
"""

from __future__ import annotations

#: Every record the pytest plugin writes names it by this verifier id (and its version).
PLUGIN_VERIFIER_PREFIX = "claim-gate/pytest@"
#: The plugin's inventory of what could have rewritten results (gate/evidence/producer_inventory).
INVENTORY_FIELD = "x-producer-inventory"
#: What ended the plugin's session early (its observed `interrupted` is true), in its record
#: and in the evidence read from its JUnit file.
INTERRUPTED_FIELD = "x-interrupted-by"
#: Where the plugin's record names the JUnit file its run wrote (path, sha256, totals). Defined
#: here, not in `facts`, so the plugin's test process does not import every fact type for it.
JUNIT_REPORT_FIELD = "x-junit-report"
#: The plugin's version, beside pytest's and Python's.
PLUGIN_VERSION_FIELD = "x-plugin-version"
#: Fields only the plugin writes: a record holding one was written in the test job.
PLUGIN_FIELDS: tuple[str, ...] = (INVENTORY_FIELD, JUNIT_REPORT_FIELD, PLUGIN_VERSION_FIELD)
#: The JUnit property the pytest plugin writes on a run over the base's code whose tree it
#: found to be exactly the plan (`BASE_SHA..HEAD_SHA`); the run's binding to (base, head).
#: Here, with the plan's place, so the plugin and the JUnit reader need not import the rest of
#: `fail_to_pass` for them.
BASE_CODE_PROPERTY = "claim-gate.base_code"
#: Where `claim-gate base-code` leaves its plan, relative to the repository's top.
MARKER_PATH = ".claim-gate/base-code.json"
