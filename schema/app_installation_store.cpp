#include "schema/app_installation_store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kUpsert =
    "INSERT INTO app_installations(repo, installation_id, removed, updated_ms) VALUES($1, $2, $3, $4) "
    "ON CONFLICT(repo) DO UPDATE SET installation_id = excluded.installation_id, removed = excluded.removed, "
    "updated_ms = excluded.updated_ms";
constexpr std::string_view kRemoveInstallation =
    "UPDATE app_installations SET removed = 1, updated_ms = $2 WHERE installation_id = $1";
constexpr std::string_view kColumns = "SELECT repo, installation_id, removed, updated_ms FROM app_installations ";

AppRepo read_row(const Statement& st) { return {st.text(0), st.int64(1), st.int64(2) != 0, st.int64(3)}; }

}  // namespace

nlohmann::json to_json(const AppRepo& r) {
  return {
      {"repo", r.repo}, {"installation_id", r.installation_id}, {"removed", r.removed}, {"updated_ms", r.updated_ms}};
}

Result<void> set_app_repos(Database& db, std::int64_t installation_id, const std::vector<std::string>& repos,
                           bool removed, std::int64_t now_ms) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsert));
  for (const auto& repo : repos) {
    st.bind(1, repo).bind(2, installation_id).bind(3, std::int64_t{removed ? 1 : 0}).bind(4, now_ms);
    PT_TRY(st.run());
    st.reset();
  }
  return {};
}

Result<std::int64_t> remove_app_installation(Database& db, std::int64_t installation_id, std::int64_t now_ms) {
  PT_ASSIGN(auto st, Statement::prepare(db, kRemoveInstallation));
  st.bind(1, installation_id).bind(2, now_ms);
  PT_TRY(st.run());
  return db.changes();
}

Result<std::optional<AppRepo>> app_repo(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kColumns) + "WHERE repo = $1"));
  st.bind(1, repo);
  return first(st, read_row);
}

Result<std::vector<AppRepo>> app_repos(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kColumns) + "ORDER BY repo"));
  return collect<AppRepo>(st, read_row);
}

}  // namespace perftriage::schema
