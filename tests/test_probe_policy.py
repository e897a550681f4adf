"""The `probes` policy section: what the operator may write, and what is refused at load time."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.claim.errors import InvalidInput
from gate.claim.policy_parse import load_policy, parse_policy_text
from gate.claim.probe_policy import STATUS_ONLY_REASON, host_refusal, parse_probes
from gate.claim.probe_settings import AssertionKind

ROOT = Path(__file__).resolve().parent.parent

GOOD = """\
id: live
requires: [endpoint_health, state_readback]
probes:
  allowed_hosts: ["app.example.com", "*.records.example", "10.0.0.5:8443"]
  timeout_s: 5
  retry: {window_s: 20, backoff_s: 0.5, max_backoff_s: 4}
  max_response_bytes: 65536
  ca_bundle: /etc/ssl/internal-ca.pem
  endpoint_health:
    - environment: production
      url: https://app.example.com/version
      assert:
        - json_pointer: /build/sha
          equals: "{sha}"
    - environment: staging
      path: /healthz
      method: HEAD
      status: 204
      assert:
        - header: X-Release
          equals: "{short_sha}"
  state_readback:
    - target: "accounts/{id}"
      url: "https://api.records.example/v1/accounts/{id}?view=full"
      headers:
        Authorization: {env: RECORDS_TOKEN, prefix: "Bearer "}
        Accept-Language: en
      record: /data
      fields: [billing_zip]
"""


def _load(text: str) -> Any:
    return parse_policy_text(text, "policy.yml")


def _with_probes(**changes: Any) -> str:
    document = yaml.safe_load(GOOD)
    document["probes"].update(changes)
    return yaml.safe_dump(document)


def test_a_full_section_loads_into_frozen_definitions() -> None:
    policy = _load(GOOD)
    settings = parse_probes(policy.sections["probes"], policy.source)
    production, staging = settings.endpoint_health
    assert production.url == "https://app.example.com/version"
    assert production.assertions[0].kind is AssertionKind.JSON_POINTER
    assert production.assertions[0].key == "json:/build/sha"
    assert staging.url is None
    assert staging.path == "/healthz"
    assert staging.method == "HEAD"
    readback = settings.state_readback[0]
    assert readback.match("accounts/4471") == {"id": "4471"}
    assert readback.match("accounts/4471/notes") is None
    assert readback.match("accounts/..") is None
    assert readback.headers[0].env == "RECORDS_TOKEN"
    assert settings.retry.window_s == 20
    assert host_refusal(settings, "https://x.records.example/a") is None
    assert host_refusal(settings, "https://records.example/a") is not None
    assert host_refusal(settings, "https://10.0.0.5:8443/") is None
    assert host_refusal(settings, "https://10.0.0.5/") is not None
    assert host_refusal(settings, "https://user@app.example.com/") is not None


def test_a_status_only_probe_is_refused_with_the_specs_reason() -> None:
    text = _with_probes(endpoint_health=[{"environment": "production", "path": "/", "assert": []}])
    with pytest.raises(InvalidInput) as caught:
        _load(text)
    assert STATUS_ONLY_REASON in str(caught.value)
    assert "would return 200 either way" in str(caught.value)
    assert "/probes/endpoint_health/0/assert" in str(caught.value)


def test_a_probe_without_assert_is_refused() -> None:
    text = _with_probes(endpoint_health=[{"environment": "production", "path": "/"}])
    with pytest.raises(InvalidInput, match="'assert' is a required property"):
        _load(text)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"allowed_hosts": []}, "should be non-empty"),
        ({"allowed_hosts": ["https://app.example.com"]}, "is not a host"),
        ({"tls_verify": False}, "unknown key 'tls_verify'; accepted here: allow_http"),
        ({"endpoint_health": [{"environment": "p", "url": "https://evil.example/v",
                               "assert": [{"body_contains": "{sha}"}]}]},
         "evil.example:443 is not in the policy's allowed_hosts"),
        ({"endpoint_health": [{"environment": "p", "url": "http://app.example.com/v",
                               "assert": [{"body_contains": "{sha}"}]}]},
         "plain http"),
        ({"endpoint_health": [{"environment": "p", "path": "/", "method": "HEAD",
                               "assert": [{"json_pointer": "/sha", "equals": "{sha}"}]}]},
         "a HEAD request has no body"),
        ({"endpoint_health": [{"environment": "p", "path": "/",
                               "assert": [{"body_contains": "{commit}"}]}]},
         "unknown template field"),
        ({"endpoint_health": [{"environment": "p", "path": "/",
                               "assert": [{"json_pointer": "/sha"}]}]},
         "an assertion is one of {json_pointer, equals}"),
        ({"state_readback": [{"target": "accounts/{id}", "url": "https://{id}.records.example/"}]},
         "template fields go in the path only"),
        ({"state_readback": [{"target": "accounts/{id}",
                              "url": "https://api.records.example/{account}"}]},
         "not in the target pattern"),
        ({"state_readback": [{"target": "accounts/{id", "url": "https://api.records.example/"}]},
         "is not a {field}"),
        ({"state_readback": [{"target": "a/{id}", "url": "https://api.records.example/{id}",
                              "headers": {"Authorization": {"env": "TOKEN", "value": "x"}}}]},
         "a header value is a string, or {env: NAME}"),
        ({"state_readback": [{"target": "a/{id}", "url": "https://api.records.example/{id}",
                              "headers": {"X-Api": "key\r\nX-Injected: 1"}}]},
         "this header value cannot be sent: it holds a line break"),
    ],
)
def test_bad_sections_are_refused_naming_the_place(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        _load(_with_probes(**changes))
    assert message in str(caught.value)
    # named at the line and column of the place (issue 24 item 10), as claim errors are
    assert re.match(r"policy\.yml:\d+:\d+: /probes", str(caught.value)), str(caught.value)


def test_unknown_top_level_keys_are_still_refused() -> None:
    with pytest.raises(InvalidInput, match="probes"):
        _load("id: x\nprobe: {}\n")


def test_the_example_policy_loads() -> None:
    policy = load_policy(ROOT / "examples" / "policy-readback.yml")
    settings = parse_probes(policy.sections["probes"], policy.source)
    assert settings.state_readback[0].match("accounts/4471") == {"id": "4471"}
