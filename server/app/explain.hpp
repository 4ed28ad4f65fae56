#pragma once
// One case explained end to end, for GET /api/v1/explain/..., `perftriage explain` and the Case page: its speedup
// history on the platform with the change points, the run and file its newest row came from, its triage state with
// the history of it, every finding of the artifacts attached to it (and of its rows' graph-break counters) with the
// evidence, and a one-paragraph verdict naming what to attach next when the evidence is missing.
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/store.hpp"
#include "schema/triage_store.hpp"

namespace perftriage::server {

// {"case", "latest", "history": {"points", "change_points"}, "triage", "findings", "explanation", "verdict",
//  "next": [what to attach]}. not_found when the platform has no performance row of the case.
Result<nlohmann::json> explain(schema::Store& store, const schema::TriageKey& key, double threshold);

// The explanation as markdown (the CLI's default output).
std::string explain_markdown(const nlohmann::json& explained);

}  // namespace perftriage::server
