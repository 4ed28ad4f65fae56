#pragma once
// The maintained backlog (updated at every ingest, rebuilt by migrations and run deletion) equals the one
// recomputed from scratch from every remaining run of the platform by analyzers/compare/backlog.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analyzers/compare/backlog.hpp"
#include "schema/backlog_store.hpp"
#include "schema/history_store.hpp"
#include "schema/sqlite.hpp"
#include "schema/store.hpp"

namespace perftriage::testing {

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
  auto count = schema::Statement::prepare(store.db(), "SELECT count(*) FROM backlog WHERE platform = ?1");
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
