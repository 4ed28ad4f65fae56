#include "analyzers/flags/flags.hpp"

namespace perftriage::analyzers {

bool is_slow(std::optional<double> speedup, double threshold) {
  return speedup && *speedup > 0.0 && *speedup < threshold;
}

bool is_failed(const ingest::ResultRow& row, std::string_view kind) {
  if (row.short_row) return true;
  if (kind != "performance") return false;
  return !row.speedup || *row.speedup == 0.0 || row.batch_size == 0;
}

bool is_accuracy_failed(const ingest::ResultRow& row, std::string_view kind) {
  return kind == "accuracy" && !ingest::accuracy_passes(row.accuracy);
}

RowVerdict judge_row(const ingest::ResultRow& row, std::string_view kind, double threshold) {
  RowVerdict v;
  v.failed = is_failed(row, kind);
  v.accuracy_failed = is_accuracy_failed(row, kind);
  v.slow = kind == "performance" && !v.failed && is_slow(row.speedup, threshold);
  return v;
}

FlagCounts count_flags(const std::vector<ingest::ResultRow>& rows, std::string_view kind, double threshold) {
  FlagCounts c;
  for (const auto& row : rows) {
    const auto v = judge_row(row, kind, threshold);
    ++c.rows;
    c.slow += v.slow;
    c.failed += v.failed;
    c.accuracy_failed += v.accuracy_failed;
  }
  return c;
}

}  // namespace perftriage::analyzers
