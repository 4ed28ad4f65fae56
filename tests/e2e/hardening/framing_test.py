#!/usr/bin/env python3
"""Strict HTTP/1.1 framing (RFC 9112 §6.1, §6.3, §3.2), against the real `perftriage serve` on loopback.

    framing_test.py BINARY

Each case sends raw bytes on a fresh connection: a request whose body two parties could frame differently, and
behind it a second, pipelined request (`GET /api/v1/runs`). The server must answer the first 400 and close: the
pipelined request, which a proxy in front might have read as part of the first request's body, is never answered.
The same requests framed one way only (and no pipelined request) are answered 200, so the refusals are not a server
that refuses everything.
Python 3 standard library only; every socket has a timeout, so the script ends by itself.
"""
import os
import re
import socket
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

PIPELINED = b"GET /api/v1/runs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
BODY = b'{"title": "x", "body": "y"}'


def exchange(port, raw, timeout=10):
    """Sends raw, then reads until the server closes (or timeout); returns every byte it answered."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    try:
        s.sendall(raw)
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                return data + b"<timeout: still open>"
            if not chunk:
                return data
            data += chunk
    finally:
        s.close()


def statuses(answer):
    """The status of each response in answer, in order (a JSON body may end in a bare newline, so the status line
    is found anywhere, not only after CRLF)."""
    return [int(code) for code in re.findall(rb"HTTP/1\.[01] (\d{3}) ", answer)]


def head(lines):
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def post(fields, body=BODY, version="HTTP/1.1"):
    return head([f"POST /api/v1/label {version}", "Content-Type: application/json", *fields]) + body


def chunked(body):
    return f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"


REFUSED = [
    ("Transfer-Encoding gzip with Content-Length",
     post(["Host: 127.0.0.1", "Transfer-Encoding: gzip", f"Content-Length: {len(BODY)}"])),
    ("Transfer-Encoding identity with Content-Length",
     post(["Host: 127.0.0.1", "Transfer-Encoding: identity", f"Content-Length: {len(BODY)}"])),
    ("Transfer-Encoding xchunked with Content-Length",
     post(["Host: 127.0.0.1", "Transfer-Encoding: xchunked", f"Content-Length: {len(BODY)}"])),
    ("Transfer-Encoding chunked with Content-Length",
     post(["Host: 127.0.0.1", "Transfer-Encoding: chunked", f"Content-Length: {len(BODY)}"], chunked(BODY))),
    ("Transfer-Encoding gzip, chunked",
     post(["Host: 127.0.0.1", "Transfer-Encoding: gzip, chunked"], chunked(BODY))),
    ("two Content-Length, same value",
     post(["Host: 127.0.0.1", f"Content-Length: {len(BODY)}", f"Content-Length: {len(BODY)}"])),
    ("two Content-Length, other values",
     post(["Host: 127.0.0.1", f"Content-Length: {len(BODY)}", "Content-Length: 3"])),
    ("a Content-Length that is not a number", post(["Host: 127.0.0.1", "Content-Length: 2x"])),
    ("HTTP/1.1 without Host", post([f"Content-Length: {len(BODY)}"])),
    ("two Host", post(["Host: 127.0.0.1", "Host: evil.example", f"Content-Length: {len(BODY)}"])),
    ("Transfer-Encoding on HTTP/1.0",
     post(["Host: 127.0.0.1", "Transfer-Encoding: chunked"], chunked(BODY), version="HTTP/1.0")),
    ("two Authorization", post(["Host: 127.0.0.1", "Authorization: Bearer a", "Authorization: Bearer b",
                                f"Content-Length: {len(BODY)}"])),
]
ANSWERED = [
    ("Content-Length alone", post(["Host: 127.0.0.1", f"Content-Length: {len(BODY)}"])),
    ("chunked alone", post(["Host: 127.0.0.1", "Transfer-Encoding: chunked"], chunked(BODY))),
    ("chunked in another case", post(["Host: 127.0.0.1", "Transfer-Encoding: Chunked"], chunked(BODY))),
    ("HTTP/1.0 without Host", post([f"Content-Length: {len(BODY)}"], version="HTTP/1.0")),
]


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        server = e2e.Server(sys.argv[1], ["--db", os.path.join(tmp, "db.sqlite")],
                            log_path=os.path.join(tmp, "server.log"), required=True)
        try:
            for name, raw in REFUSED:
                answer = exchange(server.port, raw + PIPELINED)
                got = statuses(answer)
                checks.check(f"refused and closed: {name}", got == [400] and b"<timeout" not in answer,
                             f"statuses {got}, answer {answer[:300]!r}")
            for name, raw in ANSWERED:
                answer = exchange(server.port, raw.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1))
                got = statuses(answer)
                checks.check(f"answered: {name}", got == [200], f"statuses {got}, answer {answer[:300]!r}")
            # A well-framed request with a body, then another behind it on the same connection: both answered,
            # in order (the body's end is where the next request starts, in memory or spooled to a file).
            last = PIPELINED.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1)
            big = b'{"traceEvents": []' + b" " * (5 << 20) + b"}"
            spooled = head(["POST /api/v1/classify?name=t.json HTTP/1.1", "Host: 127.0.0.1",
                            "Content-Type: application/json", f"Content-Length: {len(big)}"]) + big
            pipelined = [(name, raw) for name, raw in ANSWERED if b"HTTP/1.0" not in raw]
            pipelined.append(("a body spooled to a file", spooled))
            for name, raw in pipelined:
                answer = exchange(server.port, raw + last, timeout=60)
                got = statuses(answer)
                checks.check(f"pipelined behind {name}: both answered", len(got) == 2 and got[1] == 200,
                             f"statuses {got}, answer {answer[-300:]!r}")
            checks.check("the server is still up", server.alive())
        finally:
            server.stop()
    return checks.finish("framing: ")


if __name__ == "__main__":
    sys.exit(main())
