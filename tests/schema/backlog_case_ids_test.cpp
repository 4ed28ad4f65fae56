// Migration 012 (the backlog keyed by case id) on a database written by schema version 11: every backlog row is
// carried to its case of kind performance and the readers spell it out as before.
#include <gtest/gtest.h>

#include <string>

#include "schema/backlog_store.hpp"
#include "schema/migrate.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"
#include "tests/support/files.hpp"

namespace perftriage::schema {
namespace {

std::int64_t count_of(Database& db, const std::string& sql) {
  auto st = Statement::prepare(db, sql);
  EXPECT_TRUE(st) << st.error().message;
  return st ? scalar(*st).value() : -1;
}

TEST(BacklogCaseIdsMigration, AVersion11BacklogIsCarriedToCaseIds) {
  testing::TempDir dir{"perftriage-backlog-ids"};
  const std::string path = dir.file("v11.sqlite");
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db) << db.error().message;
    for (const auto& m : kMigrations) {
      if (m.version >= 12) break;
      ASSERT_TRUE(db->exec(m.sql)) << m.name;
    }
    ASSERT_TRUE(db->exec("PRAGMA user_version = 11"));
    // Two runs of BMG; the same model in an accuracy group too, which the backlog (performance only) must not take.
    ASSERT_TRUE(db->exec(
        "INSERT INTO runs(id, key, platform, created_at) VALUES(1, 'r1', 'BMG', '2026-01-01T00:00:00Z'),"
        " (2, 'r2', 'BMG', '2026-01-02T00:00:00Z');"
        "INSERT INTO case_groups(id, suite, dtype, mode, kind, config) VALUES"
        " (1, 'huggingface', 'bfloat16', 'inference', 'performance', ''),"
        " (2, 'huggingface', 'bfloat16', 'inference', 'accuracy', '');"
        "INSERT INTO case_models(id, group_id, model) VALUES (7, 2, 'T5Small'), (9, 1, 'T5Small'), (11, 1, 'Bert');"
        "INSERT INTO backlog VALUES ('BMG', 'huggingface', 'bfloat16', 'inference', '', 'T5Small',"
        " 1, '2026-01-01T00:00:00Z#000000000001', 1, '2026-01-01T00:00:00Z#000000000001', 2,"
        " '2026-01-02T00:00:00Z#000000000002', 2, '2026-01-02T00:00:00Z#000000000002', 1.2, '1.20', 0, 0.5, 1),"
        " ('BMG', 'huggingface', 'bfloat16', 'inference', '', 'Bert', 2, '2026-01-02T00:00:00Z#000000000002', 2,"
        " '2026-01-02T00:00:00Z#000000000002', NULL, NULL, 2, '2026-01-02T00:00:00Z#000000000002', 0.8, '0.80', 0,"
        " 0.8, 1);"));
  }
  auto s = Store::open(path);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(schema_version(s->db()).value(), latest_schema_version());
  // T5Small's performance case and Bert's, not the accuracy case 7 of the same model.
  EXPECT_EQ(count_of(s->db(), "SELECT count(*) FROM backlog"), 2);
  EXPECT_EQ(count_of(s->db(), "SELECT count(*) FROM backlog WHERE platform = 'BMG' AND case_id IN (9, 11)"), 2);
  auto backlog = read_backlog(s->db(), "BMG");
  ASSERT_TRUE(backlog) << backlog.error().message;
  ASSERT_EQ(backlog->size(), 2u);
  EXPECT_EQ((*backlog)[0].model, "Bert");
  EXPECT_EQ((*backlog)[0].status, "open");
  EXPECT_EQ((*backlog)[0].first_seen, "r2");
  EXPECT_EQ((*backlog)[1].model, "T5Small");
  EXPECT_EQ((*backlog)[1].suite, "huggingface");
  EXPECT_EQ((*backlog)[1].dtype, "bfloat16");
  EXPECT_EQ((*backlog)[1].status, "fixed");
  EXPECT_EQ((*backlog)[1].fixed_in, std::optional<std::string>("r2"));
  EXPECT_EQ((*backlog)[1].worst_speedup, std::optional<double>(0.5));
}

}  // namespace
}  // namespace perftriage::schema
