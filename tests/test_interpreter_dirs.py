"""The interpreter's installed directories, read in one place (interpreter_dirs.py)."""

from __future__ import annotations

from pathlib import Path

from gate.evidence import interpreter_dirs as dirs


def test_keys_are_resolved_sorted_and_a_missing_key_is_left_out(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a").symlink_to(tmp_path / "b")
    paths = {"purelib": str(tmp_path / "b"), "platlib": str(tmp_path / "a"),
             "stdlib": str(tmp_path / "lib")}
    assert dirs.interpreter_dirs(dirs.SITE_KEYS, paths) == ((tmp_path / "b").resolve(),)
    assert dirs.interpreter_dirs(dirs.WITH_SCRIPTS_KEYS, paths) == tuple(sorted(
        {(tmp_path / "b").resolve(), (tmp_path / "lib").resolve()}))


def test_site_packages_within_installed_within_scripts() -> None:
    site, installed, scripts = (dirs.site_dirs(), dirs.install_dirs(),
                                dirs.installed_dirs_and_scripts())
    assert site
    assert set(site) <= set(installed) < set(scripts)
