#pragma once
// The one SQL test of "a run with performance results" (store.hpp RunsWith), shared by every query that picks a
// platform's latest runs (store.cpp, dashboard_queries.cpp), so that `slow`, the dashboard overview and the tracking
// issues agree. It reads the run's summaries (run_groups, migration 010), written with its rows and holding a row per
// (kind, suite, dtype, mode) that has any: one probe of their primary key per run, no scan of the run's rows.
// `runs` must be the runs table, unaliased.
#include <string_view>

#include "schema/store.hpp"

namespace perftriage::schema {

#define PT_RUN_HAS_PERFORMANCE \
  "EXISTS (SELECT 1 FROM run_groups g WHERE g.run_id = runs.id AND g.kind = 'performance' AND g.rows > 0)"

// "AND <the test> " when `with` asks for runs with performance results, else "": appended to a WHERE clause.
inline std::string_view runs_with_condition(RunsWith with) {
  return with == RunsWith::performance ? std::string_view("AND " PT_RUN_HAS_PERFORMANCE " ") : std::string_view();
}

}  // namespace perftriage::schema
