#include "schema/task_lock.hpp"

namespace perftriage::schema {
namespace {

// The two-key form of the advisory locks: its key space never meets the writers' single-key lock (schema/sqlite.cpp).
constexpr std::string_view kTryLock = "SELECT pg_try_advisory_lock(7250002, hashtext($1))";
constexpr std::string_view kUnlock = "SELECT pg_advisory_unlock(7250002, hashtext($1))";

}  // namespace

Result<TaskLock> TaskLock::try_take(Database& db, std::string_view task) {
  if (db.dialect() == Dialect::sqlite) return TaskLock(nullptr, std::string(task), true);
  PT_ASSIGN(auto st, Statement::prepare(db, kTryLock));
  st.bind(1, task);
  PT_ASSIGN(const std::int64_t taken, scalar(st));
  return TaskLock(taken ? &db : nullptr, std::string(task), taken != 0);
}

TaskLock::~TaskLock() {
  if (!db_ || !db_->usable()) return;  // a lost connection took its locks with it
  auto st = Statement::prepare(*db_, kUnlock);
  if (!st) return;
  st->bind(1, task_);
  (void)st->run();
}

}  // namespace perftriage::schema
