// perftriage explain PLATFORM SUITE DTYPE MODE MODEL [--config C] [--threshold X] [--json] [--db PATH]
//     One case end to end (server/app/explain.hpp): markdown by default, the API's JSON with --json.
#include <memory>
#include <ostream>

#include "server/app/explain.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

struct ExplainOptions {
  std::string db, platform, suite, dtype, mode, model, config;
  double threshold = 1.0;
  bool json = false;
};

Result<int> run_explain(const ExplainOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto explained,
            server::explain(store, {o.platform, o.suite, o.dtype, o.mode, o.model, o.config}, o.threshold));
  io.out << (o.json ? server::rendered_json(explained).body : server::explain_markdown(explained));
  return 0;
}

}  // namespace

void add_explain(const Command& cmd) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App& app = *cmd.app;
  add_db_option(app, o->db);
  for (auto [name, field] : {std::pair{"platform", &o->platform},
                             {"suite", &o->suite},
                             {"dtype", &o->dtype},
                             {"mode", &o->mode},
                             {"model", &o->model}}) {
    app.add_option(name, *field, name)->required();
  }
  app.add_option("--config", o->config, "the file layout's config, when it names one");
  add_threshold_option(app, o->threshold, "slower than eager: speedup < this");
  app.add_flag("--json", o->json, "print the API's JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return run_explain(*o, io); }; });
}

}  // namespace perftriage::cli
