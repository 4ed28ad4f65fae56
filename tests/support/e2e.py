"""Shared helpers of the Python end-to-end scripts (tests/e2e/ops, tests/e2e/hardening, tests/e2e/crash,
tests/deploy): the `perftriage serve` process, raw HTTP/1.1 requests on loopback, `perftriage token create`, the
one-line-per-check reporting and the CSV / multipart builders. Python 3 standard library only.

A script imports it by path, so that it still runs as `python3 script.py BINARY ...` from any directory:

    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import e2e  # noqa: E402
"""
import hashlib
import hmac
import json
import os
import resource
import socket
import subprocess
import sys
import threading
import time

# ---------------------------------------------------------------------------------------------------------------------
# Environment and small process helpers.


def clean_env(drop=(), **extra):
    """os.environ without any PERFTRIAGE_* variable (nor the names in `drop`), then `extra` on top."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERFTRIAGE_") and k not in drop}
    env.update(extra)
    return env


def free_port():
    """A loopback port nobody listens on (bound, read and released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid, field="VmRSS"):
    """A memory figure of /proc/PID/status (VmRSS, VmHWM...) in MB; 0.0 when absent."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


class CommandError(RuntimeError):
    pass


_databases = {}  # path -> the PostgreSQL database made for it: the same path names the same database again


def test_db(path):
    """The database of an end-to-end check: the SQLite file `path`; or, when PERFTRIAGE_TEST_PG names the file that
    holds the test PostgreSQL server's URL (CTest's `pg:` entries, tools/pg_test_server.sh), a new, empty database on
    that server, named by a URL with no shell metacharacters (tests/support/test_db.hpp's e2e_db makes the same);
    asked again for the same path, the same database."""
    url_file = os.environ.get("PERFTRIAGE_TEST_PG")
    if not url_file:
        return path
    if path in _databases:
        return _databases[path]
    with open(url_file) as f:
        url = f.read().strip()
    host = url.split("host=", 1)[1].split("&", 1)[0]
    name = "py%d_%d" % (os.getpid(), len(_databases) + 1)
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "DROP DATABASE IF EXISTS " + name,
                    "-c", "CREATE DATABASE " + name], check=True, capture_output=True, timeout=120)
    _databases[path] = "postgresql://perftriage@%s/%s" % (host.replace("/", "%2F"), name)
    return _databases[path]


def create_token(binary, db, name, scope="admin", expires=None, env=None, timeout=120):
    """`perftriage token create --db DB --name NAME --scope SCOPE [--expires E] --json`: the printed JSON object
    (name, token, scopes, expires_at). Raises CommandError (with the output) when the command fails."""
    args = [binary, "token", "create", "--db", db, "--name", name, "--scope", scope, "--json"]
    if expires:
        args += ["--expires", expires]
    p = subprocess.run(args, capture_output=True, text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise CommandError(f"perftriage token create exited {p.returncode}: {p.stderr}{p.stdout}")
    try:
        return json.loads(p.stdout)
    except ValueError:
        raise CommandError(f"perftriage token create printed no JSON: {p.stdout!r}") from None


# ---------------------------------------------------------------------------------------------------------------------
# `perftriage serve`.

LISTENING = "listening on http://"


class Server:
    """`BINARY serve [--listen LISTEN] ARGS...`, waiting for its "listening on http://HOST:PORT" line.

    port: the port it listens on, or None when it exited (or stayed silent for start_timeout s) first; the process
    has then been given 30 s to exit, and `required=True` raises instead. stdout is read by a thread from then on:
    `lines` holds every stdout line, `startup` those read until the listening line. stderr goes to `log_path`
    (None: merged into stdout). env: the whole environment (default clean_env()); nofile: RLIMIT_NOFILE of the
    child; stop(): SIGTERM, SIGKILL after stop_timeout s, returns the exit status."""

    def __init__(self, binary, args=(), *, env=None, log_path=None, listen="127.0.0.1:0", cwd=None, nofile=None,
                 start_timeout=120, stop_timeout=30, required=False):
        self.log_path = log_path
        self.stop_timeout = stop_timeout
        self.lines = []
        self.port = None
        cmd = [binary, "serve", *(["--listen", listen] if listen else []), *args]
        self.log_file = open(log_path, "wb") if log_path else None

        def limits():
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=self.log_file if self.log_file else subprocess.STDOUT,
                                     env=clean_env() if env is None else env, cwd=cwd,
                                     preexec_fn=limits if nofile else None)
        deadline = time.time() + start_timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline().decode(errors="replace")
            if not line:
                break
            self.lines.append(line)
            if LISTENING in line:
                self.port = int(line.split(LISTENING)[1].split()[0].rsplit(":", 1)[1])
                threading.Thread(target=self._drain, daemon=True).start()
                break
        self.startup = "".join(self.lines)
        if self.port is None:
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pass
            if required:
                self.stop()
                raise RuntimeError(f"the server did not start (exit {self.proc.returncode}); see "
                                   f"{log_path or 'its output'}: {self.output()[-2000:]}")

    def _drain(self):
        for raw in self.proc.stdout:
            self.lines.append(raw.decode(errors="replace"))

    @property
    def started(self):
        return self.port is not None

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def alive(self):
        return self.proc.poll() is None

    def rss_mb(self, field="VmRSS"):
        return rss_mb(self.proc.pid, field)

    def stop(self):
        if self.alive():
            self.proc.terminate()
            try:
                self.proc.wait(self.stop_timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.log_file:
            self.log_file.close()
        return self.proc.returncode

    def log(self):
        """What the server wrote to stderr so far ("" when stderr is merged into stdout)."""
        if not self.log_path:
            return ""
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def output(self):
        """stdout so far, then stderr."""
        return "".join(self.lines) + self.log()

    def request(self, method, path, body=b"", headers=None, token=None, timeout=60):
        return request(self.port, method, path, body, headers, timeout=timeout, token=token)


# ---------------------------------------------------------------------------------------------------------------------
# HTTP/1.1 on a raw socket: byte for byte what the scripts send, nothing added (no Accept-Encoding, no chunking).


def head_bytes(method, path, headers, length=None, chunked=False, keep_alive=False):
    """The request line and headers: Host, Connection: close (unless keep_alive), Transfer-Encoding: chunked or
    Content-Length: length, then `headers` (those whose value is None left out)."""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    if not keep_alive:
        head += "Connection: close\r\n"
    if chunked:
        head += "Transfer-Encoding: chunked\r\n"
    elif length is not None:
        head += f"Content-Length: {length}\r\n"
    for k, v in (headers or {}).items():
        if v is not None:
            head += f"{k}: {v}\r\n"
    return (head + "\r\n").encode()


def read_response(s, data=b""):
    """(status, headers dict lower-case, body bytes) of the next response on socket s, a 100 Continue skipped; the
    body is Content-Length bytes, or everything up to the close when there is no Content-Length."""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError(f"connection closed before a response ({data[:200]!r})")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1])
    if status == 100:
        return read_response(s, rest)
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers["content-length"]) if "content-length" in headers else None
    while length is None or len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        rest += chunk
    return status, headers, rest if length is None else rest[:length]


def request(port, method, path, body=b"", headers=None, timeout=60, token=None):
    """One request on a fresh connection to 127.0.0.1:port; returns (status, headers dict lower-case, body bytes).
    token: sent as Authorization: Bearer TOKEN (after `headers`)."""
    if isinstance(body, str):
        body = body.encode()
    headers = dict(headers or {})
    if token:
        headers["Authorization"] = "Bearer " + token
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(head_bytes(method, path, headers, len(body)) + body)
        return read_response(s)
    finally:
        s.close()


def json_or_bytes(data):
    """The parsed JSON of a body, or the bytes themselves when they are not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        return data


def error_of(body):
    """The "error" object of a JSON error body; {} for anything else."""
    try:
        err = json.loads(body)["error"]
    except Exception:  # noqa: BLE001 - a non-JSON answer fails the check that reads it
        return {}
    return err if isinstance(err, dict) else {}


def hub_signature(secret, body):
    """GitHub's X-Hub-Signature-256 of a webhook body."""
    if isinstance(body, str):
        body = body.encode()
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# ---------------------------------------------------------------------------------------------------------------------
# Checks: one line per check ("ok    NAME" / "PASS  NAME", "FAIL  NAME: detail") and a closing count.


class Checks:
    def __init__(self, ok="ok    "):
        self.ok = ok
        self.results = []  # one bool per check, in order
        self.lock = threading.Lock()

    def check(self, name, ok, detail=""):
        """Records a check; prints it (the detail only when it failed); returns ok."""
        with self.lock:
            self.results.append(bool(ok))
        print((self.ok if ok else "FAIL  ") + name + ("" if ok or not detail else f": {detail}"), flush=True)
        return ok

    def call(self, name, fn):
        """Runs fn() as one check: it passes when fn returns and fails with what it raised (see expect)."""
        started = time.time()
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported by name
            with self.lock:
                self.results.append(False)
            print(f"FAIL  {name}: {e!r}", flush=True)
            return False
        with self.lock:
            self.results.append(True)
        print(f"{self.ok}{name} ({time.time() - started:.2f} s)", flush=True)
        return True

    @property
    def passed(self):
        return self.results.count(True)

    @property
    def failed(self):
        return self.results.count(False)

    def summary(self, prefix=""):
        """Prints "[PREFIX]N passed, N failed"; returns the number failed."""
        print(f"{prefix}{self.passed} passed, {self.failed} failed", flush=True)
        return self.failed

    def finish(self, prefix=""):
        """summary(prefix), then exits: 0 when at least one check ran and none failed, 1 otherwise."""
        failed = self.summary(prefix)
        sys.exit(1 if failed or not self.results else 0)


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


# ---------------------------------------------------------------------------------------------------------------------
# Uploads: benchmark CSVs and multipart bodies.

# The 16 columns of an inductor performance CSV.
PERF_HEADER = ("dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,"
               "dynamo_peak_mem,calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,"
               "autograd_compiles,cudagraph_skips\n")
# The 5 columns the ingester needs, with CRLF line ends.
SHORT_HEADER = "dev,name,batch_size,speedup,abs_latency\r\n"
# Every (suite, dtype, mode) group of a results tree.
GROUPS = [(s, d, m) for s in ("huggingface", "timm_models", "torchbench")
          for d in ("float32", "bfloat16", "amp_bf16") for m in ("inference", "training")]


def perf_row(name, batch_size, speedup, abs_latency, compilation_latency, dev="xpu"):
    """One PERF_HEADER row; the values are written as given (format them first)."""
    return f"{dev},{name},{batch_size},{speedup},{abs_latency},{compilation_latency},0,0,0,1,1,0,0,0,0,0\n"


def perf_path(suite, dtype, mode):
    """Where the benchmark scripts write a group's performance CSV in a results tree."""
    return (f"{suite}/{dtype}/{mode}/performance/inductor-results-{suite}-{dtype}-{mode}-xpu-performance.csv")


def short_csv(n, prefix="Model"):
    """SHORT_HEADER and n rows {prefix}0..{prefix}n-1."""
    return SHORT_HEADER + "".join(f"xpu,{prefix}{i},8,{0.5 + (i % 10) / 10:.2f},10.0\r\n" for i in range(n))


def multipart_upload(boundary, meta, files, file_type="text/csv"):
    """A multipart/form-data body (bytes): a "meta" part (a dict, or JSON text sent as it is), then one "file" part
    per (filename, text, ...) of `files`, each with Content-Type: file_type (None: no Content-Type)."""
    if not isinstance(meta, str):
        meta = json.dumps(meta)
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="meta"\r\nContent-Type: application/json\r\n\r\n'
             f'{meta}\r\n']
    for name, text, *_ in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
                     + (f"Content-Type: {file_type}\r\n" if file_type else "") + f"\r\n{text}\r\n")
    parts.append(f"--{boundary}--\r\n")
    return "".join(parts).encode()
