#pragma once
// Per-case comparison of two runs in the torch-xpu-ops perf_comparison.py convention: for every case on either
// side, ratio = base latency / target latency (< 1 = the target is slower), for the compiled (inductor) path and
// for the eager path. Each case is judged on separate dimensions (vs eager, compiled path, eager path, compile time,
// memory, status) and may carry several changes; its verdict follows from them (docs/verdicts.md is the table).
#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "model/records.hpp"

namespace perftriage::analyzers::compare {

struct CaseKey {
  std::string suite, dtype, mode, config, model;
  auto operator<=>(const CaseKey&) const = default;
};

CaseKey case_key(const model::ResultRecord& row);

// One side of a case: its performance row, informed by the case's accuracy row when the run has one.
struct CaseSide {
  bool present = false;  // a performance row exists
  std::int64_t batch_size = 0;
  std::optional<double> speedup;
  std::string speedup_text;
  std::optional<double> compiled_ms, eager_ms, compilation_s, dynamo_peak_mem_gb;
  std::optional<double> compression_ratio;  // eager peak memory / compiled peak memory: higher is better
  std::string accuracy;                     // "" = no accuracy row for this case
  bool failed = false;

  // PyTorch HUD: accuracy passes (when an accuracy row exists) and the performance row did not fail.
  [[nodiscard]] bool passing() const;
};

struct Thresholds {
  double regression = 0.9;   // a latency ratio or the speedup ratio below: worse
  double red = 0.8;          // ... below this: severity red
  double improvement = 1.1;  // ... above: better
  // Compile time is noisier than latency (a cold cache, a busy runner), so it moves further before it counts.
  double compile_regression = 0.8;    // base compile s / target compile s below: compile time worse
  double compile_improvement = 1.25;  // ... above: better
  double memory_regression = 0.9;     // target compression ratio / base below: memory worse
  double memory_improvement = 1.1;    // ... above: better
};

// 0 < red <= regression < improvement, 0 < compile_regression < compile_improvement, 0 < memory_regression <
// memory_improvement, all finite.
Result<void> validate(const Thresholds& t);
// Thresholds from request text; "" keeps the default. Each bad value is an invalid_input naming its parameter
// ("regression", "red", "improvement"); an inconsistent set is "bad_thresholds".
Result<Thresholds> parse_thresholds(const std::string& regression, const std::string& red,
                                    const std::string& improvement);
// Every threshold by its name (kThresholdNames); `text_of(name)` is "" for one not given.
Result<Thresholds> parse_thresholds(const std::function<std::string(std::string_view)>& text_of);
inline constexpr const char* kThresholdNames[] = {
    "regression",        "red", "improvement", "compile_regression", "compile_improvement", "memory_regression",
    "memory_improvement"};

// One change of a case, on one dimension (docs/verdicts.md). `worse` changes make a regression; a case is an
// improvement only when it has a better change and no worse one.
enum class Change {
  newly_slower_than_eager,      // vs eager: speedup was >= 1, is < 1
  no_longer_slower_than_eager,  // vs eager: speedup was < 1, is >= 1
  speedup_dropped,              // vs eager: target speedup / base speedup < regression
  speedup_rose,                 // vs eager: ... > improvement
  compiled_slower,              // compiled path: inductor ratio < regression
  compiled_faster,              // ... > improvement
  eager_slower,                 // eager path: eager ratio < regression
  eager_faster,                 // ... > improvement
  compile_slower,               // compile time: base s / target s < compile_regression
  compile_faster,               // ... > compile_improvement
  memory_worse,                 // memory: target compression ratio / base < memory_regression
  memory_better,                // ... > memory_improvement
};
std::string_view to_string(Change c);
std::string_view dimension_of(Change c);  // "vs_eager" | "compiled" | "eager" | "compile_time" | "memory"
bool is_worse(Change c);

enum class Verdict { regression, improvement, unchanged, new_failed, new_passed, missing, added };
std::string_view to_string(Verdict v);  // Verdict::added is "new"

struct CaseComparison {
  CaseKey key;
  CaseSide base, target;
  std::optional<double> inductor_ratio;  // base compiled ms / target compiled ms
  std::optional<double> eager_ratio;     // base eager ms / target eager ms
  std::optional<double> compile_ratio;   // base compilation s / target compilation s (< 1 = compiles slower)
  std::optional<double> memory_ratio;    // target compression ratio / base (< 1 = uses relatively more memory)
  std::string status_change;             // "" | new_failed | new_passed | missing | new
  std::vector<Change> changes;           // cases passing on both sides: every dimension that moved
  Verdict verdict = Verdict::unchanged;
  std::string severity;            // regressions only: "red" | "yellow"
  std::vector<std::string> moved;  // "compiled got slower", "eager got faster", ...

  [[nodiscard]] bool both_passing() const {
    return base.present && target.present && base.passing() && target.passing();
  }
  // target speedup / base speedup (= inductor_ratio / eager_ratio): < 1 = the speedup dropped.
  [[nodiscard]] std::optional<double> speedup_ratio() const;
};

// A comparison built row by row: a caller that reads rows from a store folds each into its case as it comes and
// keeps no rows (two 12k-row nightlies are ~22 MB of records, their 6k cases a fraction of it).
// Rows of any kind of both runs; performance rows define the cases, accuracy rows their pass status.
class CaseComparer {
 public:
  void add_base(const model::ResultRecord& row);
  void add_target(const model::ResultRecord& row);
  // The cases ordered by suite, dtype, mode, config, model; the comparer is spent.
  std::vector<CaseComparison> finish(const Thresholds& thresholds = {}) &&;

 private:
  struct Sides {
    CaseSide base, target;
  };
  struct KeyHash {
    std::size_t operator()(const CaseKey& k) const noexcept;
  };
  Sides& sides(const model::ResultRecord& row);
  std::unordered_map<CaseKey, Sides, KeyHash> cases_;
  CaseKey probe_;  // the key of the row being added, reused so that a known case costs no allocation
};

// CaseComparer over two vectors of rows.
std::vector<CaseComparison> compare_cases(const std::vector<model::ResultRecord>& base,
                                          const std::vector<model::ResultRecord>& target,
                                          const Thresholds& thresholds = {});

}  // namespace perftriage::analyzers::compare
