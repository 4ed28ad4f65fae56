#!/usr/bin/env python3
"""A compression bomb is refused while it inflates, not after: the server's peak memory stays bounded on every
decompression path, against the real `perftriage serve` on loopback.

    bomb_test.py BINARY [--limit-mb N]

Each bomb is about 1 MB of deflated zeros (about 1 GB inflated). For each, the server's resident memory is read
before the request, its high-water mark (VmHWM) reset through /proc/PID/clear_refs (or VmRSS polled every few ms
where that is refused), and the peak above that idle figure must stay within --limit-mb (64 MB):
- POST /api/v1/classify with a gzip bomb: 413 gzip_bomb;
- POST /api/v1/uploads with the bomb as x.csv.gz; as a tar.gz and a zip of two 480 MiB .csv members (under the
  member size limit, but over the ratio for the whole archive: refused from their headers); and as a tar.gz and a zip
  of one 90 MiB .csv member followed by 1 MB of noise (a size the ratio allows for the whole archive, so that only the
  bytes read so far can give the bomb away): 413 archive_too_large.
The numbers are printed for every path. A sanitized (ASan) binary is reported as such: its allocator and shadow
memory add to every figure, so a pass there is the stricter one.
Python 3 standard library only, loopback only.
"""
import io
import os
import sys
import tarfile
import tempfile
import threading
import time
import zipfile
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

CHUNK = bytes(1 << 20)
MEMBER_MIB = 480  # under [limits] max_archive_entry_mb (512): the declared size alone does not refuse the member
PADDED_MIB = 90  # with PAD after it, under [limits] max_archive_ratio (100) times the archive's whole size
PAD = os.urandom(1 << 20)


def zeros_deflated(mib, wbits):
    """`mib` MiB of zeros through zlib (wbits 31: a gzip stream, -15: raw deflate)."""
    z = zlib.compressobj(6, zlib.DEFLATED, wbits)
    return b"".join(z.compress(CHUNK) for _ in range(mib)) + z.flush()


def gzip_bomb():
    return zeros_deflated(1000, 31)


def tar_gz_bomb(members, mib, pad=b""):
    """A tar of `members` of `mib` MiB of zeros each, then pad.bin holding `pad` when given, gzipped while it is
    written (the tar itself never in memory)."""
    z = zlib.compressobj(6, zlib.DEFLATED, 31)
    out = []
    for name in members:
        info = tarfile.TarInfo(name)
        info.size = mib << 20
        out.append(z.compress(info.tobuf(format=tarfile.USTAR_FORMAT)))
        out.extend(z.compress(CHUNK) for _ in range(mib))
    if pad:
        info = tarfile.TarInfo("pad.bin")
        info.size = len(pad)
        out.append(z.compress(info.tobuf(format=tarfile.USTAR_FORMAT) + pad + bytes(-len(pad) % 512)))
    out.append(z.compress(bytes(1024)))  # the end-of-archive blocks
    out.append(z.flush())
    return b"".join(out)


def zip_bomb(members, mib, pad=b""):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in members:
            with zf.open(name, "w") as f:
                for _ in range(mib):
                    f.write(CHUNK)
        if pad:
            zf.writestr("pad.bin", pad)
    return buf.getvalue()


def sanitized(binary):
    """True when the binary carries AddressSanitizer's runtime."""
    tail = b""
    with open(binary, "rb") as f:
        while block := f.read(16 << 20):
            if b"AddressSanitizer" in tail + block:
                return True
            tail = block[-32:]
    return False


class Peak:
    """The server's peak resident memory during a `with` block: VmHWM after resetting it, and VmRSS polled every
    2 ms as well (the only figure when the kernel refuses the reset)."""

    def __init__(self, pid):
        self.pid = pid
        self.polled = 0.0
        self.done = threading.Event()

    def _poll(self):
        while not self.done.is_set():
            self.polled = max(self.polled, e2e.rss_mb(self.pid))
            time.sleep(0.002)

    def __enter__(self):
        self.idle = e2e.rss_mb(self.pid)
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")
            self.hwm = True
        except OSError:
            self.hwm = False
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.done.set()
        self.thread.join()
        self.peak = max(self.polled, e2e.rss_mb(self.pid, "VmHWM") if self.hwm else 0.0)
        self.above = self.peak - self.idle


def post(server, path, body, content_type, token):
    status, _, answer = server.request("POST", path, body, {"Content-Type": content_type}, token=token, timeout=300)
    return status, e2e.error_of(answer)


def run_case(server, checks, limit_mb, name, send, want_status, want_code):
    with Peak(server.proc.pid) as peak:
        started = time.time()
        status, err = send()
    print(f"      {name}: idle {peak.idle:.1f} MB, peak {peak.peak:.1f} MB, +{peak.above:.1f} MB "
          f"({'VmHWM' if peak.hwm else 'polled VmRSS'}), {time.time() - started:.2f} s, {status} {err.get('code')}",
          flush=True)
    checks.check(f"{name}: {want_status} {want_code}", status == want_status and err.get("code") == want_code,
                 f"{status} {str(err)[:300]}")
    checks.check(f"{name}: peak {peak.above:.1f} MB above idle <= {limit_mb} MB", peak.above <= limit_mb,
                 f"idle {peak.idle:.1f} MB, peak {peak.peak:.1f} MB; {str(err.get('message'))[:300]!r}")


def main():
    args = sys.argv[1:]
    limit_mb = 64.0
    if "--limit-mb" in args:
        i = args.index("--limit-mb")
        limit_mb = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__)
        return 2
    binary = args[0]
    checks = e2e.Checks()
    print(f"      {binary}: {'ASan-instrumented' if sanitized(binary) else 'not sanitized'}", flush=True)
    gz = gzip_bomb()
    tgz, zipped = tar_gz_bomb(("a.csv", "b.csv"), MEMBER_MIB), zip_bomb(("a.csv", "b.csv"), MEMBER_MIB)
    tgz_padded, zip_padded = tar_gz_bomb(("a.csv",), PADDED_MIB, PAD), zip_bomb(("a.csv",), PADDED_MIB, PAD)
    print(f"      bombs: gzip {len(gz)} B, tar.gz {len(tgz)} B, zip {len(zipped)} B, padded tar.gz "
          f"{len(tgz_padded)} B, padded zip {len(zip_padded)} B", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        db = e2e.test_db(os.path.join(tmp, "db.sqlite"))
        token = e2e.create_token(binary, db, "ci", "admin")["token"]
        server = e2e.Server(binary, ["--db", db], log_path=os.path.join(tmp, "server.log"), required=True)
        try:
            up = "/api/v1/uploads?platform=BMG&run=bomb&path="
            cases = [("classify, a gzip bomb", lambda: post(server, "/api/v1/classify?name=x.json.gz", gz,
                                                             "application/gzip", token), 413, "gzip_bomb"),
                     ("upload, x.csv.gz", lambda: post(server, up + "x.csv.gz", gz, "application/gzip", token), 413,
                      "archive_too_large"),
                     ("upload, x.tar.gz", lambda: post(server, up + "x.tar.gz", tgz, "application/gzip", token), 413,
                      "archive_too_large"),
                     ("upload, x.zip", lambda: post(server, up + "x.zip", zipped, "application/zip", token), 413,
                      "archive_too_large"),
                     ("upload, padded x.tar.gz", lambda: post(server, up + "p.tar.gz", tgz_padded, "application/gzip",
                                                               token), 413, "archive_too_large"),
                     ("upload, padded x.zip", lambda: post(server, up + "p.zip", zip_padded, "application/zip",
                                                           token), 413, "archive_too_large")]
            for name, send, status, code in cases:
                run_case(server, checks, limit_mb, name, send, status, code)
            checks.check("the server is still up", server.alive())
        finally:
            server.stop()
    return checks.finish("bombs: ")


if __name__ == "__main__":
    sys.exit(main())
