#!/usr/bin/env python3
"""No anonymous client can starve CI: admission by who is asking, against the real `perftriage serve` on loopback.

    admission_test.py BINARY [--seconds S] [--latency S]

For S seconds (default 12), 12 anonymous loops post what costs the server most to the public compute routes: a
1 MB gzip bomb and a 150k-event trace to /api/v1/classify, label requests to /api/v1/label, never waiting between
requests and never honouring Retry-After. Meanwhile two CI uploaders (an upload-scope token) post small CSVs and one
GitHub sender posts signed `issues` deliveries, one after another. Checked:
- at least 99 % of the uploads and of the webhook deliveries answer 2xx, and at least 99 % within --latency s
  (default 2);
- the anonymous loops are told 429 with Retry-After (their share per client), some of their requests are still
  served, and the server is alive and answers /healthz throughout;
- with compute_access = "token", an anonymous classify is a 401 and one with a read token is served.
Python 3 standard library only, loopback only, bounded in time.
"""
import argparse
import gzip
import json
import os
import sys
import tempfile
import threading
import time
import uuid
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

SECRET = "admission-secret"
ANONYMOUS_LOOPS = 12


def gzip_bomb(compressed_bytes):
    """A gzip of zeros about `compressed_bytes` long (deflate tops out near 1030:1)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    zeros = bytes(16 << 20)
    parts, size = [], 0
    while size < compressed_bytes:
        chunk = comp.compress(zeros)
        parts.append(chunk)
        size += len(chunk)
    parts.append(comp.flush())
    return b"".join(parts)


def trace_gz(events):
    body = ",".join('{"ph":"X","cat":"kernel","name":"gemm_kernel_%d","pid":1,"tid":7,"ts":%d,"dur":5,'
                    '"args":{"correlation":%d}}' % (i % 50, i * 10, i) for i in range(events))
    return gzip.compress(('{"schemaVersion":1,"traceEvents":[' + body + "]}").encode(), 6)


class Tally:
    """Statuses and latencies of one kind of request, from many threads."""

    def __init__(self):
        self.lock = threading.Lock()
        self.results = []  # (status, seconds, headers)

    def add(self, status, seconds, headers=None):
        with self.lock:
            self.results.append((status, seconds, headers or {}))

    def count(self, pred):
        with self.lock:
            return sum(1 for r in self.results if pred(r))

    def statuses(self):
        with self.lock:
            out = {}
            for status, _, _ in self.results:
                out[status] = out.get(status, 0) + 1
            return out


def timed(tally, fn):
    t0 = time.time()
    try:
        status, headers, _ = fn()
    except OSError as e:
        status, headers = type(e).__name__, {}
    tally.add(status, time.time() - t0, headers)


def run_load(server, upload_token, seconds):
    bomb = gzip_bomb(1 << 20)
    trace = trace_gz(150_000)
    label = json.dumps({"title": "[BMG] bf16 inference slower than eager after the 2.10 rebase",
                        "body": "speedup 0.62 on T5ForConditionalGeneration " * 200})
    anonymous, uploads, webhooks = Tally(), Tally(), Tally()
    stop = threading.Event()

    def stranger(i):
        n = i
        while not stop.is_set():
            n += 1
            if n % 3 == 0:
                path, body, kind = "/api/v1/classify?name=bomb.json.gz", bomb, "application/gzip"
            elif n % 3 == 1:
                path, body, kind = "/api/v1/classify?name=trace.json.gz", trace, "application/gzip"
            else:
                path, body, kind = "/api/v1/label", label, "application/json"
            timed(anonymous, lambda: server.request("POST", path, body, {"Content-Type": kind}, timeout=60))

    def uploader(j):
        n = 0
        while not stop.is_set():
            n += 1
            query = (f"/api/v1/uploads?run=adm-{j}-{n}&platform=BMG&suite=huggingface&dtype=bfloat16"
                     f"&mode=inference&path=perf-{j}-{n}.csv")
            csv = e2e.short_csv(5, f"M{j}x{n}x")
            timed(uploads, lambda: server.request("POST", query, csv, {"Content-Type": "text/csv"},
                                                  token=upload_token, timeout=30))

    def github():
        n = 0
        while not stop.is_set():
            n += 1
            payload = json.dumps({"action": "opened", "repository": {"full_name": "intel/torch-xpu-ops"},
                                  "sender": {"login": "someone"},
                                  "issue": {"number": 1000 + n, "title": f"[BMG] model {n} slower than eager",
                                            "body": "", "labels": []}})
            headers = {"X-Hub-Signature-256": e2e.hub_signature(SECRET, payload), "X-GitHub-Event": "issues",
                       "X-GitHub-Delivery": str(uuid.uuid4()), "Content-Type": "application/json"}
            timed(webhooks, lambda: server.request("POST", "/webhooks/github", payload, headers, timeout=30))

    threads = [threading.Thread(target=stranger, args=(i,), daemon=True) for i in range(ANONYMOUS_LOOPS)]
    for t in threads:
        t.start()
    time.sleep(1.0)  # the strangers are at it before CI starts
    friends = [threading.Thread(target=uploader, args=(j,), daemon=True) for j in range(2)]
    friends.append(threading.Thread(target=github, daemon=True))
    for t in friends:
        t.start()
    worst_health = 0.0
    deadline = time.time() + seconds
    while time.time() < deadline:
        t0 = time.time()
        status, _, _ = server.request("GET", "/healthz", timeout=30)
        worst_health = max(worst_health, time.time() - t0 if status == 200 else 99.0)
        time.sleep(0.2)
    stop.set()
    for t in threads + friends:
        t.join(90)
    return anonymous, uploads, webhooks, worst_health


def share(tally, pred):
    total = tally.count(lambda r: True)
    return (tally.count(pred) / total if total else 0.0), total


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--latency", type=float, default=2.0)
    args = parser.parse_args()
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        secret_file = os.path.join(tmp, "secret")
        with open(secret_file, "w") as f:
            f.write(SECRET)
        db = e2e.test_db(os.path.join(tmp, "db.sqlite"))
        upload_token = e2e.create_token(args.binary, db, "ci", "upload")["token"]
        read_token = e2e.create_token(args.binary, db, "reader", "read")["token"]
        env = e2e.clean_env(drop=("PERFTRIAGE_GITHUB_TOKEN",))
        server = e2e.Server(args.binary, ["--db", db, "--webhook-secret-file", secret_file], env=env,
                            log_path=os.path.join(tmp, "server.log"), required=True)
        try:
            anonymous, uploads, webhooks, worst_health = run_load(server, upload_token, args.seconds)
            print(f"      anonymous: {anonymous.statuses()}")
            print(f"      uploads:   {uploads.statuses()}; webhooks: {webhooks.statuses()}")
            for name, tally in (("uploads", uploads), ("webhook deliveries", webhooks)):
                ok, total = share(tally, lambda r: isinstance(r[0], int) and 200 <= r[0] < 300)
                fast, _ = share(tally, lambda r: isinstance(r[0], int) and 200 <= r[0] < 300 and r[1] <= args.latency)
                slowest = max((r[1] for r in tally.results), default=0.0)
                print(f"      {name}: {total} sent, {ok:.1%} 2xx, {fast:.1%} 2xx within {args.latency} s, "
                      f"slowest {slowest:.2f} s")
                checks.check(f"{name}: at least 10 sent under the load", total >= 10, f"{total}")
                checks.check(f"{name}: >= 99 % answer 2xx", ok >= 0.99, f"{tally.statuses()}")
                checks.check(f"{name}: >= 99 % answer 2xx within {args.latency} s", fast >= 0.99,
                             f"{fast:.1%}; slowest {slowest:.2f} s")
            refused = anonymous.count(lambda r: r[0] == 429)
            with_retry = anonymous.count(lambda r: r[0] == 429 and r[2].get("retry-after") == "1")
            checks.check("strangers over their share are told 429 with Retry-After", refused > 0 and
                         with_retry == refused, f"{refused} 429s, {with_retry} with Retry-After: 1")
            served = anonymous.count(lambda r: r[0] in (200, 413))
            checks.check("... and some of their requests are still served", served > 0, f"{anonymous.statuses()}")
            checks.check("/healthz answered within 1 s throughout", worst_health < 1.0, f"worst {worst_health:.2f} s")
            checks.check("the server is alive", server.alive())
        finally:
            server.stop()

        server = e2e.Server(args.binary, ["--db", db, "--compute-access", "token"], env=env,
                            log_path=os.path.join(tmp, "server2.log"), required=True)
        try:
            body = trace_gz(100)
            status, _, out = server.request("POST", "/api/v1/classify?name=t.json.gz", body,
                                            {"Content-Type": "application/gzip"})
            checks.check("compute_access=token: an anonymous classify is 401", status == 401, f"{status} {out[:200]}")
            status, _, out = server.request("POST", "/api/v1/classify?name=t.json.gz", body,
                                            {"Content-Type": "application/gzip"}, token=read_token)
            checks.check("... one with a read token is served", status == 200, f"{status} {out[:200]}")
            status, _, _ = server.request("GET", "/api/v1/runs")
            checks.check("... and other reads stay public", status == 200, f"{status}")
        finally:
            server.stop()
    checks.finish()


if __name__ == "__main__":
    main()
