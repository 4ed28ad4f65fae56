#include "server/app/backlog_changes.hpp"

#include <algorithm>

#include "server/app/comparison.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;
using nlohmann::json;

bool has(const cmp::CaseComparison& c, cmp::Change change) {
  return std::find(c.changes.begin(), c.changes.end(), change) != c.changes.end();
}

json entry(const cmp::CaseComparison& c, const CaseIssueIndex& issues) {
  return {{"suite", c.key.suite}, {"dtype", c.key.dtype},
          {"mode", c.key.mode},   {"config", c.key.config},
          {"model", c.key.model}, {"issues", issues_of(issues, c.key.suite, c.key.dtype, c.key.mode, c.key.model)}};
}

}  // namespace

json issues_of(const CaseIssueIndex& index, const std::string& suite, const std::string& dtype, const std::string& mode,
               const std::string& model) {
  const auto it = index.find({suite, dtype, mode, model});
  return it == index.end() ? json::array() : it->second;
}

Result<json> latest_resource_regressions(schema::Store& store, const std::string& platform,
                                         const CaseIssueIndex& issues, const cmp::Thresholds& thresholds) {
  PT_ASSIGN(const auto runs, schema::list_runs(store.db(), platform, schema::RunsWith::performance));
  if (runs.size() < 2) return json();
  // The base by key, not "previous": the run just before the newest may be one without results.
  PT_ASSIGN(const auto comparison, compare_runs(store, runs[1].meta.key, runs[0].meta.key, thresholds));
  json compile_time = json::array();
  json memory = json::array();
  for (const auto& c : comparison.cases) {
    if (has(c, cmp::Change::compile_slower)) {
      auto e = entry(c, issues);
      e["base_compilation_s"] = *c.base.compilation_s;
      e["target_compilation_s"] = *c.target.compilation_s;
      e["compile_ratio"] = *c.compile_ratio;
      compile_time.push_back(std::move(e));
    }
    if (has(c, cmp::Change::memory_worse)) {
      auto e = entry(c, issues);
      e["base_compression_ratio"] = *c.base.compression_ratio;
      e["target_compression_ratio"] = *c.target.compression_ratio;
      e["memory_ratio"] = *c.memory_ratio;
      memory.push_back(std::move(e));
    }
  }
  return json{{"base_run", comparison.base.meta.key},
              {"target_run", comparison.target.meta.key},
              {"compile_regression", thresholds.compile_regression},
              {"memory_regression", thresholds.memory_regression},
              {"compile_time", std::move(compile_time)},
              {"memory", std::move(memory)}};
}

}  // namespace perftriage::server
