#!/usr/bin/env python3
"""gen_trace.py OUT [MB] — writes a synthetic Kineto trace of about MB megabytes (default 1024).

The events mirror a real CUDA trace: cpu_op / cuda_runtime / kernel / ac2g flow events with the usual args, long
templated kernel names, flash attention, gemms, triton kernels. Prints the number of device kernels written.
"""
import sys

out = sys.argv[1]
target = int(sys.argv[2] if len(sys.argv) > 2 else 1024) * 1000 * 1000

KERNELS = [
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, true, false>(pytorch_flash::Flash_fwd_params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
    "triton_per_fused__safe_softmax_add_2",
    "triton_poi_fused_add_gelu_7",
]
OPS = ["aten::linear", "aten::scaled_dot_product_attention", "aten::add", "aten::softmax", "aten::gelu"]

head = ('{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", '
        '"totalGlobalMem": 85045526528}],\n  "traceEvents": [\n')
tail = ('\n  ],\n  "traceName": "synthetic", "displayTimeUnit": "ms", "baseTimeNanoseconds": 1700000000000000000\n}\n')

written = 0
kernels = 0
ts = 1_000_000.0
corr = 1
first = True
with open(out, "w") as f:
    f.write(head)
    written += len(head)
    batch = []
    while written < target:
        i = corr % len(KERNELS)
        op = OPS[corr % len(OPS)]
        k = KERNELS[i]
        ext = corr + 7
        s = (
            f'{{"ph": "X", "cat": "cpu_op", "name": "{op}", "pid": 1234, "tid": 1234, "ts": {ts:.3f}, "dur": 12.5, '
            f'"args": {{"External id": {ext}, "Record function id": 0, "Sequence number": {corr}, "Ev Idx": {corr}}}}},\n'
            f'  {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1234, "tid": 1234, '
            f'"ts": {ts + 2:.3f}, "dur": 4.2, "args": {{"External id": {ext}, "cbid": 211, "correlation": {corr}}}}},\n'
            f'  {{"ph": "s", "id": {corr}, "pid": 1234, "tid": 1234, "ts": {ts + 2:.3f}, "cat": "ac2g", "name": "ac2g"}},\n'
            f'  {{"ph": "X", "cat": "kernel", "name": "{k}", "pid": 0, "tid": 7, "ts": {ts + 8:.3f}, "dur": 9.75, '
            f'"args": {{"External id": {ext}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {corr}, '
            f'"registers per thread": 32, "shared memory": 0, "blocks per SM": 1.5, "warps per SM": 6.0, '
            f'"grid": [128, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 25}}}},\n'
            f'  {{"ph": "f", "id": {corr}, "pid": 0, "tid": 7, "ts": {ts + 8:.3f}, "cat": "ac2g", "name": "ac2g", "bp": "e"}}'
        )
        batch.append(s)
        written += len(s) + 4
        kernels += 1
        corr += 1
        ts += 11.0
        if len(batch) >= 10000:
            f.write(("" if first else ",\n  ") + ",\n  ".join(batch))
            first = False
            batch = []
    if batch:
        f.write(("" if first else ",\n  ") + ",\n  ".join(batch))
    f.write(tail)
print(kernels)
