#!/usr/bin/env python3
"""Writes the committed seed corpora fuzz/corpus/<target>/ from tests/fixtures and hand-written inputs.

Run from anywhere: python3 fuzz/make_seeds.py. It rewrites every fuzz/corpus/<target>/ it knows (deterministic
output). Harnesses that take several inputs read them with libFuzzer's FuzzedDataProvider: strings from the front
(ConsumeRandomLengthString: a backslash followed by another character ends the string, "\\\\" is one backslash),
numbers and picks from the END, one byte each (the first consumed is the last byte). fdp_string() and the
`tail` bytes below follow that encoding so the seeds mean what they say.
"""
import gzip
import io
import json
import pathlib
import shutil
import tarfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
OUT = ROOT / "fuzz" / "corpus"
MAX_SEED = 64 * 1024


def fdp_string(s: bytes) -> bytes:
    return s.replace(b"\\", b"\\\\") + b"\\;"


def tail(*picks: int) -> bytes:
    """Bytes for the FuzzedDataProvider picks, given in the order the harness consumes them."""
    return bytes(reversed(picks))


class Corpus:
    def __init__(self, target):
        self.dir = OUT / target
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)

    def add(self, name, data):
        if isinstance(data, str):
            data = data.encode()
        if len(data) > MAX_SEED:
            return
        (self.dir / name).write_bytes(data)


def fixtures(pattern):
    return sorted(p for p in FIX.glob(pattern) if p.is_file() and p.stat().st_size <= MAX_SEED)


# ---------------------------------------------------------------- ingest
result_csvs = [p for p in fixtures("ingest/*.csv") if not p.name.startswith("ref_")]
result_csvs += fixtures("seed_bmg_2.12/**/*.csv") + fixtures("compare/**/*.csv")
reference_csvs = fixtures("ingest/ref_*.csv")

c = Corpus("benchmark_csv")
for i, p in enumerate(result_csvs):
    c.add(f"{i:02d}_{p.name}", p.read_bytes())
c.add("hand_quoted.csv", 'dev,name,batch_size,speedup,abs_latency\nxpu,"a,""b""",1,"0.5",2\n')
c.add("hand_header_only.csv", "dev,name,batch_size,accuracy\n")
c.add("hand_bom_crlf.csv", "\ufeffdev,name,batch_size,speedup\r\nxpu,m,1,0.9\r\n\r\n# comment\r\n")
c.add("small_limits.csv", result_csvs[0].read_bytes() + tail(1))  # last byte odd: small CsvLimits
c.add("hand_short_row.csv", "dev,name,batch_size,speedup,abs_latency,compilation_latency\nxpu,m,0\nxpu,n,4,nan,inf,-1e308\n")

c = Corpus("reference_csv")
for i, p in enumerate(reference_csvs):
    c.add(f"{i:02d}_{p.name}", p.read_bytes() + tail(i % 5, i % 3, i % 4))
c.add("hand_accuracy.csv", "name,accuracy,graph_breaks\nm,pass,0\nn,fail_accuracy,\n" + "\x01\x01\x01")

c = Corpus("artifact_path")
paths = [
    "huggingface/bfloat16/inference/performance/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv",
    "inductor_log/huggingface/amp_bf16/inductor_huggingface_amp_bf16_training_xpu_accuracy.csv",
    "inductor_cpp_wrapper_max_autotune_torchbench_amp_bf16_inference_cpu_performance.csv",
    "inductor_with_cudagraphs_timm_models_bfloat16_inference_cuda_accuracy.csv",
    "benchmarks/dynamo/ci_expected_accuracy/dynamic_inductor_timm_training.csv",
    "benchmarks/dynamo/expected_ci_speedup_inductor_torchbench_cpu.csv",
    "ci_expected_accuracy/inference_huggingface0.csv",
    "torch-xpu-ops/.github/ci_expected_accuracy/inductor_torchbench_training.csv",
    "a/../../evil.csv", "./x//y/timm/fp32/train/perf.csv", "amp-bf16", "amp_bfloat16", "fp32", "TIMM", "",
]
for i, p in enumerate(paths):
    c.add(f"{i:02d}", p)


def csv_members():
    return [(f"{p.parent.name}/{p.name}", p.read_bytes()) for p in result_csvs[:6]] + \
           [(f"ci_expected_accuracy/{p.name}", p.read_bytes()) for p in reference_csvs[:2]]


def make_zip(members, extra=()):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
        for name, data in extra:
            z.writestr(name, data)
    return b.getvalue()


def make_tar(members, mode, links=False):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode=mode, format=tarfile.USTAR_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            t.addfile(info, io.BytesIO(data))
        if links:
            d = tarfile.TarInfo("dir")
            d.type = tarfile.DIRTYPE
            t.addfile(d)
            s = tarfile.TarInfo("link.csv")
            s.type = tarfile.SYMTYPE
            s.linkname = "/etc/passwd"
            t.addfile(s)
    return b.getvalue()


c = Corpus("archive")
m = csv_members()
c.add("members.zip", make_zip(m))
c.add("members.tar", make_tar(m[:3], "w"))
c.add("members.tar.gz", gzip.compress(make_tar(m, "w"), mtime=0))
c.add("links.tar", make_tar(m[:1], "w", links=True))
c.add("dotdot.zip", make_zip([("a/../../evil.csv", b"dev,name\n"), ("./ok.csv", m[0][1])]))
c.add("no_csv.zip", make_zip([("readme.txt", b"hello")]))
c.add("bare.csv.gz", gzip.compress(m[0][1], mtime=0))
c.add("empty.zip", make_zip([]))

c = Corpus("multipart")
_add = c.add
c.add = lambda name, data: _add(name, data + tail(8))  # max_parts = 8
ct = b"multipart/form-data; boundary=XyZ"
csv0 = result_csvs[0].read_bytes()
body = (b"--XyZ\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n"
        b"{\"run\":\"r1\",\"platform\":\"BMG\"}\r\n"
        b"--XyZ\r\nContent-Disposition: form-data; name=\"huggingface/bfloat16/inference/performance/a.csv\"; "
        b"filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\n" + csv0 + b"\r\n--XyZ--\r\n")
c.add("two_parts", fdp_string(ct) + body)
c.add("quoted_boundary", fdp_string(b'multipart/form-data; charset=utf-8; boundary="a;b\\"c"') +
      b'--a;b"c\nContent-Disposition: form-data; name="f"; filename="x\\".csv"\n\nbody\n--a;b"c--\n')
c.add("binary_part", fdp_string(b"multipart/form-data; boundary=b") +
      b"preamble\r\n--b\r\nContent-Disposition: form-data; name=\"z\"; filename=\"t.zip\"\r\n\r\n"
      b"PK\x03\x04\x00\x00\r\n--not-the-boundary\n\xff\x00\r\n--b--")
c.add("not_multipart", fdp_string(b"text/csv") + b"dev,name\n")
c.add("no_close", fdp_string(b"multipart/form-data; boundary=b") + b"--b\r\nContent-Disposition: form-data\r\n\r\nx")

# ---------------------------------------------------------------- analyzers/trace
traces = [p for p in fixtures("trace/*") if p.suffix in (".json", ".gz", ".log", ".txt")]
c = Corpus("trace")
for p in traces:
    c.add(p.name, p.read_bytes())
c.add("hand_bom_array.json", '\ufeff[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":2,"args":{"stream":7}}]')
c.add("hand_nested_args.json", '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1e300,"dur":-1,'
      '"args":{"a":[[[[{}]]]],"correlation":18446744073709551615}}],"schemaVersion":1,"deviceProperties":[{"name":"x"}]}')
c.add("hand_two_keys.json", '{"a":{"traceEvents":[]},"traceEvents":[{"ph":"X","name":"\\u0000","ts":0,"dur":0}]}')

c = Corpus("trace_gzip")
for p in traces:
    if p.suffix != ".gz" and p.stat().st_size <= 32 * 1024:
        c.add(p.name, p.read_bytes())

c = Corpus("compile_log")
for p in traces:
    if p.suffix in (".log", ".txt"):
        c.add(p.name, p.read_bytes())
c.add("hand_glog.log",
      "V0820 01:43:43.388000 8 torch/_dynamo/symbolic_convert.py:560] [0/0] Graph break: from user code at:\n"
      "  File \"/work/m.py\", line 12, in forward\n"
      "W0820 01:43:44.000000 8 torch/_dynamo/convert_frame.py:1] torch._dynamo hit config.recompile_limit (8)\n"
      "V0820 01:43:45.000000 8 torch/_dynamo/guards.py:2] [__recompiles] Recompiling function forward\n"
      "    triggered by the following guard failure(s):\n    - 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8\n")
c.add("hand_explain.txt", "Graph Count: 2\nGraph Break Count: 1\nOp Count: 7\nBreak Reasons:\n"
      "  Break Reason 1:\n    Reason: call_function BuiltinVariable(print)\n    User Stack:\n"
      "      <FrameSummary file /a.py, line 3 in f>\nOps per Graph:\n")

# ---------------------------------------------------------------- analyzers/labeler
expected = json.loads((FIX / "labeler" / "eval" / "expected.json").read_text())
c = Corpus("labeler")
for i, case in enumerate(expected):
    body = (FIX / "labeler" / "eval" / case["file"]).read_bytes()
    labels = case.get("labels", [])[:2] if i % 3 == 0 else []
    seed = fdp_string(case["title"].encode()) + b"".join(fdp_string(l.encode()) for l in labels) + body
    c.add(f"{i:02d}_{case['file']}", seed + tail(i % 2, len(labels), i % 2))
for p in fixtures("labeler/seed_3761_body.*"):
    c.add(p.name, fdp_string(b"[E2E][BMG] 2.12 release: models slower than eager") + p.read_bytes() + tail(0, 0, 1))

c = Corpus("taxonomy")
for p in sorted((ROOT / "analyzers" / "taxonomies").glob("*.json")):
    c.add(p.name, p.read_bytes())
c.add("hand_minimal.json", '{"name":"t","repo":"o/r","axes":[{"name":"hw","values":{"BMG":"hw: BMG"}}]}')
c.add("hand_weird.json", '{"name":"","axes":[{"name":"module","multi":true,"values":{"*":""}}],'
      '"legacy":{"":"x"},"modules":[{"key":"k","patterns":["=",""]}],"implies":[{"when":[],"add":""}]}')

c = Corpus("label_model")
c.add("hand_small.json", json.dumps({
    "format": "perftriage-label-model/1", "taxonomy": "torch-xpu-ops", "repo": "intel/torch-xpu-ops",
    "threshold": 0.5, "features": {"bigrams": True, "max_body_tokens": 3000}, "trained_issues": 2,
    "source": "hand", "trained_on": [2, 1],
    "labels": [{"label": "hw: BMG", "axis": "hw", "positives": 1, "bias": -1.5,
                "weights": {"b580": 2.5, "title:bmg": 1.25, "on b580": 0.5, "pvc": -1.0}},
               {"label": "performance", "axis": "symptom", "positives": 1, "bias": -2.0,
                "weights": {"slower": 1.5, "speedup": 1.0}}]}))
c.add("hand_extremes.json", json.dumps({
    "format": "perftriage-label-model/1", "threshold": 1.0,
    "labels": [{"label": "x", "axis": "implied", "bias": 1000, "weights": {"b580": -1000, "": 999.9}}]}))
c.add("hand_bad_weight.json", '{"format":"perftriage-label-model/1","labels":[{"label":"x","axis":"hw",'
      '"bias":0,"weights":{"a":1e308}}]}')

# ---------------------------------------------------------------- server
def issue_payload(action, title, body, labels=(), sender="alice", comment=None, label=None):
    p = {"action": action, "repository": {"full_name": "intel/torch-xpu-ops"}, "sender": {"login": sender},
         "issue": {"number": 3761, "title": title, "body": body, "labels": [{"name": l} for l in labels]}}
    if comment is not None:
        p["comment"] = {"body": comment}
    if label is not None:
        p["label"] = {"name": label}
    return json.dumps(p).encode()


seed_body = (FIX / "labeler" / "eval" / "01_markdown_speedup_table.md").read_text()
payloads = [
    ("issues", issue_payload("opened", expected[0]["title"], seed_body, ["bug"])),
    ("issues", issue_payload("edited", "[PVC] crash", None or "", ["hw: PVC", "module: inductor"])),
    ("issue_comment", issue_payload("created", "t", seed_body, comment="thanks\n  /label  \n")),
    ("issues", issue_payload("unlabeled", "t", "", label="hw: BMG")),
    ("issues", issue_payload("labeled", "t", "", sender="perftriage[bot]", label="x")),
    ("ping", b'{"zen":"Keep it logically awesome.","hook_id":1}'),
]
events = ["issues", "issue_comment", "ping", "pull_request", "push", ""]
c = Corpus("webhook")
for i, (ev, payload) in enumerate(payloads):
    c.add(f"{i:02d}_{ev}", fdp_string(b"s3cret") + payload + tail(events.index(ev), i % 3, i % 2))

c = Corpus("query")
for i, q in enumerate(["run=bmg-release-2.12&platform=BMG&threshold=0.9&limit=10&offset=0",
                       "flag=slow&model=a%2Fb+c&suite=timm&&=x&k", "tags=a,b&replace=true&path=%2e%2e%2Fx%",
                       "%zz%4%41%e2%82%ac+%", "format=md&findings=1"]):
    c.add(f"{i:02d}", q)

methods = ["GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS", "get", ""]
c = Corpus("router")
for i, (m, t) in enumerate([
        ("GET", "/api/v1/runs/bmg-release-2.12?platform=BMG"),
        ("POST", "/api/v1/runs/k/cases/huggingface/bfloat16/inference/Bert%2FX/artifacts?name=t.json.gz&role=compiled"),
        ("HEAD", "/api/v1/artifacts/12/raw"), ("DELETE", "/api/v1/healthz"), ("GET", "/api/v1/boom/%ff"),
        ("GET", "//api//v1/cases/timm/m/history?dtype=amp_bf16"), ("PUT", "/webhooks/github"), ("GET", "/index.html")]):
    c.add(f"{i:02d}", t.encode() + tail(methods.index(m)))

c = Corpus("bounded_json")
for i, (_, payload) in enumerate(payloads[:3]):
    c.add(f"webhook_{i}", payload + tail(64, 1))
c.add("label_request", json.dumps({"title": expected[1]["title"], "body": "x", "labels": ["bug"],
                                   "taxonomy": "pytorch"}).encode() + tail(64, 1))
c.add("deep", b"[" * 70 + b"]" * 70 + tail(64, 1))
c.add("strings", b'{"a\\"[[[":"]]]\\\\","b":[1,2.5e-3,true,null,"\\u00e9"]}' + tail(2, 1))
c.add("tiny_limit", b'{"k":[{},[]]}' + tail(1, 0, 8, 0))
