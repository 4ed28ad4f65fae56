#!/usr/bin/env python3
"""Three replicas on one PostgreSQL: the real `perftriage serve` three times on one database, behind
nothing but round-robin clients, one replica SIGKILLed and restarted at a time.

    replicas_test.py --binary build/release/perftriage [--pg-url URL] [--replicas 3] [--kills 4] [--seed N] [--keep]

The PostgreSQL server: --pg-url, else the one CTest's fixture started (PERFTRIAGE_TEST_PG names the file holding its
URL), else a throwaway one this test starts (tools/pg_test_server.sh). The test creates a database of its own there
and drops it at the end. The load is crash_safety_test.py's, spread over the replicas:
  - 6 uploader threads; each request goes to the next replica that is up (a load balancer's round robin). A
    transport error (that replica was killed under the request) leaves the upload unacknowledged; half of those are
    retried with the same bytes, so the retry lands on another replica (and answers 200 "duplicate" when the killed
    one had committed it);
  - signed webhook deliveries, every attempt and redelivery on the next replica, and a share of them sent to all
    replicas at the same instant: exactly one of those may queue the delivery (202), the others answer "duplicate";
  - tracking issues queued through whichever replica is next;
  - the killer: pauses, then SIGKILL of the next replica in turn, restarted on the same database after a moment
    while the others keep serving.
Every replica runs its outbox worker against the one fake GitHub; claims last --claim-lease-ms (short, so that the
action a killed replica had claimed is re-sent within the test).

First, before the load: one replica's response cache never outlives another replica's write (GET /runs answered
from the first replica's cache, an upload through the second, the first lists it at once); and a delivery left
'processing' under the lease of a replica that is gone (written into the table as a kill leaves it) answers its copy
"in_progress" and is finished by a live replica once the lease runs out.

Checked at the end (the same checks as crash_safety, through any replica, plus SQL on the database):
  - every acknowledged upload is there exactly once with its files and rows; nothing abandoned is half-stored;
  - no answer other than 2xx from a replica that was up: a 5xx (or 409 or 429) fails the test; only the killed
    replica's own connections may break;
  - each delivery queued its actions once, on whichever replica, and the racing copies answered "duplicate" (or
    "in_progress" while another replica held it); a delivery whose replica was killed under it is finished by
    another replica once its lease runs out (no delivery is left 'processing');
  - the outbox drains (every action `sent`): GitHub saw each issue's labels, ONE bot comment per issue, one issue
    per tracking fingerprint, at most one re-sent mutation per kill;
  - all replicas stop cleanly on SIGTERM (exit 0); the webhook_deliveries and outbox tables agree.

Exits 0 when every check passed, 1 otherwise (the temporary directory with the replicas' logs is then kept).
"""
import argparse
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "support"))
import crash_safety_test as cs  # noqa: E402
import e2e  # noqa: E402

SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
log = cs.log


class Pool:
    """Round-robin over the replicas that are up, as a load balancer would. `request` raises cs.TransportError
    when the chosen replica dies under the request; the caller's retry then goes to the next one."""

    def __init__(self, replicas):
        self.replicas = replicas
        self.turn = itertools.count()
        self.lock = threading.Lock()
        self.aborted = False
        self.answers = {}  # replica name -> {status: count}

    def next_up(self):
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not self.aborted:
            with self.lock:
                start = next(self.turn)
            for i in range(len(self.replicas)):
                r = self.replicas[(start + i) % len(self.replicas)]
                if r.up:
                    return r
            time.sleep(0.05)  # all down (cannot happen with one kill at a time, but do not spin)
        raise cs.TransportError("no replica up")

    def request(self, method, target, body=b"", headers=None, timeout=60):
        r = self.next_up()
        status, data = r.request(method, target, body, headers, timeout)
        with self.lock:
            per = self.answers.setdefault(r.name, {})
            per[status] = per.get(status, 0) + 1
        return status, data

    def get_json(self, target):
        status, data = self.request("GET", target)
        return status, (json.loads(data) if data else None)

    def abort(self):
        self.aborted = True
        for r in self.replicas:
            r.abort()


class Psql:
    """Just enough of a DB-API connection for crash_safety's db_runs: psql -At, integers converted."""

    def __init__(self, url):
        self.url = url

    def execute(self, sql):
        p = subprocess.run(["psql", "-X", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1", self.url, "-c", sql],
                           capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("psql: %s" % p.stderr.strip())
        rows = [tuple(int(v) if v.lstrip("-").isdigit() else v for v in line.split("\t"))
                for line in p.stdout.splitlines() if line]
        return Rows(rows)


class Rows:
    def __init__(self, rows):
        self.rows = rows

    def __iter__(self):
        return iter(self.rows)

    def fetchall(self):
        return self.rows

    def fetchone(self):
        return self.rows[0] if self.rows else None


def with_dbname(url, name):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def server_url(args, workdir):
    """(URL of an existing database on the server, the directory of a server this test started or None)."""
    if args.pg_url:
        return args.pg_url, None
    env_file = os.environ.get("PERFTRIAGE_TEST_PG")
    if env_file and os.path.exists(env_file):
        with open(env_file) as f:
            return f.read().strip(), None
    pgdir = os.path.join(workdir, "pg")
    subprocess.run(["bash", os.path.join(SOURCE_DIR, "tools", "pg_test_server.sh"), "start", pgdir], check=True,
                   stdout=subprocess.DEVNULL)
    with open(os.path.join(pgdir, "url")) as f:
        return f.read().strip(), pgdir


def racing_deliveries(pool, deliveries, checks, count, text):
    """Deliveries sent to every replica at the same instant: one 202 at most, the others "duplicate". Retried (to
    every replica again) until one answer acknowledges it."""
    for n in range(count):
        d = cs.Delivery(n, 7000 + n)
        d.id = "race-delivery-%03d" % n
        deliveries.append(d)
        body = json.dumps({"action": "opened",
                           "issue": {"number": d.number, "title": cs.ISSUE_TITLE, "body": text, "labels": []},
                           "repository": {"full_name": cs.REPO}, "sender": {"login": "alice"}}).encode()
        while d.state == "pending" and d.attempts < 30 and not pool.aborted:
            if d.attempts:
                time.sleep(2)  # a redelivery later (a killed replica's lease lasts 30 s)
            d.attempts += 1
            answers = []

            def send(replica):
                try:
                    barrier.wait(timeout=30)
                    answers.append(cs.send_hook(replica, d, body))
                except (cs.TransportError, threading.BrokenBarrierError):
                    pass

            threads = [threading.Thread(target=send, args=(r,)) for r in pool.replicas if r.up]
            barrier = threading.Barrier(len(threads))
            for t in threads:
                t.start()
            for t in threads:
                t.join(timeout=90)
            queued = [json.loads(data) for status, data in answers if status == 202]
            # "in_progress": another replica holds the delivery's lease and is processing it right now.
            dups = [1 for status, data in answers
                    if status == 200 and json.loads(data).get("status") in ("duplicate", "in_progress")]
            checks.check(len(queued) <= 1, "%s: %d replicas queued it" % (d.id, len(queued)))
            checks.check(len(queued) + len(dups) == len(answers),
                         "%s: answers %s" % (d.id, [(s, x[:120]) for s, x in answers]))
            if queued:
                d.state, d.queued = "acked", queued[0].get("actions")
            elif dups:
                # An earlier attempt was committed by a replica killed before it answered, or the one processing it
                # was killed under its lease (then it stays "in_progress" until the lease ends; a later attempt
                # retries it).
                d.state = "acked" if any(json.loads(x).get("status") == "duplicate" for _, x in answers) else d.state
            d.redeliveries += max(len(answers) - 1, 0)
        checks.check(d.state == "acked", "%s: never acknowledged (%d attempts)" % (d.id, d.attempts))
        time.sleep(0.3)


def check_cache_across_replicas(replicas, uploads, checks, rng):
    """The response cache of one replica never serves what another replica's write made old: GET /runs twice on the
    first replica (the second answer from its cache), an upload through the second, and the first lists it at once
    (the data generation row that every replica reads moved with the commit)."""
    reader, writer = replicas[0], replicas[1 % len(replicas)]
    for _ in range(2):
        status, before = reader.get_json("/api/v1/runs?limit=1000")
        checks.check(status == 200, "GET /runs on %s answers %d" % (reader.name, status))
    up = cs.make_upload(rng, 99, 0)
    uploads.append(up)
    boundary = "cacheB0undary"
    up.attempts = 1
    status, data = writer.request("POST", "/api/v1/uploads", up.body(boundary),
                                  {"Content-Type": "multipart/form-data; boundary=" + boundary})
    up.state = "acked" if status == 201 else "refused"
    checks.check(status == 201, "upload through %s: HTTP %d: %s" % (writer.name, status, data[:300]))
    status, after = reader.get_json("/api/v1/runs?limit=1000")
    keys = [r["key"] for r in (after or {}).get("runs", [])]
    checks.check(status == 200 and up.key in keys and len(keys) == len((before or {}).get("runs", [])) + 1,
                 "%s's GET /runs after an upload through %s: %s does not list %s (a stale cached answer?)"
                 % (reader.name, writer.name, keys[:5], up.key))
    status, _ = reader.get_json("/api/v1/runs/" + urllib.parse.quote(up.key, safe=""))
    checks.check(status == 200, "%s: GET /runs/%s answers %d" % (reader.name, up.key, status))


def check_orphaned_delivery(pool, db, deliveries, checks, text):
    """What a replica killed while processing a delivery leaves behind, made exactly (a kill rarely lands inside the
    few milliseconds of one delivery): the delivery 'processing', its payload stored, leased for 3 s more to a
    replica that is gone. A copy sent meanwhile answers "in_progress" and queues nothing; once the lease runs out a
    live replica's recovery processes it, once (check_bot then finds its labels and its one comment on GitHub)."""
    d = cs.Delivery(0, 7900)
    d.id = "orphaned-delivery-000"
    deliveries.append(d)
    body = json.dumps({"action": "opened",
                       "issue": {"number": d.number, "title": cs.ISSUE_TITLE, "body": text, "labels": []},
                       "repository": {"full_name": cs.REPO}, "sender": {"login": "alice"}})
    db.execute("INSERT INTO webhook_deliveries(delivery_id, event, action, received_at, state, attempts, payload, "
               "lease_until) VALUES('%s', 'issues', 'opened', to_char(now(), 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), "
               "'processing', 1, convert_to($pt$%s$pt$, 'UTF8'), "
               "(extract(epoch from now()) * 1000)::bigint + 3000)" % (d.id, body))
    d.attempts = 1
    status, data = cs.send_hook(pool.next_up(), d, body.encode())
    checks.check(status == 200 and json.loads(data).get("status") == "in_progress",
                 "a copy of a delivery leased to a dead replica: HTTP %d %s" % (status, data[:200]))
    deadline = time.monotonic() + 60
    state = None
    while time.monotonic() < deadline:
        row = db.execute("SELECT state, attempts FROM webhook_deliveries WHERE delivery_id = '%s'" % d.id).fetchone()
        state = row and row[0]
        if state != "processing":
            break
        time.sleep(0.5)
    checks.check(state == "done" and row[1] == 2,
                 "the orphaned delivery is %s after %d attempts, not done by a recovery" % (state, row and row[1]))
    d.state = "acked" if state == "done" else "pending"


def run_load(args, pool, checks, master):
    """The uploaders, the webhooks and the tracking issues, while the killer takes one replica down at a time.
    Returns (uploads, deliveries, tracked, kills, kills with requests in flight, seconds)."""
    uploads, deliveries, tracked = [], [], []
    stop = threading.Event()
    text = cs.issue_body(SOURCE_DIR)
    est_phase = args.kills * (args.min_pause + args.max_pause + args.down)
    threads = [threading.Thread(target=cs.uploader, name="uploader-%d" % i,
                                args=(i, pool, stop, uploads, checks, random.Random(master.random()),
                                      args.max_uploads))
               for i in range(args.uploaders)]
    others = [threading.Thread(target=cs.webhooker, name="webhooks",
                               args=(pool, deliveries, checks, random.Random(master.random()), args.webhooks,
                                     est_phase / max(args.webhooks, 1), text)),
              threading.Thread(target=racing_deliveries, name="racing-webhooks",
                               args=(pool, deliveries, checks, args.racing_webhooks, text)),
              threading.Thread(target=cs.tracker, name="tracking-issues",
                               args=(pool, tracked, checks, random.Random(master.random()), args.tracking_issues,
                                     est_phase / max(args.tracking_issues, 1)))]
    t0 = time.monotonic()
    for t in threads + others:
        t.start()
    rng = random.Random(master.random())
    kills = in_flight_kills = 0
    for k in range(args.kills):
        time.sleep(rng.uniform(args.min_pause, args.max_pause))
        victim = pool.replicas[k % len(pool.replicas)]
        in_flight, died = victim.kill()
        checks.check(died is None, "%s had exited on its own (status %s); see %s"
                     % (victim.name, died, victim.logpath()))
        kills += 1
        in_flight_kills += in_flight > 0
        time.sleep(args.down)  # the others serve alone meanwhile
        victim.start()
    stop.set()
    for t in threads + others:
        t.join(timeout=180)
        checks.check(not t.is_alive(), "%s did not finish" % t.name)
    return uploads, deliveries, tracked, kills, in_flight_kills, time.monotonic() - t0


def wait_deliveries(pool, checks, timeout):
    """Waits until no webhook delivery is left 'processing': one that a killed replica had claimed is processed by
    another replica's recovery once its lease runs out (30 s)."""
    deadline = time.monotonic() + timeout
    left = None
    while time.monotonic() < deadline:
        status, j = pool.get_json("/api/v1/webhooks/deliveries?state=processing")
        left = j["counts"].get("processing", 0) if status == 200 else None
        if left == 0:
            break
        time.sleep(0.5)
    checks.check(left == 0, "%s webhook deliveries still processing after %.0f s" % (left, timeout))


def check_answers(pool, checks):
    """Only 2xx from the replicas (a refused upload or delivery is already a failure; this catches the rest)."""
    for name, per in sorted(pool.answers.items()):
        bad = {s: n for s, n in per.items() if not 200 <= s < 300}
        checks.check(not bad, "%s answered %s" % (name, bad))


def check_database(db, uploads, deliveries, acked, checks):
    stored = cs.db_runs(db)
    cs.check_atomic(stored, {u.key: u for u in uploads}, checks, "final")
    for up in acked:
        checks.check(up.key in stored, "%s acknowledged but not in the database" % up.key)
    states = dict(db.execute("SELECT state, COUNT(*) FROM outbox GROUP BY state").fetchall())
    checks.check(set(states) <= {"sent"}, "outbox states in the database: %s" % states)
    n = db.execute("SELECT COUNT(*) FROM webhook_deliveries").fetchone()[0]
    checks.check(n == len(deliveries), "%d deliveries recorded, %d sent" % (n, len(deliveries)))
    dup = db.execute("SELECT COUNT(*) FROM (SELECT key FROM runs GROUP BY key HAVING COUNT(*) > 1) d").fetchone()[0]
    checks.check(dup == 0, "%d run keys stored twice" % dup)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--pg-url", default=None)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--uploaders", type=int, default=6)
    ap.add_argument("--max-uploads", type=int, default=400, help="per uploader thread")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--webhooks", type=int, default=8)
    ap.add_argument("--racing-webhooks", type=int, default=4)
    ap.add_argument("--tracking-issues", type=int, default=3)
    ap.add_argument("--min-pause", type=float, default=1.0)
    ap.add_argument("--max-pause", type=float, default=2.5)
    ap.add_argument("--down", type=float, default=1.0, help="seconds a killed replica stays down")
    ap.add_argument("--claim-lease-ms", type=int, default=10000)
    ap.add_argument("--start-timeout", type=float, default=60.0)
    ap.add_argument("--drain-timeout", type=float, default=120.0)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--keep", action="store_true")
    return ap.parse_args()


def main():
    args = parse_args()
    if not os.access(args.binary, os.X_OK):
        log("replicas: no executable at %s" % args.binary)
        return 1
    if shutil.which("psql") is None:
        log("replicas: no psql (Debian package postgresql-client; make deps)")
        return 1
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    log("replicas: seed %d (rerun with --seed %d)" % (seed, seed))
    master = random.Random(seed)
    workdir = tempfile.mkdtemp(prefix="perftriage-replicas-")
    checks = cs.Checks()
    github = cs.FakeGitHub()
    pool, pgdir, admin, url = None, None, None, None
    try:
        base, pgdir = server_url(args, workdir)
        name = "pt_replicas_%d_%d" % (os.getpid(), seed)
        admin = Psql(base)
        admin.execute("CREATE DATABASE %s" % name)
        url = with_dbname(base, name)
        token = e2e.create_token(args.binary, url, "replicas", "admin")["token"]  # migrates the new database
        replicas = [cs.Live(args, workdir, github.url, db=url, api_token=token, name="replica%d" % i,
                            extra=["--github-claim-lease-ms", str(args.claim_lease_ms)])
                    for i in range(args.replicas)]
        pool = Pool(replicas)
        starters = [threading.Thread(target=r.start) for r in replicas]  # all at once, as a deployment would
        for t in starters:
            t.start()
        for t in starters:
            t.join()
        checks.check(all(r.up for r in replicas), "not every replica started")
        first = []
        check_cache_across_replicas(replicas, first, checks, random.Random(master.random()))
        orphaned = []
        check_orphaned_delivery(pool, Psql(url), orphaned, checks, cs.issue_body(SOURCE_DIR))
        uploads, deliveries, tracked, kills, in_flight_kills, load_s = run_load(args, pool, checks, master)
        uploads.extend(first)
        deliveries.extend(orphaned)
        t_checks = time.monotonic()
        wait_deliveries(pool, checks, args.drain_timeout)
        cs.drain_outbox(pool, checks, args.drain_timeout)
        drain_s = time.monotonic() - t_checks
        acked, committed_unacked, _ = cs.check_uploads(pool, uploads, checks, seed, args.sample)
        actions, mutations, resent = cs.check_bot(pool, deliveries, tracked, github, checks, kills)
        check_answers(pool, checks)
        for r in replicas:
            rc = r.stop()
            checks.check(rc == 0, "%s: SIGTERM: exit status %s" % (r.name, rc))
        check_database(Psql(url), uploads, deliveries, acked, checks)

        abandoned = sum(1 for u in uploads if u.state == "abandoned")
        log("replicas: %d replicas, %d kills (%d with requests in flight) in %.1f s of load; outbox drained in %.1f s"
            % (len(replicas), kills, in_flight_kills, load_s, drain_s))
        log("replicas: %d uploads (%d rows): %d acknowledged (%d after a retry), %d abandoned (%d committed whole)"
            % (len(uploads), sum(u.rows for u in uploads), len(acked), sum(1 for u in acked if u.attempts > 1),
               abandoned, committed_unacked))
        log("replicas: %d deliveries (%d redelivered copies), %d outbox actions all sent, %d GitHub mutations "
            "(%d re-sent after a kill); answers per replica %s"
            % (len(deliveries), sum(d.redeliveries for d in deliveries), actions, mutations, resent,
               json.dumps(pool.answers, sort_keys=True)))
        recovered = 0
        for entry in os.listdir(workdir):
            if entry.startswith("replica") and entry.endswith(".log"):
                with open(os.path.join(workdir, entry), errors="replace") as f:
                    recovered += f.read().count("was in progress when the process stopped: processed again")
        log("replicas: %d deliveries a killed replica had claimed were finished by a replica's recovery"
            % recovered)
        log("replicas: %d checks passed, %d failed" % (checks.passed, len(checks.failures)))
    except Exception as e:  # noqa: BLE001 - report and keep the logs
        checks.failures.append("error: %r" % e)
        log("replicas: ERROR %r" % e)
        import traceback
        traceback.print_exc()
    finally:
        if pool is not None:
            pool.abort()
        github.stop()
        if admin is not None and url is not None and not checks.failures:
            try:
                admin.execute("DROP DATABASE IF EXISTS %s" % urllib.parse.urlsplit(url).path.strip("/"))
            except RuntimeError as e:
                log("replicas: could not drop the test database: %s" % e)
        if pgdir is not None:
            subprocess.run(["bash", os.path.join(SOURCE_DIR, "tools", "pg_test_server.sh"), "stop", pgdir])
        if checks.failures or args.keep:
            log("replicas: logs kept in %s" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
