// `serve --demo` never talks to GitHub: every outbox row the demo writes is dry_run, and the demo refuses
// a database that holds any run that is not a demo run, storing nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "schema/bot_store.hpp"
#include "schema/store.hpp"
#include "server/demo/demo_data.hpp"
#include "server/app/ingest_service.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

constexpr const char* kCsv =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency\n"
    "xpu,resnet50,8,0.9,10.0,30.0\n";

void ingest_one(schema::Store& store, const std::string& key, const std::string& commit = "") {
  UploadMeta meta;
  meta.run = key;
  meta.platform = "BMG";
  meta.commit = commit;
  meta.axes = {"torchbench", "bfloat16", "inference", "", "", ""};
  auto summary = ingest_files(store, meta, {{"perf.csv", kCsv}});
  ASSERT_TRUE(summary) << summary.error().message;
}

std::int64_t outbox_rows(schema::Store& store) {
  auto rows = schema::list_outbox(store.db(), std::nullopt);
  EXPECT_TRUE(rows);
  return rows ? static_cast<std::int64_t>(rows->size()) : -1;
}

void expect_refused(schema::Store& store) {
  auto added = load_demo_data(store);
  ASSERT_FALSE(added) << "the demo loaded into a database with a non-demo run";
  EXPECT_EQ(added.error().code, "not_a_demo_database");
  EXPECT_NE(added.error().message.find("the database holds non-demo runs; --demo only runs on a database of its own"),
            std::string::npos)
      << added.error().message;
  auto runs = schema::list_runs(store.db());
  ASSERT_TRUE(runs);
  EXPECT_EQ(runs->size(), 1u) << "the refused demo stored runs";
  EXPECT_EQ(outbox_rows(store), 0) << "the refused demo stored outbox rows";
}

TEST(Demo, RefusesADatabaseWithANonDemoRunAndStoresNothing) {
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  ingest_one(*store, "bmg-ci-20260901");
  expect_refused(*store);
}

TEST(Demo, ARealRunWithADemoKeyIsNotADemoRun) {
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  ingest_one(*store, "bmg-release-2.12", "0123456789ab");  // the demo's first key, another commit
  expect_refused(*store);
}

TEST(Demo, EveryOutboxRowIsDryRunAndReloadingIsAccepted) {
  auto store = testing_support::open_test_store();
  ASSERT_TRUE(store);
  auto added = load_demo_data(*store);
  ASSERT_TRUE(added) << added.error().message;
  EXPECT_EQ(*added, 69);  // 3 platforms x 3 releases + 60 nightlies

  auto& db = store->db();
  auto rows = schema::list_outbox(db, std::nullopt);
  ASSERT_TRUE(rows);
  ASSERT_GE(rows->size(), 8u) << "labels and a comment per demo issue";
  for (const auto& row : *rows) {
    EXPECT_EQ(row.state, schema::OutboxState::dry_run) << "outbox row " << row.id << " (" << to_string(row.kind) << " #"
                                                       << row.issue_number << ") is " << to_string(row.state);
  }
  auto due = schema::next_due(db, std::numeric_limits<std::int64_t>::max());
  ASSERT_TRUE(due);
  EXPECT_FALSE(*due) << "an outbox worker with a token would send a demo action";

  auto runs = schema::list_runs(db);
  ASSERT_TRUE(runs);
  for (const auto& run : *runs) {
    EXPECT_NE(std::find(run.meta.tags.begin(), run.meta.tags.end(), "demo"), run.meta.tags.end()) << run.meta.key;
  }

  // A demo database written before every demo row was dry_run: its pending comment becomes dry_run on the next load.
  auto legacy = schema::enqueue(db, {"intel/torch-xpu-ops", 3761, schema::OutboxKind::upsert_comment, {{"body", "x"}}},
                                schema::OutboxState::pending, 0);
  ASSERT_TRUE(legacy);
  auto again = load_demo_data(*store);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(*again, 0);
  auto row = schema::outbox_row(db, *legacy);
  ASSERT_TRUE(row && *row);
  EXPECT_EQ((*row)->state, schema::OutboxState::dry_run);

  // A non-demo run added later makes the database refused as well.
  ingest_one(*store, "bmg-ci-20260901");
  auto refused = load_demo_data(*store);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "not_a_demo_database");
}

}  // namespace
}  // namespace perftriage::server
