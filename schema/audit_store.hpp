#pragma once
// The audit log (migration 007): who did what that cannot be undone or that changes who may do what — token create /
// revoke, run deletion, restore, retention deletes. Rows are only ever appended.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct AuditEntry {
  std::int64_t id = 0;
  std::string at;      // ISO-8601 UTC
  std::string actor;   // a token name, "cli:<user>", "retention", ...
  std::string action;  // token.create | token.revoke | run.delete | retention | restore | ...
  std::string target;
  std::string detail;  // JSON text
};

// Appends one row stamped with the current UTC time. `detail_json` must be JSON text ("" is stored as "{}"); it is
// not validated here. Call it inside the caller's Transaction when the audited change has one, so both commit
// together.
Result<void> append_audit(Database& db, std::string_view actor, std::string_view action, std::string_view target,
                          std::string_view detail_json);

// Newest first. `action` "" = every action.
Result<std::vector<AuditEntry>> list_audit(Database& db, std::string_view action = {}, std::int64_t limit = 500);

nlohmann::json to_json(const AuditEntry& entry);  // detail parsed back into JSON

}  // namespace perftriage::schema
