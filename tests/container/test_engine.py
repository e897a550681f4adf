"""The container helpers' own logic, which needs no podman: these run on every machine."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.container.base import DEFAULT_MIRROR, apt_mirror, base_key, extra_ca_certificates
from tests.container.engine import Limits, configure, skip_reason
from tests.container.runner import input_variable

DEB822 = """\
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb-src
URIs: http://src.example/debian
Suites: bookworm

Types: deb
# http://snapshot.example/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
"""


def test_apt_mirror_reads_the_main_suite_from_deb822(tmp_path: Path) -> None:
    sources = tmp_path / "debian.sources"
    sources.write_text(DEB822, encoding="utf-8")
    assert apt_mirror([sources]) == "http://mirror.example/debian"


def test_apt_mirror_reads_one_line_sources(tmp_path: Path) -> None:
    sources = tmp_path / "sources.list"
    sources.write_text(
        "# deb http://commented.example/debian bookworm main\n"
        "deb http://security.example/debian-security bookworm-security main\n"
        "deb [arch=amd64 signed-by=/k.gpg] http://one.example/debian/ bookworm main\n",
        encoding="utf-8",
    )
    assert apt_mirror([sources]) == "http://one.example/debian"


def test_apt_mirror_falls_back_to_debian_when_nothing_fits(tmp_path: Path) -> None:
    other = tmp_path / "other.list"
    other.write_text("deb https://packages.example/apt cloud-sdk main\n", encoding="utf-8")
    assert apt_mirror([other, tmp_path / "absent.list"]) == DEFAULT_MIRROR


def test_base_key_changes_with_the_trusted_certificates(tmp_path: Path) -> None:
    (tmp_path / "a.crt").write_text("one", encoding="ascii")
    certificates = extra_ca_certificates(tmp_path)
    before = base_key(DEFAULT_MIRROR, certificates)
    assert before == base_key(DEFAULT_MIRROR, certificates)
    (tmp_path / "a.crt").write_text("two", encoding="ascii")
    assert base_key(DEFAULT_MIRROR, certificates) != before
    assert base_key("http://other.example/debian", certificates) != before
    assert extra_ca_certificates(tmp_path / "absent") == []


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("claim-path", "INPUT_CLAIM-PATH"),
        ("github-token", "INPUT_GITHUB-TOKEN"),
        ("mode", "INPUT_MODE"),
        ("two words", "INPUT_TWO_WORDS"),
    ],
)
def test_input_variables_are_named_as_the_runner_names_them(name: str, variable: str) -> None:
    assert input_variable(name) == variable


def test_missing_tools_give_a_skip_reason_naming_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    reason = skip_reason()
    assert reason is not None
    assert "podman, buildah, runc" in reason
    assert "apt-get install" in reason


def test_configuration_keeps_storage_private_and_limits_within_the_hard_ones(
    tmp_path: Path,
) -> None:
    limits = Limits.of_this_process()
    assert limits.nofile > 0
    assert limits.nproc > 0
    engine = configure(tmp_path, Limits(nofile=1024, nproc=512))
    containers = tomllib.loads(engine.containers_conf.read_text(encoding="utf-8"))
    storage = tomllib.loads(engine.storage_conf.read_text(encoding="utf-8"))
    assert containers["containers"]["default_ulimits"] == ["nofile=1024:1024", "nproc=512:512"]
    assert containers["containers"]["netns"] == "host"
    assert containers["engine"]["runtime"] == "runc"
    assert storage["storage"]["driver"] == "overlay"
    assert Path(storage["storage"]["graphroot"]).is_relative_to(tmp_path)
    assert Path(storage["storage"]["runroot"]).is_relative_to(tmp_path)
    env = engine.environment()
    assert env["CONTAINERS_CONF"] == str(engine.containers_conf)
    assert env["CONTAINERS_STORAGE_CONF"] == str(engine.storage_conf)
