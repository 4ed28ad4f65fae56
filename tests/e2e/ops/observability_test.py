#!/usr/bin/env python3
"""Observability against the real binary: metrics that change as requests are served, the JSON access log,
request ids, error bodies carrying the id, and the OpenAPI document.

Usage: observability_test.py PERFTRIAGE_BINARY. Creates an admin token with `perftriage token create` on a fresh
database, starts `perftriage serve` on 127.0.0.1:0, sends only to loopback. Prints one line per check and exits
non-zero when any failed.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="perftriage-obs-")
DB = e2e.test_db(os.path.join(WORK, "obs.sqlite"))  # or a PostgreSQL database (pg:e2e_ops_observability)
TOKEN_NAME = "ci-observability"
SECRET = "observability-secret"

CSV_ROWS = 4
CSV = e2e.PERF_HEADER + "".join(e2e.perf_row(f"Model{i}", 8, f"{0.5 + i / 4:.2f}", "10.0", "30.0")
                                for i in range(CSV_ROWS))
UPLOAD = ("/api/v1/uploads?run=obs-run-1&platform=BMG&path=huggingface/bfloat16/inference/performance/"
          "inductor-results.csv")

checks = e2e.Checks("PASS  ")
check = checks.check
request = e2e.request


class Server(e2e.Server):
    def __init__(self):
        secret_file = os.path.join(WORK, "webhook-secret")
        with open(secret_file, "w") as f:
            f.write(SECRET)
        super().__init__(BINARY, ["--db", DB, "--webhook-secret-file", secret_file],
                         log_path=os.path.join(WORK, "stderr.log"))


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_metrics(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError(f"not an exposition line: {line!r}")
        labels = frozenset(LABEL.findall(m.group(2) or ""))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def metric(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def scrape(port):
    status, headers, body = request(port, "GET", "/metrics")
    assert status == 200, status
    return headers, body.decode(), parse_metrics(body.decode())


def wait_for(port, predicate, seconds=5):
    """Requests are counted once their response is written: a scrape right after may run a moment before."""
    deadline = time.time() + seconds
    while True:
        _, _, samples = scrape(port)
        if predicate(samples) or time.time() > deadline:
            return samples
        time.sleep(0.05)


def main():
    try:
        token, created = e2e.create_token(BINARY, DB, TOKEN_NAME, "admin")["token"], ""
    except (e2e.CommandError, KeyError, OSError) as e:
        token, created = None, str(e)
    check("perftriage token create --json gives a token", token, created)
    auth = {"Authorization": f"Bearer {token}"} if token else {}

    server = Server()
    check("serve starts", server.port, server.log())
    if not server.port:
        return
    port = server.port
    try:
        # /metrics itself: the exposition format and its content type.
        headers, text, before = scrape(port)
        check("GET /metrics answers the Prometheus text format",
              headers.get("content-type") == "text/plain; version=0.0.4; charset=utf-8", headers.get("content-type"))
        check("database bytes > 0", metric(before, "perftriage_database_bytes") > 0, text[:2000])
        check("database gauges present", ("perftriage_wal_bytes", frozenset()) in before and
              ("perftriage_outbox_actions", frozenset({("state", "failed")})) in before and
              ("perftriage_webhook_deliveries", frozenset({("state", "quarantined")})) in before)
        check("build info", any(k[0] == "perftriage_build_info" for k in before))

        # requests_total for a route grows by exactly the number of requests sent.
        runs_before = metric(before, "perftriage_http_requests_total", route="/api/v1/runs", method="GET",
                             status="200")
        sent = 7
        for _ in range(sent):
            status, _, _ = request(port, "GET", "/api/v1/runs")
            assert status == 200, status
        after = wait_for(port, lambda s: metric(s, "perftriage_http_requests_total", route="/api/v1/runs",
                                                method="GET", status="200") >= runs_before + sent)
        time.sleep(0.2)
        _, text, after = scrape(port)
        got = metric(after, "perftriage_http_requests_total", route="/api/v1/runs", method="GET", status="200")
        check(f"requests_total{{route=/api/v1/runs}} grew by exactly {sent}", got == runs_before + sent,
              f"{runs_before} -> {got}")
        check("latency histogram counts them",
              metric(after, "perftriage_http_request_duration_seconds_count", route="/api/v1/runs", method="GET")
              >= sent)

        # Label values are route patterns, never raw paths.
        status, _, _ = request(port, "GET", "/api/v1/runs/no-such-run-zz9")
        after = wait_for(port, lambda s: metric(s, "perftriage_http_requests_total", route="/api/v1/runs/{key}",
                                                method="GET", status="404") >= 1)
        _, text, _ = scrape(port)
        check("a 404 is counted under the route pattern",
              metric(after, "perftriage_http_requests_total", route="/api/v1/runs/{key}", method="GET",
                     status="404") == 1)
        check("raw paths never become label values", "no-such-run-zz9" not in text)
        request(port, "GET", "/definitely/not/a/route/qq7")
        # A request is counted once its response is written, which may be just after the client has read it: wait.
        def unmatched(samples):
            return any(k[0] == "perftriage_http_requests_total" and ("route", "unmatched") in k[1] for k in samples)
        after = wait_for(port, unmatched)
        _, text, _ = scrape(port)
        check("an unknown path is counted as route=unmatched", "qq7" not in text and unmatched(after))

        # An upload increases rows_ingested by its row count.
        rows_before = metric(after, "perftriage_rows_ingested_total")
        status, _, body = request(port, "POST", UPLOAD, CSV, {"Content-Type": "text/csv", **auth})
        check("an authorized upload is stored (201)", status == 201, f"{status} {body[:300]!r}")
        _, _, after = scrape(port)
        check(f"rows_ingested grew by the upload's {CSV_ROWS} rows",
              metric(after, "perftriage_rows_ingested_total") == rows_before + CSV_ROWS,
              f"{rows_before} -> {metric(after, 'perftriage_rows_ingested_total')}")
        check("perftriage_runs counts the run", metric(after, "perftriage_runs") == 1)
        status, _, body = request(port, "POST", UPLOAD.replace("obs-run-1", "obs-run-2"), "",
                                  {"Content-Type": "text/csv", **auth})
        _, _, after = scrape(port)
        check("a refused upload is counted by reason",
              status == 400 and metric(after, "perftriage_uploads_refused_total", reason="empty_body") == 1,
              f"{status} {body[:200]!r}")

        # The dashboard's per-run statistics cache: a miss, then hits. Three spellings of the default threshold: one
        # entry of that cache, three of the response cache (which would answer a repeated request itself).
        for query in ("", "&threshold=1", "&threshold=1.0"):
            status, _, _ = request(port, "GET", "/api/v1/dashboard/matrix?run=obs-run-1" + query)
        _, _, after = scrape(port)
        check("cache lookups are counted (miss then hits)",
              status == 200 and metric(after, "perftriage_cache_lookups_total", cache="dashboard", result="miss") >= 1
              and metric(after, "perftriage_cache_lookups_total", cache="dashboard", result="hit") >= 2,
              f"{status} {sorted((k, v) for k, v in after.items() if 'cache' in k[0])}")

        # Request ids.
        status, headers, _ = request(port, "GET", "/healthz", headers={"X-Request-Id": "obs-check.42_A"})
        check("a well-formed X-Request-Id is echoed", headers.get("x-request-id") == "obs-check.42_A", headers)
        status, headers, _ = request(port, "GET", "/healthz")
        generated = headers.get("x-request-id", "")
        check("an X-Request-Id is generated otherwise", re.fullmatch(r"[0-9a-f]{32}", generated), generated)
        status, headers, _ = request(port, "GET", "/healthz", headers={"X-Request-Id": "bad id;" + "x" * 70})
        check("a malformed X-Request-Id is replaced", re.fullmatch(r"[0-9a-f]{32}", headers.get("x-request-id", "")),
              headers.get("x-request-id"))

        # Errors carry the id, from a handler and from the transport.
        status, headers, body = request(port, "GET", "/api/v1/runs/no-such-run-zz9",
                                        headers={"X-Request-Id": "err-404-id"})
        err = json.loads(body).get("error", {})
        check("a handler's error body carries the request id",
              status == 404 and err.get("request_id") == "err-404-id" == headers.get("x-request-id"), body)
        status, headers, body = request(port, "GET", "/api/v1/runs/nope")
        err = json.loads(body).get("error", {})
        check("a generated id is in the error body too",
              err.get("request_id") == headers.get("x-request-id") and len(err.get("request_id", "")) == 32, body)
        status, headers, body = request(port, "POST", UPLOAD, CSV, {"Content-Type": "text/csv"})
        try:
            err = json.loads(body).get("error", {})
        except ValueError:
            err = {}
        check("a refusal before the body (401) carries the request id",
              status == 401 and err.get("request_id") == headers.get("x-request-id") and err.get("request_id"),
              f"{status} {body[:300]!r}")

        # Webhook deliveries by event and outcome.
        payload = json.dumps({"zen": "Keep it logically awesome.", "hook_id": 1}).encode()
        signature = e2e.hub_signature(SECRET, payload)
        status, _, body = request(port, "POST", "/webhooks/github", payload, {
            "Content-Type": "application/json", "X-GitHub-Event": "ping", "X-GitHub-Delivery": "obs-ping-1",
            "X-Hub-Signature-256": signature})
        bad_status, _, _ = request(port, "POST", "/webhooks/github", payload, {
            "Content-Type": "application/json", "X-GitHub-Event": "ping", "X-GitHub-Delivery": "obs-ping-2",
            "X-Hub-Signature-256": "sha256=" + "0" * 64})
        unsigned_status, _, _ = request(port, "POST", "/webhooks/github", payload, {
            "Content-Type": "application/json", "X-GitHub-Event": "issues", "X-GitHub-Delivery": "obs-ping-3"})
        _, _, after = scrape(port)
        check("webhook deliveries are counted by event and outcome",
              status == 200 and bad_status == 401 and unsigned_status == 401
              and metric(after, "perftriage_webhook_deliveries_total", event="ping", outcome="ping") == 1
              and metric(after, "perftriage_webhook_deliveries_total", event="ping", outcome="unauthorized") == 1
              and metric(after, "perftriage_webhook_deliveries_total", event="issues", outcome="unauthorized") == 1
              and metric(after, "perftriage_webhook_deliveries", state="done") == 1,
              f"{status} {body[:200]!r} {bad_status} {unsigned_status} "
              f"{sorted((k, v) for k, v in after.items() if 'webhook' in k[0])}")

        # The OpenAPI document.
        status, headers, body = request(port, "GET", "/api/v1/openapi.json")
        try:
            doc = json.loads(body)
        except ValueError:
            doc = {}
        check("GET /api/v1/openapi.json is OpenAPI 3.1.0 JSON",
              status == 200 and doc.get("openapi") == "3.1.0" and "/api/v1/uploads" in doc.get("paths", {}),
              f"{status} {body[:200]!r}")

        _, _, final = scrape(port)
        check("open connections gauge is present", ("perftriage_open_connections", frozenset()) in final)
    finally:
        server.stop()

    # The access log: one JSON line per request, the documented fields, never the token.
    log = server.log()
    lines = []
    bad = []
    for line in log.splitlines():
        if not line.startswith("{"):
            continue
        try:
            lines.append(json.loads(line))
        except ValueError:
            bad.append(line)
    access = [l for l in lines if "request_id" in l and "route" in l]
    check("access-log lines are valid JSON", not bad and access, bad[:3])
    fields = {"time", "request_id", "method", "route", "path", "status", "bytes_in", "bytes_out", "duration_ms",
              "token", "remote"}
    check("every access-log line has the documented fields", all(fields <= set(l) for l in access),
          [sorted(fields - set(l)) for l in access if not fields <= set(l)][:3])
    check("time is ISO-8601 UTC with milliseconds",
          all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", l["time"]) for l in access))
    check("a line per request: the 7 GETs of /api/v1/runs",
          sum(1 for l in access if l["route"] == "/api/v1/runs" and l["status"] == 200) == 7)
    echoed = [l for l in access if l["request_id"] == "err-404-id"]
    check("the access log names the request id and the route pattern",
          len(echoed) == 1 and echoed[0]["route"] == "/api/v1/runs/{key}" and echoed[0]["status"] == 404
          and echoed[0]["path"] == "/api/v1/runs/no-such-run-zz9", echoed)
    uploads = [l for l in access if l["route"] == "/api/v1/uploads" and l["status"] == 201]
    check("an authorized request logs the token's name",
          len(uploads) == 1 and uploads[0]["token"] == TOKEN_NAME and uploads[0]["bytes_in"] == len(CSV), uploads)
    check("an anonymous request logs token null",
          all(l["token"] is None for l in access if l["route"] in ("/healthz", "/metrics")))
    check("the token never appears in the log", token and token not in log)


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # a crash is one more failure, with its reason
        check("no exception", False, repr(e))
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    checks.finish()
