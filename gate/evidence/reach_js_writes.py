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
from collections.abc import Iterator

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
#: The most of a call's arguments read (a longer call is read that far).
MAX_ARGUMENTS = 2000


#: Functions whose second argument is what they write (the first is only read); a move
#: writes both ends; every other writer writes its first.
_SECOND = re.compile(r"(?:copy|cp|link|symlink)\w*$", re.IGNORECASE)
_BOTH = re.compile(r"(?:rename|move)\w*$", re.IGNORECASE)


#: A name bound to a script's path by a string or a path built of strings (`const target =
#: "src/rules.js"`, `let t = path.join(root, "rules.ts")`): a write of that name writes it.
_BOUND_SCRIPT = re.compile(
    r"""\b(?:const|let|var)\s+([\w$]+)\s*=\s*([^;\n]*["'`][^"'`\n]*\.(?:[cm]?[jt]sx?)["'`])""")


def script_writes(code: str) -> Iterator[tuple[int, str]]:
    """(offset, what is shown) for each write in `code` (comments blanked) naming a script."""
    bound = {m.group(1) for m in _BOUND_SCRIPT.finditer(code)  # not one in a temporary folder
             if not (_TEMP.search(m.group(2)) and not _CLIMBS.search(m.group(2)))}
    through = re.compile(rf"(?<![\w$.])(?:{'|'.join(map(re.escape, bound))})(?![\w$])") \
        if bound else None
    for match in _WRITERS.finditer(code):
        called = match.group(0).rstrip("( \t\n")
        parts = _split(_arguments(code, match.end()))
        written = parts[1:2] if _SECOND.search(called) else (
            parts[:2] if _BOTH.search(called) else parts[:1])
        arguments = ",".join(written)
        named = _SCRIPT.search(arguments) or (through.search(arguments) if through else None)
        if named is None:
            continue
        if _TEMP.search(arguments) and not _CLIMBS.search(arguments):
            continue
        yield match.start(), f"writes {named.group(0)[:40]} ({called.strip()[:40]})"


def command_writes(code: str) -> Iterator[tuple[int, str]]:
    """(offset, what is shown) for each command run in `code` that writes a script."""
    for match in _COMMANDS.finditer(code):
        opened = match.group(0)[-1]
        text = code[match.end():code.find("`", match.end())] if opened == "`" else \
            _arguments(code, match.end())
        words = [next(filter(None, m.groups()), "") for m in _STRING.finditer(text)] \
            if opened == "(" else [text]
        written = command_writes_code(words, _SCRIPT_NAME)
        if written is not None:
            yield match.start(), f"a command that writes {written!r}"


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
