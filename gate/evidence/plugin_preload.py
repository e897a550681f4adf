"""Code from the repository that ran before the plugin could watch (issue 21 item 4).

pytest loads its `pytest11` entry points, and Python imports `pytest` itself, before any
plugin hook runs. `python -m pytest` puts the working directory first on `sys.path`, so a
committed `x.dist-info/entry_points.txt` naming a `pytest11` plugin, or a `pytest/`,
`_pytest/` or `gate/` package at the repository root, runs the agent's code before the
watch exists: it can patch pytest and leave the patch looking like pytest's own. The plugin
cannot see what that code did, but it can see that it ran: these entries go into the
inventory (`preloaded`) and each is a finding that makes the run `producer_modified`.

"From the repository" is decided by real path resolution: under the rootdir and not inside
the running interpreter's installed directories (a virtualenv created inside the checkout
is installed code, not the change). This module only observes; the judgement is
`producer_inventory`'s.

The scan is cheap on purpose (it runs in every active session): the distributions read are
the ones whose `pytest11` entry points pytest loaded (`list_plugin_distinfo`, which pytest
filled while it imported them), not every distribution installed, and a module's real path
is its directory's, resolved once per directory, unless the file itself is a link, and where
a directory lies (installed, the repository's) is worked out once too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from gate.evidence.interpreter_dirs import installed_dirs_and_scripts

#: Packages whose code must be the installed one: pytest, its hook machinery, the plugin.
SHADOWABLE = ("pytest", "_pytest", "pluggy", "gate")
ENTRY_POINT_GROUP = "pytest11"
MAX_PRELOADED = 20


class Locator:
    """Whether a file is the repository's: under the rootdir, outside the installed dirs."""

    def __init__(self, rootdir: Path, installed: Iterable[Path]) -> None:
        self.named_root = rootdir.absolute()
        self.rootdir = rootdir.resolve()
        self._installed = tuple(installed)
        self._directories: dict[Path, Path] = {}
        self._places: dict[Path, tuple[bool, bool]] = {}

    def _real(self, file: Path) -> Path:
        """`file` with every link resolved; a directory's real path is worked out once."""
        if file.is_symlink():
            return file.resolve()
        directory = file.parent
        if directory not in self._directories:
            self._directories[directory] = directory.resolve()
        return self._directories[directory] / file.name

    def repository_path(self, file: object) -> str | None:
        """The path relative to the rootdir when `file` is the repository's, else None."""
        if not isinstance(file, str | Path) or str(file).startswith("<"):
            return None
        try:
            path = self._real(Path(file))
        except (OSError, RuntimeError):
            return None
        installed, under_root = self._place(path)
        if installed or not under_root:
            return None
        return path.relative_to(self.rootdir).as_posix() or "."

    def _place(self, path: Path) -> tuple[bool, bool]:
        """(inside an installed dir, under the rootdir) for a real path, from its directory's
        answer, worked out once per directory (a session's ~120 pytest, pluggy and gate
        modules sit in a dozen): `path` is under a directory exactly when its parent is, or
        it is that directory itself."""
        directory = path.parent
        if directory not in self._places:
            self._places[directory] = (
                any(directory.is_relative_to(d) for d in self._installed),
                directory.is_relative_to(self.rootdir))
        installed, under_root = self._places[directory]
        return installed or path in self._installed, under_root or path == self.rootdir


def _entry(what: str, file: str, route: str) -> dict[str, str]:
    return {"what": what[:300], "file": file[:300], "route": route}


def shadowed_modules(modules: Mapping[str, Any], locator: Locator) -> list[dict[str, str]]:
    """pytest, its internals, pluggy or the plugin imported from the repository (a package, or
    one of its modules put in its place), a `__main__` (the program that started the
    session) that is the repository's, and any other module imported from under the rootdir
    (by the path it was imported from: a module linked into an installed folder is judged by
    its real path only if it is one of the above): code of the change that ran before the
    plugin, at interpreter start-up (a `sitecustomize`/`usercustomize` on the path, an
    installed `.pth`'s import line) or as a `-p` plugin, when it could patch pytest and leave
    the patch looking like pytest's own. Each package is named once, by its first module."""
    found: dict[str, dict[str, str]] = {}
    roots = (str(locator.named_root), str(locator.rootdir))
    for name, module in sorted(modules.items()):
        top = name.split(".", 1)[0]
        if top in found:
            continue
        named = getattr(module, "__file__", None)
        if top not in SHADOWABLE and name != "__main__" and not (
                isinstance(named, str) and named.startswith(roots)):
            continue  # other modules by the path they were imported from (one string test)
        file = locator.repository_path(named)
        if file is None:
            continue
        if name == "__main__":
            found[name] = _entry("the program that started the session", file,
                                 "`__main__` is the repository's, not pytest's")
        elif top in SHADOWABLE:
            found[top if name == top else name] = _entry(
                name, file, "the repository's copy shadows the installed one")
        else:
            found[top] = _entry(name, file, "the repository's code, imported before the"
                                " plugin loaded (interpreter start-up, a .pth, a -p plugin)")
    return list(found.values())


def loaded_distributions(pluginmanager: Any) -> list[Any]:
    """The distributions whose `pytest11` entry points pytest loaded: only their code ran
    before the plugin (pytest skips an entry point whose name is taken or blocked, and one
    that fails to load ends the session). From pluggy's `list_plugin_distinfo`, unwrapped."""
    found: dict[int, Any] = {}
    for _, facade in pluginmanager.list_plugin_distinfo():
        distribution = getattr(facade, "_dist", facade)
        found.setdefault(id(distribution), distribution)
    return list(found.values())


def _location(distribution: Any) -> object:
    """The metadata directory of a distribution (`x.dist-info`, `x.egg-info`)."""
    path = getattr(distribution, "_path", None)
    return path if path is not None else distribution.locate_file("")


def repository_entry_points(distributions: Iterable[Any], modules: Mapping[str, Any],
                            locator: Locator) -> list[dict[str, str]]:
    """`pytest11` entry points of a distribution whose metadata lies in the repository, or
    whose module was imported from it."""
    found: list[dict[str, str]] = []
    for distribution in distributions:
        points = [p for p in distribution.entry_points if p.group == ENTRY_POINT_GROUP]
        metadata = locator.repository_path(_location(distribution)) if points else None
        for point in points:
            module = modules.get(point.value.split(":", 1)[0].strip())
            source = locator.repository_path(getattr(module, "__file__", None))
            if metadata is not None:
                found.append(_entry(f"pytest11 entry point {point.name} = {point.value}",
                                    metadata, "a distribution in the repository"))
            elif source is not None:
                found.append(_entry(f"pytest11 entry point {point.name} = {point.value}",
                                    source, "an installed entry point whose module is the"
                                    " repository's"))
    return found


def preloaded(rootdir: Path, modules: Mapping[str, Any],
              distributions: Iterable[Any]) -> list[dict[str, str]]:
    """Everything from the repository that ran before the plugin's first hook."""
    locator = Locator(rootdir, installed_dirs_and_scripts())
    found = shadowed_modules(modules, locator) \
        + repository_entry_points(distributions, modules, locator)
    unique = {(e["what"], e["file"]): e for e in found}
    return sorted(unique.values(), key=lambda e: (e["file"], e["what"]))[:MAX_PRELOADED]
