#pragma once
// A small, realistic synthetic data set for `serve --demo`: BMG 2.12 with the seed issue's 11 slow
// cases, plus PVC and A100 runs, written as harness CSVs and ingested through the normal path.
#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// Loads the demo runs unless a run with the demo's first key already exists. Returns runs added.
Result<int> load_demo_data(schema::Store& store);

}  // namespace perftriage::server
