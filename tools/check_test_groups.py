#!/usr/bin/env python3
"""Every test of a GoogleTest executable runs under some CTest entry: the unit suites get one entry per test file
(tests/CMakeLists.txt, perftriage_test_files), whose --gtest_filter names the suites that file defines. A test whose
suite the filters miss (a TEST written in a form the CMake scan does not read) would silently not run; this fails
instead, naming it.

usage: check_test_groups.py EXECUTABLE FILTERS_FILE   (one --gtest_filter value per line)"""
import fnmatch
import subprocess
import sys


def listed_tests(exe):
    out = subprocess.run([exe, "--gtest_list_tests"], capture_output=True, text=True, check=True).stdout
    names, suite = [], ""
    for line in out.splitlines():
        text = line.split("#")[0].strip()
        if not text:
            continue
        if line.startswith(" "):
            names.append(suite + text)
        else:
            suite = text  # "Suite." or "Prefix/Suite."
    return names


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, filters_file = sys.argv[1], sys.argv[2]
    with open(filters_file, encoding="utf-8") as f:
        patterns = [p for line in f for p in line.strip().split(":") if p]
    names = listed_tests(exe)
    missed = [n for n in names if not any(fnmatch.fnmatchcase(n, p) for p in patterns)]
    for n in missed:
        print(f"{exe}: {n} is in no test file's filter")
    print(f"test groups: {len(names)} tests, {len(names) - len(missed)} under a file's entry, {len(missed)} missed")
    return 1 if missed or not names else 0


if __name__ == "__main__":
    sys.exit(main())
