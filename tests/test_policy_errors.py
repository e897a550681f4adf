"""Issue 24 item 10: a policy error is as precise as a claim error.

`requirez: [test_run]` used to report the missing `id` first, or jsonschema's words with no
line. Now the unknown key is named first, at `file:line:column`, with the nearest key a
policy has; YAML and JSON alike, top level and inside a section, beside an honest control."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.claim.errors import InvalidInput
from gate.claim.policy_parse import load_policy


def _error(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput) as caught:
        load_policy(path)
    return str(caught.value).removeprefix(str(path))


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("p.yaml", "id: p\nrequirez: [test_run]\n",
     ":2:1: /requirez: unknown key 'requirez'"),
    ("p.yaml", "requirez: [test_run]\n",  # the misspelling, not the missing id
     ":1:1: /requirez: unknown key 'requirez'"),
    ("p.json", '{"id": "p",\n  "requirez": ["test_run"]}',
     ":2:15: /requirez: unknown key 'requirez'"),
])
def test_an_unknown_key_is_named_at_its_place_with_a_suggestion(
    tmp_path: Path, name: str, text: str, expected: str
) -> None:
    message = _error(tmp_path, name, text)
    assert message.startswith(expected), message
    assert "(did you mean requires? a policy accepts id, requires," in message


def test_a_key_like_no_other_gets_the_list_alone(tmp_path: Path) -> None:
    message = _error(tmp_path, "p.yaml", "id: p\nzzz: 1\n")
    assert message.startswith(":2:1: /zzz: unknown key 'zzz'")
    assert "did you mean" not in message
    assert "a policy accepts id, requires" in message


def test_a_wrong_value_and_a_sections_unknown_key_name_their_line(tmp_path: Path) -> None:
    wrong = _error(tmp_path, "w.yaml", "id: p\nrequires: [tset_run]\n")
    assert wrong.startswith(":2:12: /requires/0: 'tset_run' is not one of"), wrong
    inner = _error(tmp_path, "s.yaml", "id: p\nevidence_chain:\n  pathz: [a]\n")
    assert inner.startswith(":3:3: /evidence_chain: unknown key pathz"), inner


def test_the_control_a_correct_policy_loads(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text("id: p\nrequires: [test_run]\nevidence_chain:\n  paths: [a]\n")
    policy = load_policy(path)
    assert (policy.id, [str(c) for c in policy.requires]) == ("p", ["test_run"])
