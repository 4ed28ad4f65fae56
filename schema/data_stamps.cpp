#include "schema/data_stamps.hpp"

#include "common/strings.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kStampsSince = "SELECT scope, stamp FROM data_stamps WHERE stamp > $1";

}  // namespace

std::string stamp_scope_run(std::int64_t run_id) { return "run:" + std::to_string(run_id); }

// lower(): the migration's triggers spell the platform with SQLite's lower(), ASCII only, as common/strings.hpp.
std::string stamp_scope_platform(std::string_view platform) { return "platform:" + lower(platform); }

std::string stamp_scope_tag(std::string_view platform, std::string_view tag) {
  return "tag:" + lower(platform) + ":" + std::string(tag);
}

Result<std::vector<std::pair<std::string, std::int64_t>>> stamps_since(Database& db, std::int64_t after,
                                                                       std::optional<Statement>& prepared) {
  if (!prepared) {
    PT_ASSIGN(auto st, Statement::prepare(db, kStampsSince));
    prepared.emplace(std::move(st));
  }
  prepared->rewind();
  prepared->bind(1, after);
  auto rows = collect<std::pair<std::string, std::int64_t>>(*prepared, [](Statement& st) {
    return std::pair{st.text(0), st.int64(1)};
  });
  prepared->rewind();  // ends the read transaction at once
  return rows;
}

}  // namespace perftriage::schema
