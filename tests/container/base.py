"""The Debian base the tests build the image on: debootstrap once, cache the tar by a hash."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path

from tests.container.engine import EngineError, failure_message, locked

SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
DEBOOTSTRAP_OPTIONS = (
    "--variant=minbase",
    "--include=python3,python3-venv,python3-pip,ca-certificates",
)
#: Bump when the way the base is made changes, so cached bases made the old way are not reused.
BASE_RECIPE = "1"
EXTRA_CA_DIR = Path("/usr/local/share/ca-certificates")


def apt_mirror(sources: Sequence[Path] | None = None) -> str:
    """The Debian mirror this machine's apt uses for the main suite (deb822 or one-line format)."""
    if sources is None:
        sources = [
            Path("/etc/apt/sources.list"),
            *sorted(Path("/etc/apt/sources.list.d").glob("*.sources")),
            *sorted(Path("/etc/apt/sources.list.d").glob("*.list")),
        ]
    for source in sources:
        if not source.is_file():
            continue
        for uri, suites in _apt_entries(source.read_text(encoding="utf-8", errors="replace")):
            if any("-" not in suite for suite in suites) and "/debian" in uri:
                return uri.rstrip("/")
    return DEFAULT_MIRROR


def _apt_entries(text: str) -> Iterator[tuple[str, list[str]]]:
    for stanza in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        for line in stanza.splitlines():
            line = line.strip()
            if line.startswith("#") or not line:
                continue
            one_line = re.match(r"deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            if one_line:
                yield one_line.group(1), [one_line.group(2)]
            elif ":" in line:
                key, _, value = line.partition(":")
                fields[key.strip().lower()] = value.strip()
        if fields.get("types", "").split()[:1] == ["deb"] and "uris" in fields:
            for uri in fields["uris"].split():
                yield uri, fields.get("suites", "").split()


def extra_ca_certificates(directory: Path = EXTRA_CA_DIR) -> list[Path]:
    """Certificates the host trusts beyond Debian's: pip in the build needs them too."""
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.rglob("*.crt") if path.is_file())


def base_key(mirror: str, certificates: Sequence[Path]) -> str:
    """A hash of everything the base depends on, so a cache made otherwise is never reused."""
    digest = hashlib.sha256()
    digest.update(json.dumps([BASE_RECIPE, SUITE, mirror, list(DEBOOTSTRAP_OPTIONS)]).encode())
    for cert in certificates:
        digest.update(cert.name.encode() + b"\0" + cert.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def base_tarball(cache_dir: Path) -> Path:
    """The debootstrapped base as a tar, made once and then reused from cache_dir."""
    mirror = apt_mirror()
    certificates = extra_ca_certificates()
    tarball = cache_dir / f"base-{SUITE}-{base_key(mirror, certificates)}.tar"
    with locked(cache_dir / "base.lock"):
        if tarball.is_file():
            return tarball
        if shutil.which("debootstrap") is None:
            raise EngineError("no cached base image and no debootstrap to make one")
        tree = cache_dir / f"root-{os.getpid()}"
        shutil.rmtree(tree, ignore_errors=True)
        try:
            _debootstrap(tree, mirror, certificates)
            partial = tarball.with_suffix(".partial")
            _check(["tar", "--numeric-owner", "-C", str(tree), "-cf", str(partial), "."], 300)
            partial.replace(tarball)
        finally:
            shutil.rmtree(tree, ignore_errors=True)
    return tarball


def _debootstrap(tree: Path, mirror: str, certificates: Sequence[Path]) -> None:
    _check(["debootstrap", *DEBOOTSTRAP_OPTIONS, SUITE, str(tree), mirror], 900)
    if certificates:
        target = tree / "usr/local/share/ca-certificates"
        target.mkdir(parents=True, exist_ok=True)
        for cert in certificates:
            shutil.copyfile(cert, target / cert.name)
        _check(["chroot", str(tree), "update-ca-certificates"], 120)
    # Downloaded packages and indexes are dead weight in an image.
    for leftover in (tree / "var/cache/apt/archives").glob("*.deb"):
        leftover.unlink()
    shutil.rmtree(tree / "var/lib/apt/lists", ignore_errors=True)
    (tree / "var/lib/apt/lists/partial").mkdir(parents=True)


def _check(command: Sequence[str], timeout: float) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise EngineError(failure_message(command, result))
