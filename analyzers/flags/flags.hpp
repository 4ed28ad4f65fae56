#pragma once
// The flag rules of a result row (shared/domain/benchmark-csv.md):
//   slow            0 < speedup < threshold ("inductor slower than eager"); speedup 0 is a failure, not slow
//   failed          performance row with speedup 0 or missing, batch size 0, or a short row
//   accuracy_failed accuracy status not in {pass, pass_due_to_skip, eager_variation}; unknown ones fail too
//   invalid         a negative or non-finite (nan, inf) speedup, abs_latency, compilation_latency or batch size:
//                   a value no measurement has. Such a row is neither passing nor slow nor failed; an invalid
//                   accuracy row also counts as accuracy_failed (its status cannot be trusted either).
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "ingest/records.hpp"

namespace perftriage::analyzers {

inline constexpr double kDefaultSlowThreshold = 1.0;

[[nodiscard]] bool is_slow(std::optional<double> speedup, double threshold = kDefaultSlowThreshold);
[[nodiscard]] bool is_invalid(const ingest::ResultRow& row);
[[nodiscard]] bool is_failed(const ingest::ResultRow& row, std::string_view kind);
[[nodiscard]] bool is_accuracy_failed(const ingest::ResultRow& row, std::string_view kind);

struct RowVerdict {
  bool slow = false;
  bool failed = false;
  bool accuracy_failed = false;
  bool invalid = false;
};
[[nodiscard]] RowVerdict judge_row(const ingest::ResultRow& row, std::string_view kind, double threshold);

struct FlagCounts {
  std::int64_t rows = 0, slow = 0, failed = 0, accuracy_failed = 0, invalid = 0;
  void add(const RowVerdict& v) {
    ++rows;
    slow += v.slow;
    failed += v.failed;
    accuracy_failed += v.accuracy_failed;
    invalid += v.invalid;
  }
};
[[nodiscard]] FlagCounts count_flags(const std::vector<ingest::ResultRow>& rows, std::string_view kind,
                                     double threshold = kDefaultSlowThreshold);

}  // namespace perftriage::analyzers
