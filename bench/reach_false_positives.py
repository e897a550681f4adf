"""The change reading's false-positive budget: how many of a real project's recent commits it
would flag, and why.

Run: python3 -m bench.reach_false_positives GIT_DIR [--commits 200]
GIT_DIR is any git directory (a bare clone is enough). For each of the last N non-merge
commits of HEAD, the files it added or modified (against its first parent) are read at that
commit, exactly as `verify --diff-base` reads a branch, and the findings are counted per rule.
Nothing of the project is copied: only counts and file:line findings are printed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter
from fnmatch import fnmatchcase
from pathlib import Path

from gate.claim.change_facts import ChangeReading, ReachFinding
from gate.claim.trust_policy import DEFAULT_CHAIN
from gate.evidence.git_change_reading import read_git_change
from gate.evidence.git_diff import DiffRange, changed_in
from gate.evidence.git_probe import run_git


def commits(git_dir: Path, count: int) -> list[tuple[str, str]]:
    """(commit, first parent) of the last `count` non-merge commits with a parent."""
    out = run_git(["log", "--no-merges", f"-n{count}", "--format=%H %P", "HEAD"], git_dir)
    pairs = [line.split()[:2] for line in out.decode().splitlines() if len(line.split()) >= 2]
    return [(commit, parent) for commit, parent in pairs]


def read_commit(git_dir: Path, commit: str, parent: str) -> ChangeReading:
    resolved = DiffRange(git_dir, parent, commit)
    return read_git_change(resolved, changed_in(resolved))


def on_chain(finding: ReachFinding) -> bool:
    """A file the evidence chain already names (conftest.py, setup.py, noxfile.py): a change
    to it is `producer_modified` whatever the reading finds, so it is counted apart."""
    return any(fnmatchcase(finding.path, glob) for glob in DEFAULT_CHAIN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--commits", type=int, default=200)
    parser.add_argument("--show", type=int, default=40, help="files to list")
    args = parser.parse_args(argv)
    flagged = unread = files = chain = 0
    rules: Counter[str] = Counter()
    places: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    pairs = commits(args.git_dir, args.commits)
    for commit, parent in pairs:
        try:
            reading = read_commit(args.git_dir, commit, parent)
        except subprocess.SubprocessError as exc:
            print(f"{commit[:12]}: not read ({exc})", file=sys.stderr)
            continue
        files += reading.files_read
        unread += not reading.complete
        new = [f for f in reading.findings if not on_chain(f)]
        chain += bool(reading.findings) and not new
        if new:
            flagged += 1
            rules.update({f.rule for f in new})
            places.update({(f.path, f.rule) for f in new})
            for f in new:
                example.setdefault((f.path, f.rule), f.reached)
    print(f"{args.git_dir}: {len(pairs)} commits, {files} files read,"
          f" {flagged} commits flagged outside the evidence chain, {chain} flagged only in"
          f" files already on it, {unread} with unread files")
    for rule, count in rules.most_common():
        print(f"  {rule}: {count} commits")
    print("  by file and rule (commits, first thing reached):")
    for (path, rule), count in places.most_common(args.show):
        print(f"    {path} {rule}: {count} commits, e.g. {example[(path, rule)]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
