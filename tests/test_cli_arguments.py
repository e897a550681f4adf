"""Every subcommand takes a commit and a count the same way (gate/faces/arguments.py)."""

from __future__ import annotations

import io

import pytest

from gate.faces.cli import main

_SHA = "0123456789abcdef0123456789abcdef01234567"
_DIGEST = "sha256:" + "0" * 64


def _run(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, err.getvalue()


@pytest.mark.parametrize("argv", [
    ("verify", "claim.json", "--head-sha", "{sha}"),
    ("probe", "claim.json", "--head-sha", "{sha}"),
    ("attestation", "verify", "a.json", "--commit", "{sha}", "--policy-digest", _DIGEST),
])
@pytest.mark.parametrize("sha", ["abc1234", "xyz", _SHA + "0"])
def test_a_short_or_malformed_commit_is_refused_alike(argv: tuple[str, ...], sha: str) -> None:
    code, err = _run(*(part.format(sha=sha) for part in argv))
    assert code == 3
    assert "is not a full commit id: 40 hexadecimal digits" in err, err


@pytest.mark.parametrize("argv", [
    ("verify", "claim.json", "--junit-max-bytes", "{n}"),
    ("junit", "r.xml", "--max-bytes", "{n}"),
    ("attestation", "verify", "a.json", "--commit", _SHA, "--policy-digest", _DIGEST,
     "--max-age", "{n}"),
])
@pytest.mark.parametrize(("n", "says"), [("0", "must be positive"), ("-3", "must be positive"),
                                         ("ten", "is not a whole number")])
def test_a_count_that_is_not_positive_is_refused_alike(
    argv: tuple[str, ...], n: str, says: str
) -> None:
    code, err = _run(*(part.format(n=n) for part in argv))
    assert code == 3
    assert says in err, err
