#include "schema/database_size.hpp"

namespace perftriage::schema {

Result<std::optional<std::int64_t>> server_database_bytes(Database& db) {
  if (db.dialect() != Dialect::postgres) return std::optional<std::int64_t>{};
  PT_ASSIGN(auto st, Statement::prepare(db, "SELECT pg_database_size(current_database())"));
  PT_ASSIGN(const std::int64_t bytes, scalar(st));
  return std::optional<std::int64_t>{bytes};
}

}  // namespace perftriage::schema
