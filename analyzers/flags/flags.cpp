#include "analyzers/flags/flags.hpp"

namespace perftriage::analyzers {

bool is_slow(std::optional<double> speedup, double threshold) {
  return speedup && *speedup > 0.0 && *speedup < threshold;
}

bool is_invalid(const ingest::ResultRow& row) { return ingest::holds_impossible_value(row); }

bool is_failed(const ingest::ResultRow& row, std::string_view kind) {
  if (is_invalid(row)) return false;  // invalid, not failed: the row says something impossible, not "it broke"
  if (row.short_row) return true;
  if (kind != "performance") return false;
  return !row.speedup || *row.speedup == 0.0 || row.batch_size == 0;
}

bool is_accuracy_failed(const ingest::ResultRow& row, std::string_view kind) {
  return kind == "accuracy" && (!ingest::accuracy_passes(row.accuracy) || is_invalid(row));
}

RowVerdict judge_row(const ingest::ResultRow& row, std::string_view kind, double threshold) {
  RowVerdict v;
  v.invalid = is_invalid(row);
  v.failed = is_failed(row, kind);
  v.accuracy_failed = is_accuracy_failed(row, kind);
  v.slow = kind == "performance" && !v.failed && !v.invalid && is_slow(row.speedup, threshold);
  return v;
}

FlagCounts count_flags(const std::vector<ingest::ResultRow>& rows, std::string_view kind, double threshold) {
  FlagCounts c;
  for (const auto& row : rows) c.add(judge_row(row, kind, threshold));
  return c;
}

}  // namespace perftriage::analyzers
