#!/usr/bin/env python3
"""Backup, restore and deleting runs against the real binary (docs/data-safety.md).

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
from e2e import clean_env  # noqa: E402

checks = e2e.Checks()
check = checks.check
results = checks.results


class Cli:
    def __init__(self, binary):
        self.binary = binary

    def run(self, *args, env=None):
        return subprocess.run([self.binary, *args], capture_output=True, text=True, env=env, timeout=600)

    def has_command(self, name):
        p = self.run("--help")
        return ("  %s " % name) in p.stdout


class Server(e2e.Server):
    def __init__(self, binary, db, workdir, name):
        super().__init__(binary, ["--db", db, "--threads", "4"], stop_timeout=60, required=True,
                         log_path=os.path.join(workdir, "serve-%s.log" % name))

    def request(self, method, path, body=b"", headers=None, token=None):
        """One request on a fresh connection: (status, parsed JSON or bytes). 503 (queue full) is retried."""
        for _ in range(200):
            status, _, rest = super().request(method, path, body, headers, token=token, timeout=120)
            if status == 503:
                time.sleep(0.05)
                continue
            return status, e2e.json_or_bytes(rest)
        return 503, b"queue full 200 times"


def all_runs(server):
    """Every run key GET /api/v1/runs lists, page after page (next_cursor); the first non-200 status stops it."""
    keys, cursor = set(), None
    while True:
        path = "/api/v1/runs?limit=1000" + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else "")
        status, body = server.request("GET", path)
        if status != 200:
            return status, keys
        keys |= {r.get("key") for r in body.get("runs", [])}
        cursor = body.get("next_cursor")
        if not cursor:
            return status, keys

def make_upload(rng, thread, seq):
    """A distinct upload: run key, files [(path, csv, rows)]."""
    files = []
    for suite, dtype, mode in rng.sample(e2e.GROUPS, rng.randint(1, 2)):
        n = rng.randint(3, 25)
        lines = [e2e.PERF_HEADER]
        for j in range(n):
            lines.append(e2e.perf_row("B%dU%dModel%03d" % (thread, seq, j), 8, "%.6f" % rng.uniform(0.4, 2.5),
                                      "%.4f" % rng.uniform(1, 50), rng.randint(1, 90)))
        files.append((e2e.perf_path(suite, dtype, mode), "".join(lines), n))
    return "bk-t%d-%05d" % (thread, seq), files


def multipart(key, files, boundary):
    return e2e.multipart_upload(boundary, {"run": key, "platform": "BACKUP", "torch_version": "2.12.0+xpu",
                                           "tags": ["nightly"]}, files)


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
        admin = e2e.create_token(cli.binary, live_db, "ops-admin", "admin", timeout=600)["token"]
        upload = e2e.create_token(cli.binary, live_db, "ci-upload", "upload", timeout=600)["token"]
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
            status, served = all_runs(other)
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
        status, listed = all_runs(srv)
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
