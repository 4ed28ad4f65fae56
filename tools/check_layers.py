#!/usr/bin/env python3
"""The layering rule, checked from the sources (CTest `layers`; docs/architecture.md).

Data flows one way: common -> ingest -> model -> {schema, analyzers} -> server. A file may include headers of its
own layer and of the layers below it, never of one above or beside it (schema and analyzers do not know each
other). Inside server/ the same holds for its folders: app -> http -> bot -> routes -> cli, with demo/ beside
routes (it may use app and bot). No SQL outside schema/: no sqlite3.h and no SQL statement in a string literal.
Inside schema/ each engine's C API is named only by its own backend's files (sqlite*, backup*, wal_index* for
SQLite; postgres* for libpq): the store functions reach an engine through Database / Statement and the backends.

The build enforces most of this already (cmake/Layers.cmake: a target sees only the layers it links); this check
also covers the server's folders, which share one library, and reports every violation at once, by file and line.

    check_layers.py SOURCE_DIR            exit 1 and list the violations, if any
    check_layers.py --self-test SOURCE_DIR  copy the tree, add one upward include per rule, expect each caught
"""
import os
import re
import shutil
import sys

import structure_check

LAYERS = {
    "common": {"common"},
    "ingest": {"common", "ingest"},
    "model": {"common", "ingest", "model"},
    "schema": {"common", "ingest", "model", "schema"},
    "analyzers": {"common", "ingest", "model", "analyzers"},
    "server": {"common", "ingest", "model", "schema", "analyzers", "server"},
}
SERVER_PARTS = {
    "app": {"app"},
    "http": {"app", "http"},
    "bot": {"app", "http", "bot"},
    "routes": {"app", "http", "bot", "routes"},
    "demo": {"app", "bot", "demo"},
    "cli": {"app", "http", "bot", "routes", "demo", "cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SQLITE_API = re.compile(r'\bsqlite3_[a-z0-9_]+\s*\(|\bSQLITE_[A-Z_]+\b|\bsqlite3(_stmt)?\s*\*')
LIBPQ_API = re.compile(r'\bPQ[a-zA-Z]+\s*\(|\bPG(result|conn)\b|libpq-fe\.h')
SQLITE_BACKEND = ("sqlite", "backup", "wal_index")
POSTGRES_BACKEND = ("postgres",)
SQL = re.compile(r'"\s*(SELECT|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|PRAGMA|BEGIN'
                 r'|sqlite_master)\b', re.IGNORECASE)


def where(rel):
    parts = rel.split("/")
    layer = parts[0]
    part = parts[1] if layer == "server" and len(parts) > 2 else None
    return layer, part


def violations(root):
    found = []
    for layer in LAYERS:
        for dirpath, _, names in os.walk(os.path.join(root, layer)):
            for name in sorted(names):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                found += check_file(path, rel)
    return found


def check_file(path, rel):
    found = []
    layer, part = where(rel)
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    for number, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m:
            target = m.group(1)
            t_layer, t_part = where(target)
            if t_layer in LAYERS and t_layer not in LAYERS[layer]:
                found.append(f"{rel}:{number}: {layer}/ includes {target}: {t_layer}/ is above or beside it")
            elif layer == "server" and t_layer == "server" and part in SERVER_PARTS and t_part in SERVER_PARTS \
                    and t_part not in SERVER_PARTS[part]:
                found.append(f"{rel}:{number}: server/{part}/ includes {target}: server/{t_part}/ is above it")
            if target in ("sqlite3.h",) and layer != "schema":
                found.append(f"{rel}:{number}: {target} outside schema/")
        elif "sqlite3.h" in line and line.lstrip().startswith("#") and layer != "schema":
            found.append(f"{rel}:{number}: sqlite3.h outside schema/")
        elif layer != "schema" and SQL.search(line) and not line.lstrip().startswith("//"):
            found.append(f"{rel}:{number}: SQL outside schema/: {line.strip()[:80]}")
        if not line.lstrip().startswith("//"):
            found += backend_api(rel, number, line, layer)
    return found


def backend_api(rel, number, line, layer):
    name = os.path.basename(rel)
    found = []
    for api, backend, what in ((SQLITE_API, SQLITE_BACKEND, "SQLite"), (LIBPQ_API, POSTGRES_BACKEND, "libpq")):
        if api.search(line) and not (layer == "schema" and name.startswith(backend)):
            found.append(f"{rel}:{number}: {what}'s API outside its backend ({', '.join(backend)}*): "
                         f"{line.strip()[:80]}")
    return found


def self_test(root):
    def first_cpp(folder):
        names = sorted(n for n in os.listdir(os.path.join(root, folder)) if n.endswith(".cpp"))
        return f"{folder}/{names[0]}"

    def copy_tree(src, dst):
        for layer in LAYERS:
            shutil.copytree(os.path.join(src, layer), os.path.join(dst, layer))

    # One violation per rule: schema/ including analyzers, ingest/ including schema, analyzers/ including server or
    # schema, server/app/ including server/routes, SQL outside schema/, each engine's API outside its backend.
    cases = [
        (first_cpp("schema"), '#include "analyzers/flags/flags.hpp"\n', True),
        (first_cpp("ingest"), '#include "schema/store.hpp"\n', True),
        (first_cpp("analyzers/flags"), '#include "server/app/app_context.hpp"\n', True),
        (first_cpp("analyzers/compare"), '#include "schema/store.hpp"\n', True),
        (first_cpp("server/app"), '#include "server/routes/routes.hpp"\n', True),
        (first_cpp("server/routes"), 'const char* q = "SELECT id FROM runs";\n', True),
        ("schema/store.cpp", 'int c = sqlite3_changes(nullptr);\n', True),
        ("schema/bot_store.cpp", 'void f(PGconn* c);\n', True),
    ]
    return structure_check.planted(root, copy_tree, violations, cases)


if __name__ == "__main__":
    sys.exit(structure_check.main(sys.argv, __doc__, violations, self_test, "layers: {} violation(s)"))
