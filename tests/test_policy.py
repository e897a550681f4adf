"""The operator's policy: formats, defaults, digest and tightening."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.model import CheckType, PolicyRequest
from gate.claim.policy import DEFAULT_MAX_AGE_S, Policy, default_policy
from gate.claim.policy_parse import load_policy, parse_policy_text


def test_default_policy_requires_nothing_by_name_and_ages_by_check_type() -> None:
    policy = default_policy()
    assert policy.requires == ()
    assert policy.max_age_s == DEFAULT_MAX_AGE_S
    assert policy.max_age_for(CheckType.TEST_RUN) == 86400


def test_json_and_yaml_give_the_same_policy() -> None:
    from_json = parse_policy_text('{"id": "p", "requires": ["test_run"], "max_age_s": 60}', "a")
    from_yaml = parse_policy_text("id: p\nrequires: [test_run]\nmax_age_s: 60\n", "b")
    assert from_json.to_json() == from_yaml.to_json()
    assert from_json.digest == from_yaml.digest


def test_max_age_map_fills_missing_check_types_from_the_default() -> None:
    policy = parse_policy_text("id: p\nmax_age_s: {endpoint_health: 30}\n", "p")
    assert policy.max_age_s[CheckType.ENDPOINT_HEALTH] == 30
    assert policy.max_age_s[CheckType.TEST_RUN] == DEFAULT_MAX_AGE_S[CheckType.TEST_RUN]
    assert policy.to_json()["max_age_s"] == {
        "test_run": 86400, "endpoint_health": 30, "state_readback": 300
    }


def test_the_digest_changes_with_any_rule() -> None:
    base = Policy(id="p")
    assert base.digest == Policy(id="p").digest
    assert base.digest != base.trusting(["ci/*"]).digest
    assert base.digest != Policy(id="p", requires=(CheckType.TEST_RUN,)).digest


def test_tightening_takes_the_union_and_the_minimum() -> None:
    operator = Policy(id="ops", requires=(CheckType.TEST_RUN,))
    request = PolicyRequest(id="c", requires=(CheckType.STATE_READBACK,),
                            max_age_s={CheckType.TEST_RUN: 60, CheckType.STATE_READBACK: 9999})
    tightened = operator.tightened_by(request)
    assert tightened.requires == (CheckType.TEST_RUN, CheckType.STATE_READBACK)
    assert tightened.max_age_s[CheckType.TEST_RUN] == 60
    assert tightened.max_age_s[CheckType.STATE_READBACK] == 300
    assert operator.tightened_by(None) is operator


def test_oversized_policy_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "policy.yml"
    path.write_text("id: p\n" + "# padding\n" * 200_000, encoding="utf-8")
    with pytest.raises(InvalidInput, match="limit"):
        load_policy(path)


def test_a_whole_float_age_is_an_integer_as_json_schema_says() -> None:
    """`max_age_s: 60.0` passes the schema (0.0 is an integer there); it crashed the reader."""
    assert parse_policy_text('{"id": "p", "max_age_s": 60.0}', "p").max_age_s[
        CheckType.TEST_RUN] == 60
    assert parse_policy_text("id: p\nmax_age_s: {test_run: 30.0}\n", "p").max_age_s[
        CheckType.TEST_RUN] == 30
