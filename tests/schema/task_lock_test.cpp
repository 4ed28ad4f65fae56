// A periodic task on one replica at a time (schema/task_lock.hpp).
#include <gtest/gtest.h>

#include "schema/store.hpp"
#include "schema/task_lock.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

TEST(TaskLock, OneReplicaAtATimeOnPostgresAlwaysOnSqlite) {
  const testing::TempDir dir("perftriage-task-lock");
  const std::string db = testing_support::test_db_file(dir.file("db.sqlite"));
  auto a = Store::open(db);
  auto b = Store::open(db);
  ASSERT_TRUE(a && b);
  {
    auto first = TaskLock::try_take(a->db(), "retention");
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_TRUE(first->held());
    auto second = TaskLock::try_take(b->db(), "retention");
    ASSERT_TRUE(second) << second.error().message;
    EXPECT_EQ(second->held(), !testing_support::on_postgres());  // SQLite: one machine, no replicas to keep out
    auto other_task = TaskLock::try_take(b->db(), "backlog");
    ASSERT_TRUE(other_task);
    EXPECT_TRUE(other_task->held());
  }
  auto after = TaskLock::try_take(b->db(), "retention");  // the first one gave it back
  ASSERT_TRUE(after);
  EXPECT_TRUE(after->held());
}

}  // namespace
}  // namespace perftriage::schema
