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
  side.compression_ratio = row.compression_ratio;
  side.failed = row.failed;
}

// The status of a case that is not passing on both sides; false when it is (then its changes decide).
bool judge_status(CaseComparison& c) {
  const auto set = [&](const char* change, Verdict v) {
    c.status_change = change;
    c.verdict = v;
    return true;
  };
  if (!c.base.present) return set("new", Verdict::added);
  if (!c.target.present) return set("missing", Verdict::missing);
  const bool was = c.base.passing(), is = c.target.passing();
  if (was && !is) return set("new_failed", Verdict::new_failed);
  if (!was && is) return set("new_passed", Verdict::new_passed);
  return !was;  // failing on both sides: nothing changed
}

// One dimension's ratio against its pair of thresholds: the worse change below `low`, the better one above `high`.
void add_change(std::vector<Change>& out, const std::optional<double>& r, double low, double high, Change worse,
                Change better) {
  if (!r) return;
  if (*r < low) out.push_back(worse);
  if (*r > high) out.push_back(better);
}

std::vector<Change> changes_of(const CaseComparison& c, const Thresholds& t) {
  std::vector<Change> out;
  if (positive(c.base.speedup) && positive(c.target.speedup)) {
    if (*c.base.speedup >= 1 && *c.target.speedup < 1) out.push_back(Change::newly_slower_than_eager);
    if (*c.base.speedup < 1 && *c.target.speedup >= 1) out.push_back(Change::no_longer_slower_than_eager);
  }
  add_change(out, c.speedup_ratio(), t.regression, t.improvement, Change::speedup_dropped, Change::speedup_rose);
  add_change(out, c.inductor_ratio, t.regression, t.improvement, Change::compiled_slower, Change::compiled_faster);
  add_change(out, c.eager_ratio, t.regression, t.improvement, Change::eager_slower, Change::eager_faster);
  add_change(out, c.compile_ratio, t.compile_regression, t.compile_improvement, Change::compile_slower,
             Change::compile_faster);
  add_change(out, c.memory_ratio, t.memory_regression, t.memory_improvement, Change::memory_worse,
             Change::memory_better);
  return out;
}

std::string moved_text(Change c) {
  switch (c) {
    case Change::newly_slower_than_eager: return "now slower than eager";
    case Change::no_longer_slower_than_eager: return "no longer slower than eager";
    case Change::speedup_dropped: return "speedup dropped";
    case Change::speedup_rose: return "speedup rose";
    case Change::compiled_slower: return "compiled got slower";
    case Change::compiled_faster: return "compiled got faster";
    case Change::eager_slower: return "eager got slower";
    case Change::eager_faster: return "eager got faster";
    case Change::compile_slower: return "compiles slower";
    case Change::compile_faster: return "compiles faster";
    case Change::memory_worse: return "memory compression worse";
    case Change::memory_better: return "memory compression better";
  }
  return "";
}

// Red: the case lost its lead over eager, or a latency or the speedup moved past `red`.
bool is_red(const CaseComparison& c, const Thresholds& t) {
  const auto below = [&](const std::optional<double>& r) { return r && *r < t.red; };
  const bool lost_lead =
      std::find(c.changes.begin(), c.changes.end(), Change::newly_slower_than_eager) != c.changes.end();
  return lost_lead || below(c.inductor_ratio) || below(c.eager_ratio) || below(c.speedup_ratio());
}

// The verdict follows from the changes: any worse one makes a regression (the team tracks every dimension, eager
// included: on XPU the eager kernels are the team's too), an improvement needs a better one and no worse one. A faster
// eager that the compiled path did not follow is therefore a regression (the speedup dropped), not an improvement.
void judge(CaseComparison& c, const Thresholds& t) {
  c.inductor_ratio = ratio(c.base.compiled_ms, c.target.compiled_ms);
  c.eager_ratio = ratio(c.base.eager_ms, c.target.eager_ms);
  c.compile_ratio = ratio(c.base.compilation_s, c.target.compilation_s);
  c.memory_ratio = ratio(c.target.compression_ratio, c.base.compression_ratio);
  c.changes = changes_of(c, t);
  for (const Change ch : c.changes) c.moved.push_back(moved_text(ch));
  if (judge_status(c)) return;
  const bool worse = std::any_of(c.changes.begin(), c.changes.end(), is_worse);
  if (worse) {
    c.verdict = Verdict::regression;
    c.severity = is_red(c, t) ? "red" : "yellow";
  } else if (!c.changes.empty()) {
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
  const bool finite = std::isfinite(t.red) && std::isfinite(t.regression) && std::isfinite(t.improvement) &&
                      std::isfinite(t.compile_regression) && std::isfinite(t.compile_improvement) &&
                      std::isfinite(t.memory_regression) && std::isfinite(t.memory_improvement);
  if (!finite || t.red <= 0 || t.red > t.regression || t.regression >= t.improvement) {
    return make_error(ErrorKind::invalid_input, "bad_thresholds",
                      "thresholds must satisfy 0 < red <= regression < improvement");
  }
  if (t.compile_regression <= 0 || t.compile_regression >= t.compile_improvement || t.memory_regression <= 0 ||
      t.memory_regression >= t.memory_improvement) {
    return make_error(ErrorKind::invalid_input, "bad_thresholds",
                      "thresholds must satisfy 0 < compile_regression < compile_improvement and 0 < "
                      "memory_regression < memory_improvement");
  }
  return {};
}

std::string_view to_string(Change c) {
  switch (c) {
    case Change::newly_slower_than_eager: return "newly_slower_than_eager";
    case Change::no_longer_slower_than_eager: return "no_longer_slower_than_eager";
    case Change::speedup_dropped: return "speedup_dropped";
    case Change::speedup_rose: return "speedup_rose";
    case Change::compiled_slower: return "compiled_slower";
    case Change::compiled_faster: return "compiled_faster";
    case Change::eager_slower: return "eager_slower";
    case Change::eager_faster: return "eager_faster";
    case Change::compile_slower: return "compile_slower";
    case Change::compile_faster: return "compile_faster";
    case Change::memory_worse: return "memory_worse";
    case Change::memory_better: return "memory_better";
  }
  return "";
}

std::string_view dimension_of(Change c) {
  switch (c) {
    case Change::newly_slower_than_eager:
    case Change::no_longer_slower_than_eager:
    case Change::speedup_dropped:
    case Change::speedup_rose: return "vs_eager";
    case Change::compiled_slower:
    case Change::compiled_faster: return "compiled";
    case Change::eager_slower:
    case Change::eager_faster: return "eager";
    case Change::compile_slower:
    case Change::compile_faster: return "compile_time";
    case Change::memory_worse:
    case Change::memory_better: return "memory";
  }
  return "";
}

bool is_worse(Change c) {
  switch (c) {
    case Change::newly_slower_than_eager:
    case Change::speedup_dropped:
    case Change::compiled_slower:
    case Change::eager_slower:
    case Change::compile_slower:
    case Change::memory_worse: return true;
    default: return false;
  }
}

Result<Thresholds> parse_thresholds(const std::string& regression, const std::string& red,
                                    const std::string& improvement) {
  return parse_thresholds([&](std::string_view name) -> std::string {
    if (name == "regression") return regression;
    if (name == "red") return red;
    if (name == "improvement") return improvement;
    return {};
  });
}

Result<Thresholds> parse_thresholds(const std::function<std::string(std::string_view)>& text_of) {
  Thresholds t;
  double* fields[] = {
      &t.regression,        &t.red, &t.improvement, &t.compile_regression, &t.compile_improvement, &t.memory_regression,
      &t.memory_improvement};
  static_assert(std::size(kThresholdNames) == std::size(fields));
  for (std::size_t i = 0; i < std::size(fields); ++i) {
    const std::string text = text_of(kThresholdNames[i]);
    if (text.empty()) continue;
    double v = 0;
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || !std::isfinite(v) || v <= 0) {
      return make_error(ErrorKind::invalid_input, "bad_threshold",
                        std::string(kThresholdNames[i]) + " must be a positive number, got '" + text + "'", {}, 0,
                        kThresholdNames[i]);
    }
    *fields[i] = v;
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
