#pragma once
// Random nightlies, and a check that the maintained backlog (updated at every ingest, rebuilt by migrations and run
// deletion) equals the one recomputed from scratch from every remaining run of the platform by
// analyzers/compare/backlog.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "analyzers/compare/backlog.hpp"
#include "schema/backlog_store.hpp"
#include "schema/history_store.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"

namespace perftriage::testing {

// The header of nightly_csv's files (a 16-column performance CSV).
inline constexpr const char* kNightlyHeader =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";

// One nightly's performance CSV: each model's speedup wanders around 1, sometimes failing (speedup 0), sometimes
// absent (not measured in this run).
inline std::string nightly_csv(std::mt19937& rng, int models) {
  std::uniform_real_distribution<double> speed(0.7, 1.3);
  std::uniform_int_distribution<int> dice(0, 19);
  std::string csv = kNightlyHeader;
  for (int m = 0; m < models; ++m) {
    const int d = dice(rng);
    if (d == 0) continue;
    if (d == 1) {
      csv += fmt::format("xpu,model_{},0,0.000000,0.000000,0,0,0,0,0,0,0,0,0,0,0\n", m);
    } else {
      csv += fmt::format("xpu,model_{},8,{:.6f},10.0,1,0,0,0,1,1,0,0,0,0,0\n", m, speed(rng));
    }
  }
  return csv;
}

inline void expect_same_backlog(schema::Store& store, const std::string& platform) {
  auto data = schema::backlog_rows(store.db(), platform, 1.0);
  ASSERT_TRUE(data) << data.error().message;
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < data->runs.size(); ++i) index[data->runs[i].id] = i;
  std::vector<analyzers::compare::BacklogObservation> obs;
  for (const auto& r : data->rows) {
    obs.push_back(
        {index.at(r.run_id), {r.suite, r.dtype, r.mode, r.config, r.model}, r.speedup, r.speedup_text, r.failed});
  }
  const auto expected = analyzers::compare::build_backlog(std::move(obs), 1.0);
  auto maintained = schema::read_backlog(store.db(), platform);
  ASSERT_TRUE(maintained) << maintained.error().message;
  // read_backlog joins the run keys: a row naming a deleted run would vanish from it, so count the table too.
  auto count = schema::Statement::prepare(store.db(), "SELECT count(*) FROM backlog WHERE platform = $1");
  ASSERT_TRUE(count) << count.error().message;
  count->bind(1, platform);
  const auto rows = schema::scalar(*count);
  ASSERT_TRUE(rows) << rows.error().message;
  EXPECT_EQ(*rows, static_cast<std::int64_t>(expected.size()));
  ASSERT_EQ(maintained->size(), expected.size());
  std::map<std::string, const schema::BacklogState*> by_model;
  for (const auto& m : *maintained) by_model[m.model] = &m;
  const auto key = [&](std::size_t i) { return data->runs[i].meta.key; };
  for (const auto& e : expected) {
    ASSERT_TRUE(by_model.count(e.key.model)) << e.key.model;
    const auto& m = *by_model[e.key.model];
    EXPECT_EQ(m.status, e.status) << e.key.model;
    EXPECT_EQ(m.first_seen, key(e.first_seen)) << e.key.model;
    EXPECT_EQ(m.last_seen, key(e.last_seen)) << e.key.model;
    EXPECT_EQ(m.latest_run, key(e.latest)) << e.key.model;
    EXPECT_EQ(m.fixed_in.value_or(""), e.fixed_in ? key(*e.fixed_in) : "") << e.key.model;
    EXPECT_EQ(m.worst_speedup, e.worst_speedup) << e.key.model;
    EXPECT_EQ(m.runs_slow, static_cast<std::int64_t>(e.runs_slow)) << e.key.model;
  }
}

}  // namespace perftriage::testing
