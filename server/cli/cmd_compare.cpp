// perftriage compare --target KEY [--base KEY|previous|TAG] [--format md|csv|json | --json] [--db PATH]
//                    [--regression 0.9] [--red 0.8] [--improvement 1.1]
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
  std::string db, base = "previous", target, format, regression, red, improvement;
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
  app.add_option("--regression", o->regression, "a case regressed when either latency ratio is below this")
      ->default_str("0.9");
  app.add_option("--red", o->red, "a regression is red below this")->default_str("0.8");
  app.add_option("--improvement", o->improvement, "a case improved when either ratio is above this")
      ->default_str("1.1");
  add_format_options(app, o->format, o->json, "md");
  cmd.on_run([o, io = cmd.io] {
    const auto thresholds = or_usage(cmp::parse_thresholds(o->regression, o->red, o->improvement), "");
    return [o, io, thresholds] { return compare(*o, thresholds, io); };
  });
}

}  // namespace perftriage::cli
