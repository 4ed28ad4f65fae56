#!/usr/bin/env python3
"""What an upload is acknowledged for is what is stored, and the fields that order or name a run are checked,
against the real `perftriage serve` on loopback.

    fields_test.py BINARY

- The same CSV bytes posted to the same run under other axes are refused (409 file_axes), never answered 200
  "duplicate" while only the first group is stored; replace=true stores them under the new axes.
- created_at that is no time (`zzzz`, `2026-13-45T99:99:99Z`) or far in the future is refused (400 bad_created_at)
  and stores nothing, so no run can pin itself as a platform's newest: /slow?platform= still reports the newest real
  run. An offset time is stored in UTC.
- A 5,000-character run key, or one with a slash, is refused (400 bad_run); a platform with a space (400
  bad_platform).
- A token revoked with the CLI is refused at its next request (the server's token cache, 10 s by default, follows
  the data generation).
- A signed webhook delivery whose issue.number is no GitHub issue number (-1, 0, 1.5, "7", 2**63, 2**70) or whose
  repository.full_name is no GitHub owner/name ("../../evil", "a/b/c", "a", "-/x", ...), or that names a label
  longer than GitHub's 50 characters, is refused (400 bad_issue_number / bad_repository / bad_label), neither
  recorded (GET /api/v1/webhooks/deliveries) nor queued (GET /api/v1/outbox, with a bot-scope token); a valid one
  still queues its actions.
Python 3 standard library only, loopback only.
"""
import json
from collections import Counter
import os
import subprocess
import sys
import tempfile
import urllib.parse
import uuid

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "support"))
import e2e  # noqa: E402

CSV = e2e.short_csv(3, "Net")
SECRET = "fields-secret"
REPO = "intel/torch-xpu-ops"


def upload(server, token, **query):
    path = "/api/v1/uploads?" + urllib.parse.urlencode(query)
    status, _, body = server.request("POST", path, CSV, {"Content-Type": "text/csv"}, token=token)
    return status, e2e.json_or_bytes(body)


def deliver(server, payload, event="issues"):
    """Posts one signed delivery (a fresh delivery id); returns (status, parsed body, delivery id)."""
    body = json.dumps(payload)
    delivery = str(uuid.uuid4())
    headers = {"X-Hub-Signature-256": e2e.hub_signature(SECRET, body), "X-GitHub-Event": event,
               "X-GitHub-Delivery": delivery, "Content-Type": "application/json"}
    status, _, answer = server.request("POST", "/webhooks/github", body, headers)
    return status, e2e.json_or_bytes(answer), delivery


def issue_event(number=1, full_name=REPO, action="opened", label=None):
    payload = {"action": action, "repository": {"full_name": full_name}, "sender": {"login": "someone"},
               "issue": {"number": number, "title": "[E2E] BMG bf16 inference slower than eager", "body": "",
                         "labels": []}}
    if label is not None:
        payload["label"] = {"name": label}
    return payload


def outbox(server, bot_token):
    """The outbox's actions as (repo, issue_number) pairs."""
    status, _, body = server.request("GET", "/api/v1/outbox", token=bot_token)
    if status != 200:
        raise RuntimeError(f"GET /api/v1/outbox: {status} {body[:200]!r}")
    return [(a["repo"], a["issue_number"]) for a in json.loads(body)["actions"]]


def deliveries(server, bot_token):
    status, _, body = server.request("GET", "/api/v1/webhooks/deliveries", token=bot_token)
    if status != 200:
        raise RuntimeError(f"GET /api/v1/webhooks/deliveries: {status} {body[:200]!r}")
    return {d["delivery_id"] for d in json.loads(body)["deliveries"]}


def webhook_fields(server, bot_token, checks):
    """Names that would reach an outbox row or a GitHub URL are checked before anything is recorded or queued."""
    cases = [(f"issue.number {shown}", issue_event(number=value), "bad_issue_number")
             for shown, value in (("-1", -1), ("0", 0), ("1.5", 1.5), ('"7"', "7"), ("2**63", 2**63),
                                  ("2**64-1", 2**64 - 1), ("2**70", 2**70))]
    cases += [(f"repository.full_name {name!r}", issue_event(full_name=name), "bad_repository")
              for name in ("../../evil", "a/b/c", "a", "-/x", "a/..", "a/b/milestones?x=", "a b/c")]
    cases += [("a 51-character label.name", issue_event(action="labeled", label="l" * 51), "bad_label")]
    for name, payload, code in cases:
        before = outbox(server, bot_token)
        status, body, delivery = deliver(server, payload)
        got = body.get("error", {}).get("code") if isinstance(body, dict) else None
        after = outbox(server, bot_token)
        checks.check(f"webhook with {name}: 400 {code}", status == 400 and got == code, f"{status} {str(body)[:200]}")
        checks.check("... and nothing queued nor recorded for it",
                     Counter(after) == Counter(before) and delivery not in deliveries(server, bot_token),
                     f"new actions: {list((Counter(after) - Counter(before)).items())[:3]}")
    # Same for an issue_comment's /label (it names its issue the same way).
    comment = dict(issue_event(number=-1, action="created"), comment={"body": "/label"})
    before = outbox(server, bot_token)
    status, body, _ = deliver(server, comment, event="issue_comment")
    checks.check("a /label comment on issue -1: 400, nothing queued",
                 status == 400 and Counter(outbox(server, bot_token)) == Counter(before), f"{status} {str(body)[:200]}")
    before = outbox(server, bot_token)
    status, body, delivery = deliver(server, issue_event(number=12))
    new = Counter(outbox(server, bot_token)) - Counter(before)
    checks.check("a valid delivery still queues its actions",
                 status == 202 and set(new) == {(REPO, 12)} and delivery in deliveries(server, bot_token),
                 f"{status} {str(body)[:200]} {dict(new)}")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    binary = sys.argv[1]
    checks = e2e.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        db = e2e.test_db(os.path.join(tmp, "db.sqlite"))
        token = e2e.create_token(binary, db, "ci", "admin")["token"]
        bot_token = e2e.create_token(binary, db, "bot", "bot")["token"]
        secret_file = os.path.join(tmp, "webhook-secret")
        with open(secret_file, "w") as f:
            f.write(SECRET)
        server = e2e.Server(binary, ["--db", db, "--webhook-secret-file", secret_file],
                            log_path=os.path.join(tmp, "server.log"), required=True)
        try:
            axes = {"platform": "BMG", "suite": "huggingface", "dtype": "bfloat16", "mode": "inference"}
            status, body = upload(server, token, run="n1", created_at="2026-11-01T00:00:00Z", **axes)
            checks.check("a first upload is stored", status == 201, f"{status} {body}")
            other = dict(axes, suite="timm_models", dtype="float32", mode="training")
            status, body = upload(server, token, run="n1", **other)
            code = body.get("error", {}).get("code") if isinstance(body, dict) else None
            checks.check("the same bytes under other axes: 409 file_axes", status == 409 and code == "file_axes",
                         f"{status} {body}")
            _, _, runs = server.request("GET", "/api/v1/results?run=n1&limit=100")
            suites = {r["suite"] for r in json.loads(runs)["results"]}
            checks.check("... and only the first group is stored", suites == {"huggingface"}, f"{suites}")
            status, body = upload(server, token, run="n1", replace="true", **other)
            _, _, runs = server.request("GET", "/api/v1/results?run=n1&limit=100")
            suites = {r["suite"] for r in json.loads(runs)["results"]}
            checks.check("replace=true stores them under the new axes", status == 201 and suites == {"timm_models"},
                         f"{status} {body} {suites}")

            for bad in ("zzzz", "2026-13-45T99:99:99Z", "2099-01-01T00:00:00Z", "1970-01-01T00:00:00Z"):
                status, body = upload(server, token, run="pinned", created_at=bad, **axes)
                code = body.get("error", {}).get("code") if isinstance(body, dict) else None
                checks.check(f"created_at {bad}: 400 bad_created_at", status == 400 and code == "bad_created_at",
                             f"{status} {body}")
            status, _, _ = server.request("GET", "/api/v1/runs/pinned")
            checks.check("... and no such run was stored", status == 404, f"{status}")
            status, body = upload(server, token, run="n2", created_at="2026-11-02T05:00:00+02:00", **axes)
            _, _, run = server.request("GET", "/api/v1/runs/n2")
            created = json.loads(run).get("created_at") if status == 201 else None
            checks.check("an offset time is stored in UTC", created == "2026-11-02T03:00:00Z", f"{status} {run[:300]}")
            _, _, slow = server.request("GET", "/api/v1/slow?platform=BMG")
            checks.check("/slow?platform= reports the newest real run", json.loads(slow).get("runs") == ["n2"],
                         f"{slow[:300]}")

            for name, query, code in (("a 5,000-character run key", dict(axes, run="k" * 5000), "bad_run"),
                                      ("a run key with a slash", dict(axes, run="a/b"), "bad_run"),
                                      ("a platform with a space", dict(axes, run="p1", platform="Arc B580"),
                                       "bad_platform")):
                status, body = upload(server, token, **query)
                got = body.get("error", {}).get("code") if isinstance(body, dict) else None
                checks.check(f"{name}: 400 {code}", status == 400 and got == code, f"{status} {str(body)[:200]}")
            # A revoked token is refused at its next request, with the server's default token cache (10 s).
            doomed = e2e.create_token(binary, db, "doomed", "upload")["token"]
            before, _, _ = server.request("GET", "/api/v1/runs", token=doomed)
            revoke = subprocess.run([binary, "token", "revoke", "--db", db, "doomed"], capture_output=True, text=True,
                                    env=e2e.clean_env(), timeout=120)
            status, body = upload(server, doomed, run="after-revoke", **axes)
            checks.check("a revoked token: 401 at its next request", before == 200 and revoke.returncode == 0 and
                         status == 401, f"{before} {revoke.returncode} {revoke.stderr[-200:]} {status} {body}")
            webhook_fields(server, bot_token, checks)
            checks.check("the server is still up", server.alive())
        finally:
            server.stop()
    return checks.finish("fields: ")


if __name__ == "__main__":
    sys.exit(main())
