#!/usr/bin/env python3
"""Transport limits against the real binary: bodies over the limit (1 GB, chunked and with
Content-Length) refused 413 while the server's RSS stays small, a 20 MB upload spooled to a temporary file and
ingested, header / idle timeouts, the connection cap, a slowloris of 200 connections that does not delay others,
archives that try to escape or explode, and a SIGTERM that lets an upload in flight finish.

Usage: limits_test.py PERFTRIAGE_BINARY. Starts `perftriage serve` on 127.0.0.1:0 with fresh databases (an admin
token from `perftriage token create` when the command exists), sends only to loopback. Prints one line per check
and a closing "N passed, N failed" line; exits non-zero when any failed.
"""
import io
import json
import os
import select
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import uuid
import zipfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402
from e2e import error_of, expect, head_bytes, read_response, request  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="perftriage-limits-")
MB = 1 << 20

CSV_HEADER = e2e.SHORT_HEADER
UPLOAD = "/api/v1/uploads?platform=BMG&suite=huggingface&dtype=bfloat16&mode=inference&path=perf.csv&run="
csv_rows = e2e.short_csv


# ---------------------------------------------------------------------------------------------------------------
class Server(e2e.Server):
    """serve on WORK/NAME.sqlite, with an admin token (`auth`) where `token create` exists."""

    def __init__(self, name, args=(), env=None):
        self.db = e2e.test_db(os.path.join(WORK, f"{name}.sqlite"))  # or a PostgreSQL database (pg:)
        env = e2e.clean_env(**(env or {}))
        self.token = make_token(self.db, env)
        super().__init__(BINARY, ["--db", self.db, *args], env=env, stop_timeout=60, required=True,
                         log_path=os.path.join(WORK, f"{name}-{uuid.uuid4().hex[:6]}.log"))

    @property
    def auth(self):
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def fds(self):
        out = []
        base = f"/proc/{self.proc.pid}/fd"
        for fd in os.listdir(base):
            try:
                out.append(os.readlink(os.path.join(base, fd)))
            except OSError:
                pass
        return out


def make_token(db, env):
    """An admin token from `perftriage token create`; None where the command does not exist yet."""
    try:
        return e2e.create_token(BINARY, db, "limits-test", "admin", env=env)["token"]
    except (OSError, e2e.CommandError, KeyError, subprocess.TimeoutExpired):
        return None


def send_until_answered(s, chunks, on_chunk=None):
    """Sends the chunks while watching for an early answer; returns (response or None, bytes sent)."""
    sent = 0
    for chunk in chunks:
        readable, _, _ = select.select([s], [], [], 0)
        if readable:
            break
        try:
            s.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            break
        sent += len(chunk)
        if on_chunk:
            on_chunk(sent)
    return read_response(s), sent


checks = e2e.Checks()
check = checks.call


# ---------------------------------------------------------------------------------------------------------------
def big_bodies():
    """A 1 GB body is refused 413: from the header with Content-Length, while streaming when chunked; the server's
    RSS stays under 100 MB above idle either way."""
    srv = Server("big")
    try:
        status, _, _ = request(srv.port, "GET", "/api/v1/runs")
        expect(status == 200, f"warm-up read: {status}")
        idle = srv.rss_mb()
        gib = 1 << 30

        # Content-Length: 1 GB. Refused from the header; the client's body is never read.
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=60)
        s.sendall(head_bytes("POST", UPLOAD + "big-cl", {**srv.auth, "Content-Type": "text/csv"}, gib))
        t0 = time.time()
        chunk = b"x" * MB
        (status, _, out), sent = send_until_answered(s, (chunk for _ in range(1024)))
        s.close()
        err = error_of(out)
        print(f"      Content-Length 1 GB: {status} after {sent / MB:.0f} MB sent, {time.time() - t0:.2f} s; "
              f"{err.get('message')!r}")
        expect(status == 413 and err.get("code") == "body_too_large", f"413 body_too_large, got {status} {out!r}")
        expect("[limits] max_body_mb" in err.get("message", ""), f"the message names the setting: {err}")

        # Chunked, no Content-Length: cut at the limit (256 MiB) while streaming.
        peak = [idle]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], srv.rss_mb())
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=120)
        s.sendall(head_bytes("POST", UPLOAD + "big-chunked", {**srv.auth, "Content-Type": "text/csv"},
                             chunked=True))
        t0 = time.time()
        row = csv_rows(1).encode()
        piece = (row * (MB // len(row) + 1))[:MB]
        frame = b"%x\r\n" % len(piece) + piece + b"\r\n"
        try:
            (status, _, out), sent = send_until_answered(s, (frame for _ in range(1024)))
        finally:
            s.close()
            stop.set()
            sampler.join()
        err = error_of(out)
        grown = max(peak[0], srv.rss_mb("VmHWM")) - idle
        print(f"      chunked 1 GB: {status} after {sent / MB:.0f} MB sent, {time.time() - t0:.2f} s; idle RSS "
              f"{idle:.0f} MB, peak {idle + grown:.0f} MB (+{grown:.0f} MB)")
        expect(status == 413 and err.get("code") == "body_too_large", f"413 body_too_large, got {status} {out!r}")
        expect(sent < 400 * MB, f"cut near the limit, not at the end ({sent / MB:.0f} MB sent)")
        expect(grown < 100, f"RSS grew {grown:.0f} MB over idle (limit 100)")
        status, _, _ = request(srv.port, "GET", "/healthz")
        expect(status == 200 and srv.alive(), "serves after the refusals")
    finally:
        srv.stop()


def spooled_upload():
    """A 20 MB upload goes to a temporary file in [limits] spool_dir (the body is not held in memory) and is
    ingested."""
    spool = os.path.join(WORK, "spool-dir") + "/"
    os.mkdir(spool)
    srv = Server("spool", env={"PERFTRIAGE_LIMITS_SPOOL_DIR": spool})
    try:
        status, _, _ = request(srv.port, "GET", "/api/v1/runs")
        idle = srv.rss_mb()
        rows = csv_rows(50)
        # Trailing empty cells cost nothing to ingest: 20 MB of body, 51 rows.
        body = (rows + "xpu,Padded,8,0.9,10.0" + "," * (20 * MB - len(rows) - 40) + "\r\n").encode()
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=120)
        s.sendall(head_bytes("POST", UPLOAD + "spooled", {**srv.auth, "Content-Type": "text/csv"}, len(body)))
        half = len(body) // 2
        s.sendall(body[:half])
        time.sleep(0.5)
        spooling = [p for p in srv.fds() if p.startswith(spool)]
        mid = srv.rss_mb()
        s.sendall(body[half:])
        status, _, out = read_response(s)
        s.close()
        after = srv.rss_mb("VmHWM")
        print(f"      20 MB upload: {status}; spool files open half-way: {spooling}; RSS idle {idle:.0f} MB, "
              f"half-way {mid:.0f} MB, peak {after:.0f} MB")
        expect(status == 201, f"stored: {status} {out[:300]!r}")
        expect(spooling, "the body was being written to a temporary file half-way through")
        expect(mid - idle < 8, f"half the body (10 MB) is not in memory: RSS +{mid - idle:.1f} MB")
        expect(after - idle < 100, f"peak RSS +{after - idle:.0f} MB")
        summary = json.loads(out)
        status, _, out = request(srv.port, "GET", "/api/v1/results?run=spooled&limit=1000", headers=srv.auth)
        n = len(json.loads(out).get("results", json.loads(out).get("rows", [])))
        expect(status == 200 and n == 51, f"51 rows ingested, got {n} ({summary})")
        expect(not [p for p in srv.fds() if p.startswith(spool)], "the spool file is closed after the request")
    finally:
        srv.stop()


def spooled_webhook():
    """A signed webhook over the spool threshold (5 MiB, under GitHub's 25 MiB) is read from its spool file: the
    signature checks out and the delivery is queued."""
    secret = "limits-secret"
    srv = Server("webhook", env={"PERFTRIAGE_WEBHOOK_SECRET": secret})
    try:
        payload = json.dumps({"action": "opened", "repository": {"full_name": "intel/torch-xpu-ops"},
                              "sender": {"login": "someone"},
                              "issue": {"number": 5, "title": "E2E BMG slower than eager", "labels": [],
                                        "body": "padding " * (5 * MB // 8)}}).encode()
        sig = e2e.hub_signature(secret, payload)
        status, _, out = request(srv.port, "POST", "/webhooks/github", payload,
                                 {"X-Hub-Signature-256": sig, "X-GitHub-Event": "issues",
                                  "X-GitHub-Delivery": str(uuid.uuid4()), "Content-Type": "application/json"})
        print(f"      {len(payload) / MB:.1f} MiB signed webhook: {status} {out[:120]!r}")
        expect(status in (200, 202), f"a spooled webhook body verifies and is accepted: {status} {out[:300]!r}")
    finally:
        srv.stop()


def timeouts():
    """Header timeout: 408 naming [limits] header_timeout_s, then closed. Idle keep-alive: closed silently. Slow
    body: 408 naming [limits] body_timeout_s."""
    srv = Server("timeouts", ["--header-timeout-s", "1", "--idle-timeout-s", "1", "--body-timeout-s", "2"])
    try:
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        t0 = time.time()
        status, _, out = read_response(s)
        waited = time.time() - t0
        err = error_of(out)
        expect(status == 408 and err.get("code") == "header_timeout", f"408 header_timeout, got {status} {out!r}")
        expect("[limits] header_timeout_s" in err.get("message", ""), f"names the setting: {err}")
        expect(0.8 < waited < 3, f"after about 1 s: {waited:.2f} s")
        expect(s.recv(100) == b"", "then the connection is closed")
        s.close()
        print(f"      header: 408 after {waited:.2f} s: {err.get('message')!r}")

        # Trickling bytes does not extend the header deadline (slowloris).
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\n")
        t0 = time.time()
        got = b""
        while time.time() - t0 < 5:
            try:
                s.sendall(b"X")
            except OSError:
                break
            readable, _, _ = select.select([s], [], [], 0.2)
            if readable:
                got = s.recv(65536)
                break
        waited = time.time() - t0
        expect(got.startswith(b"HTTP/1.1 408"), f"a trickled header is cut off with 408: {got[:100]!r}")
        expect(waited < 2.5, f"at the header deadline, not later: {waited:.2f} s")
        s.close()

        # Keep-alive then nothing: closed without a response.
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(head_bytes("GET", "/healthz", {}, keep_alive=True))
        status, _, _ = read_response(s)
        expect(status == 200, f"first request: {status}")
        t0 = time.time()
        rest = s.recv(100)
        waited = time.time() - t0
        expect(rest == b"", f"idle connection closed silently, got {rest!r}")
        expect(0.8 < waited < 3, f"after about 1 s: {waited:.2f} s")
        s.close()
        print(f"      idle keep-alive closed after {waited:.2f} s")

        # A body that stops arriving.
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        s.sendall(head_bytes("POST", UPLOAD + "slow-body", {**srv.auth, "Content-Type": "text/csv"}, 1000) + b"dev,")
        t0 = time.time()
        status, _, out = read_response(s)
        waited = time.time() - t0
        err = error_of(out)
        expect(status == 408 and err.get("code") == "body_timeout", f"408 body_timeout, got {status} {out!r}")
        expect("[limits] body_timeout_s" in err.get("message", ""), f"names the setting: {err}")
        expect(1.5 < waited < 4, f"after about 2 s: {waited:.2f} s")
        s.close()
        expect(srv.alive(), "server alive")
    finally:
        srv.stop()


def connection_cap():
    """Past [limits] max_connections a new connection gets a short 503 with Retry-After and is closed; once one
    closes, requests are served again."""
    srv = Server("cap", ["--max-connections", "5"])
    conns = []
    try:
        for _ in range(5):
            conns.append(socket.create_connection(("127.0.0.1", srv.port), timeout=10))
        time.sleep(0.3)
        t0 = time.time()
        status, headers, out = request(srv.port, "GET", "/healthz", timeout=10)
        err = error_of(out)
        print(f"      6th connection: {status} in {(time.time() - t0) * 1000:.1f} ms: {err.get('message')!r}")
        expect(status == 503 and err.get("code") == "too_many_connections", f"503 too_many_connections: {status} "
                                                                            f"{out!r}")
        expect("[limits] max_connections" in err.get("message", ""), f"names the setting: {err}")
        expect(headers.get("retry-after"), f"Retry-After: {headers}")
        conns.pop().close()
        time.sleep(0.3)
        status, _, _ = request(srv.port, "GET", "/healthz", timeout=10)
        expect(status == 200, f"served again once a connection closed: {status}")
    finally:
        for c in conns:
            c.close()
        srv.stop()


def slowloris():
    """200 connections trickling header bytes: GET /healthz and GET /api/v1/runs each answer within 100 ms (20 of
    each, p50 and max); the trickling connections are cut off at the header timeout."""
    srv = Server("slowloris", ["--header-timeout-s", "6"])
    conns = []
    try:
        request(srv.port, "POST", UPLOAD + "loris", csv_rows(20), {**srv.auth, "Content-Type": "text/csv"})

        def timed(path, n=20):
            out = []
            for _ in range(n):
                t0 = time.perf_counter()
                status, _, _ = request(srv.port, "GET", path, timeout=10)
                out.append((time.perf_counter() - t0) * 1000)
                expect(status == 200, f"{path}: {status}")
                time.sleep(0.02)
            return out

        base = timed("/healthz") + timed("/api/v1/runs")
        for _ in range(200):
            c = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
            c.sendall(b"GET /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Loris: ")
            c.setblocking(False)
            conns.append(c)
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for c in conns:
                    try:
                        c.send(b"a")
                    except OSError:
                        pass
                stop.wait(0.25)

        t = threading.Thread(target=trickle)
        t.start()
        try:
            time.sleep(0.5)
            health = timed("/healthz")
            runs = timed("/api/v1/runs")
        finally:
            stop.set()
            t.join()
        for name, xs in (("baseline", base), ("/healthz", health), ("/api/v1/runs", runs)):
            print(f"      {name}: p50 {statistics.median(xs):.1f} ms, max {max(xs):.1f} ms over {len(xs)}")
        expect(max(health) < 100, f"/healthz within 100 ms under slowloris: max {max(health):.1f} ms")
        expect(max(runs) < 100, f"/api/v1/runs within 100 ms under slowloris: max {max(runs):.1f} ms")
        # Cut off at the header deadline (6 s from their first byte): each gets a 408 and is closed.
        deadline = time.time() + 10
        cut = 0
        for c in conns:
            c.setblocking(True)
            c.settimeout(max(0.1, deadline - time.time()))
            try:
                data = c.recv(65536)
                cut += data.startswith(b"HTTP/1.1 408") or data == b""
            except OSError:
                pass
        print(f"      {cut} of {len(conns)} trickling connections cut off with 408")
        expect(cut == len(conns), f"every slowloris connection was cut off ({cut} of {len(conns)})")
    finally:
        for c in conns:
            c.close()
        srv.stop()


def archives():
    """Zip-slip (.., absolute paths, symlinks, hardlinks), compression bombs and too many entries: each refused
    with a 4xx that names the member; nothing stored."""
    srv = Server("archives")
    try:
        def post(name, body, ctype):
            return request(srv.port, "POST", f"/api/v1/uploads?run={name}&platform=BMG&suite=huggingface"
                           f"&dtype=bfloat16&mode=inference&path={name}", body, {**srv.auth, "Content-Type": ctype},
                           timeout=120)

        good = csv_rows(3).encode()

        def zip_of(members):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
                for name, data, mode in members:
                    info = zipfile.ZipInfo(name)
                    info.create_system = 3
                    info.external_attr = mode << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    z.writestr(info, data)
            return buf.getvalue()

        def tar_of(members):
            buf = io.BytesIO()
            with tarfile.open(fileobj=buf, mode="w:gz") as t:
                for name, data, kind in members:
                    info = tarfile.TarInfo(name)
                    if kind == "file":
                        info.size = len(data)
                        t.addfile(info, io.BytesIO(data))
                    else:
                        info.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
                        info.linkname = "ok.csv" if kind == "hardlink" else "/etc/passwd"
                        t.addfile(info)
            return buf.getvalue()

        regular = 0o100644
        cases = [
            ("zip-dotdot.zip", zip_of([("ok.csv", good, regular), ("../../evil.csv", good, regular)]),
             "application/zip", 400, "bad_archive_path", "../../evil.csv"),
            ("zip-abs.zip", zip_of([("ok.csv", good, regular), ("/etc/evil.csv", good, regular)]),
             "application/zip", 400, "bad_archive_path", "/etc/evil.csv"),
            ("zip-symlink.zip", zip_of([("ok.csv", good, regular), ("link.csv", "/etc/passwd", 0o120777)]),
             "application/zip", 400, "bad_archive_path", "link.csv"),
            ("tar-dotdot.tar.gz", tar_of([("ok.csv", good, "file"), ("a/../../evil.csv", good, "file")]),
             "application/gzip", 400, "bad_archive_path", "a/../../evil.csv"),
            ("tar-abs.tar.gz", tar_of([("ok.csv", good, "file"), ("/tmp/evil.csv", good, "file")]),
             "application/gzip", 400, "bad_archive_path", "/tmp/evil.csv"),
            ("tar-symlink.tar.gz", tar_of([("ok.csv", good, "file"), ("passwd.csv", b"", "symlink")]),
             "application/gzip", 400, "bad_archive_path", "passwd.csv"),
            ("tar-hardlink.tar.gz", tar_of([("ok.csv", good, "file"), ("copy.csv", b"", "hardlink")]),
             "application/gzip", 400, "bad_archive_path", "copy.csv"),
            ("zip-bomb.zip", zip_of([("bomb.csv", CSV_HEADER.encode() + b"0" * (400 * MB), regular)]),
             "application/zip", 413, "archive_too_large", "compression bomb"),
            ("tar-bomb.tar.gz", tar_of([("bomb.csv", CSV_HEADER.encode() + b"0" * (400 * MB), "file")]),
             "application/gzip", 413, "archive_too_large", "compression bomb"),
            ("many.zip", zip_of([(f"f{i}.csv", b"", regular) for i in range(10_001)]),
             "application/zip", 413, "archive_too_large", "more than 10000 entries"),
        ]
        for name, body, ctype, want, code, needle in cases:
            t0 = time.time()
            status, _, out = post(name, body, ctype)
            err = error_of(out)
            print(f"      {name} ({len(body) / 1024:.0f} KiB): {status} {err.get('code')} in "
                  f"{time.time() - t0:.2f} s: {err.get('message')!r}")
            expect(status == want and err.get("code") == code, f"{name}: {want} {code}, got {status} {out[:300]!r}")
            expect(needle in err.get("message", ""), f"{name}: the message names {needle!r}: {err}")
        status, _, out = request(srv.port, "GET", "/api/v1/runs", headers=srv.auth)
        expect(status == 200 and json.loads(out).get("runs") == [], f"nothing stored: {out[:300]!r}")
        expect(srv.alive(), "server alive")
    finally:
        srv.stop()


def sigterm_drain():
    """SIGTERM with an upload in flight: new connections are refused, an idle keep-alive connection is closed, the
    upload completes (201) and the process exits 0 within [limits] drain_timeout_s."""
    srv = Server("drain", ["--drain-timeout-s", "10"])
    try:
        idle = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        idle.sendall(head_bytes("GET", "/healthz", {}, keep_alive=True))
        status, _, _ = read_response(idle)
        expect(status == 200, "keep-alive request")
        body = csv_rows(2000, "Drain").encode()
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        s.sendall(head_bytes("POST", UPLOAD + "drained", {**srv.auth, "Content-Type": "text/csv"}, len(body)))
        s.sendall(body[: len(body) // 2])
        time.sleep(0.3)
        t0 = time.time()
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        expect(idle.recv(100) == b"", "the idle keep-alive connection is closed at once")
        refused = False
        try:
            socket.create_connection(("127.0.0.1", srv.port), timeout=2).close()
        except OSError:
            refused = True
        expect(refused, "no new connections while draining")
        s.sendall(body[len(body) // 2:])
        status, headers, out = read_response(s)
        s.close()
        expect(status == 201, f"the upload in flight completes: {status} {out[:300]!r}")
        expect(headers.get("connection", "").lower() == "close", f"its response closes the connection: {headers}")
        rc = srv.proc.wait(15)
        print(f"      upload answered {status}; exit {rc} {time.time() - t0:.2f} s after SIGTERM")
        expect(rc == 0, f"exit status 0, got {rc}")
        expect(time.time() - t0 < 10, "within the drain timeout")
        expect("draining" in srv.log(), "the drain is logged")
    finally:
        srv.stop()
    # The upload is in the database.
    again = Server("drain")
    try:
        status, _, out = request(again.port, "GET", "/api/v1/runs", headers=again.auth)
        expect(status == 200 and "drained" in out.decode(), f"the drained upload was stored: {out[:300]!r}")
    finally:
        again.stop()


def drain_timeout():
    """A request that does not finish within [limits] drain_timeout_s does not hold the process: it exits."""
    srv = Server("drain-timeout", ["--drain-timeout-s", "1", "--body-timeout-s", "60"])
    try:
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
        s.sendall(head_bytes("POST", UPLOAD + "never", {**srv.auth, "Content-Type": "text/csv"}, 1000) + b"dev,")
        time.sleep(0.3)
        t0 = time.time()
        srv.proc.send_signal(signal.SIGTERM)
        rc = srv.proc.wait(15)
        waited = time.time() - t0
        print(f"      exit {rc} {waited:.2f} s after SIGTERM with a body that never completes")
        expect(waited < 5, f"stopped at the drain timeout: {waited:.2f} s")
        expect("still open after" in srv.log(), "the timed-out drain is logged")
        s.close()
    finally:
        srv.stop()


def unknown_parameter():
    """A misspelt query parameter (`platfrom=`) is refused 400 from the request head: a 200 MB body (under the 256 MiB
    limit, which a larger Content-Length would hit first) announced with it is never read, and nothing is stored."""
    srv = Server("param")
    try:
        s = socket.create_connection(("127.0.0.1", srv.port), timeout=60)
        target = UPLOAD.replace("platform=", "platfrom=") + "typo"
        s.sendall(head_bytes("POST", target, {**srv.auth, "Content-Type": "text/csv"}, 200 * MB))
        (status, _, out), sent = send_until_answered(s, (b"x" * MB for _ in range(200)))
        s.close()
        err = error_of(out)
        print(f"      {status} after {sent / MB:.0f} MB sent; {err.get('message')!r}")
        expect(status == 400 and err.get("code") == "unknown_parameter" and err.get("column") == "platfrom",
               f"400 unknown_parameter naming platfrom, got {status} {out!r}")
        expect("did you mean platform" in err.get("message", ""), f"the message suggests platform: {err}")
        expect(sent < 64 * MB, f"refused from the head, not after the body ({sent / MB:.0f} MB sent)")
        status, _, body = request(srv.port, "GET", "/api/v1/runs", headers=srv.auth)
        expect(status == 200 and b"typo" not in body, f"nothing stored: {status} {body[:200]!r}")
    finally:
        srv.stop()


def main():
    for name, fn in (("413: 1 GB bodies (Content-Length, chunked), RSS < 100 MB over idle", big_bodies),
                     ("400: an unknown query parameter is refused from the head, before the body", unknown_parameter),
                     ("spool: a 20 MB upload goes to a temporary file and is ingested", spooled_upload),
                     ("spool: a 5 MiB signed webhook is verified from its spool file", spooled_webhook),
                     ("408: header and body timeouts name the setting; idle keep-alive closed", timeouts),
                     ("503: the connection cap", connection_cap),
                     ("slowloris: 200 trickling connections do not delay others past 100 ms", slowloris),
                     ("archives: zip-slip, links, bombs, too many entries refused naming the member", archives),
                     ("SIGTERM: the upload in flight completes, exit 0", sigterm_drain),
                     ("SIGTERM: the drain is bounded by drain_timeout_s", drain_timeout)):
        check(name, fn)
    failed = checks.summary("limits: ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
