// perftriage runs [--platform P] [--threshold X] [--format text|md|csv|json | --json] [--db PATH]
//     The runs, newest first, with their counts: aligned columns by default (server/app/tables.hpp).
// perftriage runs delete KEY [--json] [--db PATH]
//     The run and everything hanging off it, audited as "cli:$USER" (schema/run_delete.hpp).
#include <memory>
#include <ostream>

#include "schema/run_delete.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

struct RunsOptions {
  std::string db, platform, format, key;
  double threshold = 1.0;
  bool json = false;
};

Result<int> list_runs(const RunsOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto runs, server::list_runs_with_counts(store, o.platform, o.threshold));
  io.out << server::render_runs(runs, chosen_format(o.format, o.json)).body;
  return 0;
}

Result<int> delete_run(const RunsOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto deleted, schema::delete_run(store.db(), o.key, cli_actor()));
  if (o.json) {
    io.out << server::rendered_json(schema::to_json(deleted)).body;
    return 0;
  }
  io.out << "deleted run " << deleted.key << " (" << deleted.platform << "): " << deleted.files << " files, "
         << deleted.results << " results, " << deleted.expectations << " expectations, " << deleted.artifacts
         << " artifacts (" << deleted.findings << " findings); backlog: " << deleted.backlog_updated
         << " cases recomputed, " << deleted.backlog_removed << " removed\n";
  return 0;
}

}  // namespace

void add_runs(const Command& cmd) {
  auto o = std::make_shared<RunsOptions>();
  CLI::App& app = *cmd.app;
  app.require_subcommand(0, 1);
  add_db_option(app, o->db);
  app.add_option("--platform", o->platform, "only this platform's runs");
  add_threshold_option(app, o->threshold, "the slow count: 0 < speedup < this");
  add_format_options(app, o->format, o->json, "text", {"text", "md", "csv", "json"});
  cmd.on_run([o, io = cmd.io] { return [o, io] { return list_runs(*o, io); }; });

  auto d = std::make_shared<RunsOptions>();
  const Command del{app.add_subcommand("delete", "delete a run and everything hanging off it (audited)"), cmd.io,
                    cmd.chosen};
  add_db_option(*del.app, d->db);
  del.app->add_option("key", d->key, "the run's key (exact: never a tag)")->required();
  del.app->add_flag("--json", d->json, "print what was deleted as JSON");
  del.on_run([d, io = cmd.io] { return [d, io] { return delete_run(*d, io); }; });
}

}  // namespace perftriage::cli
