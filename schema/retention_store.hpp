#pragma once
// The store side of retention (server/app/retention.hpp decides what is old): each purge is a bounded batch in its own
// short transaction, so a big purge never holds the write lock for long. Cutoffs are ISO-8601 UTC strings compared
// with the server-written timestamps (uploaded_at, received_at, sent_at / created_at), which have that format.
#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// At most `limit` uploaded files (superseded ones too) uploaded before `cutoff` that still have their raw bytes lose
// them: raw_deflate becomes the empty blob (GET of the bytes answers "raw_dropped"); the parsed rows stay. One
// transaction. Returns how many files and how many compressed bytes were dropped.
struct DroppedRaw {
  std::int64_t files = 0;
  std::int64_t bytes = 0;
};
Result<DroppedRaw> drop_raw_files(Database& db, const std::string& cutoff, std::int64_t limit);
Result<DroppedRaw> count_raw_files(Database& db, const std::string& cutoff);  // what drop_raw_files would drop, all

// Finished ('done') webhook deliveries received before `cutoff`, at most `limit`, in one transaction; never
// 'processing' or 'quarantined' ones.
Result<std::int64_t> delete_done_deliveries(Database& db, const std::string& cutoff, std::int64_t limit);
Result<std::int64_t> count_done_deliveries(Database& db, const std::string& cutoff);

// Outbox rows in state sent or dry_run whose sent_at (created_at when there is none) is before `cutoff`, at most
// `limit`, in one transaction; never pending or failed ones.
Result<std::int64_t> delete_sent_outbox(Database& db, const std::string& cutoff, std::int64_t limit);
Result<std::int64_t> count_sent_outbox(Database& db, const std::string& cutoff);

struct RunAge {
  std::int64_t id = 0;
  std::string key;
  std::string platform;
  std::string created_at;
  std::vector<std::string> tags;
  bool has_performance = false;  // the run has performance results (store.hpp RunsWith)
};
// Every run, oldest first (created_at, id): what the retention rules select from.
Result<std::vector<RunAge>> list_run_ages(Database& db);

}  // namespace perftriage::schema
