#include "schema/audit_store.hpp"

#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kInsert =
    "INSERT INTO audit_log(at, actor, action, target, detail) VALUES($1, $2, $3, $4, $5)";
constexpr std::string_view kSelect =
    "SELECT id, at, actor, action, target, detail FROM audit_log WHERE (COALESCE($1, '') = '' OR action = $1) "
    "ORDER BY id DESC LIMIT $2";

}  // namespace

Result<void> append_audit(Database& db, std::string_view actor, std::string_view action, std::string_view target,
                          std::string_view detail_json) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsert));
  // std::string: a default-constructed string_view has no data and SQLite would store NULL.
  st.bind(1, now_iso8601()).bind(2, std::string(actor)).bind(3, std::string(action)).bind(4, std::string(target));
  st.bind(5, detail_json.empty() ? std::string("{}") : std::string(detail_json));
  return st.run();
}

Result<std::vector<AuditEntry>> list_audit(Database& db, std::string_view action, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSelect));
  st.bind(1, action).bind(2, sql_limit(limit));
  return collect<AuditEntry>(st, [](const Statement& s) {
    return AuditEntry{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5)};
  });
}

nlohmann::json to_json(const AuditEntry& entry) {
  auto detail = nlohmann::json::parse(entry.detail, nullptr, false);
  if (detail.is_discarded()) detail = entry.detail;
  return {{"id", entry.id},         {"at", entry.at},         {"actor", entry.actor},
          {"action", entry.action}, {"target", entry.target}, {"detail", std::move(detail)}};
}

}  // namespace perftriage::schema
