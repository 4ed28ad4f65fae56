// perftriage compare --target KEY [--base KEY|previous|TAG] [--format md|csv|json | --json] [--db PATH]
//                    [--regression 0.9] [--red 0.8] [--improvement 1.1] [--compile-regression 0.8] ...
// The table of GET /api/v1/compare (server/app/tables.hpp).
#include <memory>
#include <ostream>

#include "analyzers/compare/case_compare.hpp"
#include "server/app/comparison.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace cmp = analyzers::compare;

// --base, --target and the thresholds, shared with `report --kind regressions`.
struct CompareOptions {
  std::string db, base = "previous", target, format;
  ThresholdTexts thresholds;
  bool json = false;
};

Result<int> compare(const CompareOptions& o, const cmp::Thresholds& thresholds, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto comparison, server::compare_runs(store, o.base, o.target, thresholds));
  io.out << server::render_comparison(comparison, thresholds, chosen_format(o.format, o.json)).body;
  return 0;
}

}  // namespace

void add_compare(const Command& cmd) {
  auto o = std::make_shared<CompareOptions>();
  CLI::App& app = *cmd.app;
  add_db_option(app, o->db);
  app.add_option("--target", o->target, "the run to judge")->required();
  app.add_option("--base", o->base,
                 "the run to compare with: a key, previous (the platform's run before the "
                 "target) or a tag (its latest run)")
      ->capture_default_str();
  add_verdict_threshold_options(app, o->thresholds, "");
  add_format_options(app, o->format, o->json, "md");
  cmd.on_run([o, io = cmd.io] {
    const auto thresholds = verdict_thresholds(o->thresholds);
    return [o, io, thresholds] { return compare(*o, thresholds, io); };
  });
}

}  // namespace perftriage::cli
