#pragma once
// The two ways of storing a file's result rows behind ResultWriter (store.hpp), one per backend, each using its engine
// as itself. Internal to schema/: ResultWriter::open chooses by the database's dialect.
#include <cstdint>
#include <memory>

#include "common/result.hpp"
#include "ingest/records.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {

// Where a file's rows go: its run, its file, and the case group of its axes.
struct ResultTarget {
  std::int64_t run_id = 0;
  std::int64_t file_id = 0;
  std::int64_t group_id = 0;
};

// The case group of these axes, inserted when it is new.
Result<std::int64_t> case_group_id(Database& db, const ingest::Axes& axes);

// SQLite (sqlite_result_writer.cpp): one prepared INSERT stepped per row, in process.
Result<std::unique_ptr<ResultWriter::Backend>> open_sqlite_result_writer(Database& db, const ResultTarget& target);
// PostgreSQL (postgres_result_writer.cpp): COPY into a staging table, then INSERT ... SELECT.
Result<std::unique_ptr<ResultWriter::Backend>> open_postgres_result_writer(Database& db, const ResultTarget& target);

// The `extra` column: a row's unknown columns as one JSON object, "" when it has none.
std::string extra_columns_json(const ingest::ResultRow& row);

}  // namespace perftriage::schema
