#pragma once
// The four numbers PyTorch HUD's compiler dashboard leads with, per suite x dtype x mode of one run: pass rate,
// geomean speedup, mean compilation time and geomean peak-memory compression ratio. Read from the run's performance
// rows in one grouped statement; the trends route (server/routes/trends.cpp) caches them per run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema::trends {

struct GroupMetrics {
  std::string suite, dtype, mode;
  std::int64_t rows = 0;          // performance rows
  std::int64_t passing = 0;       // not failed, speedup > 0 and, where the run has accuracy, accuracy passing
  double log_speedup = 0;         // sum of ln(speedup) over passing rows
  double compile_s = 0;           // sum of compilation seconds over passing rows that measured it
  std::int64_t compiled = 0;      // ... how many
  double log_compression = 0;     // sum of ln(compression ratio) over passing rows that measured it
  std::int64_t compressions = 0;  // ... how many

  [[nodiscard]] std::optional<double> pass_rate() const;
  [[nodiscard]] std::optional<double> geomean_speedup() const;
  [[nodiscard]] std::optional<double> mean_compilation_s() const;
  [[nodiscard]] std::optional<double> geomean_compression_ratio() const;
};

// Ordered by suite, dtype, mode.
Result<std::vector<GroupMetrics>> run_metrics(Database& db, std::int64_t run_id);

}  // namespace perftriage::schema::trends
