#!/usr/bin/env python3
"""capture_traces.py [--device xpu|cuda] OUT_DIR — record real traces and compile logs of the three slow-case causes.

Needs: an Intel GPU with PyTorch's XPU build (--device xpu, the default when torch.xpu is available) or an NVIDIA GPU
with CUDA (--device cuda), PyTorch >= 2.4 (2.5 for XPU profiling), transformers. Downloads nothing: every model is
random-initialised from a config. Writes into OUT_DIR (gzipped, each kept <= 2 MB by trimming the profiled steps):

  bert_sdpa_math_eager.json.gz       BERT-style encoder, SDPA forced to the math backend, eager      -> attention math_fallback
  bert_sdpa_flash_eager.json.gz      same, SDPA forced to flash, eager                                 -> attention fused
  bert_sdpa_math_compiled.json.gz    math backend under torch.compile (triton *_safe_softmax_* kernels)-> attention math_fallback
  bert_sdpa_flash_compiled.json.gz   flash under torch.compile (extern flash kernel survives)          -> attention fused
  tiny_mlp_host_bound.json.gz        tiny MLP at batch 1: device mostly idle                           -> host_bound yes
  graph_breaks_torch_logs.log.gz     TORCH_LOGS=graph_breaks,recompiles output of .item() + autograd.grad -> graph_breaks yes
  graph_breaks_torch_trace.log.gz    TORCH_TRACE structured log of the same run (tlparse format)       -> graph_breaks yes
  EXPECTED.json                      the verdicts each file must get from `perftriage classify --json`

The graph-break part runs in a child process so TORCH_LOGS / TORCH_TRACE are set before torch is imported.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

MAX_BYTES = 2 * 1024 * 1024
DEVICE = "xpu"  # set by main(): every tensor, synchronize and profiler activity follows it


def accelerator():
    """torch.xpu or torch.cuda: the module with synchronize() and get_device_name() for DEVICE."""
    import torch

    return getattr(torch, DEVICE)


def activities():
    from torch.profiler import ProfilerActivity

    return [ProfilerActivity.CPU, ProfilerActivity.XPU if DEVICE == "xpu" else ProfilerActivity.CUDA]

EXPECTED = {
    "bert_sdpa_math_eager.json.gz": {"attention": "math_fallback"},
    "bert_sdpa_flash_eager.json.gz": {"attention": "fused"},
    "bert_sdpa_math_compiled.json.gz": {"attention": "math_fallback"},
    "bert_sdpa_flash_compiled.json.gz": {"attention": "fused"},
    "tiny_mlp_host_bound.json.gz": {"host_bound": "yes", "attention": "none"},
    "graph_breaks_torch_logs.log.gz": {"graph_breaks": "yes"},
    "graph_breaks_torch_trace.log.gz": {"graph_breaks": "yes"},
}


def gzip_file(src, dst):
    with open(src, "rb") as f, open(dst, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as g:
        shutil.copyfileobj(f, g)
    return os.path.getsize(dst)


def profile(fn, steps, path, warmup=3):
    """Runs fn warmup times, then profiles `steps` calls (CPU + the device) and writes a gzipped Chrome trace."""
    from torch.profiler import profile as tprofile, schedule

    for _ in range(warmup):
        fn()
    accelerator().synchronize()
    with tprofile(activities=activities(), record_shapes=False,
                  schedule=schedule(wait=0, warmup=1, active=steps), with_stack=False) as prof:
        for _ in range(steps + 1):
            fn()
            accelerator().synchronize()
            prof.step()
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(raw)
        size = gzip_file(raw, path)
    if size > MAX_BYTES and steps > 1:
        return profile(fn, max(1, steps // 2), path, warmup=0)
    print(f"wrote {path} ({size} bytes, {steps} steps)")
    return size


def bert_traces(out):
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from transformers import BertConfig, BertModel

    torch.manual_seed(0)
    cfg = BertConfig(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, intermediate_size=1024,
                     max_position_embeddings=512, attn_implementation="sdpa")
    model = BertModel(cfg).to(DEVICE).half().eval()
    ids = torch.randint(0, cfg.vocab_size, (8, 128), device=DEVICE)

    def run(m):
        with torch.no_grad():
            return m(input_ids=ids).last_hidden_state

    for backend, tag in ((SDPBackend.MATH, "math"), (SDPBackend.FLASH_ATTENTION, "flash")):
        with sdpa_kernel([backend]):
            profile(lambda: run(model), 2, os.path.join(out, f"bert_sdpa_{tag}_eager.json.gz"))
            torch._dynamo.reset()
            compiled = torch.compile(model)
            profile(lambda: run(compiled), 2, os.path.join(out, f"bert_sdpa_{tag}_compiled.json.gz"))
            torch._dynamo.reset()


def tiny_mlp_trace(out):
    import torch

    torch.manual_seed(0)
    mlp = torch.nn.Sequential(*[m for _ in range(8) for m in (torch.nn.Linear(32, 32), torch.nn.ReLU())]).to(DEVICE)
    x = torch.randn(1, 32, device=DEVICE)

    def step():
        with torch.no_grad():
            y = mlp(x)
            return y.sum().item()  # a host sync per step, as small-batch inference loops do

    profile(step, 10, os.path.join(out, "tiny_mlp_host_bound.json.gz"))


GRAPH_BREAK_CHILD = r'''
import sys
import torch

DEVICE = sys.argv[1]

def f(x):
    y = (x * 2).sin()
    s = y.sum().item()            # Tensor.item(): graph break (capture_scalar_outputs=False)
    x.requires_grad_(True)
    z = (x * s).pow(2).sum()
    g, = torch.autograd.grad(z, x)  # torch.autograd.grad: graph break
    return g + 1

cf = torch.compile(f)
for n in (4, 8, 16, 32):           # changing shapes: recompiles
    cf(torch.randn(n, device=DEVICE))
print("done")
'''


def graph_break_logs(out):
    with tempfile.TemporaryDirectory() as tmp:
        trace_dir = os.path.join(tmp, "torch_trace")
        env = dict(os.environ, TORCH_LOGS="graph_breaks,recompiles", TORCH_TRACE=trace_dir)
        env.pop("TORCHDYNAMO_DISABLE", None)
        proc = subprocess.run([sys.executable, "-c", GRAPH_BREAK_CHILD, DEVICE], env=env, capture_output=True, text=True,
                              timeout=900)
        console = os.path.join(tmp, "console.log")
        with open(console, "w") as f:
            f.write(proc.stdout)
            f.write(proc.stderr)  # TORCH_LOGS writes to stderr
        if proc.returncode != 0:
            print(proc.stderr[-4000:], file=sys.stderr)
            raise SystemExit("graph-break child failed")
        gzip_file(console, os.path.join(out, "graph_breaks_torch_logs.log.gz"))
        logs = sorted(os.path.join(trace_dir, n) for n in os.listdir(trace_dir))
        if not logs:
            raise SystemExit("TORCH_TRACE wrote no log")
        biggest = max(logs, key=os.path.getsize)  # one file per process / rank
        gzip_file(biggest, os.path.join(out, "graph_breaks_torch_trace.log.gz"))
        print("wrote graph-break logs")


def default_device():
    import torch

    return "xpu" if hasattr(torch, "xpu") and torch.xpu.is_available() else "cuda"


def main():
    global DEVICE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["xpu", "cuda"], default=None,
                        help="the accelerator (default: xpu when torch.xpu is available, else cuda)")
    parser.add_argument("out_dir")
    args = parser.parse_args()
    out = os.path.abspath(args.out_dir)
    os.makedirs(out, exist_ok=True)
    import torch

    DEVICE = args.device or default_device()
    if not hasattr(torch, DEVICE) or not accelerator().is_available():
        raise SystemExit(f"--device {DEVICE}: no such device available to this PyTorch build")
    major, minor = (int(v) for v in torch.__version__.split(".")[:2])
    if (major, minor) < ((2, 5) if DEVICE == "xpu" else (2, 4)):
        raise SystemExit(f"needs PyTorch >= {'2.5' if DEVICE == 'xpu' else '2.4'} on {DEVICE} (found {torch.__version__})")
    print(f"torch {torch.__version__} on {accelerator().get_device_name(0)} ({DEVICE})")
    bert_traces(out)
    tiny_mlp_trace(out)
    graph_break_logs(out)
    for name in EXPECTED:
        size = os.path.getsize(os.path.join(out, name))
        if size > MAX_BYTES:
            print(f"warning: {name} is {size} bytes (> 2 MB)", file=sys.stderr)
    with open(os.path.join(out, "EXPECTED.json"), "w") as f:
        json.dump({"device": accelerator().get_device_name(0), "torch": torch.__version__, "verdicts": EXPECTED}, f,
                  indent=2)
    print("check with: perftriage classify --json FILE (verdicts in EXPECTED.json)")


if __name__ == "__main__":
    main()
