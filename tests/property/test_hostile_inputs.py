"""Any bytes, any mutation of a valid document: the readers answer with a value or with
InvalidInput (exit 3) - never another exception, which would surface as a crash."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gate.claim.errors import InvalidInput
from gate.claim.loader import parse_claim_bytes
from gate.claim.policy_parse import parse_policy_text
from gate.evidence.junit_reader import read_junit_file
from tests.junit_tools import ToolReport

DATA = Path(__file__).resolve().parent.parent / "data"
SEED = (DATA / "claims" / "seed-example.json").read_bytes()

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                  max_size=3),
    max_leaves=10,
)


def replace_somewhere(
    draw: st.DrawFn, document: Any, go_deeper: st.SearchStrategy[Any],
    values: st.SearchStrategy[Any] = JSON_VALUES,
) -> Any:
    """`document` with one value, reached by a random walk, replaced by an arbitrary JSON
    value from `values` (the whole document when the walk stops at once)."""
    node = document
    path: list[Any] = []
    while isinstance(node, dict | list) and node and draw(go_deeper):
        key = draw(st.sampled_from(sorted(node) if isinstance(node, dict) else range(len(node))))
        path.append(key)
        node = node[key]
    if not path:
        return draw(values)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = draw(values)
    return document


@st.composite
def mutated_claims(draw: st.DrawFn) -> bytes:
    """The seed claim with one value somewhere replaced by an arbitrary JSON value."""
    return json.dumps(replace_somewhere(draw, json.loads(SEED), st.booleans())).encode()


def _splice(original: bytes, data: st.DataObject) -> bytes:
    cut = data.draw(st.integers(0, len(original)))
    return original[:cut] + data.draw(st.binary(max_size=40)) + original[cut + data.draw(
        st.integers(0, 40)):]


def refusal(load: Callable[[], object]) -> InvalidInput | None:
    """Run a reader: None when it accepted the input, the InvalidInput when it refused it;
    any other exception propagates and fails the test."""
    try:
        load()
    except InvalidInput as exc:
        return exc
    return None


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), mutated_claims()))
def test_any_claim_bytes_load_or_are_invalid_input(data: bytes) -> None:
    error = refusal(lambda: parse_claim_bytes(data, "claim.json"))
    assert error is None or str(error).startswith("claim.json")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_damaged_claim_text_loads_or_is_invalid_input(data: st.DataObject) -> None:
    damaged = _splice(SEED, data)
    error = refusal(lambda: parse_claim_bytes(damaged, "claim.json"))
    assert error is None or str(error).startswith("claim.json")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200),
                 JSON_VALUES.map(lambda v: json.dumps({"id": "p", "requires": v})),
                 JSON_VALUES.map(lambda v: json.dumps({"id": "p", "max_age_s": v}))))
def test_any_policy_text_loads_or_is_invalid_input(text: str) -> None:
    error = refusal(lambda: parse_policy_text(text, "policy.yml"))
    assert error is None or str(error).startswith("policy.yml")


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_junit_reads_or_is_invalid_input(
    tmp_path: Path, xunit1_report: ToolReport, data: st.DataObject
) -> None:
    """What pytest --junitxml wrote (tests/junit_tools.py), damaged anywhere."""
    path = tmp_path / "report.xml"
    path.write_bytes(_splice(xunit1_report.path.read_bytes(), data))
    try:
        read = read_junit_file(path)
    except InvalidInput:
        return
    totals = read.totals
    assert totals.tests == totals.passed + totals.failures + totals.errors + totals.skipped


HOOKS = DATA / "webhooks"
EVENTS = ["pull_request", "pull_request_target", "workflow_run", "workflow_dispatch",
          "merge_group", "push"]
PAYLOADS = {name: json.loads((HOOKS / f"{name}.json").read_text("utf-8")) for name in (
    "pull_request.opened.1", "workflow_run.completed.1", "merge_group.checks_requested.1")}


@st.composite
def mutated_payloads(draw: st.DrawFn) -> Any:
    """A real example payload with one value somewhere replaced (walks deeper than claims)."""
    document: Any = json.loads(json.dumps(PAYLOADS[draw(st.sampled_from(sorted(PAYLOADS)))]))
    return replace_somewhere(draw, document, st.integers(0, 3))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(EVENTS), mutated_payloads(), st.one_of(st.none(), st.integers()))
def test_any_event_payload_gives_a_trigger_or_invalid_input(
    name: str, payload: Any, pr: int | None
) -> None:
    from gate.evidence.github.event import parse_event

    error = refusal(lambda: parse_event(name, payload, "event.json", pr))
    assert error is None or str(error).startswith("event.json")


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_evidence_file_loads_or_is_invalid_input(tmp_path: Path, data: st.DataObject) -> None:
    from gate.claim.loader import load_evidence_records

    record = json.loads(SEED)["evidence"][0]
    text = data.draw(st.one_of(
        st.binary(max_size=120),
        JSON_VALUES.map(lambda v: json.dumps(v).encode()),
        JSON_VALUES.map(lambda v: json.dumps([{**record, "covers": v}]).encode()),
        JSON_VALUES.map(lambda v: json.dumps({**record, "at": v}).encode()),
    ))
    path = tmp_path / "evidence.json"
    path.write_bytes(text)
    error = refusal(lambda: load_evidence_records(path))
    assert error is None or str(error).startswith(str(path))


def verify_exit(folder: Path, document: bytes, fmt: str, *options: str) -> tuple[int, str]:
    """`claim-gate verify` on `document` in one output format: (exit code, stderr)."""
    import io

    from gate.faces.cli import main

    path = folder / "claim.json"
    path.write_bytes(document)
    err = io.StringIO()
    code = main(["verify", str(path), "--format", fmt, *options, "--now", "2026-08-27T18:04:10Z"],
                out=io.StringIO(), err=err)
    return code, err.getvalue()


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=mutated_claims(),
       fmt=st.sampled_from(["text", "json", "markdown", "junit", "github"]))
def test_verify_never_fails_as_a_fault_on_any_claim(
    tmp_path: Path, document: bytes, fmt: str
) -> None:
    """Exit 4 means the gate broke; no claim content may do that, in any output format."""
    code, err = verify_exit(tmp_path, document, fmt)
    assert code in (0, 1, 2, 3), err


@st.composite
def weird_valid_claims(draw: st.DrawFn) -> bytes:
    """Claims the schema accepts, with hostile text, extreme times and odd values."""
    from datetime import UTC, timedelta, timezone

    def stamp() -> str:
        moment = draw(st.datetimes(timezones=st.just(UTC)))
        offset = draw(st.integers(-14 * 60, 14 * 60))
        try:
            shown = moment.astimezone(timezone(timedelta(minutes=offset)))
        except OverflowError:
            shown = moment
        return shown.isoformat()

    ids = draw(st.lists(st.text(min_size=1, max_size=12), min_size=0, max_size=4, unique=True))
    text = st.text(max_size=40)
    return json.dumps({
        "spec_version": "0.1",
        "task": {"id": draw(st.text(min_size=1, max_size=12)), "description": draw(text)},
        "claimed_outcome": draw(st.text(min_size=1, max_size=60)),
        "mutations": [{"id": i, "kind": draw(st.sampled_from(["file_edit", "state_write",
                                                             "deploy", draw(st.text(min_size=1,
                                                                                    max_size=8))])),
                       "target": draw(text), "at": stamp()} for i in ids],
        "evidence": [{
            "check_type": draw(st.sampled_from(["test_run", "endpoint_health",
                                                "state_readback"])),
            "at": stamp(),
            "covers": draw(st.lists(st.sampled_from(ids), max_size=2)) if ids else [],
            "expected": draw(st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=3)),
            "observed_value": draw(JSON_VALUES),
            "verifier": {"id": draw(st.text(min_size=1, max_size=12)),
                         "kind": draw(st.sampled_from(["independent", "self_attested"]))},
        } for _ in range(draw(st.integers(0, 3)))],
    }).encode()


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=weird_valid_claims(),
       fmt=st.sampled_from(["text", "json", "markdown", "junit", "github"]))
def test_verify_decides_any_valid_claim_in_every_format(
    tmp_path: Path, document: bytes, fmt: str
) -> None:
    code, err = verify_exit(tmp_path, document, fmt, "--trusted-verifier", "*")
    assert code in (0, 1, 2, 3), err


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=weird_valid_claims())
def test_any_valid_claims_time_line_is_well_formed_svg(tmp_path: Path, document: bytes) -> None:
    """Hostile text and extreme times (year 1 to 9999, any offset) in the time line: it is
    decided and drawn, and the SVG is well-formed XML whatever the agent wrote."""
    import io
    import xml.etree.ElementTree as ET

    from gate.faces.cli import main

    path = tmp_path / "claim.json"
    path.write_bytes(document)
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(path), "--format", "svg", "--trusted-verifier", "*",
                 "--now", "2026-08-27T18:04:10Z"], out=out, err=err)
    assert code in (0, 1, 2, 3), err.getvalue()
    if code != 3:
        root = ET.fromstring(out.getvalue())  # noqa: S314 - the gate's own output
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
