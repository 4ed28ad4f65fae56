#!/usr/bin/env python3
"""scripts/upload-results.sh (docs/ci-upload.md) against the real server.

Usage: upload_script_test.py PERFTRIAGE_BINARY SCRIPT FIXTURES_DIR

Creates an upload-scoped token with `perftriage token create --db DB --name ci --scope upload --json` on a fresh
database, starts `perftriage serve` on 127.0.0.1:0 and runs the script on the seed's results tree: the run appears
with every CSV of the tree; the same upload again is a duplicate (200, exit 0); an unknown token is refused (401,
exit 1) and so is `--replace` with an upload token (403, exit 1); a closed port is exit 3. Exits 77 (skipped) when
curl or tar is absent. Prints one line per check; exits non-zero when any failed.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

BINARY = os.path.abspath(sys.argv[1])
SCRIPT = os.path.abspath(sys.argv[2])
FIXTURES = os.path.abspath(sys.argv[3])
TREE = os.path.join(FIXTURES, "seed_bmg_2.12")
WORK = tempfile.mkdtemp(prefix="perftriage-upload-script-")
DB = os.path.join(WORK, "upload.sqlite")
RUN = "bmg-ci-script-1"

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(("PASS  " if ok else "FAIL  ") + name + ("" if ok or not detail else f": {detail}"), flush=True)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFTRIAGE_")}
    env.update(extra)
    return env


def script(url, *args, token=None, token_file=None):
    env = clean_env()
    if token is not None:
        env["PERFTRIAGE_TOKEN"] = token
    cmd = ["bash", SCRIPT, "--url", url, "--run", RUN, "--platform", "BMG", "--torch-version", "2.12.0+xpu",
           "--device", "xpu", "--tags", "ci,nightly", "--retries", "2", *args]
    if token_file:
        cmd += ["--token-file", token_file]
    cmd.append(TREE)
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    return p.returncode, p.stdout + p.stderr


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    created = subprocess.run([BINARY, "token", "create", "--db", DB, "--name", "ci", "--scope", "upload", "--json"],
                             capture_output=True, text=True, env=clean_env(), timeout=120)
    check("perftriage token create --scope upload --json", created.returncode == 0,
          (created.stdout + created.stderr)[-1000:])
    if created.returncode != 0:
        return
    token = json.loads(created.stdout)["token"]
    check("the token is printed once, with its scope", token and json.loads(created.stdout).get("scopes") == ["upload"],
          created.stdout)

    log = open(os.path.join(WORK, "serve.log"), "wb")
    proc = subprocess.Popen([BINARY, "serve", "--listen", "127.0.0.1:0", "--db", DB], stdout=subprocess.PIPE,
                            stderr=log, env=clean_env())
    port = None
    deadline = time.time() + 120
    while time.time() < deadline:
        line = proc.stdout.readline().decode(errors="replace")
        if not line:
            break
        if "listening on http://127.0.0.1:" in line:
            port = int(line.split("127.0.0.1:")[1].split()[0])
            threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()
            break
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
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()

    code, out = script(f"http://127.0.0.1:{free_port()}", "--retries", "0", token=token)
    check("a closed port is exit 3", code == 3, f"exit {code}: {out[-500:]}")


if not shutil.which("curl") or not shutil.which("tar"):
    print("SKIP: upload_script_test needs curl and tar")
    sys.exit(77)
try:
    main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
failed = results.count(False)
print(f"upload_script_test: {len(results) - failed} passed, {failed} failed", flush=True)
sys.exit(1 if failed or not results else 0)
