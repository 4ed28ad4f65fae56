#!/usr/bin/env python3
"""No source comment or page names one of this project's own issues by number (CTest `issue_numbers`, label
structure; docs/architecture.md: comments say why, never which issue). A sentence that leaned on "issue 13" says
what it meant instead: the reference tree, the labeler's targets, the replicas.

A reference is "issue N" or "issues N" with N of one to three digits, in any case ("Issue 15's", "(issue 16)",
"issues 13 and 16"). Not one: a number after '#' ("issue #3761", "intel/torch-xpu-ops#3761": GitHub's own trackers)
or of four digits and more ("issue 3761" as test data). The few legitimate "issue N" left in the tree are listed in
ALLOWED, each with why.

Scanned: the tracked sources and pages (`git ls-files` when SOURCE_DIR is a git checkout, else a walk that skips
build/, node_modules/, .git/ and the like), by suffix (SUFFIXES, NAMES); never the test inputs (tests/fixtures/,
fuzz/corpus/, fuzz/regressions/), which are real trackers' issues, numbers and all.

    check_no_issue_numbers.py SOURCE_DIR              exit 1 and list file:line: text of each reference, if any
    check_no_issue_numbers.py --self-test SOURCE_DIR  copy the scanned files, plant a reference per case, expect each
                                                      caught (and the legitimate forms not)
"""
import os
import re
import shutil
import subprocess
import sys

import structure_check

REFERENCE = re.compile(r"\bissues?\s+\d{1,3}\b", re.IGNORECASE)
SUFFIXES = (".cpp", ".hpp", ".h", ".c", ".py", ".sql", ".cmake", ".sh", ".md", ".js", ".mjs", ".html", ".css",
            ".toml", ".yaml", ".yml", ".service")
NAMES = ("CMakeLists.txt", "Makefile", "Dockerfile")
SKIPPED = ("tests/fixtures/", "fuzz/corpus/", "fuzz/regressions/")
SKIPPED_DIRS = {".git", "build", "node_modules", "var", "Testing"}
# (file, the text a legitimate hit starts with, why it is not a reference to one of this project's issues)
ALLOWED = [
    ("docs/operations.md", r"issues 1 MiB",
     "the body limit of label and tracking-issue requests"),
    ("tests/e2e/bot/tracker_sync_e2e_test.cpp", r"issues? 1\d\d\b",
     "the fake GitHub's issues 1..n that the test seeds and pages through"),
    ("tests/analyzers/labeler/real_eval_test.cpp", r"Issue 1 is an E2E issue",
     "the first issue of the test's own evaluation set"),
    ("tools/check_no_issue_numbers.py", r"issues? \d",
     "this check's own examples and the references its self-test plants"),
]
ALLOWED_RE = [(path, re.compile(text, re.IGNORECASE)) for path, text, _ in ALLOWED]


def scanned(rel):
    rel = rel.replace(os.sep, "/")
    if rel.startswith(SKIPPED):
        return False
    name = rel.rsplit("/", 1)[-1]
    return name.endswith(SUFFIXES) or name in NAMES or rel.startswith(".ci/")


def tracked(root):
    """The files git tracks under root, or None when root is no git checkout (or git is not there to ask)."""
    if not os.path.exists(os.path.join(root, ".git")):  # a directory, or a file in a worktree
        return None
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return [rel for rel in out.split("\0") if rel]


def files(root):
    listed = tracked(root)
    if listed is None:
        listed = []
        for dirpath, dirnames, names in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
            listed += [os.path.relpath(os.path.join(dirpath, n), root) for n in sorted(names)]
    return [rel for rel in listed if scanned(rel) and os.path.isfile(os.path.join(root, rel))
            and not os.path.islink(os.path.join(root, rel))]


def allowed(rel, line, start):
    return any(path == rel and pattern.match(line, start) for path, pattern in ALLOWED_RE)


def violations(root):
    found = []
    for rel in files(root):
        rel = rel.replace(os.sep, "/")
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if any(not allowed(rel, line, m.start()) for m in REFERENCE.finditer(line)):
                    found.append(f"{rel}:{number}: {line.strip()}")
    return found


def self_test(root):
    def copy_tree(src, dst):
        for f in files(src):
            os.makedirs(os.path.dirname(os.path.join(dst, f)), exist_ok=True)
            shutil.copyfile(os.path.join(src, f), os.path.join(dst, f))

    # (file, line appended, expected: caught or not)
    cases = [
        ("docs/architecture.md", "Measured as issue 13 asked.\n", True),
        ("schema/migrate.cpp", "// The lock (Issue 16) is held for the pass.\n", True),
        ("tests/CMakeLists.txt", "# The targets of issues 15 and 41.\n", True),
        ("bench/load.sh", "# in the same run (issue 7's numbers)\n", True),
        ("docs/tracking.md", "the rerun starts at issue 100\n", True),  # allowed in its test file only
        ("docs/api.md", "the seed issue #3761 of intel/torch-xpu-ops\n", False),
        ("docs/api.md", 'EXPECT_EQ(title, "issue 3761");\n', False),
        ("docs/operations.md", "label and tracking issues 1 MiB\n", False),
    ]
    return structure_check.planted(root, copy_tree, violations, cases)


if __name__ == "__main__":
    sys.exit(structure_check.main(sys.argv, __doc__, violations, self_test, "issue numbers: {} reference(s)"))
