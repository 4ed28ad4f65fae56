#!/usr/bin/env python3
"""The end of `make test`: build time, test time, the ten slowest entries, and one closing line
"test: N passed, N failed, N skipped" (the plain form any CI reads), from ctest's JUnit file."""
import sys
import xml.etree.ElementTree as ET


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: test_summary.py JUNIT_XML BUILD_SECONDS TEST_SECONDS", file=sys.stderr)
        return 2
    junit, build_s, test_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    try:
        cases = ET.parse(junit).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        print(f"test: no results in {junit} ({e})")
        print("test: 0 passed, 1 failed")
        return 1
    rows = []
    passed = failed = skipped = 0
    for c in cases:
        status = c.get("status", "")
        if c.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped += 1
        elif c.find("failure") is not None or c.find("error") is not None or status == "fail":
            failed += 1
        else:
            passed += 1
        rows.append((float(c.get("time", "0") or 0), c.get("name", "?")))
    rows.sort(reverse=True)
    total = sum(t for t, _ in rows)
    print(f"\nbuild: {build_s // 60} min {build_s % 60} s; tests: {test_s // 60} min {test_s % 60} s wall, "
          f"{total:.0f} s of test time in {len(rows)} entries")
    print("slowest entries:")
    for t, name in rows[:10]:
        print(f"  {t:7.1f} s  {name}")
    print(f"test: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
