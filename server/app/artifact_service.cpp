#include "server/app/artifact_service.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "common/json_text.hpp"
#include "schema/blob_codec.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kMaxRoleBytes = 64;

bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

std::string case_text(const model::CaseRef& c) {
  return c.suite + "/" + c.dtype + "/" + c.mode + "/" + c.model +
         (c.config.empty() ? "" : " (config " + c.config + ")");
}

}  // namespace

Result<std::string> checked_file_name(const std::string& name) {
  if (name.size() > kMaxNameBytes || has_control(name)) {
    return make_error(ErrorKind::invalid_input, "bad_name",
                      "the file name must be at most 255 bytes without control characters", {}, 0, "name");
  }
  return name;
}

Result<CaseLookup> find_case(schema::Store& store, const std::string& run_key, const model::CaseRef& case_ref) {
  PT_ASSIGN(auto run, schema::find_run(store.db(), run_key));
  if (!run) return make_error(ErrorKind::not_found, "no_run", "no run with key '" + run_key + "'", {}, 0, "run");
  schema::ResultFilter filter;
  filter.run_ids = {run->id};
  filter.suite = case_ref.suite;
  filter.dtype = case_ref.dtype;
  filter.mode = case_ref.mode;
  filter.model = case_ref.model;
  filter.config = case_ref.config;
  PT_ASSIGN(auto rows, schema::results(store.db(), filter));
  if (rows.empty()) {
    schema::ResultFilter by_model;
    by_model.run_ids = filter.run_ids;
    by_model.model = case_ref.model;
    by_model.limit = 1;
    PT_ASSIGN(const auto any, schema::results(store.db(), by_model));
    if (any.empty()) {
      return make_error(ErrorKind::not_found, "no_model",
                        "run '" + run_key + "' has no result for model '" + case_ref.model + "'", {}, 0, "model");
    }
    return make_error(ErrorKind::not_found, "no_case", "run '" + run_key + "' has no result for " + case_text(case_ref),
                      {}, 0, "case");
  }
  std::set<std::string> configs;
  for (const auto& r : rows) configs.insert(r.config);
  if (configs.size() > 1) {
    return make_error(ErrorKind::invalid_input, "ambiguous_case",
                      "run '" + run_key + "' has " + case_text(case_ref) + " in " + std::to_string(configs.size()) +
                          " configs: name one with ?config=",
                      {}, 0, "config");
  }
  CaseLookup found{std::move(*run), case_ref, std::move(rows)};
  found.case_ref.config = *configs.begin();
  return found;
}

Result<AttachOutcome> attach_artifact(schema::Store& store, const CaseLookup& found, const UploadedFile& file,
                                      const std::string& role, const analyzers::trace::ClassifyOptions& options) {
  if (role.size() > kMaxRoleBytes || has_control(role)) {
    return make_error(ErrorKind::invalid_input, "bad_role", "role must be at most 64 bytes without control characters",
                      {}, 0, "role");
  }
  const std::string sha = schema::sha256_hex(file.bytes());
  auto& db = store.db();
  PT_ASSIGN(auto existing, schema::find_artifact(db, found.run.id, found.case_ref, sha));
  if (existing) return AttachOutcome{true, std::move(*existing)};

  // Classified outside the write transaction: a large trace takes seconds and must not hold the lock.
  PT_ASSIGN(const json result, analyzers::trace::classify_bytes(file.bytes(), file.name, options));

  PT_ASSIGN(auto tx, schema::Transaction::begin(db));
  // A concurrent upload of the same bytes.
  PT_ASSIGN(auto again, schema::find_artifact(db, found.run.id, found.case_ref, sha));
  if (again) return AttachOutcome{true, std::move(*again)};
  schema::NewArtifact a;
  a.run_id = found.run.id;
  a.case_ref = found.case_ref;
  a.name = file.name;
  a.role = role;
  a.kind = result.value("kind", "");
  a.sha256 = sha;
  a.bytes = file.bytes();
  a.result_json = dump_json(result);
  PT_ASSIGN(const std::int64_t id, schema::insert_artifact(db, a));
  PT_ASSIGN(auto stored, schema::get_artifact(db, id));
  if (!stored) return make_error(ErrorKind::internal, "artifact_lost", "the artifact just stored cannot be read back");
  PT_TRY(tx.commit());
  return AttachOutcome{false, std::move(*stored)};
}

json artifact_json(const model::ArtifactRecord& a) {
  json result = json::parse(a.result_json, nullptr, false);
  if (!result.is_object()) result = json::object();
  auto field = [&](const char* name, json fallback) { return result.contains(name) ? result[name] : fallback; };
  return {{"id", a.id},
          {"run", a.run_key},
          {"suite", a.case_ref.suite},
          {"dtype", a.case_ref.dtype},
          {"mode", a.case_ref.mode},
          {"model", a.case_ref.model},
          {"config", a.case_ref.config},
          {"name", a.name},
          {"role", a.role},
          {"kind", a.kind},
          {"sha256", a.sha256},
          {"size", a.size},
          {"stored_size", a.stored_size},
          {"compression", a.compression},
          {"created_at", a.created_at},
          {"census", field("census", nullptr)},
          {"findings", field("findings", json::array())},
          {"summary", field("summary", nullptr)}};
}

}  // namespace perftriage::server
