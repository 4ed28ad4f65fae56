#!/usr/bin/env python3
"""Configuration against the real binary (docs/config.md).

Usage: config_test.py PERFTRIAGE_BINARY. Python 3 standard library only; everything on 127.0.0.1.

  - `perftriage config check` on a good file (and deploy/perftriage.toml): exit 0, "ok: FILE"; on a bad file: exit 1
    and every error as FILE:LINE:COL: message;
  - `serve --config FILE` listens where the file says; PERFTRIAGE_SERVER_LISTEN beats the file; --listen beats both;
    PERFTRIAGE_CONFIG names the file when --config is absent;
  - `serve --config missing.toml` and `serve --config bad.toml` exit 2 without listening, naming every error;
  - secret files with ${CREDENTIALS_DIRECTORY}: read when it is set, refused (exit 2) when it is not;
  - `config show` (text and --json) masks the secrets and says where each setting came from;
  - `--integrity-check` on a database with a damaged page refuses to start (exit 1, SQLite's words), while the same
    file without the flag serves, and a healthy database passes the check.
Prints one line per check and exits non-zero when any failed.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import urllib.request

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402
from e2e import free_port  # noqa: E402

BINARY = os.path.abspath(sys.argv[1])
SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
WORK = tempfile.mkdtemp(prefix="perftriage-config-")
TOKEN = "ghp_e2e_secret_value_do_not_print"
WEBHOOK_SECRET = "whsec_e2e_secret_value_do_not_print"

checks = e2e.Checks()
check = checks.check
results = checks.results


def clean_env(**extra):
    return e2e.clean_env(drop=("CREDENTIALS_DIRECTORY",), **extra)


def cli(*args, env=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, env=env or clean_env(), timeout=300)


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


class Serve(e2e.Server):
    """`perftriage serve ARGS` (no --listen of its own): the port it listens on (None when it exited first), its exit
    code, its stdout until it listened (`stdout`) and stderr (`err()`)."""

    def __init__(self, args, env=None):
        super().__init__(BINARY, args, env=env or clean_env(), listen=None, stop_timeout=60,
                         log_path=os.path.join(WORK, "serve-%d.err" % len(os.listdir(WORK))))
        self.stdout = self.startup

    def healthz(self):
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % self.port, timeout=10) as r:
                return r.status
        except Exception as e:  # noqa: BLE001 - any failure is a failed check
            return str(e)

    def err(self):
        return self.log()


def config_file(name, port, db, extra=""):
    return write(name, '[server]\nlisten = "127.0.0.1:%d"\nthreads = 2\n\n[database]\npath = "%s"\n%s'
                 % (port, db, extra))


def test_check():
    good = config_file("good.toml", 8080, os.path.join(WORK, "good.sqlite"),
                       '\n[limits]\nmax_body_mb = 64\nheader_timeout_s = 2.5\n')
    p = cli("config", "check", good)
    check("config check: a good file exits 0", p.returncode == 0, p.stderr)
    check("config check: says ok: FILE", p.stdout.strip() == "ok: " + good, p.stdout)
    example = os.path.join(SOURCE, "deploy", "perftriage.toml")
    p = cli("config", "check", example)
    check("config check: deploy/perftriage.toml is valid", p.returncode == 0, p.stderr)

    bad = write("bad.toml", "[server]\n"                  # 1
                            "listn = \"0.0.0.0:80\"\n"    # 2
                            "threads = \"four\"\n"        # 3
                            "[limits]\n"                  # 4
                            "max_body_mb = 0\n"           # 5
                            "[nope]\n")                   # 6
    p = cli("config", "check", bad)
    check("config check: a bad file exits non-zero", p.returncode not in (0, None), p.returncode)
    for where, what in (("%s:2:1:" % bad, "unknown key 'listn'"), ("%s:3:11:" % bad, "threads must be an integer"),
                        ("%s:5:15:" % bad, "max_body_mb must be between 1 and"), ("%s:6:2:" % bad, "unknown section")):
        check("config check: reports %s %s" % (where.rsplit("/", 1)[1], what),
              any(line.startswith(where) and what in line for line in p.stderr.splitlines()), p.stderr)
    check("config check: counts the errors", "4 errors" in p.stderr, p.stderr)
    syntax = write("syntax.toml", "[server]\nthreads = = 2\n")
    p = cli("config", "check", syntax)
    check("config check: a syntax error has its line", p.returncode != 0 and ("%s:2:" % syntax) in p.stderr, p.stderr)


def test_precedence():
    db = os.path.join(WORK, "precedence.sqlite")
    port_file, port_env, port_flag = free_port(), free_port(), free_port()
    cfg = config_file("listen.toml", port_file, db)

    s = Serve(["--config", cfg])
    check("serve --config: listens where the file says", s.port == port_file, (s.port, s.stdout, s.err()))
    check("serve --config: answers there", s.port and s.healthz() == 200)
    check("serve --config: names the file", ("config " + cfg) in s.stdout, s.stdout)
    s.stop()

    s = Serve(["--config", cfg], env=clean_env(PERFTRIAGE_SERVER_LISTEN="127.0.0.1:%d" % port_env))
    check("environment beats the file", s.port == port_env, (s.port, s.err()))
    s.stop()

    s = Serve(["--config", cfg, "--listen", "127.0.0.1:%d" % port_flag],
              env=clean_env(PERFTRIAGE_SERVER_LISTEN="127.0.0.1:%d" % port_env))
    check("a flag beats the environment", s.port == port_flag, (s.port, s.err()))
    s.stop()

    s = Serve([], env=clean_env(PERFTRIAGE_CONFIG=cfg))
    check("PERFTRIAGE_CONFIG names the file", s.port == port_file, (s.port, s.err()))
    s.stop()


def test_refusals():
    missing = os.path.join(WORK, "missing.toml")
    s = Serve(["--config", missing])
    rc = s.stop()
    check("serve --config missing.toml: does not listen", s.port is None, s.stdout)
    check("serve --config missing.toml: exits 2", rc == 2, rc)
    check("serve --config missing.toml: names the file", missing in s.err(), s.err())

    bad = write("serve-bad.toml", '[server]\nlisten = "127.0.0.1:0"\nthreads = -1\nread_access = "all"\n'
                                  '[database]\npath = "%s"\n' % os.path.join(WORK, "bad.sqlite"))
    s = Serve(["--config", bad, "--max-connections", "none"], env=clean_env(PERFTRIAGE_SERVER_LISTN="x"))
    rc = s.stop()
    err = s.err()
    check("serve with an invalid config: exits 2 without listening", rc == 2 and s.port is None, (rc, s.stdout))
    check("serve with an invalid config: lists every error",
          all(x in err for x in ("%s:3:11:" % bad, "%s:4:15:" % bad, "PERFTRIAGE_SERVER_LISTN", "--max-connections",
                                 "4 configuration errors")), err)


def test_secrets():
    creds = os.path.join(WORK, "credentials")
    os.makedirs(creds)
    with open(os.path.join(creds, "webhook-secret"), "w") as f:
        f.write(WEBHOOK_SECRET + "\n")
    cfg = write("secrets.toml", '[server]\nlisten = "127.0.0.1:0"\n[database]\npath = "%s"\n'
                                '[github]\napi = "http://127.0.0.1:9"\n'
                                'webhook_secret_file = "${CREDENTIALS_DIRECTORY}/webhook-secret"\n'
                % os.path.join(WORK, "secrets.sqlite"))
    s = Serve(["--config", cfg], env=clean_env(CREDENTIALS_DIRECTORY=creds))
    check("${CREDENTIALS_DIRECTORY}: the secret file is read", s.port is not None and "no webhook secret" not in s.stdout,
          (s.stdout, s.err()))
    s.stop()
    check("the secret is not printed", WEBHOOK_SECRET not in s.stdout + s.err())

    s = Serve(["--config", cfg])
    rc = s.stop()
    check("${CREDENTIALS_DIRECTORY} unset: refuses to start (exit 2)", s.port is None and rc == 2, (rc, s.err()))
    check("${CREDENTIALS_DIRECTORY} unset: says why", "CREDENTIALS_DIRECTORY" in s.err(), s.err())
    s = Serve(["--config", cfg], env=clean_env(CREDENTIALS_DIRECTORY=os.path.join(WORK, "nowhere")))
    rc = s.stop()
    check("an unreadable secret file: refuses to start", s.port is None and rc == 2 and "cannot read" in s.err(),
          (rc, s.err()))

    env = clean_env(CREDENTIALS_DIRECTORY=creds, PERFTRIAGE_GITHUB_TOKEN=TOKEN, PERFTRIAGE_LIMITS_MAX_BODY_MB="12")
    p = cli("config", "show", "--config", cfg, "--json", "--read-workers", "3", env=env)
    check("config show --json: exit 0", p.returncode == 0, p.stderr)
    try:
        shown = json.loads(p.stdout)
    except ValueError:
        shown = {}
    gh = shown.get("github", {})
    check("config show --json: secrets masked", gh.get("token") == "***" and gh.get("webhook_secret") == "***", gh)
    check("config show --json: never the secrets themselves", TOKEN not in p.stdout and WEBHOOK_SECRET not in p.stdout)
    check("config show --json: file, environment and flags applied",
          shown.get("limits", {}).get("max_body_mb") == 12 and shown.get("server", {}).get("read_workers") == 3
          and shown.get("github", {}).get("api") == "http://127.0.0.1:9" and shown.get("config_file") == cfg, shown)
    p = cli("config", "show", "--config", cfg, env=env)
    check("config show: masked in text too", p.returncode == 0 and TOKEN not in p.stdout and
          WEBHOOK_SECRET not in p.stdout and "# token: *** (from PERFTRIAGE_GITHUB_TOKEN)" in p.stdout, p.stdout)
    check("config show: says where a setting came from",
          "max_body_mb = 12  # PERFTRIAGE_LIMITS_MAX_BODY_MB" in p.stdout and
          ('api = "http://127.0.0.1:9"  # %s:' % cfg) in p.stdout, p.stdout)
    unset = write("unset.toml", "[server]\nthreads = 2\n")
    p = cli("config", "show", "--config", unset, "--json")
    try:
        gh = json.loads(p.stdout).get("github", {})
    except ValueError:
        gh = {}
    check("config show: an unset secret is \"\"", gh.get("token") == "" and gh.get("webhook_secret") == "", p.stdout)


def corrupt_database(path):
    """A valid SQLite file with one damaged b-tree page of a table perftriage never reads."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA page_size=4096")
    con.execute("CREATE TABLE junk (id INTEGER PRIMARY KEY, v BLOB)")
    con.execute("CREATE INDEX junk_v ON junk (v)")
    con.executemany("INSERT INTO junk (v) VALUES (randomblob(300))", [()] * 3000)
    con.commit()
    pages = con.execute("PRAGMA page_count").fetchone()[0]
    con.close()
    with open(path, "r+b") as f:
        f.seek(4096 * (pages // 2))
        f.write(b"\xa5" * 4096)


def test_integrity():
    healthy = os.path.join(WORK, "healthy.sqlite")
    s = Serve(["--listen", "127.0.0.1:0", "--db", healthy])
    s.stop()
    s = Serve(["--listen", "127.0.0.1:0", "--db", healthy, "--integrity-check"])
    check("--integrity-check: a healthy database starts", s.port is not None and "integrity_check: ok" in s.stdout,
          (s.stdout, s.err()))
    s.stop()

    broken = os.path.join(WORK, "broken.sqlite")
    corrupt_database(broken)
    s = Serve(["--listen", "127.0.0.1:0", "--db", broken, "--integrity-check"])
    rc = s.stop()
    err = s.err()
    check("--integrity-check: a damaged database refuses to start (exit 1)", s.port is None and rc == 1,
          (rc, s.stdout, err))
    check("--integrity-check: prints what SQLite said", "integrity_check failed" in err and
          ("page" in err or "malformed" in err), err)
    cfg = write("integrity.toml", '[server]\nlisten = "127.0.0.1:0"\nintegrity_check = true\n'
                                  '[database]\npath = "%s"\n' % broken)
    s = Serve(["--config", cfg])
    rc = s.stop()
    check("[server] integrity_check = true: refuses too", s.port is None and rc == 1, (rc, s.err()))
    s = Serve(["--listen", "127.0.0.1:0", "--db", broken])
    check("without the check the same file serves (the check is what refused it)", s.port is not None,
          (s.stdout, s.err()))
    s.stop()


def main():
    ok = False
    try:
        for test in (test_check, test_precedence, test_refusals, test_secrets, test_integrity):
            try:
                test()
            except Exception as e:  # noqa: BLE001 - report and go on with the other checks
                check(test.__name__ + " raised", False, repr(e))
        ok = all(results)
        checks.summary()
    finally:
        if ok:
            shutil.rmtree(WORK, ignore_errors=True)
        else:
            print("work directory kept: " + WORK)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
