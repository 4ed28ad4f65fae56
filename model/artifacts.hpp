#pragma once
// Files attached to a stored case (traces, compile logs) and their classify findings, as the store returns them.
#include <cstdint>
#include <string>

namespace perftriage::model {

// One benchmark case of a run: the axes of its result rows.
struct CaseRef {
  std::string suite, dtype, mode, model;
  std::string config;
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

}  // namespace perftriage::model
