#!/usr/bin/env python3
"""The response cache, ETags and gzip against the real binary on an on-disk database (server/http/response_cache.hpp).

  - a read answer carries a strong ETag, Cache-Control: no-cache and Vary: Accept-Encoding, the same on the second
    GET (a hit, counted in perftriage_cache_lookups_total{cache="response"}); HEAD answers from GET's entry;
  - If-None-Match with that ETag (alone, in a list, weak, or *) answers 304 with no body;
  - Accept-Encoding: gzip answers bytes that decompress to the identity body, under their own ETag; so does zstd
    (Debian's `zstd` decompresses them), which a browser's "gzip, deflate, br, zstd" gets;
  - an upload through the server, then a `perftriage ingest` of the same database file by ANOTHER process: the next
    GET shows each new run at once, with a new ETag;
  - answers that name what they read (data stamps, migration 011) outlive writes elsewhere: after another process
    ingests a new run of platform PVC, a compare of two named BMG runs and BMG's backlog are hits with the same ETag,
    while /runs and PVC's slow cases are computed again and show the new run; a run deleted drops the compare;
  - many distinct queries under [cache] max_mb = 1: perftriage_cache_bytes{cache="response"} stays within 1 MiB while
    far more than that was answered; /metrics is never cached.

Usage: cache_test.py PERFTRIAGE_BINARY. Sends only to loopback. One line per check; exits non-zero when any failed.
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="perftriage-cache-")
DB = e2e.test_db(os.path.join(WORK, "cache.sqlite"))  # or a PostgreSQL database (pg:e2e_ops_cache)
MAX_MB = 1
ROWS = 60
PATH = e2e.perf_path("huggingface", "bfloat16", "inference")

checks = e2e.Checks("PASS  ")
check = checks.check


def csv(prefix):
    return e2e.PERF_HEADER + "".join(e2e.perf_row(f"{prefix}{i}", 8, f"{0.5 + (i % 9) / 10:.2f}", "10.0", "30.0")
                                     for i in range(ROWS))


def metric(text, name, **labels):
    want = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
    m = re.search(r"^" + re.escape(name) + (r"\{" + re.escape(want) + r"\}" if want else "") + r" (\S+)$", text, re.M)
    return float(m.group(1)) if m else None


def scrape(server):
    status, _, body = server.request("GET", "/metrics")
    assert status == 200, status
    return body.decode()


def lookups(server, result):
    return metric(scrape(server), "perftriage_cache_lookups_total", cache="response", result=result) or 0.0


def upload(server, token, run):
    target = f"/api/v1/uploads?run={run}&platform=BMG&path={PATH}"
    return server.request("POST", target, csv(run), {"Content-Type": "text/csv"}, token=token)


def cli_ingest(run, platform="BMG"):
    tree = os.path.join(WORK, "tree-" + run)
    os.makedirs(os.path.join(tree, os.path.dirname(PATH)))
    with open(os.path.join(tree, PATH), "w") as f:
        f.write(csv(run))
    return subprocess.run([BINARY, "ingest", "--db", DB, "--platform", platform, "--run", run, PATH], cwd=tree,
                          capture_output=True, text=True, env=e2e.clean_env(), timeout=120)


def validators(server, token):
    status, _, body = upload(server, token, "cache-run-1")
    check("an upload through the server", status in (200, 201), body[:300])
    s1, h1, b1 = server.request("GET", "/api/v1/runs")
    hits = lookups(server, "hit")
    s2, h2, b2 = server.request("GET", "/api/v1/runs")
    etag = h1.get("etag", "")
    check("a read answer carries a strong ETag", s1 == 200 and re.fullmatch(r'"[0-9a-f]{16}"', etag), h1)
    check("Cache-Control: no-cache and Vary: Accept-Encoding",
          h1.get("cache-control") == "no-cache" and h1.get("vary") == "Accept-Encoding", h1)
    check("the second GET: the same ETag and bytes", s2 == 200 and h2.get("etag") == etag and b2 == b1, h2)
    check("the second GET is a cache hit", lookups(server, "hit") == hits + 1)
    s, h, b = server.request("HEAD", "/api/v1/runs")
    check("HEAD answers from GET's entry", s == 200 and h.get("etag") == etag and b == b"" and
          h.get("content-length") == str(len(b1)), h)
    for inm in (etag, f'"nope", {etag}', "W/" + etag, "*"):
        s, h, b = server.request("GET", "/api/v1/runs", headers={"If-None-Match": inm})
        check(f"If-None-Match: {inm} -> 304, no body, the ETag",
              s == 304 and b == b"" and h.get("etag") == etag and "content-length" not in h, (s, h, b[:100]))
    s, h, b = server.request("GET", "/api/v1/runs", headers={"If-None-Match": '"0000000000000000"'})
    check("another ETag -> 200 with the body", s == 200 and b == b1, s)
    return etag, b1


def compressed(server):
    target = "/api/v1/results?run=cache-run-1"
    s, h, plain = server.request("GET", target)
    s2, hz, zipped = server.request("GET", target, headers={"Accept-Encoding": "br;q=1.0, gzip;q=0.8"})
    check("a body over 1 KiB", s == 200 and len(plain) > 1024, len(plain))
    check("Accept-Encoding: gzip -> Content-Encoding: gzip, fewer bytes",
          s2 == 200 and hz.get("content-encoding") == "gzip" and len(zipped) < len(plain), hz)
    check("the gzip bytes decompress to the identity body", gzip.decompress(zipped) == plain if s2 == 200 else False)
    check("the gzip variant has its own ETag", hz.get("etag") == h.get("etag", "")[:-1] + '-gz"', (h, hz))
    s, h3, b = server.request("GET", target, headers={"Accept-Encoding": "gzip", "If-None-Match": hz.get("etag")})
    check("If-None-Match with the gzip ETag -> 304", s == 304 and b == b"", (s, h3))
    s, h4, b = server.request("GET", target, headers={"Accept-Encoding": "gzip;q=0"})
    check("gzip;q=0 -> identity", s == 200 and "content-encoding" not in h4 and b == plain, h4)
    s, h5, zst = server.request("GET", target, headers={"Accept-Encoding": "gzip, deflate, br, zstd"})
    check("a browser's Accept-Encoding -> Content-Encoding: zstd, a zstd frame, fewer bytes",
          s == 200 and h5.get("content-encoding") == "zstd" and zst[:4] == b"\x28\xb5\x2f\xfd"
          and len(zst) < len(plain), (h5, len(zst), len(plain)))
    unpacked = subprocess.run(["zstd", "-d", "-c"], input=zst, capture_output=True, check=False)
    check("the zstd bytes decompress to the identity body", unpacked.returncode == 0 and unpacked.stdout == plain,
          unpacked.stderr[:200])
    check("the zstd variant has its own ETag", h5.get("etag") == h.get("etag", "")[:-1] + '-zst"', (h, h5))
    s, h6, b = server.request("GET", target, headers={"Accept-Encoding": "zstd", "If-None-Match": h5.get("etag")})
    check("If-None-Match with the zstd ETag -> 304", s == 304 and b == b"", (s, h6))
    s, h7, b = server.request("GET", target, headers={"Accept-Encoding": "zstd;q=0.5, gzip"})
    check("gzip at a higher q than zstd -> gzip", s == 200 and h7.get("content-encoding") == "gzip", h7)


def writes(server, token, etag, before):
    status, _, body = upload(server, token, "cache-run-2")
    check("a second upload through the server", status in (200, 201), body[:300])
    s, h, b = server.request("GET", "/api/v1/runs")
    check("after the upload: the next GET is fresh, with a new ETag",
          s == 200 and b"cache-run-2" in b and b != before and h.get("etag") != etag, (h, b[:200]))
    s, _, _ = server.request("GET", "/api/v1/runs", headers={"If-None-Match": etag})
    check("the old ETag no longer answers 304", s == 200, s)
    etag2 = h.get("etag")
    p = cli_ingest("cache-run-cli")
    check("perftriage ingest (another process) on the same file", p.returncode == 0, p.stderr + p.stdout)
    s, h, b = server.request("GET", "/api/v1/runs")
    check("after the other process's write: the next GET is fresh, with a new ETag",
          s == 200 and b"cache-run-cli" in b and h.get("etag") not in (etag, etag2), (h, b[:200]))


def hit(server, target):
    """GET target twice more: whether the first of them was a cache hit, and its ETag and body."""
    hits = lookups(server, "hit")
    s, h, b = server.request("GET", target)
    return s == 200 and lookups(server, "hit") == hits + 1, h.get("etag"), b


def scopes(server, admin):
    compare = "/api/v1/compare?base=cache-run-1&target=cache-run-2"
    reads = [compare, "/api/v1/backlog?platform=BMG", "/api/v1/runs", "/api/v1/slow?platform=PVC"]
    p = cli_ingest("pvc-0", "PVC")
    check("a first PVC run (another process)", p.returncode == 0, p.stderr + p.stdout)
    before = {}
    for target in reads:
        server.request("GET", target)
        _, etag, body = hit(server, target)
        before[target] = (etag, body)
    p = cli_ingest("pvc-1", "PVC")
    check("a new PVC run by another process", p.returncode == 0, p.stderr + p.stdout)
    for target in reads[:2]:
        was_hit, etag, _ = hit(server, target)
        check(f"after a PVC write, {target} is still a hit with the same ETag", was_hit and etag == before[target][0],
              (was_hit, etag, before[target][0]))
    for target in reads[2:]:
        was_hit, etag, body = hit(server, target)
        check(f"after a PVC write, {target} is computed again and shows the new run",
              not was_hit and b"pvc-1" in body and etag != before[target][0], (was_hit, body[:200]))
    status, _, body = server.request("DELETE", "/api/v1/runs/cache-run-1", token=admin)
    check("deleting the compare's base run", status == 200, body[:300])
    s, _, body = server.request("GET", compare)
    check("after the delete, the compare is not answered from the cache", s == 404, (s, body[:200]))


def bound(server):
    answered = 0
    worst = 0.0
    for i in range(300):
        s, _, b = server.request("GET", f"/api/v1/results?run=cache-run-1&threshold={0.5 + i / 1000:.3f}")
        if s != 200:
            check("distinct queries answer 200", False, s)
            return
        answered += len(b)
        if i % 50 == 49:
            worst = max(worst, metric(scrape(server), "perftriage_cache_bytes", cache="response") or 0.0)
    text = scrape(server)
    held = metric(text, "perftriage_cache_bytes", cache="response")
    entries = metric(text, "perftriage_cache_entries", cache="response")
    check(f"answered {answered} bytes, far over [cache] max_mb = {MAX_MB}", answered > 3 * (MAX_MB << 20), answered)
    check("the cache holds at most max_mb, and holds something",
          held is not None and 0 < held <= (MAX_MB << 20) and worst <= (MAX_MB << 20) and entries and entries > 1,
          (held, worst, entries))
    a, b = scrape(server), scrape(server)
    check("/metrics is not cached (no ETag, a fresh answer each time)", a != b)


def main():
    admin = e2e.create_token(BINARY, DB, "cache-admin", scope="admin", env=e2e.clean_env())["token"]
    token = e2e.create_token(BINARY, DB, "cache-upload", scope="upload", env=e2e.clean_env())["token"]
    server = e2e.Server(BINARY, ["--db", DB, "--cache-mb", str(MAX_MB)], log_path=os.path.join(WORK, "stderr.log"))
    try:
        if not check("the server starts", server.started, server.output()[-2000:]):
            return
        etag, body = validators(server, token)
        compressed(server)
        writes(server, token, etag, body)
        bound(server)
        scopes(server, admin)
        check("the server is still up", server.alive())
    finally:
        server.stop()


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    checks.finish()
