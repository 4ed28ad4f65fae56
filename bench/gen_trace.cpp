// gen_trace OUT [MB] — writes a synthetic Kineto trace of about MB megabytes (default 1024) for classify_bench.sh.
// The events mirror a real CUDA trace (server/demo/trace_builder.hpp): cpu_op / cuda_runtime / kernel / ac2g flow
// events with the usual kernel args, long templated kernel names, flash attention, gemms, triton kernels. Prints the
// number of device kernels written.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "server/demo/trace_builder.hpp"

namespace {

constexpr std::array<const char*, 5> kKernels{
    "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
    "5x_cublas",
    "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, false, "
    "cutlass::bfloat16_t, pytorch_flash::Flash_kernel_traits<64, 128, 128, 4, cutlass::bfloat16_t> >, false, false, "
    "false, false, true, true, false>(pytorch_flash::Flash_fwd_params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)",
    "triton_per_fused__safe_softmax_add_2",
    "triton_poi_fused_add_gelu_7",
};
constexpr std::array<const char*, 5> kOps{"aten::linear", "aten::scaled_dot_product_attention", "aten::add",
                                          "aten::softmax", "aten::gelu"};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gen_trace OUT [MB]\n";
    return 2;
  }
  const std::uint64_t target = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1024) * 1000 * 1000;
  std::ofstream out(argv[1], std::ios::binary);
  perftriage::server::demo::TraceBuilder t("NVIDIA H100 80GB HBM3", false, "synthetic", 85045526528LL);
  t.kernel_args({{"queued", 0},
                 {"context", 1},
                 {"registers per thread", 32},
                 {"shared memory", 0},
                 {"blocks per SM", 1.5},
                 {"warps per SM", 6.0},
                 {"est. achieved occupancy %", 25}});
  out << t.head();
  std::uint64_t written = 0;
  for (std::size_t i = 0; written < target; ++i) {
    t.cpu_op(kOps[i % kOps.size()], 12.5);
    t.kernel(kKernels[i % kKernels.size()], 9.75, 4.2, 4.8);
    if (i % 1000 == 999) {  // written in batches; the size stops the loop at a batch's end
      const std::string events = t.take_events();
      out << events;
      written += events.size();
    }
  }
  out << t.take_events() << t.tail();
  if (!out) {
    std::cerr << "gen_trace: cannot write " << argv[1] << "\n";
    return 1;
  }
  std::cout << t.kernels() << "\n";
  return 0;
}
