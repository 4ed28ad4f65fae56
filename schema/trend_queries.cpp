#include "schema/trend_queries.hpp"

#include <cmath>
#include <string_view>

namespace perftriage::schema::trends {
namespace {

// HUD's pass rule: the performance row ran (not failed, speedup > 0) and the model's accuracy row, when the run has
// one, passes. accuracy_failed is set on the accuracy row: the failing ones are read once (a set, not a lookup per
// performance row).
constexpr std::string_view kRunMetrics =
    "WITH perf AS ("
    " SELECT p.suite, p.dtype, p.mode, p.speedup, p.compilation_latency_s AS compile_s, p.compression_ratio,"
    "  (p.failed = 0 AND p.speedup > 0 AND (p.suite, p.dtype, p.mode, p.config, p.model) NOT IN ("
    "   SELECT suite, dtype, mode, config, model FROM results"
    "   WHERE run_id = $1 AND kind = 'accuracy' AND accuracy_failed = 1)) AS ok"
    " FROM results p WHERE p.run_id = $1 AND p.kind = 'performance')"
    " SELECT suite, dtype, mode, count(*), sum(CASE WHEN ok THEN 1 ELSE 0 END),"
    "  coalesce(sum(CASE WHEN ok THEN ln(speedup) END), 0.0),"
    "  coalesce(sum(CASE WHEN ok AND compile_s > 0 THEN compile_s END), 0.0), sum(CASE WHEN ok AND compile_s > 0 THEN "
    "1 ELSE 0 END),"
    "  coalesce(sum(CASE WHEN ok AND compression_ratio > 0 THEN ln(compression_ratio) END), 0.0),"
    "  sum(CASE WHEN ok AND compression_ratio > 0 THEN 1 ELSE 0 END)"
    " FROM perf GROUP BY suite, dtype, mode ORDER BY suite, dtype, mode";

std::optional<double> ratio_of(double sum, std::int64_t n, bool geometric) {
  if (n <= 0) return std::nullopt;
  const double mean = sum / static_cast<double>(n);
  return geometric ? std::exp(mean) : mean;
}

}  // namespace

std::optional<double> GroupMetrics::pass_rate() const {
  if (rows <= 0) return std::nullopt;
  return static_cast<double>(passing) / static_cast<double>(rows);
}
std::optional<double> GroupMetrics::geomean_speedup() const { return ratio_of(log_speedup, passing, true); }
std::optional<double> GroupMetrics::mean_compilation_s() const { return ratio_of(compile_s, compiled, false); }
std::optional<double> GroupMetrics::geomean_compression_ratio() const {
  return ratio_of(log_compression, compressions, true);
}

Result<std::vector<GroupMetrics>> run_metrics(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, kRunMetrics));
  st.bind(1, run_id);
  return collect<GroupMetrics>(st, [](const Statement& s) {
    GroupMetrics g;
    g.suite = s.text(0);
    g.dtype = s.text(1);
    g.mode = s.text(2);
    g.rows = s.int64(3);
    g.passing = s.int64(4);
    g.log_speedup = s.real(5);
    g.compile_s = s.real(6);
    g.compiled = s.int64(7);
    g.log_compression = s.real(8);
    g.compressions = s.int64(9);
    return g;
  });
}

}  // namespace perftriage::schema::trends
