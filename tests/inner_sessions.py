"""The options every inner pytest session of the suite runs with (subprocesses in temporary
repositories, pytester): the suite's own plugins that such a session never uses stay out.

- `benchmark`: where pytest-benchmark is installed it warns under xdist, and warnings are
  errors here;
- `hypothesispytest`: Hypothesis's plugin imports all of Hypothesis (about 0.5 s of CPU on a
  quiet machine, two thirds of a small session's) and no inner session has a property test.
"""

from __future__ import annotations

BLOCKED_PLUGINS = ("benchmark", "hypothesispytest")
INNER_PYTEST_OPTIONS = " ".join(f"-p no:{name}" for name in BLOCKED_PLUGINS)


def with_inner_options(options: str) -> str:
    """`options` (a PYTEST_ADDOPTS value) with the inner sessions' blocks it lacks added."""
    missing = [f"-p no:{name}" for name in BLOCKED_PLUGINS if f"no:{name}" not in options]
    return " ".join([options.strip(), *missing]).strip()
