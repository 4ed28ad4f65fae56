#pragma once
// The labeler's models `serve` retrained (migration 020): one per repository, replaced by each retrain. The model
// itself is data the analyzers layer reads (analyzers/labeler/model.hpp load_model); the store keeps its JSON text.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct StoredLabelModel {
  std::string repo, taxonomy;
  std::string model;  // JSON
  std::int64_t issues = 0, corrections = 0;
  std::string trained_at;  // ISO 8601, UTC
};

// Inserts or replaces the repository's model.
Result<void> save_label_model(Database& db, const StoredLabelModel& m);
// nullopt: never retrained. `repo` in any case.
Result<std::optional<StoredLabelModel>> label_model(Database& db, std::string_view repo);
// The same without its JSON (`model` ""): which training it is, read before deciding to fetch the model itself.
Result<std::optional<StoredLabelModel>> label_model_head(Database& db, std::string_view repo);
// Every stored model without its JSON (the list /api/v1/issues/labels shows), by repo.
Result<std::vector<StoredLabelModel>> label_models(Database& db);

}  // namespace perftriage::schema
