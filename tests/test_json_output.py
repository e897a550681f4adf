"""`verify --format json` keeps its bytes: the completed record is pinned as written before
the record writer was made to scale (issue 23), on the spec's example and on a claim that
reaches every JSON shape the record holds. Regenerate a pin only for a change of behaviour
that is meant: `claim-gate verify CLAIM --now 2026-08-27T18:05:00Z --trusted-verifier
'gitreal-gate/*' --format json`, the version replaced by @VERSION@."""

from __future__ import annotations

import gc
import io
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate import __version__
from gate.faces.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "json_output"
NOW = "2026-08-27T18:05:00Z"


def verify_json(claim: Path) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(claim), "--now", NOW, "--trusted-verifier", "gitreal-gate/*",
                 "--format", "json"], out=out, err=err)
    assert err.getvalue() == ""
    return code, out.getvalue()


def pinned(name: str) -> str:
    text = (DATA / name).read_text(encoding="utf-8")
    return text.replace("claim-gate/@VERSION@", f"claim-gate/{__version__}")


@pytest.mark.parametrize(("claim", "pin", "exit_code"), [
    (ROOT / "examples" / "claim.json", "example.out.json", 0),
    (DATA / "mixed.claim.json", "mixed.out.json", 2),
])
def test_the_json_record_is_byte_for_byte_as_pinned(claim: Path, pin: str,
                                                    exit_code: int) -> None:
    code, output = verify_json(claim)
    assert code == exit_code
    assert output == pinned(pin)


def test_the_collector_waits_while_a_command_runs_and_is_left_as_it_was() -> None:
    """`main` pauses the cyclic garbage collector for the command (gate/faces/gc_pause.py):
    the clock the decision reads sees it paused; after the command it is on again, and a
    caller that had it off finds it off."""
    seen: list[bool] = []

    def clock() -> datetime:
        seen.append(gc.isenabled())
        return datetime(2026, 8, 27, 18, 5, tzinfo=UTC)

    out, err = io.StringIO(), io.StringIO()
    assert gc.isenabled()
    code = main(["verify", str(ROOT / "examples" / "claim.json"), "--trusted-verifier",
                 "gitreal-gate/*"], clock=clock, out=out, err=err)
    assert code == 0
    assert seen
    assert not any(seen)
    assert gc.isenabled()
    gc.disable()
    try:
        main(["verify", str(ROOT / "examples" / "claim.json")], clock=clock, out=out, err=err)
        assert not gc.isenabled()
    finally:
        gc.enable()
