#include "schema/label_model_store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kUpsert =
    "INSERT INTO label_models(repo, taxonomy, model, issues, corrections, trained_at) VALUES($1, $2, $3, $4, $5, $6) "
    "ON CONFLICT(repo) DO UPDATE SET taxonomy = excluded.taxonomy, model = excluded.model, issues = excluded.issues, "
    "corrections = excluded.corrections, trained_at = excluded.trained_at";
constexpr std::string_view kOne =
    "SELECT repo, taxonomy, model, issues, corrections, trained_at FROM label_models WHERE repo = $1";
constexpr std::string_view kOneHead =
    "SELECT repo, taxonomy, '', issues, corrections, trained_at FROM label_models WHERE repo = $1";
constexpr std::string_view kAll =
    "SELECT repo, taxonomy, '', issues, corrections, trained_at FROM label_models ORDER BY repo";

StoredLabelModel read_row(const Statement& st) {
  return {st.text(0), st.text(1), st.text(2), st.int64(3), st.int64(4), st.text(5)};
}

}  // namespace

Result<void> save_label_model(Database& db, const StoredLabelModel& m) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsert));
  st.bind(1, m.repo).bind(2, m.taxonomy).bind(3, m.model).bind(4, m.issues).bind(5, m.corrections);
  st.bind(6, m.trained_at);
  return st.run();
}

Result<std::optional<StoredLabelModel>> label_model(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, kOne));
  st.bind(1, repo);
  return first(st, read_row);
}

Result<std::optional<StoredLabelModel>> label_model_head(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, kOneHead));
  st.bind(1, repo);
  return first(st, read_row);
}

Result<std::vector<StoredLabelModel>> label_models(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, kAll));
  return collect<StoredLabelModel>(st, read_row);
}

}  // namespace perftriage::schema
