#!/usr/bin/env python3
"""The README and docs/*.md name only endpoints and settings that exist (CTest docs_names, label structure).

Endpoints: every `METHOD /path` a page writes is matched against server/routes/openapi.json (which openapi_test keeps
equal to the router's table), with or without the /api/v1 prefix the pages often leave out; `{x}` and `*` stand for
one segment, `...` for the rest. Paths of GitHub's own API (/repos/..., /app/...) are GitHub's, not ours.
Settings: every `[section] key` a page writes is matched against `perftriage config keys`.

    tools/check_docs_names.py SOURCE_DIR PERFTRIAGE_BINARY
Exit 1 listing each page, line and name that does not exist.
"""
import glob
import json
import os
import re
import subprocess
import sys

GITHUB_PREFIXES = ("/repos/", "/app/", "/user", "/orgs/", "/installation")


def route_patterns(source):
    with open(os.path.join(source, "server", "routes", "openapi.json")) as f:
        paths = json.load(f)["paths"].keys()
    return [re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(p)) + "$") for p in paths]


def endpoint_exists(path, patterns):
    if path.startswith(GITHUB_PREFIXES):
        return True
    if "..." in path:  # an elided tail: the part before it must begin a route
        head = re.sub(r"\{[^}]+\}", "X", path.split("...")[0].rstrip("/"))
        heads = [head] if head.startswith("/api/v1") else [head, "/api/v1" + head]
        shapes = [re.sub(r"\[\^/\]\+", "X", p.pattern) for p in patterns]
        return any(s.startswith("^" + h + "/") or s == "^" + h + "$" for s in shapes for h in heads)
    path = path.rstrip(".,;:").rstrip("/") or "/"
    path = path.replace("*", "X")
    candidates = [path] if path.startswith("/api/v1") else [path, "/api/v1" + path]
    return any(p.match(c) for c in candidates for p in patterns)


def settings(binary):
    out = subprocess.run([binary, "config", "keys"], capture_output=True, text=True, check=True).stdout
    keys = set()
    for line in out.splitlines():
        m = re.match(r"^\| `\[([a-z_.]+)\]` \| `([a-z_]+)` \|", line)
        if m:
            keys.add((m.group(1), m.group(2)))
    return keys


def main():
    source, binary = sys.argv[1], sys.argv[2]
    patterns = route_patterns(source)
    keys = settings(binary)
    sections = {s for s, _ in keys} | {"github.repos", "tracking"}
    pages = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    missing = []
    for page in pages:
        with open(page) as f:
            lines = f.read().split("\n")
        for n, line in enumerate(lines, 1):
            for m in re.finditer(r"\b(GET|POST|PUT|PATCH|DELETE) (/[A-Za-z0-9_{}./*\-]*)", line):
                if not endpoint_exists(m.group(2), patterns):
                    missing.append(f"{os.path.relpath(page, source)}:{n}: endpoint {m.group(0)}")
            for m in re.finditer(r"\[([a-z_.]+)\] ([a-z_]+)(\*?)", line):
                section, key, wildcard = m.group(1), m.group(2), m.group(3)
                known = any(s == section and k.startswith(key) for s, k in keys) if wildcard else (section, key) in keys
                if section in sections and not known and section not in ("github.repos", "tracking"):
                    missing.append(f"{os.path.relpath(page, source)}:{n}: setting [{section}] {key}")
    for line in missing:
        print(line)
    print(f"docs_names: {len(pages)} pages, {len(missing)} name(s) that do not exist")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
