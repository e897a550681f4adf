"""Real example event payloads (tests/data/webhooks/, from @octokit/webhooks-examples)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

WEBHOOKS = Path(__file__).resolve().parent.parent / "data" / "webhooks"


def load_webhook(name: str) -> Any:
    """The payload `EVENT.ACTION.N` (e.g. "pull_request.opened.1"), parsed, a fresh copy."""
    path = WEBHOOKS / f"{name}.json"
    if not path.is_file():
        known = sorted(p.stem for p in WEBHOOKS.glob("*.json"))
        raise FileNotFoundError(f"no webhook example {name!r}; known: {known}")
    return json.loads(path.read_text(encoding="utf-8"))
