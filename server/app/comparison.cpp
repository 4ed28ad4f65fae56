#include "server/app/comparison.hpp"

#include "schema/history_store.hpp"

namespace perftriage::server {

Result<Comparison> compare_runs(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                const analyzers::compare::Thresholds& thresholds) {
  analyzers::compare::CaseComparer comparer;  // rows are folded into cases as the store reads them, never all kept
  PT_ASSIGN(auto runs,
            schema::stream_comparison(
                store.db(), base_rule, target_key, [&](const model::ResultRecord& row) { comparer.add_base(row); },
                [&](const model::ResultRecord& row) { comparer.add_target(row); }));
  Comparison c{std::move(runs.base), std::move(runs.target), std::move(comparer).finish(thresholds), {}};
  c.aggregates = analyzers::compare::aggregate(c.cases);
  return c;
}

}  // namespace perftriage::server
