"""The active plugin pauses the automatic garbage collector from its end work until pytest's
cleanups (`gate/faces/gc_pause.py`): pytest makes five full collections there, and a pass that
fell due in between would walk the same objects. Real sessions, in a subprocess: another
plugin's terminal summary sees the collector off, the caller finds it on again when the
session returns, and a caller that had it off finds it off."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.gitrepo import commit_all, git_env, init_repo
from tests.inner_sessions import BLOCKED_PLUGINS

#: A `-p` plugin of the inner sessions: what the collector is while the terminal summary is
#: written (after the plugin's end work, before pytest's cleanups).
PROBE = (
    "import gc\n\n"
    "SEEN = []\n\n"
    "def pytest_terminal_summary(terminalreporter):\n"
    "    SEEN.append(gc.isenabled())\n"
)

#: Two sessions in one process: one with the collector on, one with it off.
SCRIPT = (
    "import gc, json, sys\n"
    "import pytest\n"
    "import gc_probe\n"
    "args = [*sys.argv[1:]]\n"
    "pytest.main(args, plugins=[gc_probe])\n"
    "after_on = gc.isenabled()\n"
    "gc.disable()\n"
    "pytest.main(args, plugins=[gc_probe])\n"
    "after_off = gc.isenabled()\n"
    "print(json.dumps({'summary': gc_probe.SEEN, 'after_on': after_on, 'after_off': after_off}))\n"
)


def _sessions(root: Path, *options: str) -> dict[str, object]:
    blocked = [arg for name in BLOCKED_PLUGINS for arg in ("-p", f"no:{name}")]
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, "-q", "-p", "no:cacheprovider", *blocked, *options],
        cwd=root, env={**git_env(), "PYTHONPATH": str(root / "probe")}, capture_output=True,
        text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    seen: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "probe").mkdir(parents=True)
    (root / "probe" / "gc_probe.py").write_text(PROBE)
    (root / "test_a.py").write_text("def test_a():\n    assert True\n")
    (root / ".gitignore").write_text("probe/\nout/\n__pycache__/\n")
    init_repo(root)
    commit_all(root)
    return root


def test_the_collector_waits_from_the_plugins_end_to_pytests_cleanups(tmp_path: Path) -> None:
    root = _project(tmp_path)
    seen = _sessions(root, "--claim-evidence", "out/evidence.json")
    assert seen == {"summary": [False, False], "after_on": True, "after_off": False}
    record = json.loads((root / "out" / "evidence.json").read_text())
    assert record["observed_value"]["passed"] == 1


def test_control_an_inactive_plugin_leaves_the_collector_alone(tmp_path: Path) -> None:
    seen = _sessions(_project(tmp_path))
    assert seen == {"summary": [True, False], "after_on": True, "after_off": False}
