#include "server/app/artifact_service.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "ingest/archive.hpp"
#include "schema/blob_codec.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxNameBytes = 255;
constexpr std::size_t kMaxRoleBytes = 64;

bool has_control(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

Result<std::string> checked_name(const std::string& name) {
  if (name.size() > kMaxNameBytes || has_control(name)) {
    return make_error(ErrorKind::invalid_input, "bad_name",
                      "the file name must be at most 255 bytes without control characters", {}, 0, "name");
  }
  return name;
}

std::string case_text(const model::CaseRef& c) {
  return c.suite + "/" + c.dtype + "/" + c.mode + "/" + c.model + (c.config.empty() ? "" : " (config " + c.config + ")");
}

}  // namespace

Result<UploadedFile> uploaded_file(const ApiRequest& req, const std::string& fallback_name) {
  if (req.bytes().empty()) {
    return make_error(ErrorKind::invalid_input, "empty_body",
                      "the request body is empty: send the trace or log as the body, or as one multipart file part");
  }
  UploadedFile file;
  if (media_type(req.header("content-type")) == "multipart/form-data") {
    // Views, not copies: a part of a spooled body is read from the mapping.
    auto parts = ingest::parse_multipart_views(req.bytes(), req.header("content-type"));
    if (!parts) return std::move(parts).error();
    std::vector<ingest::MultipartPartView*> files;
    for (auto& p : *parts) {
      if (!p.filename.empty()) files.push_back(&p);
    }
    if (files.empty() && parts->size() == 1) files.push_back(&parts->front());
    if (files.size() != 1) {
      return make_error(ErrorKind::invalid_input, "one_file_part",
                        "a multipart body must hold exactly one file part, found " + std::to_string(files.size()));
    }
    file.name = files.front()->filename;
    file.borrowed = files.front()->body;
    if (file.borrowed.empty()) {
      return make_error(ErrorKind::invalid_input, "empty_body", "the file part is empty", file.name);
    }
  } else {
    file.borrowed = req.bytes();
  }
  if (!req.q("name").empty()) file.name = req.q("name");
  if (file.name.empty()) file.name = fallback_name;
  auto name = checked_name(file.name);
  if (!name) return std::move(name).error();
  return file;
}

Result<CaseLookup> find_case(schema::Store& store, const std::string& run_key, const model::CaseRef& case_ref) {
  auto run = store.find_run(run_key);
  if (!run) return std::move(run).error();
  if (!*run) return make_error(ErrorKind::not_found, "no_run", "no run with key '" + run_key + "'", {}, 0, "run");
  schema::ResultFilter filter;
  filter.run_ids = {(*run)->id};
  filter.suite = case_ref.suite;
  filter.dtype = case_ref.dtype;
  filter.mode = case_ref.mode;
  filter.model = case_ref.model;
  filter.config = case_ref.config;
  auto rows = store.results(filter);
  if (!rows) return std::move(rows).error();
  if (rows->empty()) {
    schema::ResultFilter by_model;
    by_model.run_ids = filter.run_ids;
    by_model.model = case_ref.model;
    by_model.limit = 1;
    auto any = store.results(by_model);
    if (!any) return std::move(any).error();
    if (any->empty()) {
      return make_error(ErrorKind::not_found, "no_model",
                        "run '" + run_key + "' has no result for model '" + case_ref.model + "'", {}, 0, "model");
    }
    return make_error(ErrorKind::not_found, "no_case",
                      "run '" + run_key + "' has no result for " + case_text(case_ref), {}, 0, "case");
  }
  std::set<std::string> configs;
  for (const auto& r : *rows) configs.insert(r.config);
  if (configs.size() > 1) {
    return make_error(ErrorKind::invalid_input, "ambiguous_case",
                      "run '" + run_key + "' has " + case_text(case_ref) + " in " + std::to_string(configs.size()) +
                          " configs: name one with ?config=",
                      {}, 0, "config");
  }
  CaseLookup found{std::move(**run), case_ref, std::move(*rows)};
  found.case_ref.config = *configs.begin();
  return found;
}

Result<AttachOutcome> attach_artifact(schema::Store& store, const CaseLookup& found, const UploadedFile& file,
                                      const std::string& role, const analyzers::trace::ClassifyOptions& options) {
  if (role.size() > kMaxRoleBytes || has_control(role)) {
    return make_error(ErrorKind::invalid_input, "bad_role",
                      "role must be at most 64 bytes without control characters", {}, 0, "role");
  }
  const std::string sha = schema::sha256_hex(file.bytes());
  auto& db = store.db();
  auto existing = schema::find_artifact(db, found.run.id, found.case_ref, sha);
  if (!existing) return std::move(existing).error();
  if (*existing) return AttachOutcome{true, std::move(**existing)};

  // Classified outside the write transaction: a large trace takes seconds and must not hold the lock.
  auto result = analyzers::trace::classify_bytes(file.bytes(), file.name, options);
  if (!result) return std::move(result).error();

  auto tx = schema::Transaction::begin(db);
  if (!tx) return std::move(tx).error();
  auto again = schema::find_artifact(db, found.run.id, found.case_ref, sha);  // a concurrent upload of the same bytes
  if (!again) return std::move(again).error();
  if (*again) return AttachOutcome{true, std::move(**again)};
  schema::NewArtifact a;
  a.run_id = found.run.id;
  a.case_ref = found.case_ref;
  a.name = file.name;
  a.role = role;
  a.kind = result->value("kind", "");
  a.sha256 = sha;
  a.bytes = file.bytes();
  a.result_json = dump_json(*result);
  auto id = schema::insert_artifact(db, a);
  if (!id) return std::move(id).error();
  auto stored = schema::get_artifact(db, *id);
  if (!stored) return std::move(stored).error();
  if (!*stored) return make_error(ErrorKind::internal, "artifact_lost", "the artifact just stored cannot be read back");
  PT_TRY(tx->commit());
  return AttachOutcome{false, std::move(**stored)};
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
