#include "analyzers/trace/kernel_names.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "common/strings.hpp"

namespace perftriage::analyzers::trace {

std::string_view to_string(KernelClass c) {
  switch (c) {
    case KernelClass::gemm: return "gemm";
    case KernelClass::attention: return "attention";
    case KernelClass::softmax: return "softmax";
    case KernelClass::triton: return "triton";
    case KernelClass::memcpy: return "memcpy";
    case KernelClass::memset: return "memset";
    case KernelClass::collective: return "collective";
    case KernelClass::conv: return "conv";
    case KernelClass::other: return "other";
  }
  return "other";
}

namespace {

bool has(std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; }

// "void at::native::(anonymous namespace)::foo_kernel<128, 4, ...>(args)" -> "foo_kernel".
std::string strip_cxx(std::string_view name) {
  std::string_view s = name;
  if (s.starts_with("void ")) s.remove_prefix(5);
  // cut at the first '<' or '(' at depth 0
  std::size_t end = s.size();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') {
      // "(anonymous namespace)" is part of the qualified name
      if (s.substr(i, 21) == "(anonymous namespace)") {
        i += 20;
        continue;
      }
      end = i;
      break;
    }
  }
  s = s.substr(0, end);
  if (auto c = s.rfind("::"); c != std::string_view::npos) s.remove_prefix(c + 2);
  std::string out(s.substr(0, 120));
  if (out.empty()) out = std::string(name.substr(0, 60));
  return out;
}

// Template argument `index` (0-based) of the first template argument list, trimmed.
std::string_view template_arg(std::string_view name, int index) {
  const auto open = name.find('<');
  if (open == std::string_view::npos) return {};
  int depth = 0;
  int arg = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open + 1; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') {
      ++depth;
    } else if (c == '>' || c == ')') {
      if (depth == 0) return arg == index ? trim(name.substr(start, i - start), " ") : std::string_view{};
      --depth;
    } else if (c == ',' && depth == 0) {
      if (arg == index) return trim(name.substr(start, i - start), " ");
      ++arg;
      start = i + 1;
    }
  }
  return {};
}

KernelInfo triton_info(std::string_view name) {
  KernelInfo k;
  k.cls = KernelClass::triton;
  std::string_view rest = name.substr(7);  // after "triton_"
  const auto us = rest.find('_');
  k.triton_kind = std::string(rest.substr(0, us));
  std::string_view label = us == std::string_view::npos ? std::string_view{} : rest.substr(us + 1);
  if (label.starts_with("fused_")) label.remove_prefix(6);
  // trailing "_<n>" kernel index
  if (auto last = label.rfind('_');
      last != std::string_view::npos && last + 1 < label.size() &&
      std::all_of(label.begin() + static_cast<std::ptrdiff_t>(last) + 1, label.end(),
                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
    label = label.substr(0, last);
  }
  while (!label.empty() && label.front() == '_') label.remove_prefix(1);
  if (label.empty()) label = k.triton_kind;
  k.group = "triton " + std::string(label.substr(0, 80));
  k.short_name = std::string(name.substr(0, 120));
  k.safe_softmax = has(label, "safe_softmax");
  return k;
}

}  // namespace

KernelInfo memcpy_info(std::string_view name) {
  KernelInfo k;
  k.cls = KernelClass::memcpy;
  k.group = "memcpy";
  k.short_name = std::string(name.substr(0, 80));
  return k;
}

KernelInfo memset_info(std::string_view name) {
  KernelInfo k;
  k.cls = KernelClass::memset;
  k.group = "memset";
  k.short_name = std::string(name.substr(0, 80));
  return k;
}

KernelInfo classify_kernel_name(std::string_view name) {
  if (name.starts_with("triton_")) return triton_info(name);
  KernelInfo k;
  k.short_name = strip_cxx(name);
  // Only the first 4 KiB are lowered: a name that long is a template dump, and its head decides.
  const std::string l = lower(name.substr(0, 4096));
  const std::string ls = lower(std::string_view(k.short_name).substr(0, 4096));

  // fused attention families (checked before gemm: cutlass fmha names contain "gemm"-like parts)
  struct Family {
    std::string_view needle;
    std::string_view group;
  };
  static constexpr std::array<Family, 13> kAttention{{
      {"flash_fwd_splitkv", "flash_fwd_splitkv"},
      {"flash_fwd", "flash_fwd"},
      {"flash_bwd", "flash_bwd"},
      {"fmha_cutlassf", "fmha_cutlassF"},
      {"fmha_cutlassb", "fmha_cutlassB"},
      {"cudnn_generated_fort_native_sdpa", "cudnn_sdpa"},
      {"micro_sdpa", "micro_sdpa"},
      {"ref_sdpa", "ref_sdpa"},
      {"attn_fwd", "attn_fwd"},
      {"attn_bwd", "attn_bwd"},
      {"fmha", "fmha"},
      {"efficient_attention", "efficient_attention"},
      {"flash_attn", "flash_attn"},
  }};
  for (const auto& f : kAttention) {
    if (has(l, f.needle)) {
      k.cls = KernelClass::attention;
      k.group = std::string(f.group);
      k.reference_sdpa = f.group == "ref_sdpa";
      return k;
    }
  }
  if (l.starts_with("nccl") || has(l, "ncclkernel") || has(l, "nccldevkernel") || l.starts_with("rccl") ||
      has(l, "allreduce") || has(l, "all_reduce") || has(l, "allgather") || has(l, "all_gather") ||
      has(l, "reducescatter") || has(l, "reduce_scatter") || has(l, "alltoall") || has(l, "oneccl") ||
      l.starts_with("ccl_")) {
    k.cls = KernelClass::collective;
    k.group = "collective";
    return k;
  }
  if (l.starts_with("memcpy") || has(l, "copybuffer") || has(l, "__amd_rocclr_copy")) return memcpy_info(name);
  if (l.starts_with("memset") || has(l, "fillbuffer") || has(l, "__amd_rocclr_fill")) return memset_info(name);
  if (has(ls, "softmax")) {
    k.cls = KernelClass::softmax;
    k.softmax_backward = has(ls, "backward") || has(ls, "bwd") || has(ls, "_bw");
    // cunn_SoftMaxForward<..., LogSoftMaxForwardEpilogue>; softmax_warp_forward<in, out, acc, log2, is_log_softmax,
    // ...>
    k.log_softmax = has(l, "logsoftmax") || has(l, "log_softmax");
    if (!k.log_softmax && (ls.starts_with("softmax_warp_forward") || ls.starts_with("softmax_warp_backward"))) {
      const std::string_view name_tail = name.substr(name.find(k.short_name));
      k.log_softmax = template_arg(name_tail, 4) == "true";
    }
    k.group = k.log_softmax ? "log_softmax" : (k.softmax_backward ? "softmax_bwd" : "softmax");
    return k;
  }
  // convolutions use implicit GEMMs: keep them out of the gemm count
  if (has(l, "fprop") || has(l, "dgrad") || has(l, "wgrad") || has(l, "conv") || has(l, "scudnn") ||
      has(l, "winograd") || has(l, "fft2d") || has(l, "implicit_convolve")) {
    k.cls = KernelClass::conv;
    k.group = "conv";
    return k;
  }
  if (has(l, "gemm") || l.starts_with("nvjet") || ls.starts_with("cijk_") || has(l, "gemv") || has(l, "splitkreduce") ||
      has(ls, "matmul") || ls.starts_with("ampere_") || ls.starts_with("sm90_xmma") || ls.starts_with("sm80_xmma") ||
      has(l, "cublaslt") || ls.starts_with("volta_") || ls.starts_with("turing_")) {
    k.cls = KernelClass::gemm;
    k.group = "gemm";
    return k;
  }
  k.cls = KernelClass::other;
  k.group = "other";
  return k;
}

AttentionOp classify_attention_op(std::string_view op) {
  if (op == "aten::scaled_dot_product_attention") return AttentionOp::sdpa;
  if (op == "aten::_scaled_dot_product_attention_math" || op == "aten::_scaled_dot_product_attention_math_for_mps") {
    return AttentionOp::math;
  }
  if (op == "aten::_safe_softmax") return AttentionOp::safe_softmax;
  if (op == "aten::_scaled_dot_product_flash_attention" || op == "aten::_scaled_dot_product_efficient_attention" ||
      op == "aten::_scaled_dot_product_cudnn_attention" ||
      op == "aten::_scaled_dot_product_fused_attention_overrideable" ||
      op == "aten::_scaled_dot_product_flash_attention_for_cpu" || op == "aten::_flash_attention_forward" ||
      op == "aten::_efficient_attention_forward" || op == "aten::_scaled_dot_product_flash_attention_backward" ||
      op == "aten::_flash_attention_backward" || op == "aten::_efficient_attention_backward") {
    return AttentionOp::fused;
  }
  if (op == "aten::softmax" || op == "aten::_softmax") return AttentionOp::softmax;
  return AttentionOp::none;
}

}  // namespace perftriage::analyzers::trace
