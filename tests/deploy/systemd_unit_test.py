#!/usr/bin/env python3
"""deploy/perftriage.service passes `systemd-analyze verify` and scores <= 2.0 on `systemd-analyze security`.

Usage: systemd_unit_test.py CMAKE_COMMAND BUILD_DIR SOURCE_DIR

`verify` checks that ExecStart's binary exists, so the unit checked is the one `cmake --install` writes into a
temporary prefix (ExecStart rewritten to PREFIX/bin/perftriage); everything else in it is deploy/perftriage.service.
`security --offline=true --threshold=20` must exit 0 and the overall exposure it prints must be <= 2.0; a bare unit
must fail the same threshold (so the check can fail). Exits 77 (ctest: skipped) when systemd-analyze is absent.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import e2e  # noqa: E402

CMAKE = sys.argv[1]
BUILD = os.path.abspath(sys.argv[2])
SOURCE = os.path.abspath(sys.argv[3])
MAX_EXPOSURE = 2.0

checks = e2e.Checks("PASS  ")
check = checks.check


def exposure(unit):
    p = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=20", unit],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", p.stdout + p.stderr)
    return p.returncode, (float(m.group(1)) if m else None), p.stdout + p.stderr


def main(work):
    source_unit = os.path.join(SOURCE, "deploy", "perftriage.service")
    text = open(source_unit).read()
    lines = [l.strip() for l in text.splitlines() if l.strip() and not l.lstrip().startswith("#")]
    for want in ("ExecStart=/usr/local/bin/perftriage serve --config /etc/perftriage/perftriage.toml",
                 "AssertPathExists=/etc/perftriage/perftriage.toml",
                 "LoadCredential=github-token:/etc/perftriage/github-token",
                 "LoadCredential=webhook-secret:/etc/perftriage/webhook-secret",
                 "StateDirectory=perftriage", "LimitNOFILE=65536", "PrivateTmp=yes", "ProtectSystem=strict",
                 "NoNewPrivileges=yes", "MemoryDenyWriteExecute=yes"):
        check(f"the unit says {want}", want in lines)
    check("no secret in the environment", not any(l.startswith(("Environment=PERFTRIAGE_GITHUB_TOKEN",
                                                                    "Environment=PERFTRIAGE_WEBHOOK_SECRET"))
                                                  for l in lines))

    prefix = os.path.join(work, "prefix")
    inst = subprocess.run([CMAKE, "--install", BUILD, "--prefix", prefix], capture_output=True, text=True,
                          timeout=300)
    check("cmake --install succeeds", inst.returncode == 0, (inst.stdout + inst.stderr)[-2000:])
    unit = os.path.join(prefix, "lib", "systemd", "system", "perftriage.service")
    if not os.path.isfile(unit):
        check("the unit is installed", False, unit)
        return
    verify = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, text=True, timeout=120)
    out = (verify.stdout + verify.stderr).strip()
    check("systemd-analyze verify passes, silently", verify.returncode == 0 and not out, out)

    rc, level, out = exposure(unit)
    print(f"      systemd-analyze security: overall exposure {level}", flush=True)
    check(f"systemd-analyze security --threshold=20 exits 0", rc == 0, out[-3000:])
    check(f"overall exposure <= {MAX_EXPOSURE}", level is not None and level <= MAX_EXPOSURE, f"{level}")

    bare = os.path.join(work, "bare", "perftriage.service")
    os.makedirs(os.path.dirname(bare))
    with open(bare, "w") as f:
        f.write(f"[Service]\nExecStart={prefix}/bin/perftriage serve\n")
    rc, level, _ = exposure(bare)
    check("a unit without hardening fails the same threshold", rc != 0 and level is not None and level > 2.0,
          f"exit {rc}, exposure {level}")


if not shutil.which("systemd-analyze"):
    print("SKIP: systemd-analyze is not installed; the unit was not checked")
    sys.exit(77)
work = tempfile.mkdtemp(prefix="perftriage-systemd-")
try:
    main(work)
finally:
    shutil.rmtree(work, ignore_errors=True)
checks.finish("systemd_unit_test: ")
