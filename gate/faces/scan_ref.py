"""Which pull request `claim-gate scan` reads, and on which server.

`OWNER/REPO#N`, or the PR's web address on github.com or on a GitHub Enterprise Server
(whose REST API lives at https://HOST/api/v3). Parsed before any request, so a typo is
invalid input (exit 3), never a request to a server nobody meant.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass

from gate.claim.errors import InvalidInput

GITHUB_API = "https://api.github.com"
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"[A-Za-z0-9._-]{1,100}"
_SHORT = re.compile(rf"^(?P<owner>{_OWNER})/(?P<repo>{_REPO})#(?P<number>[0-9]{{1,10}})$")
_PATH = re.compile(rf"^/(?P<owner>{_OWNER})/(?P<repo>{_REPO})/pull/(?P<number>[0-9]{{1,10}})"
                   r"(?:/[A-Za-z0-9/_.-]*)?$")
_USAGE = "write OWNER/REPO#N or the PR's URL, e.g. https://github.com/octo/app/pull/12"


@dataclass(frozen=True)
class PullReference:
    repository: str  # OWNER/REPO
    number: int
    api_url: str | None  # the server's REST API when the reference was a URL

    def __str__(self) -> str:
        return f"{self.repository}#{self.number}"


def _number(text: str, reference: str) -> int:
    number = int(text)
    if number < 1:
        raise InvalidInput(reference, None, "a pull request number starts at 1", _USAGE)
    return number


def _api_for(scheme: str, netloc: str) -> str:
    host = netloc.lower()
    if host in ("github.com", "www.github.com"):
        return GITHUB_API
    return f"{scheme}://{netloc}/api/v3"  # GitHub Enterprise Server


def parse_reference(text: str) -> PullReference:
    reference = text.strip()
    short = _SHORT.match(reference)
    if short:
        return PullReference(f"{short['owner']}/{short['repo']}",
                             _number(short["number"], reference), None)
    url = urllib.parse.urlsplit(reference)
    if url.scheme not in ("https", "http") or not url.netloc or "@" in url.netloc:
        raise InvalidInput(reference, None, "is not a pull request reference", _USAGE)
    path = _PATH.match(url.path)
    if path is None:
        raise InvalidInput(reference, None, "is not a pull request's address (…/OWNER/REPO/"
                           "pull/N)", _USAGE)
    return PullReference(f"{path['owner']}/{path['repo']}", _number(path["number"], reference),
                         _api_for(url.scheme, url.netloc))


def _host(api_url: str) -> str:
    host = (urllib.parse.urlsplit(api_url).hostname or "").lower()
    return "github.com" if host == "api.github.com" else host


def choose_api_url(given: str, reference: PullReference, env: Mapping[str, str]) -> str:
    """--api-url, else the PR URL's server, else $GITHUB_API_URL (a CI runner's), else
    github.com's. A URL on one server and --api-url naming another is a mistake: refused."""
    if given:
        url = urllib.parse.urlsplit(given)
        if url.scheme not in ("https", "http") or not url.netloc:
            raise InvalidInput("--api-url", None, f"{given!r} is not an http(s) URL",
                               "e.g. https://github.example.com/api/v3")
        if reference.api_url is not None and _host(given) != _host(reference.api_url):
            raise InvalidInput(
                "--api-url", None, f"{given} is not the API of the server {reference} is on"
                f" ({reference.api_url})", "drop --api-url, or name the PR as OWNER/REPO#N")
        return given.rstrip("/")
    return reference.api_url or env.get("GITHUB_API_URL", "").rstrip("/") or GITHUB_API
