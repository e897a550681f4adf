"""Read one JavaScript or TypeScript file of the change for reach into Jest or Vitest and the
Node process, by token patterns (no parser: text in, findings out, nothing run).

Jest and Vitest runs have the same hole as pytest's: the code under test runs in the process
that writes the results. The patterns look for the runners' internals (`jest-circus`,
`@jest/reporters`, `@vitest/runner`, ...), the module system (`require.cache`,
`Module._load`), scripts written on disk (`reach_js_writes`), the end of the process
(`process.exit`, `process.on("exit")`), code built from text (`eval`, `new Function`, `vm`)
and report paths. Comments are blanked first (line numbers kept); a pattern inside a string
still counts, since a string is how a computed `require` would name its target. What this
does not read is said in docs/trust-model.md.
"""

from __future__ import annotations

import re

from gate.claim.change_facts import ReachFinding
from gate.evidence.reach_js_writes import command_writes, helper_writes, script_writes, written

_INTERNALS = (
    r"jest-circus|jest-runner|jest-runtime|jest-jasmine2?|jest-environment-[\w-]+|"
    r"jest-snapshot|@jest/(?!globals\b)[\w-]+|@vitest/(?!expect\b|spy\b)[\w-]+|"
    r"vitest/(?:runners|node|suite|reporters|workers|execute|runtime)"
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (rule, re.compile(pattern)) for rule, pattern in (
        ("test-machinery", rf"""["'`](?:node:)?(?:{_INTERNALS})(?:/[^"'`]*)?["'`]"""),
        ("test-machinery", r"__vitest_\w+__|__VITEST_\w+__|\$\$jest-\w+|getState\(\)\s*\.\s*"
                           r"(?:currentTestName|testPath)\s*="),
        ("test-machinery", r"\b(?:onTestFinished|onTestFailed)\s*\(\s*\(?\s*\w*\s*\)?\s*=>[^)]*"
                           r"\.(?:result|state)\s*="),
        ("import-system", r"""\brequire\.cache\b|\bModule\s*\.\s*_(?:load|resolveFilename|"""
                          r"""cache|extensions|compile)\b|\bModule\.prototype\.require\b|"""
                          r"""["'`](?:node:)?module["'`]|\b[mM]odule\s*\.\s*register(?:Hooks)?\b|"""
                          r"""--(?:require|import|loader|experimental-loader)\b"""),
        ("process-exit", r"\bprocess\s*\.\s*(?:exit|reallyExit|abort|kill)\b|"
                         r"""\bprocess\s*\.\s*(?:on|once|prependListener)\s*\(\s*["'`]"""
                         r"""(?:exit|beforeExit|SIG\w+|uncaughtException)["'`]"""),
        ("process-exit", r"\bprocess\s*\.\s*exitCode\s*=|"
                         r"\bprocess\s*\.\s*(?:binding|_linkedBinding|dlopen)\b"),
        ("obfuscation", r"\beval\s*\(|\bnew\s+Function\b|\bFunction\s*\(\s*[\"'`]|"
                        r"""["'`](?:node:)?vm["'`]|\b(?:globalThis|global)\s*\[|"""
                        r"""\bObject\s*\.\s*defineProperty\s*\(\s*(?:globalThis|global|"""
                        r"""process|console)\b|__proto__"""),
        ("process-exit", r"""\bprocess\s*\[|[$\w]\s*=\s*(?:globalThis\s*\.\s*|global\s*\.\s*)?"""
                         r"""process\s*(?:[;,)\n]|$)|\{[^{}]*\b(?:exit|reallyExit|abort|kill|on|"""
                         r"""once|prependListener|binding|dlopen)\b[^{}]*\}\s*(?:=\s*(?:"""
                         r"""globalThis\s*\.\s*|global\s*\.\s*)?process\b|=\s*require\s*\(\s*"""
                         r"""["'`](?:node:)?process["'`]|from\s*["'`](?:node:)?process["'`])|"""
                         r"""\bimport\s+(?!process\b)\w+\s+from\s*["'`](?:node:)?process["'`]|"""
                         r"""\b(?:const|let|var)\s+(?!process\b)\w+\s*=\s*require\s*\(\s*"""
                         r"""["'`](?:node:)?process["'`]|\bdetached\s*:\s*true\b"""),
        ("obfuscation", r"""\.\s*constructor\s*\(\s*["'`]|\[\s*["'`]constructor["'`]\s*\]|"""
                        r"""\b(?:require|import)\s*\(\s*(?!(?:"[^"\n]*"|'[^'\n]*'|`[^`$\n]*`)"""
                        r"""\s*[),])"""),
        ("import-system", r"\bconstructor\s*\.\s*_(?:load|resolveFilename|cache|extensions)\b"),
        # a file that is not a script by name, loaded as one (Node runs `require("./x.txt")`)
        ("obfuscation", r"""\b(?:require|import)\s*\(\s*["'`](?:\.{1,2}/|/)[^"'`\n]*\."""
                        r"""(?!(?:[cm]?[jt]sx?|json|node|css|scss|svg|png)["'`])\w+["'`]"""),
        ("builtins", r"\bReflect\s*\.\s*(?:set|defineProperty|deleteProperty)\s*\(\s*"
                     r"(?:globalThis|global|process|console)\b|\bObject\s*\.\s*(?:assign|"
                     r"defineProperties|setPrototypeOf)\s*\(\s*(?:globalThis|global|process)\b"),
        ("results-path", r"""junit|claim-gate|claim_gate|x-junit-report|test-results|"""
                         r"""(?:result|report|xunit|surefire)[\w.-]*\.xml\b"""),
        ("builtins", r"\b(?:globalThis|global)\s*\.\s*(?:expect|test|it|describe|process|"
                     r"require|Function|eval)\s*="),
    )
)
_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\"'`\\])//[^\n]*", re.DOTALL)


def _blank(match: re.Match[str]) -> str:
    return "".join("\n" if char == "\n" else " " for char in match.group(0))


def read_javascript(path: str, text: str) -> tuple[ReachFinding, ...]:
    """Every reach in one file, one finding per line and rule."""
    code = _COMMENT.sub(_blank, text)
    found: dict[tuple[int, str], ReachFinding] = {}
    for rule, pattern in _PATTERNS:
        for match in pattern.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            shown = match.group(0).strip()[:60]
            found.setdefault((line, rule), ReachFinding(path, line, rule, shown))
    writes = list(written(code))  # both scans read the same writes
    for offset, shown in (*script_writes(code, writes), *command_writes(code),
                          *helper_writes(code, writes)):
        line = code.count("\n", 0, offset) + 1
        found.setdefault((line, "source-rewrite"),
                         ReachFinding(path, line, "source-rewrite", shown))
    return tuple(sorted(found.values(), key=lambda f: (f.line, f.rule)))
