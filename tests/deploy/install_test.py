#!/usr/bin/env python3
"""`cmake --install` gives a binary that finds its own web assets and taxonomies, not the source tree's.

Usage: install_test.py CMAKE_COMMAND BUILD_DIR

Installs BUILD_DIR into a temporary prefix and checks the layout (bin/perftriage, share/perftriage/web,
share/perftriage/taxonomies, lib/systemd/system/perftriage.service with ExecStart at the prefix, the docs). Then it
marks the INSTALLED index.html and runs the installed binary from a directory far from the source tree (the source
tree cannot be hidden here, so the marker is what proves which copy is served): GET / must answer the marked copy.
Finally it moves the whole prefix elsewhere and checks again (the data directory is found relative to the executable,
so an installed tree is relocatable). Prints one line per check; exits non-zero when any failed.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import e2e  # noqa: E402
from e2e import clean_env  # noqa: E402

CMAKE = sys.argv[1]
BUILD = os.path.abspath(sys.argv[2])
WORK = tempfile.mkdtemp(prefix="perftriage-install-")
PREFIX = os.path.join(WORK, "prefix")

checks = e2e.Checks("PASS  ")
check = checks.check


def serve_and_get(binary, paths):
    """Starts `binary serve` with cwd = WORK (far from the source); returns {path: body} and the output."""
    db = os.path.join(WORK, f"db-{time.monotonic_ns()}.sqlite")
    server = e2e.Server(binary, ["--db", db], cwd=WORK)  # stderr into the output
    bodies = {}
    try:
        if server.port is not None:
            for p in paths:
                with urllib.request.urlopen(f"{server.url}{p}", timeout=30) as r:
                    bodies[p] = r.read().decode(errors="replace")
    finally:
        server.stop()
    return bodies, server.output()


def main():
    inst = subprocess.run([CMAKE, "--install", BUILD, "--prefix", PREFIX], capture_output=True, text=True,
                          timeout=300)
    check("cmake --install succeeds", inst.returncode == 0, (inst.stdout + inst.stderr)[-2000:])
    if inst.returncode != 0:
        return
    binary = os.path.join(PREFIX, "bin", "perftriage")
    check("bin/perftriage is installed and executable", os.access(binary, os.X_OK))
    web = os.path.join(PREFIX, "share", "perftriage", "web")
    for f in ("index.html", "app.js", "style.css"):
        check(f"share/perftriage/web/{f}", os.path.isfile(os.path.join(web, f)))
    taxonomies = os.path.join(PREFIX, "share", "perftriage", "taxonomies")
    for f in ("pytorch.json", "torch-xpu-ops.json"):
        check(f"share/perftriage/taxonomies/{f}", os.path.isfile(os.path.join(taxonomies, f)))
    unit = os.path.join(PREFIX, "lib", "systemd", "system", "perftriage.service")
    text = open(unit).read() if os.path.isfile(unit) else ""
    check("lib/systemd/system/perftriage.service runs the installed binary",
          f"ExecStart={binary} serve --config /etc/perftriage/perftriage.toml" in text,
          [l for l in text.splitlines() if l.startswith("ExecStart")])
    docs = os.path.join(PREFIX, "share", "doc", "perftriage")
    for f in ("README.md", "deploy.md", "ci-upload.md"):
        check(f"share/doc/perftriage/{f}", os.path.isfile(os.path.join(docs, f)))
    check("share/doc/perftriage/examples/perftriage.toml",
          os.path.isfile(os.path.join(docs, "examples", "perftriage.toml")))
    check("share/perftriage/scripts/upload-results.sh",
          os.access(os.path.join(PREFIX, "share", "perftriage", "scripts", "upload-results.sh"), os.X_OK))

    # An installed taxonomy file loads as a custom taxonomy would.
    body = os.path.join(WORK, "body.md")
    with open(body, "w") as f:
        f.write("BMG, huggingface bfloat16 inference BertForQuestionAnswering speedup 0.73\n")
    label = subprocess.run([binary, "label", "--json", "--title", "[E2E] BMG slower than eager", "--body-file", body,
                            "--taxonomy", os.path.join(taxonomies, "torch-xpu-ops.json")], capture_output=True,
                           text=True, cwd=WORK, env=clean_env(), timeout=120)
    check("the installed taxonomy file loads (label --taxonomy PATH)",
          label.returncode == 0 and "labels" in json.loads(label.stdout or "{}"), label.stderr[-500:])

    # The installed binary serves the installed assets: mark them and look for the mark.
    marker = "<!-- perftriage install_test: installed copy -->"
    with open(os.path.join(web, "index.html"), "a") as f:
        f.write(marker + "\n")
    bodies, out = serve_and_get(binary, ["/", "/web/app.js"])
    check("the installed binary serves share/perftriage/web (not the source tree's web/)",
          marker in bodies.get("/", ""), out[-1500:])
    with open(os.path.join(web, "app.js")) as f:
        check("... /web/app.js is the installed one", bodies.get("/web/app.js") == f.read())

    # Relocated: the whole prefix moved elsewhere still finds its assets (relative to /proc/self/exe).
    moved = os.path.join(WORK, "elsewhere", "opt")
    os.makedirs(os.path.dirname(moved))
    shutil.move(PREFIX, moved)
    moved_marker = "<!-- perftriage install_test: relocated copy -->"
    with open(os.path.join(moved, "share", "perftriage", "web", "index.html"), "a") as f:
        f.write(moved_marker + "\n")
    bodies, out = serve_and_get(os.path.join(moved, "bin", "perftriage"), ["/"])
    check("a relocated install serves its own assets", moved_marker in bodies.get("/", ""), out[-1500:])


try:
    main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
checks.finish("install_test: ")
