"""The README is a front door and every block in it and in docs/ is true.

- The README stays short, with a copy-paste `uses:` block on its first screen.
- Every fenced block has a language; YAML parses, JSON parses, policies load through the gate's
  own loader (GitHub workflows are linted by tests/test_workflow_examples.py).
- Every `claim-gate` command shown uses a real subcommand and real options (checked against
  `--help`); `python3 -m bench.X` / `tests.X` modules exist.
- The README's two set-up commands are exactly two, and .ci/run runs the second.
- Every relative link resolves; the policy reference lists every key the gate accepts.
- A generated block (a "claim-gate X --help" section) is that help exactly, once; every
  fence opens and closes a block; no page shows the same block twice.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gate.claim.policy_parse import _POLICY_SCHEMA, SECTIONS, parse_policy_document
from gate.evidence.junit_reader import read_junit_file
from gate.faces.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = [README, *sorted((ROOT / "docs").glob("*.md"))]
#: markdown: a snippet quoted whole (an AGENTS.md section); it holds its own fenced blocks.
LANGUAGES = {"yaml", "json", "sh", "text", "groovy", "markdown", "xml"}
FENCE = re.compile(r"^(`{3,})(\S*)\n(.*?)^\1(?!`)", re.M | re.S)
#: Being built under issue 12 item 5; its commands are checked once `--help` lists it.
PENDING: dict[str, str] = {}  # subcommands a page may name before they exist, with why


def blocks() -> list[tuple[str, str, str]]:
    found = []
    for doc in DOCS:
        for i, match in enumerate(FENCE.finditer(doc.read_text("utf-8"))):
            found.append((f"{doc.relative_to(ROOT)}#{i}", match[2], match[3]))
    return found


BLOCKS = blocks()


def ids(items: list[tuple[str, str, str]]) -> list[str]:
    return [name for name, _, _ in items]


def test_the_readme_is_a_front_door() -> None:
    text = README.read_text("utf-8")
    assert len(text.encode("utf-8")) <= 20 * 1024, "the README is over 20 KB: move depth to docs/"
    first_uses = next(i for i, line in enumerate(text.splitlines(), 1)
                      if re.match(r"\s*- uses: ", line))
    assert first_uses <= 80, f"the first `uses:` block is on line {first_uses}"
    assert "![" in text.split("## ", 1)[0] or "![" in text[:2000], "the picture comes first"
    assert "Python 3.11 or newer" in text


@pytest.mark.parametrize(("name", "language", "body"), BLOCKS, ids=ids(BLOCKS))
def test_every_block_is_valid(name: str, language: str, body: str, tmp_path: Path) -> None:
    assert language in LANGUAGES, f"{name}: fenced block without a known language ({language!r})"
    if language == "yaml":
        documents = list(yaml.safe_load_all(body))
        assert documents, name
        assert all(d is not None for d in documents), name
        document = documents[0]
        if isinstance(document, dict) and "id" in document and "jobs" not in document:
            parse_policy_document(document, name)  # a policy: the gate's own loader accepts it
    elif language == "json":
        json.loads(body)
    elif language == "xml":  # a JUnit example: the gate's own reader reads it
        example = tmp_path / "example.xml"
        example.write_text(body, encoding="utf-8")
        read_junit_file(example, ())


def _help(*command: str) -> str:
    out = io.StringIO()
    with pytest.raises(SystemExit) as done, contextlib.redirect_stdout(out):
        main([*command, "--help"])
    assert done.value.code == 0
    return out.getvalue()


def shell_commands() -> list[tuple[str, str, str]]:
    """Each command of an `sh` block (continuations joined, `&&` chains split)."""
    found = []
    for name, language, body in BLOCKS:
        if language != "sh":
            continue
        joined = re.sub(r"\\\n\s*", " ", body)
        for line in joined.splitlines():
            line = line.split(" #", 1)[0].strip()
            if line.startswith("#") or not line:
                continue
            found += [(name, "sh", part.strip()) for part in line.split("&&")]
    return found


COMMANDS = shell_commands()


@pytest.mark.parametrize(("name", "language", "command"), COMMANDS, ids=ids(COMMANDS))
def test_every_command_is_real(name: str, language: str, command: str) -> None:
    words = shlex.split(command.replace("[", "").replace("]", ""))
    if words[0] == "claim-gate":
        listed = _help().split("positional arguments:", 1)[1].split("options:", 1)[0]
        subcommands = set(re.findall(r"^    ([a-z][a-z-]*)\b", listed, re.M))
        assert {"verify", "junit"} <= subcommands, listed
        if words[1] in PENDING and words[1] not in subcommands:
            pytest.skip(PENDING[words[1]])
        assert words[1] in subcommands, f"{name}: no subcommand {words[1]!r}: {command}"
        path = [words[1]]
        if words[1] in ("claim", "attestation") and len(words) > 2:  # they have subcommands
            path.append(words[2])
        options = set(re.findall(r"(--[a-z][a-z-]+)", _help(*path)))
        unknown = [w.split("=")[0] for w in words[2:]
                   if w.startswith("--") and w.split("=")[0] not in options]
        assert not unknown, f"{name}: {command} uses options --help does not list: {unknown}"
    elif words[:2] == ["python3", "-m"] or words[:2] == ["python", "-m"]:
        module = words[2]
        if module == "pytest":
            return
        if module in ("venv", "pip"):
            return
        assert (ROOT / (module.replace(".", "/") + ".py")).exists(), f"{name}: {module}"
    else:
        # git: the agent snippets' commit steps, run for real by tests/test_agent_snippets.py
        # echo: prints what the previous command left (an exit status); cd: into a clone
        assert words[0] in {".", "pip", "export", "python", "python3", "git", "echo", "cd"}, (
            f"{name}: a command this test does not know how to check: {command}")


def test_the_readme_has_exactly_two_set_up_commands_and_ci_runs_the_second() -> None:
    section = README.read_text("utf-8").split("## Develop claim-gate", 1)[1].split("\n## ", 1)[0]
    commands = [body.strip() for _, language, body in FENCE.findall(section) if language == "sh"]
    assert len(commands) == 2, commands
    install, tests = commands
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e . ")
    assert tests == ("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'"
                     " && python3 -m pytest -n 2")
    ci = (ROOT / ".ci" / "run").read_text("utf-8").strip().splitlines()[-1]
    assert ci == tests.replace("pip install -e", "pip install -q -e")
    workflow = (ROOT / ".github" / "workflows" / "ci.yml").read_text("utf-8")
    assert f"run: {tests}\n" in workflow


def test_the_readme_example_verifies() -> None:
    """The first set-up command's gate part, as written (the install part is the venv's)."""
    section = README.read_text("utf-8").split("## Develop claim-gate", 1)[1]
    install = FENCE.findall(section)[0][2]
    gate = shlex.split(install.split("&&")[-1])
    assert gate[0] == "claim-gate"
    result = subprocess.run([sys.executable, "-m", "gate", *gate[1:]], cwd=ROOT,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "verified" in result.stdout


#: A page's section that shows a command's help: the one block in it is that help, exactly.
HELP_HEADING = re.compile(
    r"^## `claim-gate ([a-z][a-z ]*) --help`\n(.*?)(?=^## |\Z)", re.M | re.S)


def help_sections() -> list[tuple[str, str, str]]:
    found = []
    for doc in DOCS:
        for match in HELP_HEADING.finditer(doc.read_text("utf-8")):
            found.append((f"{doc.relative_to(ROOT)}: {match[1]}", match[1], match[2]))
    return found


HELP_SECTIONS = help_sections()


def test_there_are_generated_help_blocks_to_check() -> None:
    assert any(name.startswith("docs/scan.md") for name, _, _ in HELP_SECTIONS)


@pytest.mark.parametrize(("name", "command", "section"), HELP_SECTIONS,
                         ids=ids(HELP_SECTIONS))
def test_a_generated_help_block_is_the_help_exactly(
    name: str, command: str, section: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exactly one block, equal to `--help` at 100 columns: a stale copy pasted after the real
    one (docs/scan.md once held three) or an old line left inside fails, as a substring check
    would not notice."""
    monkeypatch.setenv("COLUMNS", "100")
    shown = FENCE.findall(section)
    assert len(shown) == 1, f"{name}: {len(shown)} blocks in the help section, not 1"
    assert shown[0][1] == "text", name
    real = _help(*command.split())
    assert shown[0][2] == real, f"{name}: the block is not today's --help"
    after = section.split(real, 1)[1].splitlines()[1:]
    pasted = [line for line in after if len(line.strip()) > 20 and line.strip() in real]
    assert not pasted, f"{name}: help text after the block: {pasted[:2]}"


def broken_fences(text: str) -> list[str]:
    """Fence lines GitHub would read otherwise than they look: a block never closed, or a line
    inside one that starts with its fence and goes on (pasted text: GitHub keeps it in the
    block, this file's reader closes the block there)."""
    found, opened = [], ""
    for number, line in enumerate(text.splitlines(), 1):
        run = re.match(r" {0,3}(`{3,})(.*)$", line)
        if run is None or (not opened and "`" in run[2]):  # an inline code span, no fence
            continue
        if not opened:
            opened = run[1]
        elif run[1].startswith(opened) and not run[2].strip():
            opened = ""
        elif run[1].startswith(opened):
            found.append(f"line {number}: {line.strip()[:60]}")
    return found + (["a block is never closed"] if opened else [])


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_every_fence_opens_and_closes_a_block(doc: Path) -> None:
    broken = broken_fences(doc.read_text("utf-8"))
    assert broken == [], f"{doc.name}: broken fences: {broken}"


def test_a_pasted_help_tail_is_a_broken_fence() -> None:
    """The check above can fail: the shape docs/scan.md had."""
    pasted = "```text\nusage: x\n```completion-claim block in the PR body\n  --policy\n```\n"
    assert broken_fences(pasted) == ["line 3: ```completion-claim block in the PR body"]
    assert broken_fences("```text\nusage: x\n") == ["a block is never closed"]
    assert broken_fences("````markdown\n```sh\nls\n```\n````\n") == []


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_no_block_is_shown_twice_on_a_page(doc: Path) -> None:
    bodies = [body for _, _, body in FENCE.findall(doc.read_text("utf-8")) if body.count("\n") > 2]
    repeated = {body.splitlines()[0] for body in bodies if bodies.count(body) > 1}
    assert not repeated, f"{doc.name}: blocks shown twice, starting {sorted(repeated)}"


def links() -> list[tuple[str, str, str]]:
    found = []
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)\s]+)\)", doc.read_text("utf-8")):
            if not re.match(r"[a-z]+:", target):
                found.append((str(doc.relative_to(ROOT)), str(doc), target))
    return found


LINKS = links()


def _anchor(heading: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize(("name", "path", "target"), LINKS,
                         ids=[f"{n}->{t}" for n, _, t in LINKS])
def test_every_relative_link_resolves(name: str, path: str, target: str) -> None:
    file, _, anchor = target.partition("#")
    destination = (Path(path).parent / file).resolve() if file else Path(path)
    assert destination.exists(), f"{name} links to {target}, which does not exist"
    if anchor and destination.suffix == ".md":
        headings = re.findall(r"^#+ (.+)$", destination.read_text("utf-8"), re.M)
        assert anchor in {_anchor(h) for h in headings}, f"{name}: no heading for #{anchor}"


def test_every_picture_in_docs_is_shown_or_linked_by_a_page() -> None:
    """A picture no page links to is stale weight (docs/timeline.svg once was)."""
    linked = {(Path(path).parent / target.split("#")[0]).resolve() for _, path, target in LINKS}
    pictures = [p for p in (ROOT / "docs").rglob("*") if p.suffix in (".png", ".svg")]
    assert pictures
    unlinked = [str(p.relative_to(ROOT)) for p in pictures if p.resolve() not in linked]
    assert unlinked == []


#: A file of this repository named in a page's code span (globs and placeholders aside).
NAMED_FILE = re.compile(r"`((?:gate|tests|bench|examples|docs)/[\w./-]+\.\w+)`")


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_every_file_a_page_names_exists(doc: Path) -> None:
    """A module named after it moved (`gate/github/claims.py` in docs/agents.md) sends the
    reader nowhere; so does a README section quoted by a title it no longer has."""
    text = doc.read_text("utf-8")
    missing = [name for name in NAMED_FILE.findall(text) if not (ROOT / name).exists()]
    assert missing == [], f"{doc.name} names files that do not exist: {missing}"
    headings = {h.strip() for h in re.findall(r"^#+ (.+)$", README.read_text("utf-8"), re.M)}
    quoted = re.findall(r'"([^"]+)" (?:in|of) the README', text)
    assert [q for q in quoted if q not in headings] == [], f"{doc.name}: {quoted}"


#: Pages may say "once published"; a command that installs an unpublished package may not.
UNPUBLISHED = re.compile(r"pip install (?:-U )?claim-gate(?:==[\w.]+)?(?![\w\" @-])")


@pytest.mark.parametrize("doc", DOCS, ids=[str(d.relative_to(ROOT)) for d in DOCS])
def test_no_block_installs_a_package_that_is_not_published(doc: Path) -> None:
    """claim-gate is not on the package index yet: every block installs it from a copy of
    this repository (README "Install the command"), and the other-CI recipes take the spec as
    one variable, so moving to a release is one setting."""
    shown = [body for _, _, body in FENCE.findall(doc.read_text("utf-8"))]
    found = [line.strip() for body in shown for line in body.splitlines()
             if UNPUBLISHED.search(line) or "claim-gate==" in line]
    assert found == [], f"{doc.name}: {found}"


def test_every_other_ci_recipe_installs_the_one_install_variable() -> None:
    doc = (ROOT / "docs" / "other-ci.md").read_text("utf-8").split("\n## ", 2)[1]
    lines = [line for _, _, body in FENCE.findall(doc) for line in body.splitlines()]
    installs = [line for line in lines if "pip install" in line and "claim-gate" in line]
    assert installs, "no install line in the recipes"
    # Each job installs the gate from the hashed requirements the one variable holds, written
    # to the lock file first (the tests job's plugin and the gate job's own venv alike).
    assert all("-r /tmp/claim-gate.lock" in line for line in installs), installs
    writes = [line for line in lines if "> /tmp/claim-gate.lock" in line]
    assert len(writes) == len(installs) >= 8, (writes, installs)
    assert all(re.search(r"\"\$\$?CLAIM_GATE_INSTALL\"", line) for line in writes), writes


def test_the_unpublished_install_check_can_fail() -> None:
    assert UNPUBLISHED.search("python -m pip install claim-gate==0.1.0")
    assert UNPUBLISHED.search("pip install claim-gate")
    assert not UNPUBLISHED.search('pip install "claim-gate @ git+https://github.com/O/claim-gate@v0"')


def test_the_policy_reference_lists_every_key_the_gate_accepts() -> None:
    doc = (ROOT / "docs" / "policy.md").read_text("utf-8")
    table = doc.split("## Every key", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", table, re.M))
    accepted = set(_POLICY_SCHEMA["properties"]) | set(SECTIONS)
    assert documented == accepted, (f"undocumented: {sorted(accepted - documented)};"
                                    f" not accepted: {sorted(documented - accepted)}")
    example = yaml.safe_load(doc.split("## A policy with every key", 1)[1]
                             .split("```yaml\n", 1)[1].split("```", 1)[0])
    assert set(example) == accepted
    parse_policy_document(example, "docs/policy.md")


def test_no_file_holds_a_leftover_merge_conflict() -> None:
    """A merge that left `<<<<<<<`/`>>>>>>>` in a page or a module ships both halves."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=False).stdout.decode("utf-8", "replace").split("\0")
    if not any(tracked):  # not a git checkout (an sdist): read the tree
        tracked = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()]
    marker = re.compile(r"^(<{7}|>{7})( |$)", re.M)
    found = [
        name for name in tracked
        if name.endswith((".md", ".py", ".yml", ".yaml", ".toml", ".txt", ".json", ".cfg"))
        and (ROOT / name).is_file()
        and marker.search((ROOT / name).read_text("utf-8", "replace"))
    ]
    assert found == []


PYTHON_MODULE = re.compile(r"python3? -m ((?:bench|tests)\.[a-z_]\w*)")  # bench.NAME: a slot
#: The README's benchmarks row: `python3 -m bench.NAME` for `a_bench` `b_bench` ...
BENCH_ROW = re.compile(
    r"\| \[Benchmarks\]\(docs/benchmarks\.md\) \|[^\n]*?bench\.NAME` for ([^|]*)\|")


def test_every_python_module_a_page_runs_exists() -> None:
    """`python3 -m bench.X` / `tests.X` in the README and docs names a module of this tree,
    and the README's benchmarks row names only real benchmarks, among them each figure of
    issue 23 (time to verdict, the JUnit reader, the GitHub reads, the action's start)."""
    named = {(doc.name, m[1])
             for doc in DOCS for m in PYTHON_MODULE.finditer(doc.read_text("utf-8"))}
    row = BENCH_ROW.search(README.read_text("utf-8"))
    assert row, "the README's benchmarks row names its commands as `python3 -m bench.NAME` for ..."
    benches = re.findall(r"`(\w+)`", row[1])
    named |= {("README.md", f"bench.{name}") for name in benches}
    missing = sorted((doc, module) for doc, module in named
                     if not (ROOT / (module.replace(".", "/") + ".py")).is_file())
    assert not missing, f"pages run modules that do not exist: {missing}"
    assert {"verify_bench", "junit_bench", "github_latency_bench", "action_start_bench"} <= set(
        benches)
