#pragma once
// One migration as the build embeds it (cmake/EmbedMigrations.cmake): schema/migrations/NNN_name.sql for SQLite,
// schema/migrations/postgres/NNN_name.sql for PostgreSQL.
#include <array>
#include <string_view>

namespace perftriage::schema {

struct EmbeddedMigration {
  int version;
  std::string_view name;
  std::string_view sql;
};

}  // namespace perftriage::schema
