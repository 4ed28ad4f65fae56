#include "analyzers/trace/attention.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyzers/trace/kernel_names.hpp"

namespace perftriage::analyzers::trace {

namespace {

bool is_softmax_forward(const KernelInfo& k) {
  if (k.cls == KernelClass::softmax) return !k.log_softmax && !k.softmax_backward;
  if (k.cls == KernelClass::triton) {
    return k.group.find("softmax") != std::string::npos && k.group.find("log_softmax") == std::string::npos;
  }
  return false;
}

// gemm -> softmax -> gemm in device order (hand-written attention), within a small window of kernels.
std::int64_t count_sandwiches(const TraceModel& model, const Census& census) {
  std::vector<std::uint32_t> order;
  for (std::uint32_t i = 0; i < model.device.size(); ++i) {
    if (model.device[i].kind == ActivityKind::kernel) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return model.device[a].ts < model.device[b].ts; });
  constexpr std::size_t kWindow = 4;
  auto is_gemm = [&](std::size_t pos) {
    return census.info[model.device[order[pos]].name_id].cls == KernelClass::gemm;
  };
  std::int64_t n = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!is_softmax_forward(census.info[model.device[order[i]].name_id])) continue;
    bool before = false;
    bool after = false;
    for (std::size_t d = 1; d <= kWindow; ++d) {
      if (i >= d && is_gemm(i - d)) before = true;
      if (i + d < order.size() && is_gemm(i + d)) after = true;
    }
    if (before && after) ++n;
  }
  return n;
}

// The attention ops the host recorded, by kind.
struct AttentionOps {
  std::int64_t sdpa = 0;
  std::int64_t fused = 0;
  std::int64_t math = 0;
  std::int64_t safe_softmax = 0;
  std::int64_t softmax = 0;
};

AttentionOps count_attention_ops(const TraceModel& model) {
  AttentionOps ops;
  for (const auto& [name, n] : model.attention_ops) {
    switch (classify_attention_op(name)) {
      case AttentionOp::sdpa: ops.sdpa += n; break;
      case AttentionOp::fused: ops.fused += n; break;
      case AttentionOp::math: ops.math += n; break;
      case AttentionOp::safe_softmax: ops.safe_softmax += n; break;
      case AttentionOp::softmax: ops.softmax += n; break;
      case AttentionOp::none: break;
    }
  }
  return ops;
}

struct Verdict {
  std::string verdict;
  std::string why;
  std::int64_t sandwiches = 0;  // gemm -> softmax -> gemm patterns, counted only when no SDPA op decides
};

// math_fallback / fused / unfused / none: math ops or safe-softmax kernels first, then fused kernels or ops, then an
// SDPA op over plain softmax kernels, then hand-written gemm -> softmax -> gemm attention.
Verdict attention_verdict(const TraceModel& model, const Census& census, const AttentionOps& ops) {
  const std::int64_t gemm = census.class_count[static_cast<std::size_t>(KernelClass::gemm)];
  const std::int64_t fused_kernels = census.fused_attention_kernels;
  const std::int64_t triton_safe = census.triton_safe_softmax_kernels;
  const std::int64_t softmax_kernels = census.softmax_forward_kernels;
  if (ops.math > 0 || triton_safe > 0 || ops.safe_softmax > 0) {
    std::vector<std::string> parts;
    if (ops.math > 0) parts.push_back(fmt::format("{} aten::_scaled_dot_product_attention_math", ops.math));
    if (ops.safe_softmax > 0) parts.push_back(fmt::format("{} aten::_safe_softmax", ops.safe_softmax));
    if (triton_safe > 0) parts.push_back(fmt::format("{} triton kernels fusing _safe_softmax", triton_safe));
    std::string why = fmt::format("SDPA lowered to the math path ({})", fmt::join(parts, ", "));
    if (fused_kernels > 0 || ops.fused > 0) {
      why += fmt::format("; {} fused attention kernels remain elsewhere", fused_kernels);
    }
    return {"math_fallback", why};
  }
  if (fused_kernels > 0 || ops.fused > 0) {
    std::string why = fused_kernels > 0 ? fmt::format("{} fused attention kernels", fused_kernels)
                                        : fmt::format("{} fused SDPA ops (no fused kernel recorded)", ops.fused);
    if (census.reference_sdpa_kernels > 0) {
      why += fmt::format(" ({} are the slow oneDNN reference ref_sdpa)", census.reference_sdpa_kernels);
    }
    return {"fused", why};
  }
  if (ops.sdpa > 0 && softmax_kernels > 0) {
    return {"math_fallback",
            fmt::format("{} aten::scaled_dot_product_attention without a fused backend op or kernel; softmax + gemm "
                        "kernels instead",
                        ops.sdpa)};
  }
  const std::int64_t sandwiches = softmax_kernels > 0 && gemm > 0 ? count_sandwiches(model, census) : 0;
  if (sandwiches > 0) {
    return {"unfused",
            fmt::format("no SDPA op; {} softmax kernels between gemm kernels (hand-written attention)", sandwiches),
            sandwiches};
  }
  return {"none", softmax_kernels > 0 ? "softmax kernels but no gemm -> softmax -> gemm pattern and no SDPA op"
                                      : "no attention ops or kernels"};
}

}  // namespace

nlohmann::json attention_finding(const TraceModel& model, const Census& census) {
  const AttentionOps ops = count_attention_ops(model);
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [label, g] : census.groups) {
    groups[label] = {{"class", to_string(g.cls)}, {"count", g.count}, {"time_us", g.time_us}};
  }
  const std::string kernels_line = evidence_line(groups, true);
  const Verdict v = attention_verdict(model, census, ops);

  nlohmann::json f;
  f["classifier"] = "attention";
  f["verdict"] = v.verdict;
  f["evidence"] = fmt::format("{}: {}", v.why, kernels_line);
  f["kernels"] = kernels_line;
  f["ops"] = {{"scaled_dot_product_attention", ops.sdpa},
              {"fused_backend", ops.fused},
              {"math", ops.math},
              {"safe_softmax", ops.safe_softmax},
              {"softmax", ops.softmax}};
  f["counts"] = {{"gemm", census.class_count[static_cast<std::size_t>(KernelClass::gemm)]},
                 {"fused_attention_kernels", census.fused_attention_kernels},
                 {"reference_sdpa_kernels", census.reference_sdpa_kernels},
                 {"triton_safe_softmax_kernels", census.triton_safe_softmax_kernels},
                 {"softmax_kernels", census.softmax_forward_kernels},
                 {"log_softmax_kernels", census.log_softmax_kernels},
                 {"gemm_softmax_gemm", v.sandwiches}};
  return f;
}

}  // namespace perftriage::analyzers::trace
