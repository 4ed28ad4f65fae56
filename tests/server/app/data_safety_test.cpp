// Data safety: deleting a run (everything of the run gone, other runs untouched, the maintained backlog
// equal to the one recomputed from the remaining runs, audited), retention (each rule, keep_tags, the latest run of a
// platform, batches, dry run, stopping), backup and restore.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "tests/support/files.hpp"
#include "analyzers/compare/backlog.hpp"
#include "schema/audit_store.hpp"
#include "schema/backlog_store.hpp"
#include "schema/backup.hpp"
#include "schema/history_store.hpp"
#include "schema/migrate.hpp"
#include "schema/retention_store.hpp"
#include "schema/run_delete.hpp"
#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/retention.hpp"
#include "server/http/router.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/backlog_check.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

namespace fs = std::filesystem;
namespace cmp = analyzers::compare;
using schema::Statement;

using testing::nightly_csv;

std::int64_t scalar(schema::Database& db, const std::string& sql) {
  auto st = Statement::prepare(db, sql);
  EXPECT_TRUE(st) << sql;
  if (!st) return -1;
  auto row = st->step();
  EXPECT_TRUE(row && *row) << sql;
  return st->int64(0);
}

server::UploadMeta nightly_meta(const std::string& platform, int day, std::vector<std::string> tags = {}) {
  server::UploadMeta meta;
  meta.run = fmt::format("{}-n{:02d}", platform, day);
  meta.platform = platform;
  meta.created_at = fmt::format("2026-01-{:02d}T00:00:00Z", day);
  meta.axes = {"huggingface", "bfloat16", "inference", "", "", ""};
  meta.tags = std::move(tags);
  return meta;
}

// A fresh directory per test, removed afterwards.
using testing::expect_same_backlog;
using testing::TempDir;

// Per-table row counts of one run (-1 = every run).
std::map<std::string, std::int64_t> run_rows(schema::Database& db, std::int64_t run_id) {
  std::map<std::string, std::int64_t> out;
  for (const char* table : {"result_files", "results", "expectations", "artifacts"}) {
    out[table] = scalar(db, fmt::format("SELECT count(*) FROM {}{}", table,
                                        run_id < 0 ? std::string() : fmt::format(" WHERE run_id = {}", run_id)));
  }
  return out;
}

std::int64_t run_id(schema::Database& db, const std::string& key) {
  return scalar(db, "SELECT coalesce((SELECT id FROM runs WHERE key = '" + key + "'), 0)");
}

// A platform's history with everything that hangs off a run: a replaced (superseded) file, expectations, artifacts.
class DeleteRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing_support::on_postgres()) GTEST_SKIP() << "SQLite only: the fixture writes rows in SQLite's SQL";
    build(true);
  }
  // replace_one: a second version of one file. The maintained backlog counts a replaced file's slow rows again
  // (runs_slow "as ingested", schema/backlog_store.hpp), which a recomputation from the stored rows does not.
  void build(bool replace_one) {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    std::mt19937 rng(11);
    for (int day = 1; day <= 12; ++day) {
      ASSERT_TRUE(server::ingest_files(*store_, nightly_meta("BMG", day), {{"perf.csv", nightly_csv(rng, 40)}}));
    }
    for (int day = 1; day <= 3; ++day) {
      ASSERT_TRUE(server::ingest_files(*store_, nightly_meta("PVC", day), {{"perf.csv", nightly_csv(rng, 40)}}));
    }
    if (replace_one) {  // a second version of one file: the first is kept, superseded
      auto replace = nightly_meta("BMG", 6);
      replace.replace = true;
      ASSERT_TRUE(server::ingest_files(*store_, replace, {{"perf.csv", nightly_csv(rng, 40)}}));
    }
    auto& db = store_->db();
    for (const char* key : {"BMG-n06", "BMG-n07"}) {
      const auto id = run_id(db, key);
      ASSERT_TRUE(db.exec(fmt::format(
          "INSERT INTO expectations(run_id, file_id, suite, mode, model, line, accuracy)"
          " SELECT {0}, min(id), 'huggingface', 'inference', 'model_1', 2, 'pass' FROM result_files WHERE run_id = {0};"
          "INSERT INTO artifacts(run_id, suite, dtype, mode, model, name, kind, sha256, size, compression,"
          " findings, created_at) VALUES({0}, 'huggingface', 'bfloat16', 'inference', 'model_1', 't.json', 'kineto', "
          "'ab', 2,"
          " 'deflate', '{{\"findings\":[{{\"classifier\":\"a\"}},{{\"classifier\":\"b\"}}]}}', '2026-01-01');"
          "INSERT INTO artifact_blobs(artifact_id, raw) VALUES(last_insert_rowid(), x'0102')",
          id)));
    }
  }
  std::optional<schema::Store> store_;
};

TEST_F(DeleteRunTest, RemovesTheRunAndEverythingOfItAndNothingElse) {
  auto& db = store_->db();
  const auto id = run_id(db, "BMG-n06");
  ASSERT_GT(id, 0);
  const auto of_run = run_rows(db, id);
  const auto all_before = run_rows(db, -1);
  ASSERT_EQ(of_run.at("result_files"), 2);  // the live file and the superseded one
  ASSERT_GT(of_run.at("results"), 0);
  const auto runs_before = scalar(db, "SELECT count(*) FROM runs");

  auto deleted = schema::delete_run(db, "BMG-n06", "alice");
  ASSERT_TRUE(deleted) << deleted.error().message;
  EXPECT_EQ(deleted->key, "BMG-n06");
  EXPECT_EQ(deleted->platform, "BMG");
  EXPECT_EQ(deleted->files, 2);
  EXPECT_EQ(deleted->results, of_run.at("results"));
  EXPECT_EQ(deleted->expectations, 1);
  EXPECT_EQ(deleted->artifacts, 1);
  EXPECT_EQ(deleted->findings, 2);
  EXPECT_GT(deleted->backlog_updated, 0);

  EXPECT_EQ(run_id(db, "BMG-n06"), 0);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs"), runs_before - 1);
  for (const auto& [table, n] : run_rows(db, id)) EXPECT_EQ(n, 0) << table;
  for (const auto& [table, n] : run_rows(db, -1)) EXPECT_EQ(n, all_before.at(table) - of_run.at(table)) << table;
  for (const char* col : {"first_run", "last_run", "latest_run", "fixed_run"}) {
    EXPECT_EQ(scalar(db, fmt::format("SELECT count(*) FROM backlog WHERE {} = {}", col, id)), 0) << col;
  }
  if (!testing_support::on_postgres()) {  // PostgreSQL refuses a dangling reference at the statement itself
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  }
  EXPECT_EQ(scalar(db, "PRAGMA foreign_keys"), 1) << "switched back on after the transaction";
  expect_same_backlog(*store_, "BMG");
  expect_same_backlog(*store_, "PVC");

  auto audit = schema::list_audit(db, "run.delete");
  ASSERT_TRUE(audit);
  ASSERT_EQ(audit->size(), 1u);
  EXPECT_EQ(audit->front().actor, "alice");
  EXPECT_EQ(audit->front().target, "BMG-n06");
  const auto detail = nlohmann::json::parse(audit->front().detail);
  EXPECT_EQ(detail["deleted"]["results"], of_run.at("results"));
}

TEST_F(DeleteRunTest, AnUnknownRunIsNotFoundAndChangesNothing) {
  auto& db = store_->db();
  const auto before = run_rows(db, -1);
  auto deleted = schema::delete_run(db, "no-such-run", "alice");
  ASSERT_FALSE(deleted);
  EXPECT_EQ(deleted.error().kind, ErrorKind::not_found);
  EXPECT_EQ(deleted.error().code, "no_run");
  EXPECT_NE(deleted.error().message.find("no-such-run"), std::string::npos);
  EXPECT_EQ(run_rows(db, -1), before);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM audit_log"), 0);
}

// Whatever is deleted (the first run, the latest, one in the middle, a fix, the last slow measurement), the backlog
// stays what the remaining runs make it.
TEST_F(DeleteRunTest, TheBacklogStaysConsistentWhicheverRunsGo) {
  build(false);
  expect_same_backlog(*store_, "BMG");
  std::vector<int> days = {1, 12, 2, 7, 11, 3, 8, 5, 10, 4, 9};
  for (int day : days) {
    auto deleted = schema::delete_run(store_->db(), fmt::format("BMG-n{:02d}", day), "cli:test");
    ASSERT_TRUE(deleted) << day << ": " << deleted.error().message;
    expect_same_backlog(*store_, "BMG");
  }
  expect_same_backlog(*store_, "PVC");
  EXPECT_EQ(scalar(store_->db(), "SELECT count(*) FROM runs WHERE platform = 'BMG'"), 1);  // n06 is left
  ASSERT_TRUE(schema::delete_run(store_->db(), "BMG-n06", "cli:test"));
  EXPECT_EQ(scalar(store_->db(), "SELECT count(*) FROM backlog WHERE platform = 'BMG'"), 0);
  EXPECT_EQ(scalar(store_->db(),
                   "SELECT count(*) FROM result_files r WHERE NOT EXISTS"
                   " (SELECT 1 FROM runs WHERE id = r.run_id)"),
            0);
}

// DELETE /api/v1/runs/{key}: admin, heavy lane, 200 with the counts, audited with the token's name, 404 after. A run
// deleted and uploaded again gets the freed ids back (rowid = max + 1): the dashboard's per-run cache must not serve
// the deleted run's statistics for it.
TEST(DeleteRunRoute, DeletesAuditsAndAnswers404ForAnUnknownKey) {
  TempDir dir;
  server::Settings settings;
  settings.db_path = dir.file("db.sqlite");
  {
    auto store = schema::Store::open(settings.db_path);
    ASSERT_TRUE(store);
    std::mt19937 rng(2);
    for (int day = 1; day <= 3; ++day) {
      ASSERT_TRUE(server::ingest_files(*store, nightly_meta("BMG", day), {{"perf.csv", nightly_csv(rng, 20)}}));
    }
  }
  server::AppContext app(settings);
  const server::Router router = server::make_router();
  EXPECT_EQ(router.options_for("DELETE", "/api/v1/runs/x").scope, server::Scope::admin);
  EXPECT_EQ(router.options_for("DELETE", "/api/v1/runs/x").lane, server::Lane::heavy);

  auto matrix = testing::call_route(router, app, "GET", "/api/v1/dashboard/matrix?run=BMG-n03", "", "");
  ASSERT_EQ(matrix.status, 200u) << matrix.body;

  server::ApiRequest req;
  req.method = "DELETE";
  req.path = "/api/v1/runs/BMG-n03";
  req.token_name = "ops-admin";
  auto res = router.dispatch(req, app);
  ASSERT_EQ(res.status, 200u) << res.body;
  const auto j = nlohmann::json::parse(res.body);
  EXPECT_EQ(j["run"], "BMG-n03");
  EXPECT_EQ(j["deleted"]["files"], 1);
  EXPECT_GT(j["deleted"]["results"].get<int>(), 0);

  auto runs = testing::call_route(router, app, "GET", "/api/v1/runs", "", "");
  EXPECT_EQ(runs.body.find("BMG-n03"), std::string::npos);
  auto again = router.dispatch(req, app);
  EXPECT_EQ(again.status, 404u);
  EXPECT_NE(again.body.find("BMG-n03"), std::string::npos);

  auto store = app.store();
  ASSERT_TRUE(store);
  auto audit = schema::list_audit((*store)->db(), "run.delete");
  ASSERT_TRUE(audit && audit->size() == 1);
  EXPECT_EQ(audit->front().actor, "ops-admin");
  EXPECT_EQ(audit->front().target, "BMG-n03");

  // The same key uploaded again with other rows reuses the freed ids; the matrix shows the new rows.
  std::string csv = testing::kNightlyHeader;
  csv += "xpu,only_model,8,0.500000,10.0,1,0,0,0,1,1,0,0,0,0,0\n";
  ASSERT_TRUE(server::ingest_files(**store, nightly_meta("BMG", 3), {{"perf.csv", csv}}));
  auto fresh = testing::call_route(router, app, "GET", "/api/v1/dashboard/matrix?run=BMG-n03", "", "");
  ASSERT_EQ(fresh.status, 200u) << fresh.body;
  EXPECT_NE(fresh.body, matrix.body);
  EXPECT_EQ(nlohmann::json::parse(fresh.body)["summary"]["performance_rows"], 1) << fresh.body;
}

// --- retention -------------------------------------------------------------------------------------------------

schema::RunAge run_age(std::int64_t id, std::string platform, std::string created_at,
                       std::vector<std::string> tags = {}) {
  return {id, fmt::format("r{}", id), std::move(platform), std::move(created_at), std::move(tags)};
}

std::vector<std::string> keys(const std::vector<schema::RunAge>& runs) {
  std::vector<std::string> out;
  for (const auto& r : runs) out.push_back(r.key);
  return out;
}

TEST(RetentionSelection, OldRunsGoUnlessTaggedLatestOrUnaged) {
  const std::vector<schema::RunAge> runs = {
      run_age(1, "BMG", "2026-01-01T00:00:00Z"),
      run_age(2, "BMG", "2026-01-02T00:00:00Z", {"release-2.12"}),  // kept: tag starts with "release"
      run_age(3, "BMG", "2026-01-03T00:00:00Z", {"nightly", "x"}),
      run_age(4, "BMG", "2026-03-01T00:00:00Z"),   // newer than the cutoff
      run_age(5, "PVC", "2026-01-01T00:00:00Z"),   // the latest of PVC, however old
      run_age(6, "A100", "1999 Jan 01"),           // not ISO-8601, cannot be aged: kept
      run_age(7, "A100", "2026-01-05"),            // a date alone is fine
      run_age(8, "A100", "2026-01-06T00:00:00Z"),  // the latest of A100
      run_age(9, "BMG", "01/01/2026"),             // not ISO-8601: kept
  };
  const std::string cutoff = "2026-02-01T00:00:00Z";
  EXPECT_EQ(keys(server::select_expired_runs(runs, cutoff, {"release"})), (std::vector<std::string>{"r1", "r3", "r7"}));
  EXPECT_EQ(keys(server::select_expired_runs(runs, cutoff, {"release", "nightly"})),
            (std::vector<std::string>{"r1", "r7"}));
  EXPECT_EQ(keys(server::select_expired_runs(runs, cutoff, {})), (std::vector<std::string>{"r1", "r2", "r3", "r7"}));
  EXPECT_EQ(keys(server::select_expired_runs(runs, cutoff, {""})), (std::vector<std::string>{"r1", "r2", "r3", "r7"}))
      << "an empty keep tag keeps nothing";
  EXPECT_TRUE(server::select_expired_runs(runs, "", {"release"}).empty()) << "0 days = keep forever";
  // Two runs created at the same time: the latest is the one with the larger id.
  const std::vector<schema::RunAge> ties = {run_age(1, "X", "2026-01-01"), run_age(2, "X", "2026-01-01")};
  EXPECT_EQ(keys(server::select_expired_runs(ties, cutoff, {})), (std::vector<std::string>{"r1"}));
}

TEST(RetentionSelection, Cutoff) {
  const auto now = std::chrono::sys_days{std::chrono::year{2026} / 3 / 31} + std::chrono::hours(12);
  EXPECT_EQ(server::retention_cutoff(now, 30), "2026-03-01T12:00:00Z");
  EXPECT_EQ(server::retention_cutoff(now, 0), "");
  EXPECT_TRUE(server::kept_by_tag({"release-2.12"}, {"release"}));
  EXPECT_FALSE(server::kept_by_tag({"prerelease"}, {"release"}));
  EXPECT_FALSE(server::kept_by_tag({}, {"release"}));
}

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    std::mt19937 rng(3);
    // BMG: January nightlies, one tagged release, and a March one (the latest); PVC: one January run (its latest).
    for (int day = 1; day <= 6; ++day) {
      auto meta = nightly_meta("BMG", day);
      if (day == 2) meta.tags = {"release-2.12"};
      ASSERT_TRUE(server::ingest_files(*store_, meta, {{"perf.csv", nightly_csv(rng, 30)}}));
    }
    auto march = nightly_meta("BMG", 1);
    march.run = "BMG-march";
    march.created_at = "2026-03-20T00:00:00Z";
    ASSERT_TRUE(server::ingest_files(*store_, march, {{"perf.csv", nightly_csv(rng, 30)}}));
    ASSERT_TRUE(server::ingest_files(*store_, nightly_meta("PVC", 1), {{"perf.csv", nightly_csv(rng, 30)}}));
    auto& db = store_->db();
    // Files uploaded in January (all but the March run's); deliveries and outbox rows of every state, old and new.
    ASSERT_TRUE(
        db.exec("UPDATE result_files SET uploaded_at = '2026-01-15T00:00:00Z'"
                " WHERE run_id <> (SELECT id FROM runs WHERE key = 'BMG-march');"
                "UPDATE result_files SET uploaded_at = '2026-03-20T00:00:00Z'"
                " WHERE run_id = (SELECT id FROM runs WHERE key = 'BMG-march')"));
    for (int i = 0; i < 7; ++i) {
      for (const char* state : {"done", "processing", "quarantined"}) {
        for (const char* at : {"2026-01-10T00:00:00Z", "2026-03-30T00:00:00Z"}) {
          ASSERT_TRUE(
              db.exec(fmt::format("INSERT INTO webhook_deliveries(delivery_id, event, received_at, state)"
                                  " VALUES('{}-{}-{}', 'issues', '{}', '{}')",
                                  state, at, i, at, state)));
        }
      }
      for (const char* state : {"sent", "dry_run", "pending", "failed"}) {
        for (const char* at : {"2026-01-10T00:00:00Z", "2026-03-30T00:00:00Z"}) {
          const bool sent = std::string(state) == "sent";
          ASSERT_TRUE(db.exec(
              fmt::format("INSERT INTO outbox(repo, kind, state, created_at, sent_at)"
                          " VALUES('o/r', 'add_labels', '{}', '{}', {})",
                          state, sent ? "2025-12-01T00:00:00Z" : at, sent ? "'" + std::string(at) + "'" : "NULL")));
        }
      }
    }
  }
  static server::RetentionSettings rules() {
    server::RetentionSettings r;
    r.raw_files_days = 30;
    r.nightly_runs_days = 30;
    r.webhook_deliveries_days = 30;
    r.sent_outbox_days = 30;
    return r;
  }
  static server::RetentionOptions at_end_of_march() {
    server::RetentionOptions o;
    o.now = std::chrono::sys_days{std::chrono::year{2026} / 3 / 31};
    o.pause = std::chrono::milliseconds(0);
    return o;
  }
  std::int64_t count(const std::string& sql) { return scalar(store_->db(), sql); }
  std::optional<schema::Store> store_;
};

TEST_F(RetentionTest, EachRuleRemovesWhatItShouldAndNothingElse) {
  auto& db = store_->db();
  const auto march_rows =
      count("SELECT count(*) FROM results WHERE run_id = (SELECT id FROM runs WHERE key = 'BMG-march')");
  auto options = at_end_of_march();
  options.batch_rows = 3;
  options.batch_files = 2;
  auto report = server::run_retention(db, rules(), options);
  ASSERT_TRUE(report) << report.error().message;

  // Runs: the January BMG nightlies go, except the release one; BMG's latest (March) and PVC's only run stay.
  EXPECT_EQ(report->runs, (std::vector<std::string>{"BMG-n01", "BMG-n03", "BMG-n04", "BMG-n05", "BMG-n06"}));
  std::vector<std::string> left;
  auto runs = schema::list_runs(store_->db());
  ASSERT_TRUE(runs);
  for (const auto& r : *runs) left.push_back(r.meta.key);
  EXPECT_EQ(left, (std::vector<std::string>{"BMG-march", "BMG-n02", "PVC-n01"}));
  expect_same_backlog(*store_, "BMG");
  if (!testing_support::on_postgres()) {
    EXPECT_EQ(count("SELECT count(*) FROM pragma_foreign_key_check"), 0);
  }

  // Raw bytes: dropped for the January files still there (BMG-n02, PVC-n01); their rows stay; March's kept.
  EXPECT_EQ(report->raw_files, 2 + 5);  // the files of the deleted runs were dropped before the runs went
  EXPECT_EQ(count("SELECT count(*) FROM result_files WHERE raw_kept = 0"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM file_blobs"), 1);
  auto files = schema::run_files(store_->db(), schema::find_run(store_->db(), "BMG-n02").value()->id);
  ASSERT_TRUE(files && files->size() == 1);
  EXPECT_TRUE(files->front().raw_dropped);
  auto bytes = schema::file_bytes(store_->db(), files->front().id);
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, "raw_dropped");
  EXPECT_GT(count("SELECT count(*) FROM results WHERE run_id = (SELECT id FROM runs WHERE key = 'BMG-n02')"), 0);
  auto march = schema::run_files(store_->db(), schema::find_run(store_->db(), "BMG-march").value()->id);
  ASSERT_TRUE(march && march->size() == 1);
  EXPECT_FALSE(march->front().raw_dropped);
  EXPECT_TRUE(schema::file_bytes(store_->db(), march->front().id));
  EXPECT_EQ(count("SELECT count(*) FROM results WHERE run_id = (SELECT id FROM runs WHERE key = 'BMG-march')"),
            march_rows);

  // Deliveries: only old 'done' ones; outbox: only old sent (by sent_at) / dry_run (by created_at).
  EXPECT_EQ(report->deliveries, 7);
  EXPECT_EQ(count("SELECT count(*) FROM webhook_deliveries WHERE state = 'done'"), 7);
  EXPECT_EQ(count("SELECT count(*) FROM webhook_deliveries WHERE state <> 'done'"), 28);
  EXPECT_EQ(report->outbox, 14);
  EXPECT_EQ(count("SELECT count(*) FROM outbox WHERE state IN ('sent', 'dry_run')"), 14);
  EXPECT_EQ(count("SELECT count(*) FROM outbox WHERE state IN ('pending', 'failed')"), 28);

  // Batches: 7 files in 4 batches of 2, five runs, 7 deliveries in 3 of 3, 14 outbox rows in 5 of 3.
  EXPECT_EQ(report->batches, 4 + 5 + 3 + 5);

  // Audit: one row per deleted run and one for the pass.
  auto audit = schema::list_audit(db, "retention");
  ASSERT_TRUE(audit);
  ASSERT_EQ(audit->size(), 6u);
  EXPECT_EQ(audit->front().target, "pass");
  EXPECT_EQ(audit->front().actor, "retention");
  EXPECT_EQ(audit->back().target, "BMG-n01");

  // A second pass finds nothing to do and writes no audit row.
  auto again = server::run_retention(db, rules(), at_end_of_march());
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->changed());
  EXPECT_EQ(schema::list_audit(db, "retention")->size(), 6u);
}

TEST_F(RetentionTest, ZeroDaysKeepsForeverAndDryRunChangesNothing) {
  auto& db = store_->db();
  const auto before = run_rows(db, -1);
  const auto deliveries = count("SELECT count(*) FROM webhook_deliveries");
  const auto outbox = count("SELECT count(*) FROM outbox");

  auto forever = server::run_retention(
      db, server::RetentionSettings{.webhook_deliveries_days = 0, .sent_outbox_days = 0}, at_end_of_march());
  ASSERT_TRUE(forever);
  EXPECT_FALSE(forever->changed());
  EXPECT_EQ(forever->batches, 0);

  auto options = at_end_of_march();
  options.dry_run = true;
  auto dry = server::run_retention(db, rules(), options);
  ASSERT_TRUE(dry);
  EXPECT_TRUE(dry->dry_run);
  EXPECT_EQ(dry->runs.size(), 5u);
  EXPECT_EQ(dry->raw_files, 7);
  EXPECT_EQ(dry->deliveries, 7);
  EXPECT_EQ(dry->outbox, 14);
  EXPECT_EQ(run_rows(db, -1), before);
  EXPECT_EQ(count("SELECT count(*) FROM webhook_deliveries"), deliveries);
  EXPECT_EQ(count("SELECT count(*) FROM outbox"), outbox);
  EXPECT_EQ(count("SELECT count(*) FROM result_files WHERE raw_kept = 0"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM audit_log"), 0);
}

TEST_F(RetentionTest, StopsBetweenBatchesWhenAsked) {
  auto options = at_end_of_march();
  options.batch_rows = 1;
  options.batch_files = 1;
  int asked = 0;
  options.stopping = [&] { return ++asked > 3; };
  auto report = server::run_retention(store_->db(), rules(), options);
  ASSERT_TRUE(report);
  EXPECT_TRUE(report->stopped);
  EXPECT_EQ(report->batches, 3);
  EXPECT_EQ(report->raw_files, 3);
  EXPECT_TRUE(report->runs.empty());
}

TEST_F(RetentionTest, OldRawBytesAreFoundThroughThePartialIndex) {
  if (testing_support::on_postgres()) GTEST_SKIP() << "SQLite only: reads SQLite's query plan";
  auto st = Statement::prepare(store_->db(),
                               "EXPLAIN QUERY PLAN SELECT id FROM result_files WHERE uploaded_at < '2026' AND"
                               " raw_kept = 1 ORDER BY uploaded_at LIMIT 10");
  ASSERT_TRUE(st);
  std::string plan;
  while (*st->step()) plan += st->text(3) + "\n";
  EXPECT_NE(plan.find("result_files_raw_kept"), std::string::npos) << plan;
}

TEST(RetentionTask, StopsPromptly) {
  TempDir dir;
  server::Settings settings;
  settings.db_path = dir.file("db.sqlite");
  ASSERT_TRUE(schema::Store::open(settings.db_path));
  server::AppContext app(settings);
  server::RetentionSettings rules;
  rules.interval_s = 3600;
  rules.webhook_deliveries_days = 1;
  std::vector<std::string> lines;
  server::RetentionTask task(app, rules, [&](const std::string& l) { lines.push_back(l); });
  task.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = std::chrono::steady_clock::now();
  task.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_TRUE(lines.empty());
}

TEST(RetentionTask, RunsEveryInterval) {
  TempDir dir;
  server::Settings settings;
  settings.db_path = dir.file("db.sqlite");
  {
    auto store = schema::Store::open(settings.db_path);
    ASSERT_TRUE(store);
    ASSERT_TRUE(
        store->db().exec("INSERT INTO webhook_deliveries(delivery_id, event, received_at, state)"
                         " VALUES('old', 'issues', '2020-01-01T00:00:00Z', 'done')"));
  }
  server::AppContext app(settings);
  server::RetentionSettings rules;
  rules.interval_s = 0.05;
  rules.webhook_deliveries_days = 1;
  std::mutex mutex;
  std::vector<std::string> lines;
  server::RetentionTask task(app, rules, [&](const std::string& l) {
    std::lock_guard lock(mutex);
    lines.push_back(l);
  });
  task.start();
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mutex);
      if (!lines.empty()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  task.stop();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"webhook_deliveries\":1"), std::string::npos) << lines[0];
}

// --- backup and restore --------------------------------------------------------------------------------------------

void fill(const std::string& path, int runs, int first_day = 1) {
  auto store = schema::Store::open(path);
  ASSERT_TRUE(store) << store.error().message;
  std::mt19937 rng(static_cast<unsigned>(first_day));
  for (int day = first_day; day < first_day + runs; ++day) {
    ASSERT_TRUE(server::ingest_files(*store, nightly_meta("BMG", day), {{"perf.csv", nightly_csv(rng, 30)}}));
  }
}

std::int64_t count_in(const std::string& path, const std::string& sql) {
  auto db = schema::Database::open(path);
  EXPECT_TRUE(db);
  return scalar(*db, sql);
}

TEST(BackupRestore, RoundTripAndAuditedRestore) {
  TempDir dir;
  const auto db = dir.file("live.sqlite");
  fill(db, 5);
  const auto copy = dir.file("backup.sqlite");
  auto info = schema::backup_database(db, copy);
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->runs, 5);
  EXPECT_EQ(info->schema_version, schema::latest_schema_version());
  EXPECT_EQ(info->integrity, "ok");
  EXPECT_EQ(info->bytes, static_cast<std::int64_t>(fs::file_size(copy)));
  EXPECT_FALSE(fs::exists(copy + ".tmp"));
  EXPECT_FALSE(fs::exists(copy + "-wal")) << "the copy is one self-contained file";

  const auto target = dir.file("restored/db.sqlite");
  auto restored = schema::restore_database(copy, target, {.force = false, .actor = "cli:test"});
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_FALSE(restored->replaced);
  EXPECT_EQ(restored->runs, 5);
  EXPECT_EQ(count_in(target, "SELECT count(*) FROM results"), count_in(db, "SELECT count(*) FROM results"));
  EXPECT_EQ(count_in(target, "SELECT count(*) FROM audit_log WHERE action = 'restore' AND actor = 'cli:test'"), 1);

  // An existing target needs --force; with it, the target is replaced (and stale -wal / -shm go).
  fill(db, 2, 20);
  ASSERT_TRUE(schema::backup_database(db, copy));
  auto refused = schema::restore_database(copy, target, {.force = false, .actor = "cli:test"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "target_exists");
  { std::ofstream(target + "-wal") << "stale"; }
  auto forced = schema::restore_database(copy, target, {.force = true, .actor = "cli:test"});
  ASSERT_TRUE(forced) << forced.error().message;
  EXPECT_TRUE(forced->replaced);
  EXPECT_EQ(forced->runs, 7);
  EXPECT_EQ(count_in(target, "SELECT count(*) FROM runs"), 7);
  auto check = schema::verify_database(copy);
  ASSERT_TRUE(check) << check.error().message;
}

TEST(BackupRestore, RefusesFilesThatAreNotOurDatabase) {
  TempDir dir;
  const auto target = dir.file("db.sqlite");
  auto expect_refused = [&](const std::string& file, const std::string& code) {
    auto r = schema::restore_database(file, target, {.force = true, .actor = "t"});
    ASSERT_FALSE(r) << file;
    EXPECT_EQ(r.error().code, code) << r.error().message;
    EXPECT_FALSE(fs::exists(target)) << "nothing written for a refused file";
  };
  expect_refused(dir.file("missing.sqlite"), "no_backup");
  { std::ofstream(dir.file("text.sqlite")) << std::string(5000, 'x'); }
  expect_refused(dir.file("text.sqlite"), "not_a_database");
  {
    auto other = schema::Database::open(dir.file("other.sqlite"));
    ASSERT_TRUE(other && other->exec("CREATE TABLE notes(x)"));
  }
  expect_refused(dir.file("other.sqlite"), "not_perftriage");
  fill(dir.file("newer.sqlite"), 1);
  {
    auto db = schema::Database::open(dir.file("newer.sqlite"));
    ASSERT_TRUE(db && db->exec("PRAGMA user_version = 999"));
  }
  expect_refused(dir.file("newer.sqlite"), "schema_too_new");
  fill(dir.file("extra.sqlite"), 1);
  {
    auto db = schema::Database::open(dir.file("extra.sqlite"));
    ASSERT_TRUE(db && db->exec("CREATE TABLE surprise(x)"));
  }
  expect_refused(dir.file("extra.sqlite"), "unknown_table");
}

// The backup reads one snapshot while another connection keeps committing: small steps are never restarted and the
// copy is exactly the database as of one commit.
TEST(BackupRestore, ConsistentUnderConcurrentWrites) {
  TempDir dir;
  const auto db = dir.file("live.sqlite");
  fill(db, 3);
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    auto store = schema::Store::open(db);
    ASSERT_TRUE(store);
    std::mt19937 rng(9);
    for (int i = 0; !stop && i < 400; ++i) {
      auto meta = nightly_meta("PVC", 1);
      meta.run = fmt::format("w{:04d}", i);
      ASSERT_TRUE(server::ingest_files(*store, meta, {{"perf.csv", nightly_csv(rng, 10)}}));
      ++written;
    }
  });
  while (written < 5) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (int i = 0; i < 3; ++i) {
    const auto copy = dir.file(fmt::format("b{}.sqlite", i));
    const int before = written.load();
    auto info = schema::backup_database(db, copy, 1);  // one page per step: many steps while the writer commits
    const int after = written.load();
    ASSERT_TRUE(info) << info.error().message;
    EXPECT_EQ(info->integrity, "ok");
    EXPECT_GE(info->runs, 3 + before);
    EXPECT_LE(info->runs, 3 + after + 1);
    // Every run in the copy is whole: its file and all of its rows.
    EXPECT_EQ(count_in(copy,
                       "SELECT count(*) FROM runs r WHERE NOT EXISTS (SELECT 1 FROM result_files f"
                       " WHERE f.run_id = r.id)"),
              0);
    EXPECT_EQ(count_in(copy,
                       "SELECT count(*) FROM result_files f WHERE row_count <>"
                       " (SELECT count(*) FROM results x WHERE x.file_id = f.id)"),
              0);
  }
  stop = true;
  writer.join();
}

TEST(BackupRestore, RefusesATargetAnotherProcessHasOpen) {
  TempDir dir;
  const auto db = dir.file("live.sqlite");
  fill(db, 1);
  const auto copy = dir.file("backup.sqlite");
  ASSERT_TRUE(schema::backup_database(db, copy));
  EXPECT_FALSE(schema::database_in_use(db));
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // another process with the database open, like a running server
    auto other = schema::Database::open(db);
    if (other) (void)other->exec("SELECT count(*) FROM runs");
    char c = 1;
    (void)!::write(ready[1], &c, 1);
    (void)!::read(release[0], &c, 1);
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_TRUE(schema::database_in_use(db));
  auto refused = schema::restore_database(copy, db, {.force = true, .actor = "t"});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, "database_in_use");
  (void)!::write(release[1], &c, 1);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_FALSE(schema::database_in_use(db));
  EXPECT_TRUE(schema::restore_database(copy, db, {.force = true, .actor = "t"}));
  for (int fd : {ready[0], ready[1], release[0], release[1]}) ::close(fd);
}

}  // namespace
}  // namespace perftriage
