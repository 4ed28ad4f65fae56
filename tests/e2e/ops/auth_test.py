#!/usr/bin/env python3
"""Authentication and authorization against the real binary (docs/auth.md).

Usage: auth_test.py PERFTRIAGE_BINARY. Creates tokens with `perftriage token create` on fresh databases, starts
`perftriage serve` on 127.0.0.1:0 (with PERFTRIAGE_AUTH_CACHE_S=1, so that a revocation takes effect within a second),
sends only to loopback. Checks: anonymous and wrong-scope writes are refused (401 with WWW-Authenticate / 403) and
store nothing; replace=true needs admin; revoked, expired and made-up tokens are 401; cross-origin form posts are
refused and queue nothing; only documented content types; the bot's views need `bot`; read_access = "token"; CORS
only for the allow-list, preflights; `token list` never prints a secret; no token is in the database file's bytes;
token create / revoke are audited. Prints one line per check and exits non-zero when any failed.
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
WORK = tempfile.mkdtemp(prefix="perftriage-auth-")
CSV = e2e.PERF_HEADER + e2e.perf_row("BertForMaskedLM", 8, "0.91", "10.0", "30.0")
CSV2 = e2e.PERF_HEADER + e2e.perf_row("BertForMaskedLM", 8, "1.25", "10.0", "30.0")
UPLOAD = "/api/v1/uploads?run=auth-run&platform=BMG&path=huggingface/bfloat16/inference/performance/perf.csv"
TRACKING = json.dumps({"repo": "intel/torch-xpu-ops", "platform": "BMG", "release": "2.12", "kind": "slow",
                       "title": "t", "body": "b"})
CHALLENGE = 'Bearer realm="perftriage"'

checks = e2e.Checks()
check = checks.check


def run_cli(*args, check_rc=True):
    p = subprocess.run([BINARY, *args], capture_output=True, text=True)
    if check_rc and p.returncode != 0:
        raise RuntimeError(f"perftriage {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p


def create_token(db, name, scope, expires=None):
    return e2e.create_token(BINARY, db, name, scope, expires=expires)


class Server(e2e.Server):
    """serve on `db` with PERFTRIAGE_AUTH_CACHE_S=1; request() answers (status, headers, parsed JSON or bytes)."""

    def __init__(self, db, args=()):
        super().__init__(BINARY, ["--db", db, *args], env=e2e.clean_env(PERFTRIAGE_AUTH_CACHE_S="1"),
                         log_path=os.path.join(WORK, f"stderr-{os.path.basename(db)}.log"), required=True)

    def request(self, method, path, body=b"", headers=None, token=None):
        status, out_headers, rest = super().request(method, path, body, headers, token=token)
        return status, out_headers, e2e.json_or_bytes(rest)


def code(body):
    return body.get("error", {}).get("code") if isinstance(body, dict) else None


def message(body):
    return body.get("error", {}).get("message", "") if isinstance(body, dict) else ""


def public_mode():
    db = e2e.test_db(os.path.join(WORK, "public.sqlite"))  # or a PostgreSQL database (pg:e2e_ops_auth)
    admin = create_token(db, "root", "admin")["token"]
    upload = create_token(db, "ci-bmg", "upload")["token"]
    reader = create_token(db, "reader", "read")["token"]
    triage = create_token(db, "triager", "triage")["token"]
    bot = create_token(db, "ops", "bot")["token"]
    doomed = create_token(db, "doomed", "upload")["token"]
    short = create_token(db, "short-lived", "upload", expires="1s")
    short_created = time.time()
    created = [admin, upload, reader, triage, bot, doomed, short["token"]]
    check("token create --json prints exactly name, token, scopes, expires_at",
          set(short) == {"name", "token", "scopes", "expires_at"} and short["scopes"] == ["upload"] and
          short["expires_at"] and short["token"].startswith("pt_"), short)
    never = create_token(db, "never", "read,triage")
    check("token create: --scope a,b and no --expires", never["scopes"] == ["read", "triage"] and
          never["expires_at"] is None, never)
    created.append(never["token"])
    bad = run_cli("token", "create", "--db", db, "--name", "x", "--scope", "write", check_rc=False)
    check("token create: an unknown scope is a usage error", bad.returncode == 2 and "write" in bad.stderr, bad.stderr)

    srv = Server(db)
    try:
        def runs():
            status, _, body = srv.request("GET", "/api/v1/runs")
            return body["runs"] if status == 200 else f"GET /runs answered {status}"

        st, h, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"})
        check("anonymous upload: 401 with WWW-Authenticate, nothing stored",
              st == 401 and h.get("www-authenticate", "").startswith(CHALLENGE) and code(body) == "token_required"
              and runs() == [], f"{st} {h.get('www-authenticate')} {body} runs={runs()}")

        st, _, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"}, token=reader)
        check("read token uploading: 403 naming the scope and the token, nothing stored",
              st == 403 and code(body) == "insufficient_scope" and "'upload'" in message(body) and
              "'reader'" in message(body) and runs() == [], f"{st} {body} runs={runs()}")

        st, _, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"}, token=upload)
        check("upload token: 201", st == 201, f"{st} {body}")
        st, _, body = srv.request("POST", UPLOAD + "&replace=true", CSV2, {"Content-Type": "text/csv"}, token=upload)
        _, _, run = srv.request("GET", "/api/v1/results?run=auth-run")
        speedups = [r.get("speedup") for r in run.get("results", run.get("rows", []))] if isinstance(run, dict) else run
        check("upload token with replace=true: 403, the stored file unchanged",
              st == 403 and "'admin'" in message(body) and speedups == [0.91], f"{st} {body} {speedups}")
        boundary = "AuthB0undary"
        multipart = e2e.multipart_upload(boundary, '{"run":"auth-run","platform":"BMG","replace":true}',
                                         [("huggingface/bfloat16/inference/performance/perf.csv", CSV2)],
                                         file_type=None)
        st, _, body = srv.request("POST", "/api/v1/uploads", multipart,
                                  {"Content-Type": f"multipart/form-data; boundary={boundary}"}, token=upload)
        check("upload token asking replace in the meta part: 403, nothing replaced",
              st == 403 and code(body) == "replace_needs_query", f"{st} {body}")
        st, _, body = srv.request("POST", UPLOAD + "&replace=true", CSV2, {"Content-Type": "text/csv"}, token=admin)
        _, _, run = srv.request("GET", "/api/v1/results?run=auth-run")
        speedups = [r.get("speedup") for r in run.get("results", run.get("rows", []))]
        check("admin with replace=true: replaced", st in (200, 201) and speedups == [1.25], f"{st} {body} {speedups}")

        st, h, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"},
                                  token="pt_0123456789abcdef_" + "0" * 64)
        check("made-up token: 401 invalid_token",
              st == 401 and code(body) == "invalid_token" and 'error="invalid_token"' in h.get("www-authenticate", ""),
              f"{st} {h.get('www-authenticate')} {body}")
        st, _, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv", "Authorization": "Basic YTpi"})
        check("a non-bearer Authorization: 401", st == 401, f"{st} {body}")

        # Revocation: the token works, is revoked with the CLI, and is refused at its next request (the server's
        # cache follows the data generation, which the revocation moves).
        st, _, _ = srv.request("GET", "/api/v1/runs", token=doomed)
        ok_before = st == 200
        run_cli("token", "revoke", "--db", db, "doomed")
        st, h, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"}, token=doomed)
        check("revoked token: 401 with WWW-Authenticate",
              ok_before and st == 401 and "revoked" in message(body) and "www-authenticate" in h, f"{st} {body}")
        again = run_cli("token", "revoke", "--db", db, "doomed", check_rc=False)
        check("token revoke of a revoked token exits 1", again.returncode == 1, again.stderr)

        time.sleep(max(0.0, short_created + 2.2 - time.time()))  # the 1 s token has expired by now
        st, h, body = srv.request("POST", UPLOAD, CSV, {"Content-Type": "text/csv"}, token=short["token"])
        check("expired token: 401", st == 401 and "expired" in message(body) and "www-authenticate" in h,
              f"{st} {body}")

        # Cross-site: a form another origin submits carries no Authorization and a "simple" content type.
        queued_before = srv.request("GET", "/api/v1/outbox", token=admin)[2].get("actions", [])
        for path in ("/api/v1/outbox/tracking-issue", UPLOAD):
            for ctype, body_text in (("text/plain", TRACKING), ("application/x-www-form-urlencoded", "a=b"),
                                     ("multipart/form-data; boundary=x", "--x--\r\n")):
                st, h, body = srv.request("POST", path, body_text,
                                          {"Content-Type": ctype, "Origin": "http://evil.example"})
                check(f"cross-origin form post to {path.split('?')[0]} ({ctype.split(';')[0]}): refused",
                      st == 401 and "access-control-allow-origin" not in h, f"{st} {h} {body}")
        st, _, body = srv.request("POST", "/api/v1/outbox/tracking-issue", TRACKING, {"Content-Type": "text/plain"},
                                  token=triage)
        check("tracking issue with a token but text/plain: 415 naming application/json",
              st == 415 and "application/json" in message(body), f"{st} {body}")
        queued_after = srv.request("GET", "/api/v1/outbox", token=admin)[2].get("actions", [])
        check("nothing queued by the refused posts", queued_after == queued_before, f"{queued_after}")
        st, _, body = srv.request("POST", "/api/v1/outbox/tracking-issue", TRACKING,
                                  {"Content-Type": "application/json"}, token=upload)
        check("tracking issue with an upload token: 403", st == 403, f"{st} {body}")
        st, _, body = srv.request("POST", "/api/v1/outbox/tracking-issue", TRACKING,
                                  {"Content-Type": "application/json"}, token=triage)
        check("tracking issue with a triage token: 202", st == 202, f"{st} {body}")
        st, _, body = srv.request("POST", "/api/v1/label", json.dumps({"title": "slow on BMG"}),
                                  {"Content-Type": "text/plain"})
        check("label with text/plain: 415", st == 415, f"{st} {body}")
        st, _, body = srv.request("POST", "/api/v1/label", json.dumps({"title": "slow on BMG"}),
                                  {"Content-Type": "application/json"})
        check("label stays public (computes, stores nothing): 200", st == 200, f"{st} {body}")

        statuses = [srv.request("GET", "/api/v1/outbox", token=t)[0] for t in (None, triage, bot, admin)]
        check("GET /outbox: anonymous 401, triage 403, bot and admin 200", statuses == [401, 403, 200, 200],
              statuses)
        statuses = [srv.request("GET", "/api/v1/webhooks/deliveries", token=t)[0] for t in (None, bot)]
        check("GET /webhooks/deliveries: anonymous 401, bot 200", statuses == [401, 200], statuses)
        statuses = [srv.request("GET", p)[0] for p in ("/healthz", "/", "/api/v1/runs")]
        check("public mode: /healthz, /, reads answer anonymously", statuses == [200, 200, 200], statuses)
        st, _, body = srv.request("GET", "/api/v1/runs", token=upload)
        check("public mode: a read with any valid token passes", st == 200, f"{st} {body}")
        st, _, body = srv.request("POST", "/webhooks/github", "{}", {"Content-Type": "application/json",
                                                                    "X-GitHub-Event": "ping"}, token=admin)
        check("webhook: HMAC only, a token does not help", st == 401 and code(body) != "insufficient_scope",
              f"{st} {body}")

        st, h, _ = srv.request("OPTIONS", "/api/v1/uploads", headers={
            "Origin": "https://dash.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        check("CORS off: a preflight gets no Access-Control-Allow-Origin",
              st == 204 and "access-control-allow-origin" not in h and "POST" in h.get("allow", ""), f"{st} {h}")
    finally:
        srv.stop()

    listing = run_cli("token", "list", "--db", db).stdout + run_cli("token", "list", "--db", db, "--json").stdout
    secrets = [t.split("_", 2)[2] for t in created]
    check("token list never prints a secret",
          all(t not in listing and s not in listing for t, s in zip(created, secrets)) and "ci-bmg" in listing and
          "revoked" in listing, listing[:400])
    if db.startswith("postgresql://"):
        # PostgreSQL: every row of the database as pg_dump writes it, and the two reads through psql.
        blob = subprocess.run(["pg_dump", "--data-only", db], capture_output=True, check=True).stdout

        def rows(sql):
            out = subprocess.run(["psql", "-X", "-At", "-F", "\t", db, "-c", sql], capture_output=True, text=True,
                                 check=True).stdout
            return [tuple(line.split("\t")) for line in out.splitlines()]
        audit = rows("SELECT actor, action, target FROM audit_log ORDER BY id")
        last_used = rows("SELECT last_used_at FROM api_tokens WHERE name = 'ci-bmg'")[0][0]
    else:
        blob = b"".join(open(p, "rb").read() for p in glob.glob(db + "*"))
        conn = sqlite3.connect(db)
        audit = conn.execute("SELECT actor, action, target FROM audit_log ORDER BY id").fetchall()
        last_used = conn.execute("SELECT last_used_at FROM api_tokens WHERE name = 'ci-bmg'").fetchone()[0]
        conn.close()
    check("no token or secret anywhere in the database's bytes",
          all(t.encode() not in blob and s.encode() not in blob for t, s in zip(created, secrets)),
          "a token was found in the database")
    actions = [(a, t) for _, a, t in audit]
    check("token create and revoke are in the audit log (actor cli:USER)",
          ("token.create", "ci-bmg") in actions and ("token.revoke", "doomed") in actions and
          all(actor.startswith("cli:") for actor, _, _ in audit), audit)
    check("a used token has last_used_at", bool(last_used), last_used)


def token_mode():
    db = e2e.test_db(os.path.join(WORK, "private.sqlite"))
    reader = create_token(db, "dash", "read")["token"]
    upload = create_token(db, "ci", "upload")["token"]
    config = os.path.join(WORK, "private.toml")
    with open(config, "w") as f:
        f.write('[server]\nread_access = "token"\ncors_origins = ["https://dash.example"]\n')
    srv = Server(db, ["--config", config])
    try:
        st, h, body = srv.request("GET", "/api/v1/runs")
        check('read_access = "token": anonymous GET /runs is 401 with WWW-Authenticate',
              st == 401 and h.get("www-authenticate", "").startswith(CHALLENGE), f"{st} {body}")
        st, _, body = srv.request("GET", "/api/v1/runs", token=reader)
        check('read_access = "token": a read token gets 200', st == 200 and body["runs"] == [], f"{st} {body}")
        st, _, body = srv.request("GET", "/api/v1/runs", token=upload)
        check('read_access = "token": an upload-only token gets 403 on reads', st == 403, f"{st} {body}")
        statuses = [srv.request("GET", p)[0] for p in ("/healthz", "/", "/web/app.js")]
        check('read_access = "token": liveness and the dashboard\'s files stay public', statuses == [200] * 3,
              statuses)
        st, _, body = srv.request("POST", "/api/v1/label", json.dumps({"title": "t"}),
                                  {"Content-Type": "application/json"})
        check('read_access = "token": label needs a token too', st == 401, f"{st} {body}")

        st, h, _ = srv.request("GET", "/api/v1/runs", headers={"Origin": "https://dash.example"}, token=reader)
        check("CORS: the allow-listed origin gets Access-Control-Allow-Origin and Vary: Origin",
              st == 200 and h.get("access-control-allow-origin") == "https://dash.example" and
              "Origin" in h.get("vary", "") and "access-control-allow-credentials" not in h, f"{st} {h}")
        st, h, _ = srv.request("GET", "/api/v1/runs", headers={"Origin": "http://evil.example"}, token=reader)
        check("CORS: another origin gets no Access-Control-Allow-Origin",
              "access-control-allow-origin" not in h, f"{st} {h}")
        st, h, _ = srv.request("OPTIONS", "/api/v1/uploads", headers={
            "Origin": "https://dash.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        check("CORS: a preflight from the allow-listed origin is 204 allowing Authorization, without a token",
              st == 204 and h.get("access-control-allow-origin") == "https://dash.example" and
              "Authorization" in h.get("access-control-allow-headers", "") and
              "POST" in h.get("access-control-allow-methods", ""), f"{st} {h}")
        st, h, _ = srv.request("OPTIONS", "/api/v1/uploads", headers={
            "Origin": "http://evil.example", "Access-Control-Request-Method": "POST"})
        check("CORS: a preflight from another origin gets no Access-Control-Allow-Origin",
              "access-control-allow-origin" not in h, f"{st} {h}")
    finally:
        srv.stop()


def main():
    for fn in (public_mode, token_mode):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - a crash of one part is one failure, reported by name
            check(fn.__name__, False, repr(e))
    failed = checks.summary()
    if failed == 0:
        shutil.rmtree(WORK, ignore_errors=True)
    else:
        print(f"logs kept in {WORK}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
