#pragma once
// Device-kernel name -> class and group label, and ATen op names that decide attention.
#include <cstdint>
#include <string>
#include <string_view>

namespace perftriage::analyzers::trace {

enum class KernelClass : std::uint8_t { gemm, attention, softmax, triton, memcpy, memset, collective, conv, other };
inline constexpr int kKernelClassCount = 9;
[[nodiscard]] std::string_view to_string(KernelClass c);

struct KernelInfo {
  KernelClass cls = KernelClass::other;
  std::string group;         // evidence label: "gemm", "flash_fwd", "micro_sdpa", "triton safe_softmax_add", "softmax"
  std::string short_name;    // readable name: template arguments and namespaces stripped
  std::string triton_kind;   // poi/red/per/tem/for/spl/... for triton kernels
  bool log_softmax = false;  // softmax kernel that is a log_softmax (not attention)
  bool softmax_backward = false;
  bool safe_softmax = false;    // triton kernel fusing aten::_safe_softmax (SDPA math decomposition)
  bool reference_sdpa = false;  // oneDNN ref_sdpa: "fused" op but the slow reference kernel
};

[[nodiscard]] KernelInfo classify_kernel_name(std::string_view name);
// For device activities recorded by category (gpu_memcpy / gpu_memset).
[[nodiscard]] KernelInfo memcpy_info(std::string_view name);
[[nodiscard]] KernelInfo memset_info(std::string_view name);

// ATen ops around attention, as they appear in cpu_op names.
enum class AttentionOp : std::uint8_t { none, sdpa, fused, math, safe_softmax, softmax };
[[nodiscard]] AttentionOp classify_attention_op(std::string_view op_name);

}  // namespace perftriage::analyzers::trace
