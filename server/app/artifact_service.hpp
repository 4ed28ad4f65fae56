#pragma once
// Use cases behind POST /classify and the case artifacts: find a stored case, classify a file and attach it to the
// case (one transaction), and the JSON of a stored artifact. Reading the file out of a request is the transport's
// (server/http/request_file.hpp).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/trace/classify.hpp"
#include "common/result.hpp"
#include "schema/artifact_store.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// One file of a request: a trace, a log or an artifact.
struct UploadedFile {
  std::string name;
  std::string_view borrowed;         // a raw body: a view of the request's, no copy of a large trace
  std::optional<std::string> owned;  // the body of a multipart file part
  [[nodiscard]] std::string_view bytes() const { return owned ? std::string_view(*owned) : borrowed; }
};

// A file name as stored: at most 255 bytes, no control characters (invalid_input "bad_name" otherwise).
Result<std::string> checked_file_name(const std::string& name);

struct CaseLookup {
  model::RunRecord run;
  model::CaseRef case_ref;                // config resolved from the rows
  std::vector<model::ResultRecord> rows;  // performance and accuracy rows of the case
};

// The result rows of suite/dtype/mode/model in run `run_key` (config "" = the only one there is).
// not_found names the run, or the model, or the case that is missing; several configs without one given ->
// invalid_input "ambiguous_case".
Result<CaseLookup> find_case(schema::Store& store, const std::string& run_key, const model::CaseRef& case_ref);

struct AttachOutcome {
  bool duplicate = false;  // these bytes were attached to the case already: nothing stored
  model::ArtifactRecord artifact;
};

// Classifies `file` (refused -> its Error, nothing stored) and stores it with its findings.
Result<AttachOutcome> attach_artifact(schema::Store& store, const CaseLookup& found, const UploadedFile& file,
                                      const std::string& role, const analyzers::trace::ClassifyOptions& options = {});

// {"id","run","suite","dtype","mode","model","config","name","role","kind","sha256","size","stored_size",
//  "compression","created_at","census","findings","summary"}; census is null for a compile log.
nlohmann::json artifact_json(const model::ArtifactRecord& artifact);

}  // namespace perftriage::server
