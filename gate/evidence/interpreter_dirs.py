"""Where the running interpreter keeps installed code, read from `sysconfig` in one place.

The plugin's watch (which code is installed, which is the repository's) and the preload scan
(what ran before the plugin) each read `sysconfig.get_paths()` with their own list of keys; a
key added to one and not the other would make a file installed code for one reader and the
repository's for the other.
"""

from __future__ import annotations

import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

#: site-packages: a file there counts as installed only when a RECORD lists its bytes.
SITE_KEYS = ("purelib", "platlib")
#: Installed code: site-packages and the standard library.
INSTALLED_KEYS = (*SITE_KEYS, "stdlib", "platstdlib")
#: Installed code and the environment's scripts (console entry points such as `pytest`).
WITH_SCRIPTS_KEYS = (*INSTALLED_KEYS, "scripts")


def interpreter_dirs(keys: Sequence[str], paths: Mapping[str, str] | None = None
                     ) -> tuple[Path, ...]:
    """The directories `sysconfig` (or `paths`) names for `keys`, resolved, sorted, once each;
    a key the scheme does not have is left out."""
    found = sysconfig.get_paths() if paths is None else paths
    return tuple(sorted({Path(found[key]).resolve() for key in keys if key in found}))


def site_dirs() -> tuple[Path, ...]:
    return interpreter_dirs(SITE_KEYS)


def install_dirs() -> tuple[Path, ...]:
    return interpreter_dirs(INSTALLED_KEYS)


def installed_dirs_and_scripts() -> tuple[Path, ...]:
    return interpreter_dirs(WITH_SCRIPTS_KEYS)
