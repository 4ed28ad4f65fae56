#include "server/app/comparison.hpp"

#include "schema/history_store.hpp"

namespace perftriage::server {

Result<Comparison> compare_runs(schema::Store& store, const std::string& base_rule, const std::string& target_key,
                                const analyzers::compare::Thresholds& thresholds) {
  PT_ASSIGN(auto input, schema::load_comparison(store.db(), base_rule, target_key));
  Comparison c{std::move(input.base),
               std::move(input.target),
               analyzers::compare::compare_cases(input.base_rows, input.target_rows, thresholds),
               {}};
  c.aggregates = analyzers::compare::aggregate(c.cases);
  return c;
}

}  // namespace perftriage::server
