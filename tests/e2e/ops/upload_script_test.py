#!/usr/bin/env python3
"""scripts/upload-results.sh (docs/ci-upload.md) against the real server.

Usage: upload_script_test.py PERFTRIAGE_BINARY SCRIPT FIXTURES_DIR

Creates an upload-scoped token with `perftriage token create --db DB --name ci --scope upload --json` on a fresh
database, starts `perftriage serve` on 127.0.0.1:0 and runs the script on the seed's results tree: the run appears
with every CSV of the tree; the same upload again is a duplicate (200, exit 0); an unknown token is refused (401,
exit 1) and so is `--replace` with an upload token (403, exit 1); a closed port is exit 3. With `--fail-on regression`
a run like its previous one exits 0, and one where a model became slower than eager exits 4 with the report naming
it. Exits 77 (skipped) when curl or tar is absent. Prints one line per check; exits non-zero when any failed.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402
from e2e import clean_env, free_port  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
SCRIPT = os.path.abspath(sys.argv[2])
FIXTURES = os.path.abspath(sys.argv[3])
TREE = os.path.join(FIXTURES, "seed_bmg_2.12")
WORK = tempfile.mkdtemp(prefix="perftriage-upload-script-")
DB = e2e.test_db(os.path.join(WORK, "upload.sqlite"))  # or a PostgreSQL database (pg:)
RUN = "bmg-ci-script-1"

checks = e2e.Checks("PASS  ")
check = checks.check


def script(url, *args, token=None, token_file=None, run=RUN, tree=TREE):
    env = clean_env()
    if token is not None:
        env["PERFTRIAGE_TOKEN"] = token
    cmd = ["bash", SCRIPT, "--url", url, "--run", run, "--platform", "BMG", "--torch-version", "2.12.0+xpu",
           "--device", "xpu", "--tags", "ci,nightly", "--retries", "2", *args]
    if token_file:
        cmd += ["--token-file", token_file]
    cmd.append(tree)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


def tree_with(name, model, scale_speedup, scale_latency):
    """A copy of the seed tree where `model` in huggingface bfloat16 inference has its speedup and compiled latency
    scaled (the eager latency, their product, stays)."""
    tree = os.path.join(WORK, name)
    shutil.copytree(TREE, tree)
    path = os.path.join(tree, "huggingface", "bfloat16", "inference", "performance",
                        "inductor-results-huggingface-bfloat16-inference-xpu-performance.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    for row in rows[1:]:
        if row[header.index("name")] == model:
            row[header.index("speedup")] = f"{float(row[header.index('speedup')]) * scale_speedup:.6f}"
            row[header.index("abs_latency")] = f"{float(row[header.index('abs_latency')]) * scale_latency:.6f}"
    with open(path, "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return tree


def fail_on_regression(url, token):
    same = tree_with("same", "AlbertForMaskedLM", 1.0001, 0.9999)  # other bytes, the same performance
    code, out = script(url, "--fail-on", "regression", token=token, run="bmg-ci-script-2", tree=same)
    check("--fail-on regression: a run like the previous one exits 0", code == 0 and "no regression" in out,
          f"exit {code}: {out[-1500:]}")
    slower = tree_with("slower", "AlbertForMaskedLM", 0.25, 4.0)  # speedup 2.44 -> 0.61: slower than eager now
    code, out = script(url, "--fail-on", "regression", token=token, run="bmg-ci-script-3", tree=slower)
    check("--fail-on regression: a model newly slower than eager exits 4", code == 4, f"exit {code}: {out[-1500:]}")
    check("... with the report naming it and the count", "AlbertForMaskedLM" in out and "1 regression(s)" in out,
          out[-3000:])
    code, out = script(url, "--fail-on", "regression", "--baseline", "no-such-run", token=token,
                       run="bmg-ci-script-3", tree=slower)
    check("--fail-on against a baseline that is not stored says so and exits 0",
          code == 0 and "no baseline 'no-such-run'" in out, f"exit {code}: {out[-1000:]}")
    code, out = script(url, "--fail-on", "slowness", token=token)
    check("--fail-on takes only regression (exit 2)", code == 2, f"exit {code}: {out[-500:]}")


def main():
    try:
        created, detail = e2e.create_token(BINARY, DB, "ci", "upload", env=clean_env()), ""
    except e2e.CommandError as e:
        created, detail = None, str(e)
    check("perftriage token create --scope upload --json", created is not None, detail[-1000:])
    if created is None:
        return
    token = created["token"]
    check("the token is printed once, with its scope", token and created.get("scopes") == ["upload"],
          json.dumps(created))

    server = e2e.Server(BINARY, ["--db", DB], log_path=os.path.join(WORK, "serve.log"))
    port = server.port
    try:
        check("the server starts", port is not None)
        if port is None:
            return
        url = f"http://127.0.0.1:{port}"

        code, out = script(url, token=token)
        check("the script uploads the tree (201, exit 0)", code == 0 and "(201)" in out, f"exit {code}: {out[-1500:]}")
        with urllib.request.urlopen(f"{url}/api/v1/runs/{RUN}", timeout=60) as r:
            run = json.loads(r.read())
        csvs = sorted(os.path.relpath(os.path.join(d, f), TREE) for d, _, fs in os.walk(TREE) for f in fs
                      if f.endswith(".csv"))
        files = sorted(f.get("path", "") for f in run.get("files", []))
        check("the run appears with every CSV of the tree", files == csvs, f"{files} vs {csvs}")
        meta = run.get("run", run)
        check("... with the platform, torch version and tags of the command line",
              meta.get("platform") == "BMG" and meta.get("torch_version") == "2.12.0+xpu"
              and {"ci", "nightly"} <= set(meta.get("tags") or []), json.dumps(meta)[:500])

        token_file = os.path.join(WORK, "token")
        with open(token_file, "w") as f:
            f.write(token + "\n")
        code, out = script(url, token_file=token_file)
        check("the same upload again is a duplicate (200, exit 0), token from a file", code == 0 and "(200" in out,
              f"exit {code}: {out[-1000:]}")

        code, out = script(url, token="pt_not_a_real_token")
        check("an unknown token is refused (401, exit 1)", code == 1 and "401" in out, f"exit {code}: {out[-1000:]}")
        code, out = script(url, "--replace", token=token)
        check("--replace with an upload token is refused (403, exit 1)", code == 1 and "403" in out,
              f"exit {code}: {out[-1000:]}")
        code, out = script(url)
        check("no token is a usage error (exit 2)", code == 2, f"exit {code}: {out[-500:]}")
        fail_on_regression(url, token)
    finally:
        server.stop()

    code, out = script(f"http://127.0.0.1:{free_port()}", "--retries", "0", token=token)
    check("a closed port is exit 3", code == 3, f"exit {code}: {out[-500:]}")


if not shutil.which("curl") or not shutil.which("tar"):
    print("SKIP: upload_script_test needs curl and tar")
    sys.exit(77)
try:
    main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
checks.finish("upload_script_test: ")
