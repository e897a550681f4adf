"""What the operator (or the Action) tells a probe run: `ProbeContext`, from `NAME=URL` pairs.

Apart from the probes themselves (`observe`): every `verify` builds a context, and only
`--probe` needs the probe settings, the fetcher and the HTTP code (issue 23, the command's
start; `tests/test_fast_start.py` guards it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gate.claim.errors import InvalidInput


@dataclass(frozen=True)
class ProbeContext:
    """What the operator (or the Action) knows about this run and the claim does not."""

    head_sha: str | None = None
    environment_urls: Mapping[str, str] = field(default_factory=dict)
    policy_source: str = "policy"
    claim_sha256: str | None = None  # binds written records to the claim document probed


def environment_urls(pairs: Sequence[str], source: str) -> dict[str, str]:
    """`NAME=URL` pairs (command line, or the Action's deployment statuses) as a mapping."""
    urls: dict[str, str] = {}
    for pair in pairs:
        name, sep, url = pair.partition("=")
        if not sep or not name or not url:
            raise InvalidInput(source, None, f"{pair!r} is not NAME=URL",
                               "write e.g. production=https://app.example.com")
        if name in urls and urls[name] != url:
            raise InvalidInput(source, None, f"environment {name!r} is given two URLs")
        urls[name] = url
    return urls
