"""Text from the agent's side, made inert for a GitHub summary and capped with a visible note.

A reviewer reads the check run's summary as rendered GitHub Markdown, and most of what it
shows came from the agent: the claimed outcome, ids, targets, test names, failure messages,
and the engine's reasons that quote them. Raw, that text could draw a heading that mimics a
verdict, load an image from another host, plant a link, or @mention someone. So every field
that is not the gate's own template goes through `prose` (escaped text) or `code` (an inline
code span nothing can break out of), both on one line and capped with a visible
"… (N more characters not shown)". Invisible format characters (bidi overrides and isolates,
zero-width spaces and joiners, tag characters: Unicode's `Cf`) are shown as `\\u202e`: raw,
they could reorder the gate's own words in a reason line or hide text (`visible`).
"""

from __future__ import annotations

import re
import unicodedata

ZWSP = "\u200b"  # breaks an autolink or an emoji shortcode without showing
ZWJ = "\u200d"  # after '@': not a mention, not an e-mail address

FIELD_CHARS = 300
OUTCOME_CHARS = 2000
MESSAGE_CHARS = 2000
REASON_CHARS = 4000

_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x7f]")
#: Punctuation that starts Markdown (or GitHub's math) wherever it stands.
_ALWAYS = re.compile(r"([\\`*\[\]|~$#])")
#: '_' emphasises only at a word's edge (`before_arrival` stays as it is).
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What a line may start with to become a heading, list, quote or rule.
_BLOCK_START = re.compile(r"^(\s*\d*)([+=.)-])")
_EMOJI = re.compile(r":(?=[A-Za-z0-9_+-]+:)")
_WWW = re.compile(r"\b(www)\.", re.IGNORECASE)


def capped(text: str, limit: int) -> tuple[str, str]:
    """(the first `limit` characters, the visible note for the rest or "")."""
    if len(text) <= limit:
        return text, ""
    return text[:limit], f" … ({len(text) - limit} more characters not shown)"


def _shown_as(char: str, json_escape: bool) -> str:
    point = ord(char)
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    if not json_escape:
        return f"\\U{point:08x}"
    point -= 0x10000  # JSON spells a character beyond the BMP as its UTF-16 surrogates
    return f"\\u{0xD800 + (point >> 10):04x}\\u{0xDC00 + (point & 0x3FF):04x}"


def visible(text: str, *, json_escape: bool = False) -> str:
    """Every invisible format character (`Cf`: bidi controls, zero-width characters, tag
    characters) as its escape, so it can neither reorder nor hide what is around it.
    `json_escape`: for JSON text, where `\\uXXXX` is the same character (the record keeps
    its meaning)."""
    if text.isascii():
        return text
    return "".join(_shown_as(c, json_escape) if unicodedata.category(c) == "Cf" else c
                   for c in text)


def _one_line(text: str) -> str:
    return visible(_CONTROL.sub("", _LINE_BREAKS.sub(" ", text)))


def escape(text: str) -> str:
    """Text as GitHub renders it literally: no HTML, link, image, mention, heading or emoji."""
    text = _one_line(text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _ALWAYS.sub(r"\\\1", text)
    text = _UNDERSCORE.sub(r"\\_", text)
    text = _BLOCK_START.sub(r"\1\\\2", text)
    text = text.replace("://", ":" + ZWSP + "//").replace("@", "@" + ZWJ)
    text = _WWW.sub(lambda found: found[1] + ZWSP + ".", text)
    return _EMOJI.sub(":" + ZWSP, text)


def prose(text: str, limit: int = MESSAGE_CHARS) -> str:
    """The agent's (or a quoting reason's) text, escaped, on one line, capped visibly."""
    shown, more = capped(text, limit)
    return escape(shown) + more


def code(text: str, limit: int = FIELD_CHARS, *, table: bool = True) -> str:
    """An inline code span that no backtick in `text` can close early; in a table cell the
    '|' is escaped (GFM splits cells before it parses code)."""
    shown, more = capped(_one_line(text), limit)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") or not shown.strip() else ""
    if table:
        shown = shown.replace("|", "\\|")
    return f"{fence}{pad}{shown}{pad}{fence}{more}"
