#pragma once
// A realistic synthetic data set for `serve --demo` (and so `make run`): BMG, PVC and A100, each with releases
// 2.12, 2.13 and 2.14 and 60 nightly runs in all; the seed issue's 11 slow cases on BMG 2.12 (exact speedup texts);
// a few regressions in the nightlies with classified traces and compile logs attached; failures, accuracy failures,
// a missing model; labeled issues and bot outbox actions for the Issues page; and one model whose name is HTML
// (`<img src=x onerror=alert(1)>`) so the dashboard's escaping is visible. Written as harness CSVs and ingested
// through the normal path. Deterministic (fixed seeds).
#include "common/result.hpp"
#include "schema/store.hpp"

namespace perftriage::server {

// The model whose name is markup: the dashboard must render it as text.
inline constexpr const char* kDemoMarkupModel = "<img src=x onerror=alert(1)>";

// Loads the demo runs unless a run with the demo's first key already exists. Returns runs added.
// Refuses (conflict `not_a_demo_database`, nothing written) a database holding any run that is not a demo run: the
// demo only runs on a database of its own. Demo runs carry the tag "demo"; every outbox row the demo writes is dry_run.
Result<int> load_demo_data(schema::Store& store);

}  // namespace perftriage::server
