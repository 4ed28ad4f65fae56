#!/usr/bin/env python3
"""`serve --demo` never talks to GitHub, against the real binary.

Usage: deploy_test.py PERFTRIAGE_BINARY FIXTURES_DIR

1. `serve --demo` on a fresh database with a GitHub token (a token file AND PERFTRIAGE_GITHUB_TOKEN) and
   `--github-api` pointing at a fake GitHub on loopback (http.server in a thread, counting every connection): after
   the server is up and a few seconds have passed, the fake received nothing, and every outbox row is dry_run.
2. The same database served again WITHOUT --demo, with the token: still nothing is sent (the demo's rows are
   dry_run for good, not only while --demo is on). Control: a tracking issue queued through the API then does reach
   the fake, so the fake would have seen a demo action.
3. `serve --demo` on a database holding a run that `perftriage ingest` stored exits non-zero with "the database
   holds non-demo runs; --demo only runs on a database of its own", and adds no run.

Prints one line per check; exits non-zero when any failed.
"""
import http.server
import json
import os
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402
from e2e import clean_env  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
FIXTURES = os.path.abspath(sys.argv[2])
WORK = tempfile.mkdtemp(prefix="perftriage-deploy-")
WAIT_AFTER_START_S = 4.0  # the outbox worker polls every 100 ms and sends at most one action a second

checks = e2e.Checks("PASS  ")
check = checks.check
ADMIN_TOKEN = []  # the outbox is readable with a token only


class FakeGitHub:
    """Answers 200 `{}` to anything and remembers every request line; counts raw connections too."""

    def __init__(self):
        self.requests = []
        self.connections = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def setup(self):
                outer.connections += 1
                super().setup()

            def _any(self):
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.requests.append(f"{self.command} {self.path}")
                body = b"{}"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _any

            def log_message(self, *args):
                pass

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Serve(e2e.Server):
    def __init__(self, args, env):
        super().__init__(BINARY, args, env=env, start_timeout=300,  # the demo's ~21k rows under ASan
                         log_path=os.path.join(WORK, f"serve-{time.monotonic_ns()}.log"))

    def get_json(self, path):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}",
                                     headers={"Authorization": f"Bearer {ADMIN_TOKEN[0]}"} if ADMIN_TOKEN else {})
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())


def outbox_states(server):
    answer = server.get_json("/api/v1/outbox")
    items = answer.get("items", answer.get("actions", answer if isinstance(answer, list) else []))
    return [row.get("state") for row in items], answer.get("counts", {})


def main():
    github = FakeGitHub()
    token_file = os.path.join(WORK, "github-token")
    with open(token_file, "w") as f:
        f.write("ghp_fake_token_for_the_demo_test\n")
    db = e2e.test_db(os.path.join(WORK, "demo.sqlite"))  # or a PostgreSQL database (pg:e2e_ops_deploy)
    token_env = clean_env(PERFTRIAGE_GITHUB_TOKEN="ghp_fake_token_for_the_demo_test")
    bot_args = ["--github-api", github.url, "--github-token-file", token_file, "--github-min-interval-ms", "0",
                "--github-backoff-ms", "10"]

    try:
        ADMIN_TOKEN.append(e2e.create_token(BINARY, db, "deploy-test", "admin", env=clean_env())["token"])
        created = ""
    except e2e.CommandError as e:
        created = str(e)
    check("an admin token for reading the outbox", ADMIN_TOKEN, created[-500:])

    # 1. --demo with a token and a reachable (fake) GitHub.
    demo = Serve(["--demo", "--db", db, *bot_args], token_env)
    try:
        check("serve --demo with a token starts", demo.port is not None, demo.output()[-2000:])
        if demo.port is None:
            return
        time.sleep(WAIT_AFTER_START_S)
        check("the fake GitHub received nothing from the demo",
              github.connections == 0 and not github.requests,
              f"{github.connections} connections, requests {github.requests[:5]}")
        states, counts = outbox_states(demo)
        check("the demo wrote outbox actions", len(states) >= 8, f"{len(states)} rows: {counts}")
        check("every demo outbox row is dry_run", states and all(s == "dry_run" for s in states),
              f"states {sorted(set(states))}, counts {counts}")
        runs = demo.get_json("/api/v1/runs")
        run_list = runs.get("runs", runs) if isinstance(runs, dict) else runs
        check("every demo run carries the tag demo",
              run_list and all("demo" in (r.get("tags") or []) for r in run_list),
              f"{[(r.get('key'), r.get('tags')) for r in run_list[:3]]}")
    finally:
        demo.stop()

    # 2. The demo database without --demo, with the token: the worker runs and still finds nothing to send.
    plain = Serve(["--db", db, *bot_args], token_env)
    try:
        check("serve (no --demo) on the demo database starts", plain.port is not None, plain.output()[-2000:])
        if plain.port is not None:
            time.sleep(WAIT_AFTER_START_S)
            check("a later serve with a token sends none of the demo's actions",
                  github.connections == 0 and not github.requests,
                  f"{github.connections} connections, requests {github.requests[:5]}")
            # The control: what this server queues itself does reach the fake, so "nothing" above means nothing.
            body = json.dumps({"repo": "example/tracker", "platform": "BMG", "release": "2.99", "kind": "slow",
                               "title": "control", "body": "control"}).encode()
            req = urllib.request.Request(f"http://127.0.0.1:{plain.port}/api/v1/outbox/tracking-issue", data=body,
                                         method="POST", headers={"Content-Type": "application/json",
                                                                 "Authorization": f"Bearer {ADMIN_TOKEN[0]}"})
            try:
                with urllib.request.urlopen(req, timeout=60) as r:
                    queued = r.status
            except urllib.error.HTTPError as e:
                queued = e.code
            deadline = time.time() + 20
            while time.time() < deadline and not github.requests:
                time.sleep(0.1)
            check("control: an action queued without --demo does reach the fake GitHub",
                  queued == 202 and github.requests, f"queue answered {queued}, requests {github.requests[:3]}")
    finally:
        plain.stop()

    # 3. --demo refuses a database that holds a real run, and adds nothing to it.
    sent_before = len(github.requests)
    real_db = e2e.test_db(os.path.join(WORK, "real.sqlite"))
    tree = os.path.join(FIXTURES, "seed_bmg_2.12")
    ingest = subprocess.run([BINARY, "ingest", "--db", real_db, "--platform", "BMG", "--run", "bmg-ci-1", tree],
                            capture_output=True, text=True, env=clean_env(), timeout=300)
    check("a real run is ingested", ingest.returncode == 0, ingest.stderr[-1000:])
    refused = subprocess.run([BINARY, "serve", "--listen", "127.0.0.1:0", "--demo", "--db", real_db, *bot_args],
                             capture_output=True, text=True, env=token_env, timeout=300)
    message = "the database holds non-demo runs; --demo only runs on a database of its own"
    check("serve --demo on a database with a real run exits non-zero", refused.returncode != 0,
          f"exit {refused.returncode}")
    check("... saying why", message in refused.stderr + refused.stdout, (refused.stderr + refused.stdout)[-1000:])
    runs = subprocess.run([BINARY, "runs", "--db", real_db, "--json"], capture_output=True, text=True,
                          env=clean_env(), timeout=120)
    try:
        listed = json.loads(runs.stdout)
        listed = listed.get("runs", listed) if isinstance(listed, dict) else listed
        keys = [r.get("key") for r in listed]
    except ValueError:
        keys = None
    check("... and stores no demo run", keys == ["bmg-ci-1"], f"runs: {keys} {runs.stderr[-500:]}")
    check("--demo on the refused database sent nothing either", len(github.requests) == sent_before,
          f"requests {github.requests[sent_before:][:5]}")
    github.close()


try:
    main()
finally:
    shutil.rmtree(WORK, ignore_errors=True)
checks.finish("deploy_test: ")
