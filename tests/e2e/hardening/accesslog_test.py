#!/usr/bin/env python3
"""The access log survives a crash and can be turned down, against the real `perftriage serve` on loopback.

    accesslog_test.py BINARY

- Four CI uploaders post small CSVs, each with its own X-Request-Id, while the server is SIGKILLed three times and
  started again on the same database: every request id a client saw answered 201 is in the access log of the
  server that answered it (a log buffered for a second lost hundreds of such lines to ten kills).
- access_log_sample = 0.1: of 200 answers below 400, 20 lines are written, and every 404 is written; the rest are
  counted in perftriage_access_log_skipped_total{reason="sampled"}.
- access_log_max_per_s = 5: 100 errors within a second write at most a few seconds' worth of lines, the rest counted
  as over_cap.
Python 3 standard library only, loopback only, bounded in time.
"""
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
import uuid

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

KILLS = 3


def log_lines(path):
    out = []
    with open(path, "rb") as f:
        for raw in f.read().decode(errors="replace").splitlines():
            if raw.startswith("{"):
                try:
                    out.append(json.loads(raw))
                except ValueError:
                    pass  # a line cut by the kill: its id is then missing, which the check reports
    return out


def crash_run(binary, db, tmp, token, checks):
    acknowledged = []  # (request id, log file of the server that answered)
    lock = threading.Lock()
    logs = []
    for generation in range(KILLS):
        log_path = os.path.join(tmp, f"server-{generation}.log")
        logs.append(log_path)
        server = e2e.Server(binary, ["--db", db], log_path=log_path, required=True)
        stop = threading.Event()

        def uploader(j, server=server, log_path=log_path, stop=stop, generation=generation):
            n = 0
            while not stop.is_set():
                n += 1
                rid = f"g{generation}-u{j}-{n}-{uuid.uuid4().hex[:8]}"
                query = (f"/api/v1/uploads?run=log-{generation}-{j}-{n}&platform=BMG&suite=huggingface"
                         f"&dtype=bfloat16&mode=inference&path=p-{generation}-{j}-{n}.csv")
                try:
                    status, _, _ = server.request("POST", query, e2e.short_csv(3, f"G{generation}U{j}N{n}x"),
                                                  {"Content-Type": "text/csv", "X-Request-Id": rid}, token=token,
                                                  timeout=10)
                except OSError:
                    continue
                if status == 201:
                    with lock:
                        acknowledged.append((rid, log_path))

        threads = [threading.Thread(target=uploader, args=(j,), daemon=True) for j in range(4)]
        for t in threads:
            t.start()
        time.sleep(random.uniform(1.5, 3.0))
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
        stop.set()
        for t in threads:
            t.join(30)
        server.stop()
    logged = {}
    for path in logs:
        logged[path] = {line.get("request_id") for line in log_lines(path) if line.get("status") == 201}
    missing = [rid for rid, path in acknowledged if rid not in logged[path]]
    print(f"      {len(acknowledged)} uploads acknowledged 201 across {KILLS} SIGKILLs; {len(missing)} missing from "
          f"the access log")
    checks.check("some uploads were acknowledged before each kill", len(acknowledged) >= 3 * KILLS,
                 f"{len(acknowledged)}")
    checks.check("every acknowledged upload is in the access log", not missing, f"missing {missing[:5]}")


def skipped(server, reason):
    _, _, text = server.request("GET", "/metrics")
    for line in text.decode().splitlines():
        if line.startswith("perftriage_access_log_skipped_total") and f'reason="{reason}"' in line:
            return float(line.split()[-1])
    return -1.0


def thinning(binary, db, tmp, checks):
    log_path = os.path.join(tmp, "sampled.log")
    server = e2e.Server(binary, ["--db", db], env=e2e.clean_env(PERFTRIAGE_SERVER_ACCESS_LOG_SAMPLE="0.1"),
                        log_path=log_path, required=True)
    try:
        for _ in range(200):
            server.request("GET", "/api/v1/runs")
        for _ in range(30):
            server.request("GET", "/api/v1/runs/no-such-run")
        sampled_out = skipped(server, "sampled")
    finally:
        server.stop()
    lines = [line for line in log_lines(log_path) if line.get("route") == "/api/v1/runs"]
    missing_404 = [line for line in log_lines(log_path) if line.get("status") == 404]
    print(f"      sample 0.1: {len(lines)} of 200 reads written, {len(missing_404)} of 30 404s, "
          f"{sampled_out:.0f} counted as sampled out")
    checks.check("access_log_sample=0.1 writes a tenth of the answers below 400", len(lines) == 20, f"{len(lines)}")
    checks.check("... every 404", len(missing_404) == 30, f"{len(missing_404)}")
    checks.check("... and counts the rest", sampled_out >= 180, f"{sampled_out}")

    log_path = os.path.join(tmp, "capped.log")
    server = e2e.Server(binary, ["--db", db], env=e2e.clean_env(PERFTRIAGE_SERVER_ACCESS_LOG_MAX_PER_S="5"),
                        log_path=log_path, required=True)
    try:
        t0 = time.time()
        for _ in range(100):
            server.request("GET", "/api/v1/runs/no-such-run")
        elapsed = time.time() - t0
        over = skipped(server, "over_cap")
    finally:
        server.stop()
    written = [line for line in log_lines(log_path) if line.get("status") == 404]
    bound = 5 * (int(elapsed) + 2)
    print(f"      cap 5/s: 100 errors in {elapsed:.2f} s wrote {len(written)} lines (at most {bound}), "
          f"{over:.0f} counted over the cap")
    checks.check("access_log_max_per_s=5 bounds the lines written", 0 < len(written) <= bound, f"{len(written)}")
    checks.check("... and counts the rest", over >= 100 - len(written), f"{over}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        db = e2e.test_db(os.path.join(tmp, "db.sqlite"))
        token = e2e.create_token(binary, db, "ci", "upload")["token"]
        crash_run(binary, db, tmp, token, checks)
        thinning(binary, db, tmp, checks)
    checks.finish()


if __name__ == "__main__":
    sys.exit(main())
