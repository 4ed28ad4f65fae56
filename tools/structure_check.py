"""What the structure checks (check_layers.py, check_no_issue_numbers.py) share: the command line, and the self-test
that plants one line in a copy of the tree and sees whether the check notices it."""
import os
import sys
import tempfile


def planted(root, copy_tree, violations, cases):
    """Each case is (file, line appended to it, caught). It passes when the copy with that line has exactly one new
    violation, in that file (caught), or none (not caught). Returns the exit code: 1 when any case failed."""
    failed = 0
    base = set(violations(root))
    for rel, line, caught in cases:
        with tempfile.TemporaryDirectory() as tmp:
            copy_tree(root, tmp)
            with open(os.path.join(tmp, rel), "a", encoding="utf-8") as f:
                f.write(line)
            new = [v for v in violations(tmp) if v not in base]
            ok = (len(new) == 1 and new[0].startswith(rel + ":")) if caught else not new
            print(("ok    " if ok else "FAIL  ") + ("caught" if caught else "not caught") +
                  f": {rel} + {line.strip()} -> {new}")
            failed += 0 if ok else 1
    return 1 if failed else 0


def main(argv, doc, violations, self_test, what):
    """`CHECK SOURCE_DIR` lists the violations (exit 1 when any) and `what` with their count in its {}; `CHECK
    --self-test SOURCE_DIR` runs self_test."""
    if len(argv) == 3 and argv[1] == "--self-test":
        return self_test(argv[2])
    if len(argv) != 2:
        print(doc)
        return 2
    found = violations(argv[1])
    for v in found:
        print(v)
    print(what.format(len(found)))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(2)
