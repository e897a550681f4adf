"""The policy's `probes` section → frozen probe definitions, validated when the policy loads.

Probe definitions come from the operator's policy, never from the claim: the agent may name a
target (`accounts/4471`), but which hosts the gate talks to, with which credentials and what
it asserts are the operator's. Every check that can be made without the network is made
here, so a probe that could never be evidence about a deploy (a bare status check) or that
would talk to an unlisted host fails at load time, not in the middle of a gate run.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from gate.claim.errors import InvalidInput
from gate.claim.jsonpos import pointer
from gate.claim.probe_settings import (
    DEFAULT_BACKOFF_S,
    DEFAULT_DEADLINE_S,
    DEFAULT_MAX_BACKOFF_S,
    DEFAULT_MAX_PROBES,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT_S,
    DEFAULT_WINDOW_S,
    SECTION,
    Assertion,
    AssertionKind,
    EndpointProbe,
    HeaderValue,
    HostRule,
    ProbeSettings,
    ReadbackProbe,
    Retry,
)
from gate.claim.wording import listed

if TYPE_CHECKING:
    from jsonschema import ValidationError

#: The spec's reason, quoted in the error for a probe that only checks a status code.
STATUS_ONLY_REASON = (
    "a 200 from an endpoint that would return 200 either way is not evidence about this"
    " deploy; assert on something that changes with the deploy (a JSON pointer equal to"
    " {sha}/{short_sha}, a response header or a body substring)"
)

_TEMPLATE_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_HOST_ENTRY = re.compile(
    r"^(\*\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$|^\[[0-9a-f:.]+\](:[0-9]{1,5})?$"
)
_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_HEADERS_SCHEMA = {
    "type": "object",
    "propertyNames": {"pattern": _HEADER_NAME.pattern},
    "additionalProperties": {
        "oneOf": [
            {"type": "string"},
            {
                "type": "object",
                "required": ["env"],
                "properties": {
                    "env": {"type": "string", "pattern": _ENV_NAME.pattern},
                    "prefix": {"type": "string"},
                    "hosts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                },
                "additionalProperties": False,
            },
        ]
    },
}
_ASSERTION_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "json_pointer": {"type": "string", "pattern": "^(/.*)?$"},
        "header": {"type": "string", "pattern": _HEADER_NAME.pattern},
        "body_contains": {"type": "string", "minLength": 1},
        "equals": {},
    },
    "additionalProperties": False,
    "oneOf": [
        {"required": ["json_pointer", "equals"]},
        {"required": ["header", "equals"]},
        {"required": ["body_contains"]},
    ],
}
_SECTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["allowed_hosts"],
    "properties": {
        "allowed_hosts": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "allow_http": {"type": "boolean"},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 300},
        "retry": {
            "type": "object",
            "properties": {
                "window_s": {"type": "number", "minimum": 0, "maximum": 3600},
                "backoff_s": {"type": "number", "exclusiveMinimum": 0},
                "max_backoff_s": {"type": "number", "exclusiveMinimum": 0},
            },
            "additionalProperties": False,
        },
        "max_response_bytes": {"type": "integer", "minimum": 1, "maximum": 1 << 28},
        "max_probes": {"type": "integer", "minimum": 1, "maximum": 10000},
        "deadline_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 3600},
        "ca_bundle": {"type": "string", "minLength": 1},
        "endpoint_health": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["environment", "assert"],
                "properties": {
                    "environment": {"type": "string", "minLength": 1},
                    "url": {"type": "string", "minLength": 1},
                    "path": {"type": "string"},
                    "method": {"enum": ["GET", "HEAD"]},
                    "status": {"type": "integer", "minimum": 100, "maximum": 599},
                    "headers": _HEADERS_SCHEMA,
                    "assert": {"type": "array", "items": _ASSERTION_SCHEMA},
                },
                "additionalProperties": False,
            },
        },
        "state_readback": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["target", "url"],
                "properties": {
                    "target": {"type": "string", "minLength": 1},
                    "url": {"type": "string", "minLength": 1},
                    "headers": _HEADERS_SCHEMA,
                    "fields": {
                        "type": "array", "items": {"type": "string", "minLength": 1},
                        "minItems": 1, "uniqueItems": True,
                    },
                    "record": {"type": "string", "pattern": "^(/.*)?$"},
                    "absent_status": {
                        "type": "array", "items": {"type": "integer", "minimum": 400,
                                                   "maximum": 499},
                        "uniqueItems": True,
                    },
                },
                "additionalProperties": False,
            },
        },
    },
    "patternProperties": {"^x-": {}},
    "additionalProperties": False,
}




def _fail(source: str, where: tuple[str | int, ...], problem: str) -> InvalidInput:
    place = "/" + SECTION + pointer(where)
    return InvalidInput(source, None, f"{place}: {problem}")


def _host_rule(entry: str, source: str, where: tuple[str | int, ...]) -> HostRule:
    text = entry.strip().lower()
    if not _HOST_ENTRY.match(text):
        raise _fail(
            source, where, f"{entry!r} is not a host, host:port, [ipv6]:port or *.domain entry",
        )
    port: int | None = None
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest:
            port = int(rest[1:])
    else:
        host, _, port_text = text.partition(":")
        port = int(port_text) if port_text else None
    if port is not None and not 0 < port < 65536:
        raise _fail(source, where, f"{entry!r} has a port out of range")
    wildcard = host.startswith("*.")
    return HostRule(host.removeprefix("*."), port, wildcard)


def header_value_problem(value: str) -> str | None:
    """Why `value` cannot be sent as an HTTP header value, or None. http.client refuses line
    breaks (its error would quote the value, a secret among them) and text beyond Latin-1."""
    if any((ord(char) < 0x20 and char != "\t") or ord(char) == 0x7F for char in value):
        return "it holds a line break or another control character"
    if any(ord(char) > 0xFF for char in value):
        return "it holds characters an HTTP header cannot carry (beyond Latin-1)"
    return None


def _url_host(url: str) -> HostRule:
    """The one host:port a fixed URL names (its scheme's port when it names none)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    return HostRule((parts.hostname or "").lower(), port, wildcard=False)


def _secret_hosts(
    value: Any, source: str, where: tuple[str | int, ...], fixed_url: str | None
) -> tuple[HostRule, ...]:
    """Where a secret may be sent: its `hosts`, else the probe's fixed URL. A probe whose URL
    comes from a deployment status has no fixed host, so its secrets must name theirs."""
    if "hosts" in value:
        return tuple(_host_rule(entry, source, (*where, "hosts", index))
                     for index, entry in enumerate(value["hosts"]))
    if fixed_url is None:
        raise _fail(source, where, "a secret header sent to the environment URL (which a"
                    " deployment status supplies) needs `hosts`: the hosts it may be sent to")
    return (_url_host(fixed_url),)


def _headers(
    raw: Any, source: str, where: tuple[str | int, ...], fixed_url: str | None
) -> tuple[HeaderValue, ...]:
    """`fixed_url`: the probe's own URL when the operator wrote it (a secret's default host)."""
    found: list[HeaderValue] = []
    seen: set[str] = set()
    for name, value in (raw or {}).items():
        lowered = name.lower()
        if lowered in seen:
            raise _fail(source, (*where, name), "this header is given twice (names ignore case)")
        if lowered == "host":
            raise _fail(source, (*where, name), "the Host header comes from the URL")
        seen.add(lowered)
        literal = value if isinstance(value, str) else value.get("prefix", "")
        problem = header_value_problem(literal)
        if problem is not None:
            raise _fail(source, (*where, name), f"this header value cannot be sent: {problem}")
        if isinstance(value, str):
            found.append(HeaderValue(name, literal=value))
        else:
            found.append(HeaderValue(name, env=value["env"], prefix=value.get("prefix", ""),
                                     hosts=_secret_hosts(value, source, (*where, name), fixed_url)))
    return tuple(found)


def _template_fields(text: str) -> set[str]:
    return set(_TEMPLATE_FIELD.findall(text))


def _assertion(raw: Any, source: str, where: tuple[str | int, ...], method: str) -> Assertion:
    if "json_pointer" in raw:
        kind, subject = AssertionKind.JSON_POINTER, raw["json_pointer"]
        key = f"json:{subject}"
    elif "header" in raw:
        kind, subject = AssertionKind.HEADER, raw["header"].lower()
        key = f"header:{subject}"
        if not isinstance(raw["equals"], str):
            raise _fail(source, (*where, "equals"), "a header assertion compares text")
    else:
        kind, subject = AssertionKind.BODY_CONTAINS, raw["body_contains"]
        key = "body_contains"
    if method == "HEAD" and kind is not AssertionKind.HEADER:
        raise _fail(source, where, "a HEAD request has no body; assert on a header or use GET")
    for text in (subject, raw.get("equals")):
        if isinstance(text, str):
            unknown = _template_fields(text) - {"sha", "short_sha"}
            if unknown and kind is not AssertionKind.JSON_POINTER:
                raise _fail(
                    source, where,
                    f"unknown template {listed('field', sorted(unknown))}; use {{sha}} or"
                    " {short_sha}",
                )
    return Assertion(kind, raw.get("name", key), subject, raw.get("equals"))


def _endpoint(raw: Any, settings: ProbeSettings, source: str, index: int) -> EndpointProbe:
    where: tuple[str | int, ...] = ("endpoint_health", index)
    method = raw.get("method", "GET")
    url = raw.get("url")
    path = raw.get("path", "")
    if url is not None and "path" in raw:
        raise _fail(source, where, "give either url, or path (joined to the environment URL)")
    if url is not None:
        if _template_fields(url):
            raise _fail(source, (*where, "url"), "an endpoint URL takes no template fields")
        refusal = host_refusal(settings, url)
        if refusal:
            raise _fail(source, (*where, "url"), refusal)
    elif path and not path.startswith("/"):
        raise _fail(source, (*where, "path"), "a path starts with '/'")
    assertions = tuple(
        _assertion(item, source, (*where, "assert", position), method)
        for position, item in enumerate(raw["assert"])
    )
    if not assertions:
        raise _fail(
            source, (*where, "assert"), f"a status code alone is refused: {STATUS_ONLY_REASON}"
        )
    keys = [assertion.key for assertion in assertions]
    duplicated = sorted({key for key in keys if keys.count(key) > 1} | ({"status"} & set(keys)))
    if duplicated:
        raise _fail(
            source, (*where, "assert"),
            f"assertion {listed('name', duplicated)}: used twice or reserved; add a distinct"
            " `name`",
        )
    return EndpointProbe(
        environment=raw["environment"],
        url=url,
        path=path,
        method=method,
        status=raw.get("status", 200),
        headers=_headers(raw.get("headers"), source, (*where, "headers"), url),
        assertions=assertions,
        place=f"/{SECTION}/endpoint_health/{index}",
    )


def _target_pattern(target: str, source: str, where: tuple[str | int, ...]) -> re.Pattern[str]:
    parts: list[str] = []
    position = 0
    names: list[str] = []
    for found in _TEMPLATE_FIELD.finditer(target):
        parts.append(re.escape(target[position:found.start()]))
        name = found.group(1)
        if name in names:
            raise _fail(source, where, f"the template field {{{name}}} appears twice")
        names.append(name)
        parts.append(f"(?P<{name}>[^/]+)")
        position = found.end()
    parts.append(re.escape(target[position:]))
    leftover = _TEMPLATE_FIELD.sub("", target)
    if "{" in leftover or "}" in leftover:
        raise _fail(source, where, "a target pattern has a '{' or '}' that is not a {field}")
    return re.compile("".join(parts))


def _readback(raw: Any, settings: ProbeSettings, source: str, index: int) -> ReadbackProbe:
    where: tuple[str | int, ...] = ("state_readback", index)
    pattern = _target_pattern(raw["target"], source, (*where, "target"))
    url = raw["url"]
    split = urlsplit(url.replace("{", "").replace("}", ""))
    authority = url.split("://", 1)[-1].split("/", 1)[0]
    if "{" in authority or "}" in authority:
        raise _fail(
            source, (*where, "url"),
            "the host of a readback URL is the operator's: template fields go in the path only",
        )
    unknown = _template_fields(url) - set(pattern.groupindex)
    if unknown:
        raise _fail(
            source, (*where, "url"),
            f"template {listed('field', sorted(unknown))}: not in the target pattern",
        )
    refusal = host_refusal(settings, split.geturl())
    if refusal:
        raise _fail(source, (*where, "url"), refusal)
    fields = raw.get("fields")
    return ReadbackProbe(
        target=raw["target"],
        pattern=pattern,
        url=url,
        headers=_headers(raw.get("headers"), source, (*where, "headers"), split.geturl()),
        fields=tuple(fields) if fields is not None else None,
        record=raw.get("record", ""),
        absent_status=tuple(raw.get("absent_status", [404])),
        place=f"/{SECTION}/state_readback/{index}",
    )


def _explain(error: ValidationError) -> str:
    """A schema error in the operator's words."""
    path = tuple(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(schema.get("properties", {}))
        accepted = ", ".join(sorted(known))
        extra = sorted(set(error.instance) - known)
        unknown = [repr(key) for key in extra if not str(key).startswith("x-")]
        return f"unknown {listed('key', unknown)}; accepted here: {accepted} (and x- fields)"
    if error.validator == "oneOf" and "assert" in path:
        return (
            "an assertion is one of {json_pointer, equals}, {header, equals} or"
            " {body_contains} (with an optional name)"
        )
    if error.validator == "oneOf" and "headers" in path:
        return ("a header value is a string, or {env: NAME} with an optional prefix and"
                " hosts")
    return error.message


def parse_probes(raw: Any, source: str) -> ProbeSettings:
    """Validate the policy's `probes` section; InvalidInput names the policy and the place."""
    from jsonschema import Draft202012Validator  # when a policy has probes, not at start

    errors = sorted(
        Draft202012Validator(_SECTION_SCHEMA).iter_errors(raw), key=lambda e: list(e.path)
    )
    if errors:
        error = errors[0]
        raise _fail(source, tuple(error.absolute_path), _explain(error))
    retry_raw = raw.get("retry", {})
    retry = Retry(
        window_s=float(retry_raw.get("window_s", DEFAULT_WINDOW_S)),
        backoff_s=float(retry_raw.get("backoff_s", DEFAULT_BACKOFF_S)),
        max_backoff_s=float(retry_raw.get("max_backoff_s", DEFAULT_MAX_BACKOFF_S)),
    )
    partial = ProbeSettings(
        allowed_hosts=tuple(
            _host_rule(entry, source, ("allowed_hosts", index))
            for index, entry in enumerate(raw["allowed_hosts"])
        ),
        allow_http=bool(raw.get("allow_http", False)),
        timeout_s=float(raw.get("timeout_s", DEFAULT_TIMEOUT_S)),
        retry=retry,
        max_response_bytes=int(raw.get("max_response_bytes", DEFAULT_MAX_RESPONSE_BYTES)),
        max_probes=int(raw.get("max_probes", DEFAULT_MAX_PROBES)),
        deadline_s=float(raw.get("deadline_s", DEFAULT_DEADLINE_S)),
        ca_bundle=raw.get("ca_bundle"),
    )
    endpoints = tuple(
        _endpoint(item, partial, source, index)
        for index, item in enumerate(raw.get("endpoint_health", []))
    )
    readbacks = tuple(
        _readback(item, partial, source, index)
        for index, item in enumerate(raw.get("state_readback", []))
    )
    if not endpoints and not readbacks:
        raise _fail(source, (), "the section defines no endpoint_health or state_readback probe")
    return replace(partial, endpoint_health=endpoints, state_readback=readbacks)


def host_refusal(settings: ProbeSettings, url: str) -> str | None:
    """Why `url` may not be requested, or None if it may."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return f"{url!r} is not an http(s) URL"
    if scheme == "http" and not settings.allow_http:
        return f"{url!r} is plain http; probes use https unless the policy sets allow_http"
    if parts.username is not None or parts.password is not None:
        return f"{url!r} carries credentials in the URL; probes refuse it"
    try:
        port = parts.port
    except ValueError:
        return f"{url!r} has an invalid port"
    host = (parts.hostname or "").lower()
    if not host:
        return f"{url!r} names no host"
    port = port if port is not None else (443 if scheme == "https" else 80)
    if any(rule.allows(host, port) for rule in settings.allowed_hosts):
        return None
    listed = ", ".join(_show_rule(rule) for rule in settings.allowed_hosts)
    return f"{host}:{port} is not in the policy's allowed_hosts ({listed})"


def _show_rule(rule: HostRule) -> str:
    host = f"*.{rule.host}" if rule.wildcard else rule.host
    if ":" in host:
        host = f"[{host}]"
    return host if rule.port is None else f"{host}:{rule.port}"
