#include "analyzers/trace/regions.hpp"

#include <algorithm>
#include <unordered_map>

namespace perftriage::analyzers::trace {
namespace {

struct RegionRow {
  std::string name;
  std::int64_t occurrences = 0;
  std::int64_t kernels = 0;
  double time_us = 0;
  nlohmann::json groups = nlohmann::json::object();
};

// The host time a kernel was launched at: its launch call when correlated, else its own start.
std::vector<std::pair<double, std::size_t>> kernel_launch_times(const TraceModel& model) {
  std::unordered_map<std::uint64_t, double> launch_ts;
  launch_ts.reserve(model.launches.size());
  for (const auto& l : model.launches) {
    if (l.has_correlation) launch_ts.emplace(l.correlation, l.ts);
  }
  std::vector<std::pair<double, std::size_t>> out;
  out.reserve(model.device.size());
  for (std::size_t i = 0; i < model.device.size(); ++i) {
    const auto& a = model.device[i];
    if (a.kind != ActivityKind::kernel) continue;
    auto it = a.has_correlation ? launch_ts.find(a.correlation) : launch_ts.end();
    out.emplace_back(it != launch_ts.end() ? it->second : a.ts, i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

nlohmann::json region_census(const Census& census, const TraceModel& model) {
  if (model.regions.empty()) return nlohmann::json::array();
  std::vector<std::size_t> order(model.regions.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // By start, outer (longer) first on ties, so the stack below holds the nesting.
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ra = model.regions[a];
    const auto& rb = model.regions[b];
    return ra.ts != rb.ts ? ra.ts < rb.ts : ra.dur > rb.dur;
  });

  std::vector<RegionRow> rows;
  rows.reserve(kMaxRegionRows);
  std::unordered_map<std::uint32_t, std::size_t> row_of_name;
  auto row_for = [&](std::uint32_t name_id) -> RegionRow* {
    auto it = row_of_name.find(name_id);
    if (it != row_of_name.end()) return &rows[it->second];
    if (rows.size() >= kMaxRegionRows) return nullptr;
    row_of_name.emplace(name_id, rows.size());
    rows.push_back({model.names[name_id]});
    return &rows.back();
  };
  for (std::size_t idx : order) {
    if (auto* row = row_for(model.regions[idx].name_id)) ++row->occurrences;
  }

  RegionRow outside{"(outside regions)"};
  std::vector<std::size_t> open;  // stack of region indices containing the current time
  std::size_t next = 0;
  for (const auto& [t, device_index] : kernel_launch_times(model)) {
    while (next < order.size() && model.regions[order[next]].ts <= t) open.push_back(order[next++]);
    while (!open.empty()) {
      const auto& top = model.regions[open.back()];
      if (top.ts + top.dur >= t) break;
      open.pop_back();
    }
    const auto& a = model.device[device_index];
    RegionRow* row = open.empty() ? &outside : row_for(model.regions[open.back()].name_id);
    if (row == nullptr) continue;
    const KernelInfo& k = census.info[a.name_id];
    ++row->kernels;
    row->time_us += a.dur;
    auto& g = row->groups[k.group];
    if (g.is_null()) g = {{"class", std::string(to_string(k.cls))}, {"count", 0}, {"time_us", 0.0}};
    g["count"] = g["count"].get<std::int64_t>() + 1;
    g["time_us"] = g["time_us"].get<double>() + a.dur;
  }

  nlohmann::json out = nlohmann::json::array();
  auto emit = [&](const RegionRow& r) {
    out.push_back({{"name", r.name},
                   {"occurrences", r.occurrences},
                   {"kernels", r.kernels},
                   {"kernel_time_us", r.time_us},
                   {"evidence", r.kernels > 0 ? evidence_line(r.groups, false) : std::string("no device kernels")}});
  };
  for (const auto& r : rows) emit(r);
  if (outside.kernels > 0 && outside.kernels < census.device_kernels) emit(outside);
  return out;
}

}  // namespace perftriage::analyzers::trace
