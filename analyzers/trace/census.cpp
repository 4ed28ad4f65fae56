#include "analyzers/trace/census.hpp"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

namespace perftriage::analyzers::trace {

namespace {

int class_rank(std::string_view cls) {
  static constexpr std::array<std::string_view, 9> kOrder{"gemm", "softmax", "triton", "attention", "collective",
                                                          "conv", "memcpy",  "memset", "other"};
  for (std::size_t i = 0; i < kOrder.size(); ++i) {
    if (kOrder[i] == cls) return static_cast<int>(i);
  }
  return static_cast<int>(kOrder.size());
}

bool attention_relevant(std::string_view cls, std::string_view label) {
  if (cls == "gemm" || cls == "attention") return true;
  if (cls == "softmax") return label == "softmax" || label == "softmax_bwd";
  if (cls == "triton")
    return label.find("softmax") != std::string_view::npos && label.find("log_softmax") == std::string_view::npos;
  return false;
}

}  // namespace

Census build_census(const TraceModel& model) {
  Census c;
  c.info.reserve(model.names.size());
  // classify each distinct name once; activity kind decides memcpy/memset recorded by category
  std::vector<std::array<bool, 3>> seen_kind(model.names.size());
  for (const auto& a : model.device) seen_kind[a.name_id][static_cast<std::size_t>(a.kind)] = true;
  std::vector<KernelInfo> mem_info(model.names.size());
  for (std::size_t i = 0; i < model.names.size(); ++i) {
    c.info.push_back(classify_kernel_name(model.names[i]));
    if (seen_kind[i][1]) mem_info[i] = memcpy_info(model.names[i]);
    if (seen_kind[i][2]) mem_info[i] = memset_info(model.names[i]);
  }
  for (const auto& a : model.device) {
    const KernelInfo& k = a.kind == ActivityKind::kernel ? c.info[a.name_id] : mem_info[a.name_id];
    const auto ci = static_cast<std::size_t>(k.cls);
    ++c.class_count[ci];
    c.class_time_us[ci] += a.dur;
    auto& g = c.groups[k.group];
    g.cls = k.cls;
    ++g.count;
    g.time_us += a.dur;
    if (a.kind != ActivityKind::kernel) continue;
    ++c.device_kernels;
    c.kernel_time_us += a.dur;
    if (k.cls == KernelClass::triton) {
      ++c.triton_kinds[k.triton_kind];
      if (k.safe_softmax) ++c.triton_safe_softmax_kernels;
      const bool softmax = k.group.find("softmax") != std::string::npos;
      const bool log = k.group.find("log_softmax") != std::string::npos;
      if (softmax && log) ++c.log_softmax_kernels;
      if (softmax && !log && !k.safe_softmax) ++c.softmax_forward_kernels;
    } else if (k.cls == KernelClass::attention) {
      ++c.fused_attention_kernels;
      if (k.reference_sdpa) ++c.reference_sdpa_kernels;
    } else if (k.cls == KernelClass::softmax) {
      if (k.log_softmax) {
        ++c.log_softmax_kernels;
      } else if (!k.softmax_backward) {
        ++c.softmax_forward_kernels;
      }
    }
  }
  return c;
}

nlohmann::json census_json(const Census& c, const TraceModel& model) {
  nlohmann::json j;
  j["device_kernels"] = c.device_kernels;
  j["kernel_time_us"] = c.kernel_time_us;
  nlohmann::json classes = nlohmann::json::object();
  for (int i = 0; i < kKernelClassCount; ++i) {
    const auto idx = static_cast<std::size_t>(i);
    if (c.class_count[idx] == 0) continue;
    classes[std::string(to_string(static_cast<KernelClass>(i)))] = {{"count", c.class_count[idx]},
                                                                    {"time_us", c.class_time_us[idx]}};
  }
  j["classes"] = classes;
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [label, g] : c.groups) {
    groups[label] = {{"class", to_string(g.cls)}, {"count", g.count}, {"time_us", g.time_us}};
  }
  j["groups"] = groups;
  if (!c.triton_kinds.empty()) j["triton_kinds"] = c.triton_kinds;
  // top kernels by device time
  std::map<std::uint32_t, std::pair<std::int64_t, double>> per_name;
  for (const auto& a : model.device) {
    if (a.kind != ActivityKind::kernel) continue;
    auto& p = per_name[a.name_id];
    ++p.first;
    p.second += a.dur;
  }
  std::vector<std::tuple<double, std::int64_t, std::uint32_t>> top;
  top.reserve(per_name.size());
  for (const auto& [id, p] : per_name) top.emplace_back(p.second, p.first, id);
  std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return std::get<0>(a) > std::get<0>(b); });
  nlohmann::json top_json = nlohmann::json::array();
  for (std::size_t i = 0; i < top.size() && i < 10; ++i) {
    const auto& info = c.info[std::get<2>(top[i])];
    top_json.push_back({{"name", info.short_name},
                        {"class", to_string(info.cls)},
                        {"count", std::get<1>(top[i])},
                        {"time_us", std::get<0>(top[i])}});
  }
  j["top_kernels"] = top_json;
  j["evidence"] = evidence_line(groups, false);
  j["cpu_ops"] = model.counters.cpu_ops;
  j["runtime_calls"] = model.counters.runtime_calls;
  j["launch_calls"] = model.launches.size();
  j["events"] = model.counters.events;
  j["profiler_steps"] = model.counters.profiler_steps;
  j["compiled_graph_calls"] = model.counters.compiled_graph_calls;
  j["compiled_regions"] = model.counters.compiled_regions;
  if (!model.attention_ops.empty()) j["attention_ops"] = model.attention_ops;
  if (!model.device_names.empty()) j["devices"] = model.device_names;
  return j;
}

std::string evidence_line(const nlohmann::json& groups, bool attention_only, std::size_t max_terms) {
  struct Term {
    int rank;
    std::int64_t count;
    std::string label;
  };
  std::vector<Term> terms;
  if (!groups.is_object()) return "no device kernels";
  for (const auto& [label, g] : groups.items()) {
    const std::string cls = g.value("class", "other");
    const std::int64_t n = g.value("count", std::int64_t{0});
    if (n <= 0) continue;
    if (attention_only && !attention_relevant(cls, label)) continue;
    terms.push_back({class_rank(cls), n, label});
  }
  std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
    return std::tie(a.rank, b.count, a.label) < std::tie(b.rank, a.count, b.label);
  });
  if (terms.empty()) return attention_only ? "no gemm, softmax or attention kernels" : "no device kernels";
  std::string out;
  std::int64_t rest = 0;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (i >= max_terms) {
      rest += terms[i].count;
      continue;
    }
    if (!out.empty()) out += " + ";
    out += fmt::format("{} {}", terms[i].count, terms[i].label);
  }
  if (rest > 0) out += fmt::format(" + {} more", rest);
  return out;
}

}  // namespace perftriage::analyzers::trace
