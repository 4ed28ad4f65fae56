#!/usr/bin/env python3
"""Backup, restore and deleting runs against the real binary (issue 11, docs/data-safety.md).

Usage: backup_test.py PERFTRIAGE_BINARY [--seconds 10] [--uploaders 4]. Python 3 standard library only; everything on
127.0.0.1.

  - `perftriage serve` on a fresh database (an admin and an upload token created first with `perftriage token
    create`, when the binary has that command), 4 uploader threads each posting many small distinct multipart uploads
    (a unique run key, 1-2 CSV files, a known row count) for ~10 s;
  - meanwhile `perftriage backup --to X`, twice (the second replaces the first file). For each: the time just before
    the backup process starts is noted; afterwards the copy is restored into a new path with `perftriage restore`,
    `PRAGMA integrity_check` is ok, EVERY upload acknowledged (201) before the backup started is in the copy with all
    its rows, and every run in the copy is whole (no half upload);
  - `restore` refuses the live database while the server has it open (even with --force) and an existing target
    without --force;
  - the restored database serves: `perftriage serve` on it answers GET /api/v1/runs with the runs;
  - DELETE /api/v1/runs/{key}: anonymous 401, an upload token 403 (when auth is there), admin 200 with the counts, the
    run gone from /api/v1/runs and GET /runs/{key} 404, an audit_log row naming the token; an unknown key 404;
    `perftriage runs delete KEY --json` while the server runs, audited as cli:$USER.
Prints one line per check and exits non-zero when any failed (the work directory is then kept).
"""
import argparse
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HEADER = ("dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
          "dynamo_peak_mem,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
          "autograd_compiles,cudagraph_skips\n")
GROUPS = [(s, d, m) for s in ("huggingface", "timm_models", "torchbench")
          for d in ("float32", "bfloat16", "amp_bf16") for m in ("inference", "training")]

results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print(("ok    " if ok else "FAIL  ") + name + ("" if ok or not detail else ": %s" % (detail,)), flush=True)
    return ok


class Cli:
    def __init__(self, binary):
        self.binary = binary

    def run(self, *args, env=None):
        return subprocess.run([self.binary, *args], capture_output=True, text=True, env=env, timeout=600)

    def has_command(self, name):
        p = self.run("--help")
        return ("  %s " % name) in p.stdout


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("PERFTRIAGE_")}


class Server:
    def __init__(self, binary, db, workdir, name):
        self.log = open(os.path.join(workdir, "serve-%s.log" % name), "wb")
        self.proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--db", db, "--threads", "4"],
                                     stdout=subprocess.PIPE, stderr=self.log, env=clean_env())
        self.port = None
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.proc.stdout.readline().decode(errors="replace")
            if not line:
                break
            if "listening on http://127.0.0.1:" in line:
                self.port = int(line.split("127.0.0.1:")[1].split()[0])
                threading.Thread(target=lambda: [None for _ in self.proc.stdout], daemon=True).start()
                return
        raise RuntimeError("the server did not start; see %s" % self.log.name)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                return self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return "timeout"
        return self.proc.returncode

    def request(self, method, path, body=b"", headers=None, token=None):
        """One request on a fresh connection: (status, parsed JSON or bytes). 503 (queue full) is retried."""
        if isinstance(body, str):
            body = body.encode()
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = "Bearer " + token
        for _ in range(200):
            s = socket.create_connection(("127.0.0.1", self.port), timeout=120)
            try:
                head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: %d\r\n" % (
                    method, path, len(body))
                head += "".join("%s: %s\r\n" % kv for kv in headers.items())
                s.sendall(head.encode() + b"\r\n" + body)
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            finally:
                s.close()
            head, _, rest = data.partition(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status == 503:
                time.sleep(0.05)
                continue
            try:
                return status, json.loads(rest)
            except ValueError:
                return status, rest
        return 503, b"queue full 200 times"


def make_upload(rng, thread, seq):
    """A distinct upload: run key, files [(path, csv, rows)]."""
    files = []
    for suite, dtype, mode in rng.sample(GROUPS, rng.randint(1, 2)):
        n = rng.randint(3, 25)
        lines = [HEADER]
        for j in range(n):
            lines.append("xpu,B%dU%dModel%03d,8,%.6f,%.4f,%d,0,0,0,1,1,0,0,0,0,0\n"
                         % (thread, seq, j, rng.uniform(0.4, 2.5), rng.uniform(1, 50), rng.randint(1, 90)))
        path = "%s/%s/%s/performance/inductor-results-%s-%s-%s-xpu-performance.csv" % (
            suite, dtype, mode, suite, dtype, mode)
        files.append((path, "".join(lines), n))
    return "bk-t%d-%05d" % (thread, seq), files


def multipart(key, files, boundary):
    meta = json.dumps({"run": key, "platform": "BACKUP", "torch_version": "2.12.0+xpu", "tags": ["nightly"]})
    parts = ['--%s\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n%s\r\n'
             % (boundary, meta)]
    for path, csv, _ in files:
        parts.append('--%s\r\nContent-Disposition: form-data; name="file"; filename="%s"\r\n'
                     'Content-Type: text/csv\r\n\r\n%s\r\n' % (boundary, path, csv))
    parts.append("--%s--\r\n" % boundary)
    return "".join(parts).encode()


class Uploads:
    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}      # key -> (ack monotonic time, rows)
        self.errors = []

    def uploader(self, srv, thread, token, stop, seed):
        rng = random.Random(seed)
        boundary = "BackupB0undary%d" % thread
        seq = 0
        while not stop.is_set():
            key, files = make_upload(rng, thread, seq)
            seq += 1
            status, body = srv.request("POST", "/api/v1/uploads", multipart(key, files, boundary),
                                       {"Content-Type": "multipart/form-data; boundary=" + boundary}, token=token)
            now = time.monotonic()
            with self.lock:
                if status == 201:
                    self.acked[key] = (now, sum(f[2] for f in files))
                else:
                    self.errors.append((key, status, body))

    def acked_before(self, t):
        with self.lock:
            return {k: rows for k, (at, rows) in self.acked.items() if at < t}


def runs_in(db):
    """{run key: result rows} and whether every file of every run holds its row_count rows."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        rows = dict(con.execute("SELECT r.key, (SELECT count(*) FROM results x WHERE x.run_id = r.id) FROM runs r"))
        bad = con.execute("SELECT count(*) FROM result_files f WHERE f.superseded_by IS NULL AND f.row_count <>"
                          " (SELECT count(*) FROM results x WHERE x.file_id = f.id)").fetchone()[0]
        return rows, bad
    finally:
        con.close()


def integrity(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [r[0] for r in con.execute("PRAGMA integrity_check")]
    finally:
        con.close()


def backup_and_check(cli, uploads, live_db, backup, workdir, n):
    """One backup during the uploads, restored into a new path and checked. Returns the restored path."""
    started = time.monotonic()
    p = cli.run("backup", "--db", live_db, "--to", backup, "--json")
    took = time.monotonic() - started
    expected = uploads.acked_before(started)
    if not check("backup %d: exit 0 (%.2f s, %d uploads acknowledged before it started)" % (n, took, len(expected)),
                 p.returncode == 0, p.stderr):
        return None
    info = json.loads(p.stdout)
    check("backup %d: prints size, schema version, run count, integrity ok" % n,
          info.get("bytes") == os.path.getsize(backup) and info.get("schema_version", 0) >= 1 and
          info.get("runs", 0) >= len(expected) and info.get("integrity_check") == "ok", info)
    check("backup %d: no FILE.tmp, -wal or -journal left beside FILE" % n,
          not any(os.path.exists(backup + s) for s in (".tmp", "-wal", "-shm", "-journal")),
          os.listdir(os.path.dirname(backup)))
    restored = os.path.join(workdir, "restored-%d" % n, "db.sqlite")
    p = cli.run("restore", "--from", backup, "--db", restored, "--json")
    if not check("restore %d into a new path: exit 0" % n, p.returncode == 0, p.stderr + p.stdout):
        return None
    check("restore %d: PRAGMA integrity_check = ok" % n, integrity(restored) == ["ok"], integrity(restored)[:5])
    have, bad_files = runs_in(restored)
    missing = [k for k in expected if k not in have]
    short = [k for k, rows in expected.items() if k in have and have[k] != rows]
    check("restore %d: every upload acknowledged before the backup started is there with all its rows (%d)"
          % (n, len(expected)), not missing and not short and len(expected) > 0,
          "missing %s, short %s" % (missing[:5], short[:5]))
    with uploads.lock:
        known = dict((k, rows) for k, (_, rows) in uploads.acked.items())
    half = [k for k, rows in have.items() if k in known and rows != known[k]]
    check("restore %d: no run half-stored in the copy" % n, not half and bad_files == 0, (half[:5], bad_files))
    con = sqlite3.connect(restored)
    try:
        audit = con.execute("SELECT actor, detail FROM audit_log WHERE action = 'restore'").fetchall()
    finally:
        con.close()
    check("restore %d: audited (one 'restore' row, actor cli:<user>)" % n,
          len(audit) == 1 and audit[0][0].startswith("cli:"), audit)
    return restored


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--uploaders", type=int, default=4)
    args = ap.parse_args()
    cli = Cli(os.path.abspath(args.binary))
    workdir = tempfile.mkdtemp(prefix="perftriage-backup-")
    live_db = os.path.join(workdir, "live.sqlite")
    backup = os.path.join(workdir, "backups", "perftriage.sqlite")
    os.makedirs(os.path.dirname(backup))

    admin = upload = None
    if cli.has_command("token"):
        def create(name, scope):
            p = cli.run("token", "create", "--db", live_db, "--name", name, "--scope", scope, "--json")
            if p.returncode != 0:
                raise RuntimeError("token create: %s" % p.stderr)
            return json.loads(p.stdout)["token"]
        admin = create("ops-admin", "admin")
        upload = create("ci-upload", "upload")
    else:
        print("note: this binary has no `token` command: requests are sent without a token", flush=True)

    srv = Server(cli.binary, live_db, workdir, "live")
    uploads = Uploads()
    stop = threading.Event()
    threads = [threading.Thread(target=uploads.uploader, args=(srv, t, admin or upload, stop, 1000 + t))
               for t in range(args.uploaders)]
    t0 = time.monotonic()
    try:
        for t in threads:
            t.start()
        time.sleep(args.seconds * 0.3)
        restored = backup_and_check(cli, uploads, live_db, backup, workdir, 1)
        time.sleep(max(0.0, t0 + args.seconds * 0.6 - time.monotonic()))
        restored = backup_and_check(cli, uploads, live_db, backup, workdir, 2) or restored
        p = cli.run("restore", "--from", backup, "--db", live_db, "--force")
        check("restore refuses the database a running server has open, even with --force",
              p.returncode != 0 and "database_in_use" in p.stderr, (p.returncode, p.stderr))
        time.sleep(max(0.0, t0 + args.seconds - time.monotonic()))
    finally:
        stop.set()
        for t in threads:
            t.join()
    check("uploads: %d acknowledged in %.1f s by %d uploaders, none refused"
          % (len(uploads.acked), time.monotonic() - t0, args.uploaders),
          len(uploads.acked) > 20 and not uploads.errors, uploads.errors[:3])

    if restored:
        p = cli.run("restore", "--from", backup, "--db", restored)
        check("restore refuses an existing target without --force", p.returncode != 0 and "target_exists" in p.stderr,
              (p.returncode, p.stderr))
        have, _ = runs_in(restored)
        other = Server(cli.binary, restored, workdir, "restored")
        try:
            status, body = other.request("GET", "/api/v1/runs")
            served = {r.get("key") or r.get("run") for r in body.get("runs", [])} if status == 200 else set()
            check("the restored database serves: GET /api/v1/runs lists its %d runs" % len(have),
                  status == 200 and served == set(have), (status, len(served), len(have)))
        finally:
            check("the server on the restored database stops cleanly (SIGTERM, exit 0)", other.stop() == 0)

    # Deleting a run over HTTP and with the CLI, while the server runs.
    try:
        with uploads.lock:
            keys = sorted(uploads.acked)
        victim, victim2 = keys[0], keys[1]
        if admin:
            status, body = srv.request("DELETE", "/api/v1/runs/" + victim)
            check("DELETE anonymous: 401", status == 401, (status, body))
            status, body = srv.request("DELETE", "/api/v1/runs/" + victim, token=upload)
            check("DELETE with an upload token: 403", status == 403, (status, body))
        status, body = srv.request("DELETE", "/api/v1/runs/" + victim, token=admin)
        check("DELETE as admin: 200 with what was deleted",
              status == 200 and isinstance(body, dict) and body.get("run") == victim and
              body.get("deleted", {}).get("results") == uploads.acked[victim][1] and
              body.get("deleted", {}).get("files", 0) >= 1, (status, body))
        status, body = srv.request("GET", "/api/v1/runs")
        listed = {r.get("key") or r.get("run") for r in body.get("runs", [])} if status == 200 else set()
        check("the deleted run is gone from /api/v1/runs (the others stay)",
              victim not in listed and victim2 in listed, (status, len(listed)))
        status, body = srv.request("GET", "/api/v1/runs/" + victim)
        check("GET /api/v1/runs/{deleted}: 404", status == 404, status)
        status, body = srv.request("DELETE", "/api/v1/runs/no-such-run", token=admin)
        check("DELETE of an unknown key: 404 naming it", status == 404 and "no-such-run" in json.dumps(body),
              (status, body))
        p = cli.run("runs", "delete", victim2, "--db", live_db, "--json", env=dict(clean_env(), USER="backup-test"))
        out = json.loads(p.stdout) if p.returncode == 0 else {}
        check("perftriage runs delete KEY --json while the server runs: 0 with the counts",
              p.returncode == 0 and out.get("run") == victim2 and
              out.get("deleted", {}).get("results") == uploads.acked[victim2][1], (p.returncode, p.stderr, out))
        p = cli.run("runs", "delete", victim2, "--db", live_db)
        check("perftriage runs delete of a deleted key: exit 1 naming it", p.returncode == 1 and victim2 in p.stderr,
              (p.returncode, p.stderr))
        con = sqlite3.connect(live_db)
        try:
            audit = con.execute("SELECT actor, target FROM audit_log WHERE action = 'run.delete'"
                                " ORDER BY id").fetchall()
            left = con.execute("SELECT count(*) FROM results x JOIN runs r ON r.id = x.run_id WHERE r.key IN (?, ?)",
                               (victim, victim2)).fetchone()[0]
            orphans = con.execute("SELECT count(*) FROM results x WHERE NOT EXISTS"
                                  " (SELECT 1 FROM runs r WHERE r.id = x.run_id)").fetchone()[0]
        finally:
            con.close()
        check("both deletions audited (actor = the token name, cli:<user>)",
              audit == [("ops-admin" if admin else "anonymous", victim), ("cli:backup-test", victim2)], audit)
        check("nothing of the deleted runs is left", left == 0 and orphans == 0, (left, orphans))
    finally:
        check("the live server stops cleanly (SIGTERM, exit 0)", srv.stop() == 0)
    check("the live database passes integrity_check", integrity(live_db) == ["ok"], integrity(live_db)[:5])

    failed = results.count(False)
    print("backup: %d checks, %d failed" % (len(results), failed), flush=True)
    if failed:
        print("work directory kept: %s" % workdir, flush=True)
        return 1
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
