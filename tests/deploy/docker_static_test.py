#!/usr/bin/env python3
"""Static checks of deploy/Dockerfile, .dockerignore and deploy/compose.yaml. Docker cannot run here and
hadolint is not packaged in Debian 12, so what can be checked without them is checked here; hadolint runs too when it
is on PATH.

Usage: docker_static_test.py SOURCE_DIR [PERFTRIAGE_BINARY]

- .dockerignore keeps .git, build/, var/, node_modules/ and databases out of the context;
- every COPY source exists and is not excluded by .dockerignore; no `COPY . .`;
- the build stage installs its packages before its first COPY (layer caching), and they are packages that
  scripts/install-deps.sh installs too; it builds the release preset without tests and benchmarks and installs;
- the runtime stage is debian:12-slim, runs as a non-root user, has a VOLUME for /var/lib/perftriage, EXPOSE 8080,
  a HEALTHCHECK on /healthz and CMD serve --config;
- with PERFTRIAGE_BINARY: every shared library the binary needs (readelf -d) belongs to a Debian package (dpkg -S)
  that the runtime stage installs or that debian:12-slim has (sanitizer runtimes of a dev build are ignored);
- compose.yaml has the service (config, secrets, volume) and a backup job running `perftriage backup`.
"""
import fnmatch
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import e2e  # noqa: E402

SOURCE = os.path.abspath(sys.argv[1])
BINARY = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
# Packages of debian:12-slim (Priority: required) the binary links against.
SLIM_BASE = {"libc6", "libgcc-s1", "libstdc++6", "zlib1g"}
SANITIZERS = {"libasan8", "libubsan1", "libasan6", "libubsan"}

checks = e2e.Checks("PASS  ")
check = checks.check


def read(*parts):
    with open(os.path.join(SOURCE, *parts)) as f:
        return f.read()


def dockerignore_patterns():
    out = []
    for line in read(".dockerignore").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            out.append(line.rstrip("/"))
    return out


def ignored(path, patterns):
    """Docker's rule, enough for these patterns: a path is excluded when it or a parent matches a pattern."""
    parts = path.strip("/").split("/")
    for i in range(1, len(parts) + 1):
        prefix = "/".join(parts[:i])
        for p in patterns:
            if p.startswith("!"):
                continue
            if fnmatch.fnmatch(prefix, p) or (p.startswith("**/") and (fnmatch.fnmatch(prefix, p[3:]) or
                                                                         fnmatch.fnmatch(prefix.split("/")[-1], p[3:]))):
                return True
    return False


def dockerfile_instructions():
    """(instruction, arguments) with continuation lines joined and comments dropped."""
    out, current = [], ""
    for raw in read("deploy", "Dockerfile").splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        current += line
        word, _, rest = current.partition(" ")
        out.append((word.upper(), rest.strip()))
        current = ""
    return out


def apt_packages(run_args):
    m = re.search(r"apt-get install (.*?)(?:&&|$)", run_args)
    if not m:
        return []
    return [w for w in m.group(1).split() if not w.startswith("-")]


def main():
    patterns = dockerignore_patterns()
    for must in (".git", "build", "var", "node_modules"):
        check(f".dockerignore excludes {must}/", ignored(must, patterns) and ignored(f"{must}/x/y", patterns))
    for db in ("var/perftriage.sqlite", "perftriage.sqlite", "x/y.sqlite-wal", "a.sqlite-shm"):
        check(f".dockerignore excludes {db}", ignored(db, patterns))

    instructions = dockerfile_instructions()
    stages, stage = [], None
    for word, args in instructions:
        if word == "FROM":
            stage = {"from": args, "items": []}
            stages.append(stage)
        elif stage is not None:
            stage["items"].append((word, args))
    check("two stages: debian:12 build, debian:12-slim runtime",
          len(stages) == 2 and stages[0]["from"].startswith("debian:12 ") and stages[1]["from"] == "debian:12-slim",
          [s["from"] for s in stages])
    if len(stages) != 2:
        return
    build, runtime = stages

    copies = [(w, a) for s in stages for w, a in s["items"] if w == "COPY" and "--from=" not in a]
    for _, args in copies:
        words = [w for w in shlex.split(args) if not w.startswith("--")]
        for src in words[:-1]:
            check(f"COPY {src} exists", glob.glob(os.path.join(SOURCE, src)))
            check(f"COPY {src} is in the build context", not ignored(src, patterns))
            check(f"COPY {src} is not the whole context", src not in (".", "./"))

    build_words = [w for w, _ in build["items"]]
    first_copy = build_words.index("COPY") if "COPY" in build_words else len(build_words)
    runs_before = [a for w, a in build["items"][:first_copy] if w == "RUN"]
    build_pkgs = [p for a in runs_before for p in apt_packages(a)]
    check("the build stage installs its packages before copying sources", build_pkgs, build_words)
    deps = read("scripts", "install-deps.sh")
    missing = [p for p in build_pkgs if not re.search(rf"(?<![\w.+-]){re.escape(p)}(?![\w.+-])", deps)]
    check("... packages that scripts/install-deps.sh installs too", not missing, missing)
    build_runs = " ".join(a for w, a in build["items"] if w == "RUN")
    for want in ("--preset release", "-DPERFTRIAGE_BUILD_TESTS=OFF", "-DPERFTRIAGE_BUILD_BENCH=OFF", "cmake --install"):
        check(f"the build stage runs {want}", want in build_runs)

    runtime_items = dict((w, a) for w, a in runtime["items"])  # the last of each
    runtime_pkgs = [p for w, a in runtime["items"] if w == "RUN" for p in apt_packages(a)]
    check("the runtime stage runs as a non-root user",
          runtime_items.get("USER", "root") not in ("root", "0", ""), runtime_items.get("USER"))
    check("VOLUME /var/lib/perftriage", "/var/lib/perftriage" in runtime_items.get("VOLUME", ""))
    check("EXPOSE 8080", runtime_items.get("EXPOSE", "").split() == ["8080"])
    health = runtime_items.get("HEALTHCHECK", "")
    check("HEALTHCHECK requests /healthz", "/healthz" in health and "CMD" in health, health)
    if "curl" in health:
        check("... and curl is installed for it", "curl" in runtime_pkgs, runtime_pkgs)
    cmd = runtime_items.get("ENTRYPOINT", "") + " " + runtime_items.get("CMD", "")
    check("CMD serve --config /etc/perftriage/perftriage.toml",
          '"serve", "--config", "/etc/perftriage/perftriage.toml"' in cmd, cmd)
    env = " ".join(a for w, a in runtime["items"] if w == "ENV")
    check("the container listens on 0.0.0.0:8080", "PERFTRIAGE_SERVER_LISTEN=0.0.0.0:8080" in env or
          "0.0.0.0:8080" in cmd, env)

    if BINARY and shutil.which("readelf") and shutil.which("dpkg"):
        needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]",
                            subprocess.run(["readelf", "-d", BINARY], capture_output=True, text=True).stdout)
        # Where the loader finds each one (ldd), then which package holds that file (merged /usr: try both).
        paths = dict(re.findall(r"^\s*(\S+) => (/\S+)", subprocess.run(["ldd", BINARY], capture_output=True,
                                                                          text=True).stdout, re.M))
        packages = set()
        for lib in needed:
            owners, tried = set(), []
            path = paths.get(lib, "")
            for candidate in (path, os.path.realpath(path) if path else "",
                              path.replace("/usr/lib/", "/lib/", 1) if path.startswith("/usr/lib/")
                              else path.replace("/lib/", "/usr/lib/", 1)):
                if not candidate or candidate in tried:
                    continue
                tried.append(candidate)
                p = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
                owners = {line.split(":")[0] for line in p.stdout.splitlines() if ": " in line}
                if owners:
                    break
            check(f"{lib} belongs to a Debian package", owners, f"tried {tried}")
            packages |= owners
        absent = sorted(p for p in packages - SLIM_BASE - SANITIZERS if p not in runtime_pkgs)
        print(f"      runtime libraries of {os.path.basename(BINARY)}: {sorted(packages)}", flush=True)
        check("every library the binary links is installed in the runtime stage", not absent, absent)
    else:
        print("      (no binary, readelf or dpkg: the runtime library list was not derived)", flush=True)

    compose_text = read("deploy", "compose.yaml")
    try:
        import yaml  # python3-yaml, where installed
        compose = yaml.safe_load(compose_text)
        services = compose.get("services", {})
        check("compose: a perftriage service and a backup job", {"perftriage", "backup"} <= set(services),
              list(services))
        svc = services.get("perftriage", {})
        check("compose: the database volume is mounted at /var/lib/perftriage",
              any(str(v).endswith(":/var/lib/perftriage") for v in svc.get("volumes", [])), svc.get("volumes"))
        check("compose: the config is mounted", any("/etc/perftriage/perftriage.toml" in str(v)
                                                     for v in svc.get("volumes", [])))
        check("compose: the secrets github-token and webhook-secret",
              set(svc.get("secrets", [])) == {"github-token", "webhook-secret"} and
              set(compose.get("secrets", {})) == {"github-token", "webhook-secret"})
        backup = " ".join(map(str, services.get("backup", {}).get("command", [])))
    except ImportError:
        print("      (no python3-yaml: compose.yaml checked as text)", flush=True)
        backup = compose_text
    check("compose: the backup job runs perftriage backup into /backups with the date",
          "perftriage backup --db /var/lib/perftriage/perftriage.sqlite --to /backups/perftriage-$$(date +%F).sqlite"
          in backup, backup[:300])
    check("compose: CREDENTIALS_DIRECTORY of the image is where compose puts secrets", "CREDENTIALS_DIRECTORY=/run/secrets"
          in env, env)

    if shutil.which("hadolint"):
        p = subprocess.run(["hadolint", os.path.join(SOURCE, "deploy", "Dockerfile")], capture_output=True, text=True)
        check("hadolint deploy/Dockerfile", p.returncode == 0, p.stdout + p.stderr)
    else:
        print("      NOTE: hadolint is not installed (not packaged in Debian 12); the Dockerfile was not linted",
              flush=True)


main()
checks.finish("docker_static_test: ")
