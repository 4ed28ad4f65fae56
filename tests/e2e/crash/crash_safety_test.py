#!/usr/bin/env python3
"""Crash safety: the real `perftriage serve` under concurrent uploaders, SIGKILLed at random and restarted.

    crash_safety_test.py --binary build/release/perftriage [--kills 22] [--uploaders 6] [--seed N] [--keep]

What runs, all on 127.0.0.1:
  - the server on one SQLite file, with a webhook secret and a token, sending its outbox to a fake GitHub (below);
  - 6 uploader threads, each posting distinct multipart uploads (a unique run key, 1-3 CSV files, 5-80 rows each,
    a known row count). A transport error (the server died under the request) leaves the upload unacknowledged; half
    of those are retried with the same bytes (a stored upload then answers 200 "duplicate"), the rest are abandoned;
  - a webhook thread posting signed `issues: opened` deliveries (each one queues 8 outbox actions) and redelivering
    some of them, retrying each until it is acknowledged;
  - the main thread, the killer: random 0.2-1.5 s pauses, SIGKILL, (every other kill) a read-only look at the database while the
    server is down (quick_check, no run half-stored, pending outbox actions), restart on the same file (new port).

Checked at the end:
  - every acknowledged upload is there exactly once with its files and row count (API and SQL), every abandoned one
    is either wholly there or wholly absent, no run the test did not upload; nothing half-stored at any probed kill;
  - each webhook delivery queued its actions once (redeliveries answer "duplicate", before or after a crash);
  - the outbox resumes and drains: every action `sent`, none `failed`; GitHub saw each issue's labels, exactly ONE bot
    comment per issue (the re-sent comment upsert finds its own comment by its marker and edits it) whose body is the
    queued one, and at most one re-sent mutation per kill. "Exactly once" for GitHub means: one comment, the labels,
    and no more than the at-least-once re-sends a crash between a 2xx and its commit can cause (label creation
    answers 422 already_exists, adding labels is idempotent). Tracking issues are opt-in (--tracking-issues N,
    checks one GitHub issue per fingerprint): `POST /repos/R/issues` has no idempotency key, so unless the worker
    finds the issue it already opened before opening it again, a kill between GitHub's 201 and the commit that
    records the number opens a second one (it did when this test was written; the worker now lists the issues and
    adopts the one whose body carries the fingerprint's marker);
  - a clean SIGTERM exit (0) at the end, then `PRAGMA integrity_check` = ok and `foreign_key_check` empty.

Exits 0 when every check passed, 1 otherwise (the temporary directory with the server logs is then kept).
"""
import argparse
import http.client
import http.server
import json
import os
import random
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

SECRET = "crash-safety-secret"
TOKEN = "ghp_crash_safety_token"
BOT = "perftriage[bot]"
REPO = "intel/torch-xpu-ops"
MARKER = "<!-- perftriage:label -->"
ISSUE_TITLE = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)"
FALLBACK_BODY = ("Platform: BMG, torch 2.12.0+xpu, bfloat16 inference, inductor slower than eager.\n\n"
                 "| suite | dtype | mode | model | speedup |\n| --- | --- | --- | --- | --- |\n"
                 "| huggingface | bfloat16 | inference | ElectraForQuestionAnswering | 0.662224 |\n")


def log(msg):
    print(msg, flush=True)


class Checks:
    def __init__(self):
        self.lock = threading.Lock()
        self.passed = 0
        self.failures = []

    def check(self, ok, what):
        with self.lock:
            if ok:
                self.passed += 1
            else:
                self.failures.append(what)
                if len(self.failures) <= 50:
                    log("FAIL: " + what)
        return ok


# --------------------------------------------------------------------------------------------------------------------
# A fake GitHub REST API: the endpoints the bot uses, every request recorded.

class FakeGitHub:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []                 # (method, path, body dict)
        self.repo_labels = {}              # name -> color
        self.label_creations = {}          # name -> successful (201) creations
        self.issue_labels = {}             # number -> set
        self.comments = {}                 # number -> [{"id", "body"}]
        self.issues = {}                   # number -> {"title", "body"} (tracking issues the bot opened)
        self.next_id = 1000
        self.bad_auth = 0
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_one_request(self):
                try:
                    super().handle_one_request()
                except (ConnectionError, socket.timeout, OSError):
                    self.close_connection = True  # the server was SIGKILLed mid-request

            def _serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                status, body = fake.apply(self.command, self.path, raw, self.headers)
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("x-ratelimit-remaining", "4999")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _serve

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def apply(self, method, target, raw, headers):
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = urllib.parse.urlsplit(target).path
        with self.lock:
            self.requests.append((method, path, body))
            if headers.get("Authorization") != "Bearer " + TOKEN:
                self.bad_auth += 1
                return 401, {"message": "Bad credentials"}
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/labels", path)
            if method == "POST" and m:
                name = body.get("name", "")
                if name in self.repo_labels:
                    return 422, {"message": "Validation Failed",
                                 "errors": [{"resource": "Label", "code": "already_exists", "field": "name"}]}
                self.repo_labels[name] = body.get("color", "")
                self.label_creations[name] = self.label_creations.get(name, 0) + 1
                return 201, {"name": name, "color": self.repo_labels[name]}
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/labels", path)
            if method == "POST" and m:
                labels = self.issue_labels.setdefault(int(m.group(2)), set())
                labels.update(body.get("labels", []))
                return 200, [{"name": n} for n in sorted(labels)]
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)/comments", path)
            if m and method == "GET":
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
                page = int(query.get("page", ["1"])[0])
                per_page = int(query.get("per_page", ["30"])[0])
                all_ = self.comments.get(int(m.group(2)), [])
                chunk = all_[(page - 1) * per_page: page * per_page]
                return 200, [{"id": c["id"], "body": c["body"], "user": {"login": BOT}} for c in chunk]
            if m and method == "POST":
                c = {"id": self.next_id, "body": body.get("body", "")}
                self.next_id += 1
                self.comments.setdefault(int(m.group(2)), []).append(c)
                return 201, dict(c)
            if method == "GET" and re.fullmatch(r"/repos/([^/]+/[^/]+)/issues", path):
                # Every issue opened here, 'since' ignored (they are all newer than any action), in the order of
                # opening (least recent first; 'direction=desc' most recent first).
                query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
                page = int(query.get("page", ["1"])[0])
                per_page = int(query.get("per_page", ["30"])[0])
                listed = [{"number": n, "title": i["title"], "body": i["body"], "user": {"login": BOT}}
                          for n, i in sorted(self.issues.items(),
                                             reverse=query.get("direction", ["asc"])[0] == "desc")]
                return 200, listed[(page - 1) * per_page: page * per_page]
            if method == "POST" and re.fullmatch(r"/repos/([^/]+/[^/]+)/issues", path):
                number = 100 + len(self.issues)
                self.issues[number] = {"title": body.get("title", ""), "body": body.get("body", "")}
                return 201, {"number": number}
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/(\d+)", path)
            if method == "PATCH" and m:
                issue = self.issues.get(int(m.group(2)))
                if issue is None:
                    return 404, {"message": "Not Found"}
                issue.update({k: body[k] for k in ("title", "body") if k in body})
                return 200, {"number": int(m.group(2))}
            m = re.fullmatch(r"/repos/([^/]+/[^/]+)/issues/comments/(\d+)", path)
            if method == "PATCH" and m:
                for lst in self.comments.values():
                    for c in lst:
                        if c["id"] == int(m.group(2)):
                            c["body"] = body.get("body", "")
                            return 200, dict(c)
                return 404, {"message": "Not Found"}
            return 404, {"message": "Not Found"}

    def mutations(self):
        with self.lock:
            return [r for r in self.requests if r[0] != "GET"]


# --------------------------------------------------------------------------------------------------------------------
# The server process and the shared "where is it now" state.

class TransportError(Exception):
    pass


class Live:
    """The running server: its port while up. Connections are opened under the lock, and the killer takes the lock
    before killing, so no request is ever sent to a stale port (which another process could have taken)."""

    def __init__(self, args, workdir, github_url, db=None, api_token=None, extra=(), name="server"):
        self.args = args
        self.workdir = workdir
        self.db = db or os.path.join(workdir, "db.sqlite")
        self.github_url = github_url
        self.extra = list(extra)  # more `serve` flags
        self.name = name
        self.cond = threading.Condition()
        self.proc = None
        self.port = None
        self.up = False
        self.generation = 0
        self.aborted = False
        self.in_flight = 0
        self.startup_s = []
        with open(os.path.join(workdir, "secret"), "w") as f:
            f.write(SECRET + "\n")
        with open(os.path.join(workdir, "token"), "w") as f:
            f.write(TOKEN + "\n")
        # Writes need an API token (docs/auth.md): one admin token, created before the first start, sent on every
        # request (replicas of one database share theirs).
        self.api_token = api_token or e2e.create_token(args.binary, self.db, "crash-safety", "admin")["token"]

    def start(self):
        self.generation += 1
        logpath = self.logpath()
        cmd = [self.args.binary, "serve", "--listen", "127.0.0.1:0", "--db", self.db,
               "--threads", "4",
               "--webhook-secret-file", os.path.join(self.workdir, "secret"),
               "--github-token-file", os.path.join(self.workdir, "token"),
               "--github-api", self.github_url, "--bot-login", BOT,
               "--github-min-interval-ms", "120", "--github-timeout-ms", "5000",
               "--github-backoff-ms", "100", "--github-max-attempts", "20"] + self.extra
        t0 = time.monotonic()
        with open(logpath, "wb") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = t0 + self.args.start_timeout
        port = None
        while port is None:
            with open(logpath, "rb") as f:
                m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", f.read())
            if m:
                port = int(m.group(1))
                break
            if proc.poll() is not None:
                raise RuntimeError("the server exited with %s before listening; see %s" % (proc.returncode, logpath))
            if time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                raise RuntimeError("the server did not listen within %ss; see %s" % (self.args.start_timeout, logpath))
            time.sleep(0.01)
        self.startup_s.append(time.monotonic() - t0)
        with self.cond:
            self.proc, self.port, self.up = proc, port, True
            self.cond.notify_all()

    def logpath(self):
        return os.path.join(self.workdir, "%s-%03d.log" % (self.name, self.generation))

    def kill(self):
        """SIGKILL under the lock: from here on nobody connects until start(). Returns (requests in flight, the
        exit status when the server had already exited on its own, else None)."""
        with self.cond:
            self.up = False
            in_flight = self.in_flight
            died = self.proc.poll()
            if died is None:
                self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        return in_flight, died

    def stop(self):
        """A clean SIGTERM; returns the exit status."""
        with self.cond:
            self.up = False
            if self.proc is None:
                return None
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "timeout"

    def abort(self):
        with self.cond:
            self.aborted = True
            self.up = False
            self.cond.notify_all()
            if self.proc is not None and self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def request(self, method, target, body=b"", headers=None, timeout=60):
        """One request on a fresh connection. Raises TransportError when the connection breaks (a kill)."""
        with self.cond:
            while not self.up:
                if self.aborted:
                    raise TransportError("aborted")
                self.cond.wait(1.0)
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
            try:
                conn.connect()
            except OSError as e:
                raise TransportError("connect: %s" % e)
            self.in_flight += 1
        try:
            h = {"Content-Length": str(len(body)), "Authorization": "Bearer " + self.api_token}
            h.update(headers or {})
            conn.request(method, target, body=body, headers=h)
            res = conn.getresponse()
            data = res.read()
            return res.status, data
        except (OSError, http.client.HTTPException) as e:
            raise TransportError("%s: %s" % (type(e).__name__, e))
        finally:
            conn.close()
            with self.cond:
                self.in_flight -= 1

    def get_json(self, target):
        status, data = self.request("GET", target)
        return status, (json.loads(data) if data else None)


# --------------------------------------------------------------------------------------------------------------------
# Uploads.

class Upload:
    def __init__(self, key, files):
        self.key = key
        self.files = files               # [(path, csv, rows)]
        self.rows = sum(f[2] for f in files)
        self.state = "pending"           # acked | abandoned | refused
        self.attempts = 0
        self.transport_errors = 0

    def body(self, boundary):
        return e2e.multipart_upload(boundary, {"run": self.key, "platform": "CRASH", "torch_version": "2.12.0+xpu",
                                               "tags": ["crash-safety"]}, self.files)


def make_upload(rng, thread, seq):
    groups = rng.sample(e2e.GROUPS, rng.randint(1, 3))
    files = []
    for suite, dtype, mode in groups:
        n = rng.randint(5, 80)
        lines = [e2e.PERF_HEADER]
        for j in range(n):
            speedup = "0.000000" if rng.random() < 0.05 else "%.6f" % rng.uniform(0.4, 2.5)
            lines.append(e2e.perf_row("T%dU%dModel%03d" % (thread, seq, j), rng.choice((1, 8, 32)), speedup,
                                      "%.4f" % rng.uniform(1, 50), rng.randint(1, 90)))
        files.append((e2e.perf_path(suite, dtype, mode), "".join(lines), n))
    return Upload("crash-t%d-%04d" % (thread, seq), files)


def uploader(thread, live, stop, uploads, checks, rng, max_uploads):
    boundary = "crashB0undary%d" % thread
    for seq in range(max_uploads):
        if stop.is_set():
            return
        up = make_upload(rng, thread, seq)
        uploads.append(up)
        body = up.body(boundary)
        while True:
            up.attempts += 1
            try:
                status, data = live.request("POST", "/api/v1/uploads", body,
                                            {"Content-Type": "multipart/form-data; boundary=" + boundary})
            except TransportError:
                up.transport_errors += 1
                if live.aborted:
                    up.state = "abandoned"
                    return
                if rng.random() < 0.5 and up.attempts < 6 and not stop.is_set():
                    continue  # retry the same bytes on the restarted server
                up.state = "abandoned"
                break
            if status in (200, 201):
                j = json.loads(data)
                rows = sorted(f.get("rows") for f in j.get("files", []))
                statuses = {f.get("status") for f in j.get("files", [])}
                checks.check(j.get("run") == up.key and rows == sorted(f[2] for f in up.files),
                             "%s: answer %s does not match the upload (rows %s)" % (up.key, data[:300],
                                                                                      [f[2] for f in up.files]))
                if status == 200:  # only a retry of an upload stored just before a kill may be a duplicate
                    checks.check(up.attempts > 1 and statuses == {"duplicate"},
                                 "%s: 200 on attempt %d: %s" % (up.key, up.attempts, data[:300]))
                else:
                    checks.check("duplicate" not in statuses,
                                 "%s: 201 with a duplicate file (stored twice?): %s" % (up.key, data[:300]))
                up.state = "acked"
            else:
                up.state = "refused"
                checks.check(False, "%s: HTTP %d: %s" % (up.key, status, data[:300]))
            break
        time.sleep(rng.uniform(0, 0.04))  # a little think time: the uploads span the whole kill phase


# --------------------------------------------------------------------------------------------------------------------
# Webhooks.

class Delivery:
    def __init__(self, n, number):
        self.id = "crash-delivery-%03d" % n
        self.number = number
        self.state = "pending"
        self.attempts = 0
        self.queued = None  # the 202 answer's action count
        self.redeliveries = 0
        self.leased = False  # acknowledged "in_progress": stored, processed once its lease runs out


def issue_body(source_dir):
    p = os.path.join(source_dir, "tests", "fixtures", "labeler", "seed_3761_body.md")
    try:
        with open(p, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return FALLBACK_BODY


def send_hook(live, delivery, body):
    return live.request("POST", "/webhooks/github", body,
                        {"Content-Type": "application/json", "X-GitHub-Event": "issues",
                         "X-GitHub-Delivery": delivery.id, "X-Hub-Signature-256": e2e.hub_signature(SECRET, body)})


def webhooker(live, deliveries, checks, rng, count, interval, text):
    for n in range(count):
        d = Delivery(n, 5000 + n)
        deliveries.append(d)
        body = json.dumps({"action": "opened",
                           "issue": {"number": d.number, "title": ISSUE_TITLE, "body": text, "labels": []},
                           "repository": {"full_name": REPO}, "sender": {"login": "alice"}}).encode()
        while d.state == "pending" and d.attempts < 30 and not live.aborted:
            d.attempts += 1
            try:
                status, data = send_hook(live, d, body)
            except TransportError:
                continue  # GitHub redelivers; so do we, until it is acknowledged
            j = json.loads(data)
            if status == 202:
                d.state, d.queued = "acked", j.get("actions")
                checks.check(j.get("dry_run") is False and j.get("actions", 0) > 0,
                             "%s: 202 %s" % (d.id, data[:200]))
            elif status == 200 and j.get("status") == "duplicate":
                d.state = "acked"  # stored by an attempt the kill cut off
                checks.check(d.attempts > 1, "%s: duplicate on the first attempt" % d.id)
            elif status == 200 and j.get("status") == "in_progress":
                # Several replicas (replicas_test.py): an attempt the kill cut off is leased to its dead replica;
                # its payload is stored, and another replica processes it when the lease runs out.
                d.state, d.leased = "acked", True
                checks.check(d.attempts > 1, "%s: in_progress on the first attempt" % d.id)
            else:
                d.state = "refused"
                checks.check(False, "%s: HTTP %d %s" % (d.id, status, data[:200]))
        checks.check(d.state == "acked", "%s: never acknowledged (%d attempts)" % (d.id, d.attempts))
        # A redelivery of an acknowledged delivery queues nothing, whether or not a crash came in between. One
        # acknowledged "in_progress" may still be leased to the replica that was killed under it (until its lease
        # runs out and a live replica processes it), so its redelivery may answer "in_progress" again.
        if d.state == "acked" and rng.random() < 0.4:
            try:
                status, data = send_hook(live, d, body)
                d.redeliveries += 1
                allowed = ("duplicate", "in_progress") if d.leased else ("duplicate",)
                checks.check(status == 200 and json.loads(data).get("status") in allowed,
                             "%s: redelivery answered %d %s" % (d.id, status, data[:200]))
            except TransportError:
                pass
        time.sleep(interval * rng.uniform(0.5, 1.5))


def tracker(live, tracked, checks, rng, count, interval):
    """Opt-in (--tracking-issues): queue tracking issues, one per platform, retried until acknowledged."""
    for n in range(count):
        platform = "CRASH%02d" % n
        body = json.dumps({"repo": REPO, "platform": platform, "release": "2.12", "kind": "slow",
                           "title": "[%s] crash-safety tracking issue" % platform, "body": "tracking %d" % n}).encode()
        for _ in range(30):
            try:
                status, data = live.request("POST", "/api/v1/outbox/tracking-issue", body,
                                            {"Content-Type": "application/json"})
            except TransportError:
                if live.aborted:
                    return
                continue  # a lost 202 queues it twice: same fingerprint, so still one issue
            checks.check(status == 202, "tracking issue %s: HTTP %d %s" % (platform, status, data[:200]))
            break
        tracked.append("[%s] crash-safety tracking issue" % platform)
        time.sleep(interval * rng.uniform(0.5, 1.5))


# --------------------------------------------------------------------------------------------------------------------
# Probing the database while the server is down, and the final SQL checks.

def db_runs(conn):
    """key -> (files, rows) as stored."""
    out = {}
    for key, files, rows in conn.execute(
            "SELECT r.key, COALESCE(f.n, 0), COALESCE(x.n, 0) FROM runs r"
            " LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM result_files GROUP BY run_id) f ON f.run_id = r.id"
            " LEFT JOIN (SELECT run_id, COUNT(*) AS n FROM results GROUP BY run_id) x ON x.run_id = r.id"):
        out[key] = (files, rows)
    return out


def check_atomic(stored, uploads_by_key, checks, when):
    for key, (files, rows) in stored.items():
        up = uploads_by_key.get(key)
        if not checks.check(up is not None, "%s: a run the test did not upload: %s" % (when, key)):
            continue
        checks.check(files == len(up.files) and rows == up.rows,
                     "%s: %s half-stored: %d/%d files, %d/%d rows" % (when, key, files, len(up.files), rows, up.rows))


def probe(live, uploads, checks, kill_no):
    """Read-only look at the file the killed server left (its -wal and -shm included). Returns pending actions."""
    conn = sqlite3.connect("file:%s?mode=ro" % live.db, uri=True, timeout=10)
    try:
        qc = conn.execute("PRAGMA quick_check").fetchone()[0]
        checks.check(qc == "ok", "kill %d: quick_check: %s" % (kill_no, qc))
        check_atomic(db_runs(conn), {u.key: u for u in list(uploads)}, checks, "kill %d" % kill_no)
        return conn.execute("SELECT COUNT(*) FROM outbox WHERE state = 'pending'").fetchone()[0]
    except sqlite3.OperationalError as e:  # e.g. the schema is not there yet after a kill during the first start
        if "no such table" not in str(e):
            checks.check(False, "kill %d: probe: %s" % (kill_no, e))
        return 0
    finally:
        conn.close()


def drain_outbox(live, checks, timeout):
    """Waits until the outbox has nothing pending; checks nothing failed."""
    deadline = time.monotonic() + timeout
    counts = {}
    while time.monotonic() < deadline:
        status, j = live.get_json("/api/v1/outbox")
        counts = j["counts"] if status == 200 else {}
        if status == 200 and counts.get("pending") == 0:
            break
        time.sleep(0.2)
    checks.check(counts.get("pending") == 0, "the outbox did not drain: %s" % counts)
    checks.check(counts.get("failed") == 0 and counts.get("dry_run") == 0, "outbox counts: %s" % counts)


def check_uploads(live, uploads, checks, seed, sample):
    """Every acknowledged upload exactly once with its rows, nothing abandoned half-present (through the API).
    Returns (acknowledged uploads, abandoned ones that were committed, seconds GET /runs took)."""
    by_key = {u.key: u for u in uploads}
    acked = [u for u in uploads if u.state == "acked"]
    t_runs = time.monotonic()
    pages, cursor = [], None
    while True:  # every page of GET /runs (newest first, next_cursor)
        status, runs = live.get_json("/api/v1/runs?limit=1000" +
                                     ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
        checks.check(status == 200, "GET /runs answers %d" % status)
        pages.extend((runs or {}).get("runs", []))
        cursor = (runs or {}).get("next_cursor") if status == 200 else None
        if not cursor:
            break
    runs_s = time.monotonic() - t_runs
    listed = {}
    for r in pages:
        checks.check(r["key"] not in listed, "GET /runs lists %s twice" % r["key"])
        checks.check(r["key"] in by_key, "GET /runs lists %s, which the test did not upload" % r["key"])
        listed[r["key"]] = r["counts"]
    committed_unacked = 0
    for up in uploads:
        c = listed.get(up.key)
        if c is None:
            checks.check(up.state != "acked", "%s acknowledged but not in GET /runs" % up.key)
            continue
        if up.state == "abandoned":
            committed_unacked += 1
        checks.check(up.state != "refused", "%s was refused but is stored" % up.key)
        checks.check(c["rows"] == up.rows and c["files"] == len(up.files),
                     "%s (%s): GET /runs says %d rows in %d files, uploaded %d rows in %d files"
                     % (up.key, up.state, c["rows"], c["files"], up.rows, len(up.files)))
    # Row by row: a sample of the acknowledged uploads, and every retried or abandoned-but-stored one.
    sampled = {u.key for u in random.Random(seed).sample(acked, min(len(acked), sample))}
    for up in uploads:
        if up.key not in listed or (up.attempts == 1 and up.key not in sampled):
            continue
        q = urllib.parse.quote(up.key, safe="")
        status, run = live.get_json("/api/v1/runs/" + q)
        checks.check(status == 200 and sorted(f["rows"] for f in run["files"]) == sorted(f[2] for f in up.files),
                     "%s: GET /runs/{key} answers %d, files %s, uploaded %s"
                     % (up.key, status, run and [f["rows"] for f in run.get("files", [])],
                        [f[2] for f in up.files]))
        status, res = live.get_json("/api/v1/results?run=%s&limit=1000" % q)
        models = [(r["suite"], r["dtype"], r["mode"], r["model"]) for r in res["results"]]
        checks.check(status == 200 and len(models) == up.rows and len(set(models)) == up.rows,
                     "%s: /results has %d rows (%d distinct), uploaded %d"
                     % (up.key, len(models), len(set(models)), up.rows))
    return acked, committed_unacked, runs_s


def check_bot(live, deliveries, tracked, github, checks, kills):
    """Each delivery queued once; GitHub got the labels and ONE comment per issue, one issue per tracking
    fingerprint, and at most one re-sent mutation per kill. Returns (actions, mutations, re-sent)."""
    status, ob = live.get_json("/api/v1/outbox")
    total_actions = sum(ob["counts"].values())
    actions_per_issue = {}
    for a in ob["actions"]:
        actions_per_issue.setdefault(a["issue_number"], []).append(a)
    for d in deliveries:
        acts = actions_per_issue.get(d.number, [])
        comments_q = [a for a in acts if a["kind"] == "upsert_comment"]
        if not checks.check(len(comments_q) == 1, "issue %d: %d comment actions queued (one delivery)"
                            % (d.number, len(comments_q))):
            continue
        if d.queued is not None:
            checks.check(len(acts) == d.queued, "issue %d: %d actions queued, the 202 said %s"
                         % (d.number, len(acts), d.queued))
        gh_comments = github.comments.get(d.number, [])
        checks.check(len(gh_comments) == 1, "issue %d: GitHub has %d bot comments" % (d.number, len(gh_comments)))
        if gh_comments:
            checks.check(gh_comments[0]["body"] == comments_q[0]["payload"]["body"]
                         and gh_comments[0]["body"].startswith(MARKER),
                         "issue %d: the comment on GitHub is not the queued one" % d.number)
        want = set()
        for a in acts:
            if a["kind"] == "add_labels":
                want.update(a["payload"]["labels"])
        checks.check(github.issue_labels.get(d.number, set()) == want,
                     "issue %d: GitHub labels %s, queued %s"
                     % (d.number, sorted(github.issue_labels.get(d.number, set())), sorted(want)))
        for a in acts:
            if a["kind"] == "create_label":
                checks.check(a["payload"]["name"] in github.repo_labels,
                             "label %s was never created" % a["payload"]["name"])
    checks.check(all(n == 1 for n in github.label_creations.values()), "a label was created twice")
    for title in tracked:
        opened = [n for n, i in github.issues.items() if i["title"] == title]
        checks.check(len(opened) == 1, "tracking issue %r opened %d times on GitHub: %s"
                     % (title, len(opened), opened))
    checks.check(github.bad_auth == 0, "GitHub saw %d requests without the token" % github.bad_auth)
    mutations = len(github.mutations())
    # Each action is sent once per recorded attempt (no fault here, so 1), plus at most one re-send per kill:
    # the one action in flight, or answered 2xx but not yet marked sent, when the server died.
    attempts = sum(a["attempts"] for a in ob["actions"])
    checks.check(total_actions <= mutations <= attempts + kills,
                 "GitHub saw %d mutations for %d actions (%d attempts) and %d kills"
                 % (mutations, total_actions, attempts, kills))
    resent = mutations - total_actions

    return total_actions, mutations, resent


# --------------------------------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--kills", type=int, default=22)
    ap.add_argument("--uploaders", type=int, default=6)
    ap.add_argument("--max-uploads", type=int, default=500, help="per uploader thread")
    ap.add_argument("--sample", type=int, default=40, help="acknowledged uploads read back row by row")
    ap.add_argument("--webhooks", type=int, default=12)
    ap.add_argument("--tracking-issues", type=int, default=0,
                    help="also queue this many tracking issues and check GitHub has one issue per fingerprint")
    ap.add_argument("--min-pause", type=float, default=0.2)
    ap.add_argument("--max-pause", type=float, default=1.5)
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--drain-timeout", type=float, default=90.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        log("crash_safety: no executable at %s" % args.binary)
        return 1
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    log("crash_safety: seed %d (rerun with --seed %d)" % (seed, seed))
    master = random.Random(seed)
    source_dir = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))

    workdir = tempfile.mkdtemp(prefix="perftriage-crash-")
    checks = Checks()
    github = FakeGitHub()
    live = Live(args, workdir, github.url)
    uploads, deliveries = [], []
    t_start = time.monotonic()
    kills, kills_in_flight, kills_with_pending, probes, probe_s = 0, 0, 0, 0, 0.0
    try:
        live.start()
        stop = threading.Event()
        threads = [threading.Thread(target=uploader, name="uploader-%d" % i,
                                    args=(i, live, stop, uploads, checks, random.Random(master.random()),
                                          args.max_uploads))
                   for i in range(args.uploaders)]
        est_phase = args.kills * (args.min_pause + args.max_pause) / 2
        hooks = threading.Thread(target=webhooker, name="webhooks",
                                 args=(live, deliveries, checks, random.Random(master.random()), args.webhooks,
                                       est_phase / max(args.webhooks, 1), issue_body(source_dir)))
        tracked = []
        tracks = threading.Thread(target=tracker, name="tracking-issues",
                                  args=(live, tracked, checks, random.Random(master.random()), args.tracking_issues,
                                        est_phase / max(args.tracking_issues, 1)))
        for t in threads + [hooks, tracks]:
            t.start()

        rng = random.Random(master.random())
        for k in range(1, args.kills + 1):
            time.sleep(rng.uniform(args.min_pause, args.max_pause))
            in_flight, died = live.kill()
            checks.check(died is None, "before kill %d the server had exited on its own (status %s); see %s"
                         % (k, died, live.logpath()))
            if in_flight > 0:
                kills_in_flight += 1
            kills += 1
            if k % 2 == 1:
                probes += 1
                t_probe = time.monotonic()
                if probe(live, uploads, checks, k) > 0:
                    kills_with_pending += 1
                probe_s += time.monotonic() - t_probe
            live.start()
        kill_phase = time.monotonic() - t_start
        stop.set()
        for t in threads:
            t.join(timeout=120)
            checks.check(not t.is_alive(), "%s did not finish" % t.name)
        for t in (hooks, tracks):
            t.join(timeout=120)
            checks.check(not t.is_alive(), "%s did not finish" % t.name)

        marks = [("kills", kill_phase), ("of which probing", probe_s), ("join", time.monotonic() - t_start)]
        drain_outbox(live, checks, args.drain_timeout)
        marks.append(("drain", time.monotonic() - t_start))
        by_key = {u.key: u for u in uploads}
        acked, committed_unacked, t_runs = check_uploads(live, uploads, checks, seed, args.sample)
        marks.append(("GET /runs took", t_runs))
        total_actions, mutations, resent = check_bot(live, deliveries, tracked, github, checks, kills)
        marks.append(("api checks", time.monotonic() - t_start))
        # ---- a clean stop, then the file itself
        rc = live.stop()
        checks.check(rc == 0, "SIGTERM: exit status %s" % rc)
        conn = sqlite3.connect(live.db, timeout=10)
        try:
            ic = conn.execute("PRAGMA integrity_check").fetchall()
            checks.check(ic == [("ok",)], "integrity_check: %s" % ic[:5])
            fk = conn.execute("PRAGMA foreign_key_check").fetchall()
            checks.check(fk == [], "foreign_key_check: %s" % fk[:5])
            stored = db_runs(conn)
            check_atomic(stored, by_key, checks, "final")
            for up in acked:
                checks.check(up.key in stored, "%s acknowledged but not in the file" % up.key)
            states = dict(conn.execute("SELECT state, COUNT(*) FROM outbox GROUP BY state").fetchall())
            checks.check(set(states) <= {"sent"}, "outbox states in the file: %s" % states)
            n_deliveries = conn.execute("SELECT COUNT(*) FROM webhook_deliveries").fetchone()[0]
            checks.check(n_deliveries == len(deliveries),
                         "%d deliveries recorded, %d sent" % (n_deliveries, len(deliveries)))
        finally:
            conn.close()

        duration = time.monotonic() - t_start
        abandoned = [u for u in uploads if u.state == "abandoned"]
        retried_acked = sum(1 for u in acked if u.attempts > 1)
        startup = sorted(live.startup_s)
        log("crash_safety: %d kills (%d with requests in flight, %d probed, %d with outbox actions pending) "
            "in %.1f s; server start median %.2f s, max %.2f s"
            % (kills, kills_in_flight, probes, kills_with_pending, kill_phase, startup[len(startup) // 2],
               startup[-1]))
        log("crash_safety: %d uploads (%d rows): %d acknowledged (%d after a retry), %d abandoned "
            "(%d committed whole, %d absent), %d refused"
            % (len(uploads), sum(u.rows for u in uploads), len(acked), retried_acked, len(abandoned),
               committed_unacked, len(abandoned) - committed_unacked,
               sum(1 for u in uploads if u.state == "refused")))
        log("crash_safety: %d webhooks (%d redelivered), %d outbox actions all sent, %d GitHub mutations "
            "(%d re-sent after a kill), %d comments"
            % (len(deliveries), sum(d.redeliveries for d in deliveries), total_actions, mutations, resent,
               sum(len(c) for c in github.comments.values())))
        checks.check(kills >= 20 or args.kills < 20, "only %d kills" % kills)
        marks.append(("sql checks", duration))
        log("crash_safety: timeline %s" % ", ".join("%s %.1f s" % m for m in marks))
        log("crash_safety: %d checks passed, %d failed, %.1f s" % (checks.passed, len(checks.failures), duration))
    except Exception as e:  # noqa: BLE001 - report and keep the logs
        checks.failures.append("error: %r" % e)
        log("crash_safety: ERROR %r" % e)
        import traceback
        traceback.print_exc()
    finally:
        live.abort()
        github.stop()
        if checks.failures or args.keep:
            log("crash_safety: logs and database kept in %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
