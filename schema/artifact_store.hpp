#pragma once
// Files attached to a stored case (traces, compile logs) with their classify result. Free functions over a
// Database: writes run inside the caller's Transaction, reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {

// One benchmark case of a run: the axes of its result rows.
struct CaseRef {
  std::string suite, dtype, mode, model;
  std::string config;
};

struct NewArtifact {
  std::int64_t run_id = 0;
  CaseRef case_ref;
  std::string name;
  std::string role;
  std::string kind;
  std::string sha256;        // of `bytes`
  std::string_view bytes;    // as uploaded: a gzip is kept as it is, anything else is stored deflated
  std::string result_json;   // the classify result
};

struct ArtifactRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string run_key;
  CaseRef case_ref;
  std::string name, role, kind, sha256;
  std::int64_t size = 0;         // bytes as uploaded
  std::int64_t stored_size = 0;  // bytes in the database
  std::string compression;       // "deflate" | "gzip"
  std::string result_json;       // the classify result
  std::string created_at;
};

// Just what the slow list needs: the findings array, not the census.
struct ArtifactFindings {
  std::int64_t id = 0;
  CaseRef case_ref;
  std::string name, role;
  std::string findings_json;  // the classify result's "findings" array
  std::string run_key;        // set by model_artifact_findings
};

Result<std::int64_t> insert_artifact(Database& db, const NewArtifact& artifact);
// The artifact of this case with these bytes, if stored already (config is not part of the identity).
Result<std::optional<ArtifactRecord>> find_artifact(Database& db, std::int64_t run_id, const CaseRef& case_ref,
                                                    std::string_view sha256);
// Oldest first. An empty case_ref.config matches every config.
Result<std::vector<ArtifactRecord>> case_artifacts(Database& db, std::int64_t run_id, const CaseRef& case_ref);
Result<std::vector<ArtifactFindings>> run_artifact_findings(Database& db, std::int64_t run_id);
// Every artifact of one model on a platform, across its runs (oldest run first), for the case history.
Result<std::vector<ArtifactFindings>> model_artifact_findings(Database& db, const std::string& platform,
                                                              const std::string& suite, const std::string& model);
Result<std::optional<ArtifactRecord>> get_artifact(Database& db, std::int64_t id);
// The bytes as uploaded; nullopt for an unknown id.
Result<std::optional<std::string>> artifact_bytes(Database& db, std::int64_t id);

}  // namespace perftriage::schema
