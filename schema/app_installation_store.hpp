#pragma once
// Which repositories a GitHub App installation covers (migration 019): written from the App's `installation` and
// `installation_repositories` webhooks, read before acting on a repository in App mode.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct AppRepo {
  std::string repo;
  std::int64_t installation_id = 0;
  bool removed = false;
  std::int64_t updated_ms = 0;
};
nlohmann::json to_json(const AppRepo& repo);

// `repos` are now covered by `installation_id` (removed = false) or lost by it (removed = true).
Result<void> set_app_repos(Database& db, std::int64_t installation_id, const std::vector<std::string>& repos,
                           bool removed, std::int64_t now_ms);
// The installation was deleted or suspended: every repository it covered is lost. Returns how many were known.
Result<std::int64_t> remove_app_installation(Database& db, std::int64_t installation_id, std::int64_t now_ms);
// nullopt: no installation event named the repository.
Result<std::optional<AppRepo>> app_repo(Database& db, std::string_view repo);
Result<std::vector<AppRepo>> app_repos(Database& db);

}  // namespace perftriage::schema
