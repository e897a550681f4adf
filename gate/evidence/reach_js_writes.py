"""File writes in a JavaScript or TypeScript file that name a script: Jest and Vitest read each
module from disk when it is first required (a transform cache is keyed by its content), so a
module or test file rewritten just before its import and put back after is code the run
executes that no tree check sees, as in Python (`reach_writes`).

Token patterns, like the rest of the JavaScript reading: a call of one of Node's writing
functions (`fs.writeFileSync`, `fs.promises.writeFile`, `copyFile`, `rename`, `cp`, `symlink`,
`truncate`, `createWriteStream`, fs-extra's `outputFile`, ...) whose arguments hold a script's
name as a string (`.js`, `.mjs`, `.cjs`, `.jsx`, `.ts`, `.mts`, `.cts`, `.tsx`), `__filename`,
`module.filename`, `import.meta.url`/`filename`, or a module found by `require.resolve` or
`import.meta.resolve`, or a name the file binds to a string naming a script (`const target =
"src/rules.js"`, outside a temporary folder). A call whose arguments build the path under
`os.tmpdir()` or a `mkdtemp` folder, with no `..` and no absolute string in them, writes into
a test's own temporary folder and is not reach. The arguments are read up to the call's closing
parenthesis, counted without regard to strings: a `)` inside a string ends them early, which
can only leave a script name unread, so a write built that way goes unnamed (said in
docs/trust-model.md).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from itertools import islice

from gate.evidence.reach_writes import command_writes_code

_WRITERS = re.compile(
    r"(?<![\w$.])(?:[\w$]+\s*\.\s*)*(?:writeFile|writeFileSync|appendFile|appendFileSync|"
    r"copyFile|copyFileSync|rename|renameSync|cp|cpSync|symlink|symlinkSync|link|linkSync|"
    r"truncate|truncateSync|createWriteStream|outputFile|outputFileSync|move|moveSync|"
    r"copy|copySync)\s*\(")
_SCRIPT = re.compile(r"""["'`][^"'`\n]*\.(?:[cm]?[jt]sx?)["'`]|\b__filename\b|"""
                     r"""\bimport\s*\.\s*meta\s*\.\s*(?:url|filename|resolve)\b|"""
                     r"""\brequire\s*\.\s*resolve\b|\bmodule\s*\.\s*filename\b""")
_TEMP = re.compile(r"\b(?:os\s*\.\s*)?tmpdir\s*\(\s*\)|\bmkdtemp(?:Sync)?\s*\(")
_CLIMBS = re.compile(r"""\.\.|["'`]/""")
#: Node's ways to run a command: one that writes a script (`cp`, `sed -i`, `git checkout`, a
#: redirection) is the same rewrite.
_COMMANDS = re.compile(r"(?<![\w$.])(?:[\w$]+\s*\.\s*)*(?:exec|execSync|execFile|execFileSync|"
                       r"spawn|spawnSync|execa|execaSync|execaCommand|\$)\s*[(`]")
_STRING = re.compile(r""""([^"\n]*)"|'([^'\n]*)'|`([^`]*)`""")
_SCRIPT_NAME = re.compile(r"\.(?:[cm]?[jt]sx?)$")
#: The most of a call's arguments read (a longer call is read that far), and the most
#: writing calls of each kind read in one file (a finding says the rest went unread).
MAX_ARGUMENTS = 2000
MAX_CALLS = 2000


#: Functions whose second argument is what they write (the first is only read); a move
#: writes both ends; every other writer writes its first.
_SECOND = re.compile(r"(?:copy|cp|link|symlink)\w*$", re.IGNORECASE)
_BOTH = re.compile(r"(?:rename|move)\w*$", re.IGNORECASE)


#: A name bound to a script's path by a string or a path built of strings (`const target =
#: "src/rules.js"`, `let t = path.join(root, "rules.ts")`): a write of that name writes it.
_BOUND_SCRIPT = re.compile(
    r"""\b(?:const|let|var)\s+([\w$]+)\s*=\s*([^;\n]*["'`][^"'`\n]*\.(?:[cm]?[jt]sx?)["'`])""")


def script_writes(code: str, writes: list[tuple[int, str, str]]) -> Iterator[tuple[int, str]]:
    """(offset, what is shown) for each write in `code` (comments blanked) naming a script;
    `writes`: `written(code)`, found once for this scan and `helper_writes`."""
    bound = {m.group(1) for m in _BOUND_SCRIPT.finditer(code)  # not one in a temporary folder
             if not _in_temp(m.group(2))}
    through = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, bound))})(?![\w$])") \
        if bound else None
    for start, called, arguments in writes:
        named = _SCRIPT.search(arguments) or (through.search(arguments) if through else None)
        if named is None:
            continue
        if _in_temp(arguments):
            continue
        yield start, f"writes {named.group(0)[:40]} ({called.strip()[:40]})"
    yield from overflow(_WRITERS, code, "writing calls")


def _in_temp(text: str) -> bool:
    """A path built under `os.tmpdir()` or a `mkdtemp` folder, with no `..` and no absolute
    string in it: a test's own temporary folder."""
    return bool(_TEMP.search(text)) and not _CLIMBS.search(text)


def overflow(pattern: re.Pattern[str], code: str, what: str) -> Iterator[tuple[int, str]]:
    """A finding where a file holds more than MAX_CALLS calls of a kind, the rest unread: a
    file built to make the reading slow is named, never taken for clean."""
    for match in islice(pattern.finditer(code), MAX_CALLS, MAX_CALLS + 1):
        yield match.start(), f"more than {MAX_CALLS} {what} in one file: the rest not read"


#: A function's definition by name: `function put(p, x) {`, `const put = (p, x) => ...`,
#: `const put = async function (p) {`, `const put = p => ...` (class methods are not read).
_DEFINITION = re.compile(
    r"""\bfunction\s*\*?\s*([\w$]+)\s*\(([^)]*)\)"""
    r"""|\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:async\s+)?(?:function\b[^(]*)?\(([^)]*)\)"""
    r"""|\b(?:const|let|var)\s+([\w$]+)\s*=\s*(?:async\s+)?([\w$]+)\s*=>""")
_PARAMETER = re.compile(r"\s*(?:\.\.\.)?([\w$]+)")


_CALL = re.compile(r"(?<![\w$.])([\w$]+)\s*\(")


def helper_writes(code: str, writes: list[tuple[int, str, str]]) -> Iterator[tuple[int, str]]:
    """(offset, what is shown) for each call of one of the file's own functions that writes
    a path built of a parameter (`function put(p) { fs.writeFileSync(p, x) }`), handed a
    script's name: the write is the helper's, the name the caller's (one level). Linear in
    the file: the writes and the braces are found once, and each function's writes are the
    ones between its braces."""
    if not writes:
        return
    offsets = [offset for offset, _, _ in writes]
    pairs = _brace_pairs(code)
    helpers: dict[str, set[int]] = {}
    defined: set[int] = set()  # where a `function name(` is its definition, not a call
    for match in _DEFINITION.finditer(code):
        name = match.group(1) or match.group(3) or match.group(5)
        listed = match.group(2) if match.group(1) else (
            match.group(4) if match.group(3) else match.group(6))
        params = [m.group(1) for part in _split(listed or "") if (m := _PARAMETER.match(part))]
        defined.add(match.start(1) if match.group(1) else -1)
        first, last = _body(code, match.end(), pairs)
        texts = [arguments for _, _, arguments in
                 writes[bisect_left(offsets, first):bisect_left(offsets, last)]]
        for index, param in enumerate(params if texts else ()):
            named = re.compile(rf"(?<![\w$.]){re.escape(param)}(?![\w$])")
            if any(named.search(arguments) for arguments in texts):
                helpers.setdefault(name, set()).add(index)
    calls = 0
    for call in _CALL.finditer(code) if helpers else ():
        places = helpers.get(call.group(1))
        if places is None or call.start() in defined:
            continue  # not a helper, or its definition itself
        calls += 1
        if calls > MAX_CALLS:
            yield call.start(), f"more than {MAX_CALLS} calls of the file's writing helpers:" \
                                " the rest not read"
            return
        handed = _split(_arguments(code, call.end()))
        for index in sorted(places):
            argument = handed[index] if index < len(handed) else ""
            script = _SCRIPT.search(argument)
            if script and not _in_temp(argument):
                yield call.start(), f"hands {script.group(0)[:40]} to {call.group(1)}(), which" \
                                    " writes it"
                break


def written(code: str) -> Iterator[tuple[int, str, str]]:
    """(offset, the writer called, the text of what it writes) for each of the first
    MAX_CALLS writing calls (`overflow` names a file with more)."""
    for match in islice(_WRITERS.finditer(code), MAX_CALLS):
        called = match.group(0).rstrip("( \t\n")
        parts = _split(_arguments(code, match.end()))
        written = parts[1:2] if _SECOND.search(called) else (
            parts[:2] if _BOTH.search(called) else parts[:1])
        yield match.start(), called, ",".join(written)


def _brace_pairs(code: str) -> dict[int, int]:
    """Each `{`'s matching `}` (counted without regard to strings), in one pass."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for index, char in enumerate(code):
        if char == "{":
            opened.append(index)
        elif char == "}" and opened:
            pairs[opened.pop()] = index
    return pairs


def _body(code: str, start: int, pairs: dict[int, int]) -> tuple[int, int]:
    """Where a function's body lies after its parameters: its braces, or an arrow's
    expression up to the end of its line."""
    opening = code.find("{", start, start + 200)
    arrow = code.find("=>", start, start + 200)
    if opening < 0 or (0 <= arrow < opening and code[arrow + 2:opening].strip()):
        end = code.find("\n", start)
        return start, end if end >= 0 else len(code)
    return opening, pairs.get(opening, len(code))


def command_writes(code: str) -> Iterator[tuple[int, str]]:
    """(offset, what is shown) for each command run in `code` that writes a script."""
    for match in islice(_COMMANDS.finditer(code), MAX_CALLS):
        opened = match.group(0)[-1]
        closing = code.find("`", match.end(), match.end() + MAX_ARGUMENTS)
        text = code[match.end():closing if closing >= 0 else match.end() + MAX_ARGUMENTS] \
            if opened == "`" else _arguments(code, match.end())
        words = [next(filter(None, m.groups()), "") for m in _STRING.finditer(text)] \
            if opened == "(" else [text]
        written = command_writes_code(words, _SCRIPT_NAME)
        if written is not None:
            yield match.start(), f"a command that writes {written!r}"
    yield from overflow(_COMMANDS, code, "commands")


def _arguments(code: str, start: int) -> str:
    depth = 1
    end = min(len(code), start + MAX_ARGUMENTS)
    for index in range(start, end):
        char = code[index]
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return code[start:index]
    return code[start:end]


def _split(arguments: str) -> list[str]:
    """The arguments at the outermost level, split at their commas (brackets counted)."""
    parts: list[str] = []
    depth = 0
    start = 0
    for index, char in enumerate(arguments):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(arguments[start:index])
            start = index + 1
    parts.append(arguments[start:])
    return parts
