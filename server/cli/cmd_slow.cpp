// perftriage slow [--run KEY | --platform P] [--threshold X] [--format md|csv|json | --json] [--with-findings]
//                 [--db PATH]
// The table of GET /api/v1/slow (server/app/tables.hpp); --json prints its cases alone. --platform (or neither) reads
// the newest run with performance results; a platform without one exits 1 saying so. A --run without performance
// results still prints its (empty) table, with the warning on standard error, and exits 1: "nothing was found".
#include <memory>
#include <ostream>

#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

struct SlowOptions {
  std::string db, run, platform, format;
  double threshold = 1.0;
  bool json = false, with_findings = false;
};

Result<int> slow(const SlowOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto cases, server::find_slow_cases(store, o.run, o.platform, o.threshold));
  io.out
      << server::render_slow_cases(cases, chosen_format(o.format, o.json), {.findings_column = o.with_findings}).body;
  if (!cases.warning) return 0;
  // A script must not read the empty table as "nothing is slow".
  print_error(io.err, *cases.warning);
  return 1;
}

}  // namespace

void add_slow(const Command& cmd) {
  auto o = std::make_shared<SlowOptions>();
  CLI::App& app = *cmd.app;
  add_db_option(app, o->db);
  app.add_option("--run", o->run,
                 "the run (default: the latest run of --platform, else of every platform); exit 1 when it has no "
                 "performance results");
  app.add_option("--platform", o->platform, "the latest run of this platform: its newest with performance results");
  add_threshold_option(app, o->threshold, "a case is slow when 0 < speedup < this");
  add_format_options(app, o->format, o->json, "md");
  app.add_flag("--with-findings", o->with_findings, "md: a last column with the classifiers' findings");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return slow(*o, io); }; });
}

}  // namespace perftriage::cli
