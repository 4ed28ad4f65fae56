#include "analyzers/compare/case_compare.hpp"

#include <charconv>
#include <cmath>
#include <algorithm>
#include <unordered_map>
#include <utility>

#include "ingest/records.hpp"

namespace perftriage::analyzers::compare {
namespace {

bool positive(const std::optional<double>& v) { return v && std::isfinite(*v) && *v > 0; }

std::optional<double> ratio(const std::optional<double>& base, const std::optional<double>& target) {
  if (!positive(base) || !positive(target)) return std::nullopt;
  return *base / *target;
}

// A later performance row of the same case (another shard's file) replaces a failed one, or a slower one.
bool better(const model::ResultRecord& row, const CaseSide& side) {
  if (!side.present) return true;
  if (side.failed != row.failed) return side.failed;
  return positive(row.abs_latency_ms) && (!positive(side.compiled_ms) || *row.abs_latency_ms < *side.compiled_ms);
}

void absorb(const model::ResultRecord& row, CaseSide& side) {
  if (row.kind == "accuracy") {
    if (side.accuracy.empty() || ingest::accuracy_passes(row.accuracy)) side.accuracy = row.accuracy;
    return;
  }
  if (row.kind != "performance" || !better(row, side)) return;
  side.present = true;
  side.batch_size = row.batch_size;
  side.speedup = row.speedup;
  side.speedup_text = row.speedup_text;
  side.compiled_ms = row.abs_latency_ms;
  side.eager_ms = row.eager_latency_ms;
  side.compilation_s = row.compilation_latency_s;
  side.dynamo_peak_mem_gb = row.dynamo_peak_mem_gb;
  side.failed = row.failed;
}

void judge(CaseComparison& c, const Thresholds& t) {
  c.inductor_ratio = ratio(c.base.compiled_ms, c.target.compiled_ms);
  c.eager_ratio = ratio(c.base.eager_ms, c.target.eager_ms);
  if (c.inductor_ratio && *c.inductor_ratio < t.regression) c.moved.emplace_back("compiled got slower");
  if (c.inductor_ratio && *c.inductor_ratio > t.improvement) c.moved.emplace_back("compiled got faster");
  if (c.eager_ratio && *c.eager_ratio < t.regression) c.moved.emplace_back("eager got slower");
  if (c.eager_ratio && *c.eager_ratio > t.improvement) c.moved.emplace_back("eager got faster");

  if (!c.base.present) {
    c.status_change = "new";
    c.verdict = Verdict::added;
    return;
  }
  if (!c.target.present) {
    c.status_change = "missing";
    c.verdict = Verdict::missing;
    return;
  }
  const bool was = c.base.passing(), is = c.target.passing();
  if (was && !is) {
    c.status_change = "new_failed";
    c.verdict = Verdict::new_failed;
    return;
  }
  if (!was && is) {
    c.status_change = "new_passed";
    c.verdict = Verdict::new_passed;
    return;
  }
  if (!was) return;  // failing on both sides: nothing changed
  auto below = [&](double limit) {
    return (c.inductor_ratio && *c.inductor_ratio < limit) || (c.eager_ratio && *c.eager_ratio < limit);
  };
  if (below(t.regression)) {
    c.verdict = Verdict::regression;
    c.severity = below(t.red) ? "red" : "yellow";
  } else if ((c.inductor_ratio && *c.inductor_ratio > t.improvement) ||
             (c.eager_ratio && *c.eager_ratio > t.improvement)) {
    c.verdict = Verdict::improvement;
  }
}

}  // namespace

CaseKey case_key(const model::ResultRecord& row) { return {row.suite, row.dtype, row.mode, row.config, row.model}; }

bool CaseSide::passing() const {
  if (!present || failed || !positive(speedup)) return false;
  return accuracy.empty() || ingest::accuracy_passes(accuracy);
}

std::optional<double> CaseComparison::speedup_ratio() const {
  if (!positive(base.speedup) || !positive(target.speedup)) return std::nullopt;
  return *target.speedup / *base.speedup;
}

Result<void> validate(const Thresholds& t) {
  const bool finite = std::isfinite(t.red) && std::isfinite(t.regression) && std::isfinite(t.improvement);
  if (!finite || t.red <= 0 || t.red > t.regression || t.regression >= t.improvement) {
    return make_error(ErrorKind::invalid_input, "bad_thresholds",
                      "thresholds must satisfy 0 < red <= regression < improvement");
  }
  return {};
}

Result<Thresholds> parse_thresholds(const std::string& regression, const std::string& red,
                                    const std::string& improvement) {
  Thresholds t;
  const std::pair<const std::string*, double*> fields[] = {
      {&regression, &t.regression}, {&red, &t.red}, {&improvement, &t.improvement}};
  const char* names[] = {"regression", "red", "improvement"};
  for (std::size_t i = 0; i < 3; ++i) {
    const std::string& text = *fields[i].first;
    if (text.empty()) continue;
    double v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
      return make_error(ErrorKind::invalid_input, "bad_threshold",
                        std::string(names[i]) + " must be a positive number, got '" + text + "'", {}, 0, names[i]);
    }
    *fields[i].second = v;
  }
  PT_TRY(validate(t));
  return t;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::regression: return "regression";
    case Verdict::improvement: return "improvement";
    case Verdict::unchanged: return "unchanged";
    case Verdict::new_failed: return "new_failed";
    case Verdict::new_passed: return "new_passed";
    case Verdict::missing: return "missing";
    case Verdict::added: return "new";
  }
  return "unchanged";
}

std::size_t CaseComparer::KeyHash::operator()(const CaseKey& k) const noexcept {
  std::size_t h = 0;
  for (const auto* s : {&k.suite, &k.dtype, &k.mode, &k.config, &k.model})
    h = h * 1000003u ^ std::hash<std::string>{}(*s);
  return h;
}

CaseComparer::Sides& CaseComparer::sides(const model::ResultRecord& row) {
  probe_.suite.assign(row.suite);  // assign keeps the probe's capacity: no allocation per row
  probe_.dtype.assign(row.dtype);
  probe_.mode.assign(row.mode);
  probe_.config.assign(row.config);
  probe_.model.assign(row.model);
  return cases_.try_emplace(probe_).first->second;  // one lookup; the key is copied only for a new case
}

void CaseComparer::add_base(const model::ResultRecord& row) { absorb(row, sides(row).base); }
void CaseComparer::add_target(const model::ResultRecord& row) { absorb(row, sides(row).target); }

std::vector<CaseComparison> CaseComparer::finish(const Thresholds& thresholds) && {
  // Sort the entries, not the comparisons: a CaseComparison is large to move.
  std::vector<decltype(cases_)::value_type*> order;
  order.reserve(cases_.size());
  for (auto& entry : cases_) {
    if (entry.second.base.present || entry.second.target.present) order.push_back(&entry);  // accuracy only: no case
  }
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  std::vector<CaseComparison> out(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    CaseComparison& c = out[i];
    c.key = order[i]->first;
    c.base = std::move(order[i]->second.base);
    c.target = std::move(order[i]->second.target);
    judge(c, thresholds);
  }
  cases_.clear();
  return out;
}

std::vector<CaseComparison> compare_cases(const std::vector<model::ResultRecord>& base,
                                          const std::vector<model::ResultRecord>& target,
                                          const Thresholds& thresholds) {
  CaseComparer comparer;
  for (const auto& row : base) comparer.add_base(row);
  for (const auto& row : target) comparer.add_target(row);
  return std::move(comparer).finish(thresholds);
}

}  // namespace perftriage::analyzers::compare
