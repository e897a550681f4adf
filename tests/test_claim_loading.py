"""Loading hostile claim files: every failure names the file and the place, exit 3, no traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.loader import load_claim
from gate.faces.cli import main

DATA = Path(__file__).parent / "data" / "claims"
SEED = json.loads((DATA / "seed-example.json").read_text("utf-8"))


def write(tmp_path: Path, content: str | bytes, name: str = "claim.json") -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def seed_with(**changes: Any) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(json.dumps(SEED))
    document.update(changes)
    return document


def run_cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def refusal(path: Path, **kwargs: Any) -> InvalidInput:
    with pytest.raises(InvalidInput) as caught:
        load_claim(path, **kwargs)
    return caught.value


def test_the_seed_example_loads() -> None:
    loaded = load_claim(DATA / "seed-example.json")
    assert loaded.claim.mutations[0].id == "m1"
    assert loaded.claim.evidence[0].covers == ("m1",)
    assert len(loaded.document.sha256) == 64


def test_an_agent_claim_may_leave_out_evidence_policy_and_verdict(tmp_path: Path) -> None:
    document = {k: v for k, v in SEED.items() if k not in ("evidence", "policy", "verdict")}
    loaded = load_claim(write(tmp_path, json.dumps(document)))
    assert loaded.claim.evidence == ()
    assert loaded.claim.policy is None


def test_oversized_claim_is_refused_before_reading(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(SEED))
    error = refusal(path, max_bytes=100)
    assert "over the 100-byte limit" in str(error)
    assert str(path) in str(error)


def test_invalid_utf8_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, b'{\n  "spec_version": "0.1",\n  "task": "\xff"\n}')
    error = refusal(path)
    assert error.place == "3:12"
    assert "UTF-8" in error.problem


def test_json_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "spec_version": "0.1",\n  "task": {,}\n}')
    error = refusal(path)
    assert error.place == "3:12"
    assert "not valid JSON" in error.problem


def test_truncated_json_is_refused(tmp_path: Path) -> None:
    error = refusal(write(tmp_path, json.dumps(SEED)[:-40]))
    assert "not valid JSON" in error.problem


@pytest.mark.parametrize("content", ["", "   \n", "[]", '"claim"', "null"])
def test_empty_or_non_object_documents_are_refused(tmp_path: Path, content: str) -> None:
    error = refusal(write(tmp_path, content))
    assert error.source.endswith("claim.json")


def test_duplicate_keys_are_refused(tmp_path: Path) -> None:
    twice = '"claimed_outcome": "x", "claimed_outcome"'
    text = json.dumps(SEED).replace('"claimed_outcome"', twice, 1)
    error = refusal(write(tmp_path, text))
    assert "appears twice" in error.problem


def test_nan_is_refused(tmp_path: Path) -> None:
    text = json.dumps(seed_with(**{"x-score": 1})).replace('"x-score": 1', '"x-score": NaN')
    assert "not valid JSON" in refusal(write(tmp_path, text)).problem


def test_deep_nesting_is_refused(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    text = json.dumps(seed_with(**{"x-deep": 0})).replace('"x-deep": 0', f'"x-deep": {deep}')
    assert "nested" in refusal(write(tmp_path, text)).problem


def test_huge_integer_is_refused(tmp_path: Path) -> None:
    text = json.dumps(seed_with(**{"x-big": 0})).replace('"x-big": 0', '"x-big": ' + "9" * 5000)
    assert "not valid JSON" in refusal(write(tmp_path, text)).problem


@pytest.mark.parametrize(
    ("escape", "column"),
    [("\\ud800", 19), ("\\udc00", 19), ("\\ud83d\\ud83d", 19), ("\\ud83d\\ude00\\udfff", 31)],
)
def test_a_lone_surrogate_escape_is_refused_with_its_place(
    tmp_path: Path, escape: str, column: int
) -> None:
    """Valid JSON syntax, but no character: it could be neither printed nor written as UTF-8."""
    text = json.dumps(seed_with(), indent=2).replace("deploy-4471", "deploy-" + escape, 1)
    error = refusal(write(tmp_path, text))
    assert "lone surrogate" in error.problem
    assert error.place == f"4:{column}"


def test_a_surrogate_pair_escape_is_one_character(tmp_path: Path) -> None:
    text = json.dumps(seed_with(), indent=2).replace("deploy-4471", "deploy-\\ud83d\\ude00", 1)
    assert load_claim(write(tmp_path, text)).claim.task.id == "deploy-\U0001f600"


def test_other_spec_version_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(seed_with(spec_version="0.2"), indent=2))
    error = refusal(path)
    assert error.place == "2:19"
    assert "v0.1" in error.problem


def test_schema_error_has_pointer_and_line(tmp_path: Path) -> None:
    document = seed_with()
    document["mutations"][0]["kind"] = 7
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert error.problem.startswith("/mutations/0/kind:")
    assert error.place == "11:15"
    assert "claim-gate schema" in (error.fix or "")


def test_unknown_fields_are_refused_unless_prefixed(tmp_path: Path) -> None:
    error = refusal(write(tmp_path, json.dumps(seed_with(score=0.9))))
    assert "'x-' prefix" in error.problem
    assert load_claim(write(tmp_path, json.dumps(seed_with(**{"x-score": 0.9})), "ok.json"))


def test_all_schema_errors_are_listed(tmp_path: Path) -> None:
    document = seed_with(claimed_outcome="")
    del document["task"]["id"]
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert len(error.more) == 1


def test_naive_timestamp_is_an_error_never_utc(tmp_path: Path) -> None:
    document = seed_with()
    document["mutations"][0]["at"] = "2026-08-27T18:04:02"
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert error.problem.startswith("/mutations/0/at:")
    assert "no time zone" in error.problem


@pytest.mark.parametrize(
    "stamp",
    [
        "2026-02-30T10:00:00Z", "yesterday", "2026-08-27 18:04:02Z",
        # Valid-looking, but the instant is outside what a datetime holds in UTC: reports
        # that show times in UTC would crash on them.
        "9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+00:01",
        "2026-08-27T18:04:02Z\n",  # a regex `$` would let the newline through
    ],
)
def test_invalid_timestamps_are_errors(tmp_path: Path, stamp: str) -> None:
    document = seed_with()
    document["evidence"][0]["at"] = stamp
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert "/evidence/0/at" in error.problem


def test_duplicate_mutation_ids_are_refused(tmp_path: Path) -> None:
    document = seed_with()
    document["mutations"].append(dict(document["mutations"][0]))
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert "used twice" in error.problem
    assert error.problem.startswith("/mutations/1/id")


def test_covers_must_name_a_mutation(tmp_path: Path) -> None:
    document = seed_with()
    document["evidence"][0]["covers"] = ["m1", "m7"]
    error = refusal(write(tmp_path, json.dumps(document, indent=2)))
    assert error.problem.startswith("/evidence/0/covers/1")
    assert "'m7'" in error.problem


def test_a_verdict_in_the_input_is_ignored_and_replaced(tmp_path: Path) -> None:
    document = seed_with()
    del document["evidence"]
    path = write(tmp_path, json.dumps(document))
    code, out, _ = run_cli("verify", str(path), "--now", "2026-08-27T18:04:10Z", "--format", "json")
    assert code == 1
    assert json.loads(out)["verdict"]["state"] == "unverified"


BAD_INPUTS = {
    "syntax": "{",
    "schema": json.dumps(seed_with(mutations="none")),
    "version": json.dumps(seed_with(spec_version=1)),
    "naive": json.dumps(seed_with()).replace("18:04:02Z", "18:04:02"),
    "empty": "",
    "binary": "\x00\x01",
    "lone-surrogate": json.dumps(seed_with()).replace("deploy-4471", "deploy-\\ud800"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_claims_exit_3_with_file_and_place_and_no_traceback(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, BAD_INPUTS[name])
    code, out, err = run_cli("verify", str(path))
    assert code == 3
    assert out == ""
    assert str(path) in err
    assert "Traceback" not in err


def test_missing_claim_file_exits_3(tmp_path: Path) -> None:
    code, _, err = run_cli("verify", str(tmp_path / "nope.json"))
    assert code == 3
    assert "no such claim file" in err


def test_directory_as_claim_exits_3(tmp_path: Path) -> None:
    code, _, err = run_cli("verify", str(tmp_path))
    assert code == 3
    assert "directory" in err
