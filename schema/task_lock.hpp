#pragma once
// One replica at a time for a periodic task (retention today): on PostgreSQL a session advisory lock named after
// the task, taken without waiting and given back when the TaskLock goes (or when the replica dies: its session ends);
// on SQLite always held, the database being one machine's file.
#include <string>
#include <string_view>
#include <utility>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

class TaskLock {
 public:
  // held() is false when another replica runs the task now: skip this round.
  static Result<TaskLock> try_take(Database& db, std::string_view task);
  TaskLock(TaskLock&& other) noexcept
      : db_(std::exchange(other.db_, nullptr)), task_(std::move(other.task_)), held_(other.held_) {}
  TaskLock& operator=(TaskLock&&) = delete;
  TaskLock(const TaskLock&) = delete;
  TaskLock& operator=(const TaskLock&) = delete;
  ~TaskLock();

  [[nodiscard]] bool held() const noexcept { return held_; }

 private:
  TaskLock(Database* db, std::string task, bool held) : db_(db), task_(std::move(task)), held_(held) {}
  Database* db_ = nullptr;  // set while a PostgreSQL lock is to be given back
  std::string task_;
  bool held_ = false;
};

}  // namespace perftriage::schema
