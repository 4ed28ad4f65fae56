#!/usr/bin/env python3
"""Functions over 80 lines (CTest `function_size`; docs/architecture.md).

A function body longer than LIMIT lines must be split, or carry the comment `// one piece: WHY` on one of the three
lines above its signature, saying why it reads better whole. A lambda counts as part of the function that holds it.
The scan is textual (brace matching with strings, characters and comments skipped), good enough for this tree's
style: a definition starts on a line that ends with `{` at namespace depth.

    check_function_size.py [--report] SOURCE_DIR     --report: list every function over the limit, longest first,
                                                      and exit 0
"""
import os
import re
import sys

LIMIT = 80
FOLDERS = ["common", "ingest", "model", "schema", "analyzers", "server", "main.cpp"]
NAMESPACE = re.compile(r'^\s*(namespace\b|extern\s+"C"|(struct|class|union|enum)\b[^;(]*$)')


def strip(line, state):
    """The line without comments and literals; state carries an open block comment or raw string."""
    out = []
    i = 0
    while i < len(line):
        if state.get("block"):
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), state
            state["block"] = False
            i = end + 2
            continue
        if state.get("raw"):
            end = line.find(state["raw"], i)
            if end < 0:
                return "".join(out), state
            i = end + len(state["raw"])
            state["raw"] = None
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block"] = True
            i += 2
            continue
        m = re.match(r'R"([^(]*)\(', line[i:])
        if m:
            state["raw"] = ")" + m.group(1) + '"'
            i += m.end()
            continue
        if c in "\"'":
            j = i + 1
            while j < len(line) and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), state


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    state = {}
    stack = []  # one entry per open brace: ("ns" | "fn" | "other", start line)
    found = []
    for number, raw in enumerate(lines, 1):
        code, state = strip(raw.rstrip("\n"), state)
        for ch in code:
            if ch == "{":
                in_fn = any(kind == "fn" for kind, _ in stack)
                if in_fn:
                    stack.append(("other", number))
                elif NAMESPACE.match(code) or (stack and stack[-1][0] == "other"):
                    stack.append(("ns", number))
                elif re.search(r"\)\s*(const|noexcept|override|final|->[^{]*|\s)*\{\s*$", code) or \
                        re.search(r"\)\s*:\s*\w", code) or code.strip() == "{":
                    stack.append(("fn", number))
                else:
                    stack.append(("ns", number))
            elif ch == "}" and stack:
                kind, start = stack.pop()
                if kind == "fn":
                    found.append((start, number))
    result = []
    for start, end in found:
        length = end - start + 1
        if length <= LIMIT:
            continue
        sig = start
        while sig > 1 and not lines[sig - 2].strip().endswith((";", "}", "{")) and lines[sig - 2].strip() \
                and not lines[sig - 2].lstrip().startswith(("//", "#")):
            sig -= 1
        above = "".join(lines[max(0, sig - 4):sig - 1])
        result.append((length, start, lines[sig - 1].strip()[:90], "// one piece:" in above))
    return result


def main(argv):
    report = "--report" in argv
    args = [a for a in argv[1:] if a != "--report"]
    if len(args) != 1:
        print(__doc__)
        return 2
    root = args[0]
    rows = []
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        paths = [top] if os.path.isfile(top) else [os.path.join(d, n) for d, _, ns in os.walk(top) for n in ns]
        for path in sorted(paths):
            if path.endswith((".cpp", ".hpp")):
                for length, start, sig, justified in functions(path):
                    rows.append((length, os.path.relpath(path, root), start, sig, justified))
    rows.sort(reverse=True)
    bad = [r for r in rows if not r[4]]
    for length, rel, start, sig, justified in rows if report else bad:
        print(f"{rel}:{start}: {length} lines{' (one piece)' if justified else ''}: {sig}")
    print(f"function_size: {len(rows)} over {LIMIT} lines, {len(bad)} without a `// one piece:` comment")
    return 0 if report or not bad else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
