#pragma once
// Files attached to a stored case (traces, compile logs) with their classify result. Free functions over a
// Database: writes run inside the caller's Transaction, reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "model/artifacts.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct NewArtifact {
  std::int64_t run_id = 0;
  model::CaseRef case_ref;
  std::string name;
  std::string role;
  std::string kind;
  std::string sha256;       // of `bytes`
  std::string_view bytes;   // as uploaded: a gzip is kept as it is, anything else is stored deflated
  std::string result_json;  // the classify result
};

Result<std::int64_t> insert_artifact(Database& db, const NewArtifact& artifact);
// The artifact of this case with these bytes, if stored already (config is not part of the identity).
Result<std::optional<model::ArtifactRecord>> find_artifact(Database& db, std::int64_t run_id,
                                                           const model::CaseRef& case_ref, std::string_view sha256);
// Oldest first. An empty case_ref.config matches every config.
Result<std::vector<model::ArtifactRecord>> case_artifacts(Database& db, std::int64_t run_id,
                                                          const model::CaseRef& case_ref);
Result<std::vector<model::ArtifactFindings>> run_artifact_findings(Database& db, std::int64_t run_id);
// Every artifact of one model on a platform (any spelling of it), across its runs (oldest run first), for the case
// history.
Result<std::vector<model::ArtifactFindings>> model_artifact_findings(Database& db, const std::string& platform,
                                                                     const std::string& suite,
                                                                     const std::string& model);
Result<std::optional<model::ArtifactRecord>> get_artifact(Database& db, std::int64_t id);
// The bytes as uploaded; nullopt for an unknown id.
Result<std::optional<std::string>> artifact_bytes(Database& db, std::int64_t id);

}  // namespace perftriage::schema
