#include <iomanip>
#include <ostream>

#include "schema/run_delete.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/http/http_types.hpp"
#include "server/app/queries.hpp"

namespace perftriage::cli {

namespace {

// perftriage runs delete KEY [--db PATH] [--json]: the run and everything hanging off it, audited as "cli:$USER".
int runs_delete(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (args->positionals.size() != 1) {
    err << "perftriage: usage: perftriage runs delete KEY [--db PATH] [--json]\n";
    return 2;
  }
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto deleted = schema::delete_run(store->db(), args->positionals[0], cli_actor());
  if (!deleted) {
    print_error(err, deleted.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json(schema::to_json(*deleted)) << "\n";
  } else {
    out << "deleted run " << deleted->key << " (" << deleted->platform << "): " << deleted->files << " files, "
        << deleted->results << " results, " << deleted->expectations << " expectations, " << deleted->artifacts
        << " artifacts (" << deleted->findings << " findings); backlog: " << deleted->backlog_updated
        << " cases recomputed, " << deleted->backlog_removed << " removed\n";
  }
  return 0;
}

}  // namespace

int cmd_runs(const Args& argv, std::ostream& out, std::ostream& err) {
  if (!argv.empty() && argv.front() == "delete") return runs_delete(Args(argv.begin() + 1, argv.end()), out, err);
  auto args = parse_args(argv, {"db", "platform", "threshold"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  auto threshold = server::parse_threshold(args->get_or("threshold", ""), 1.0);
  if (!threshold) {
    print_error(err, threshold.error());
    return 2;
  }
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto runs = store->list_runs(args->get_or("platform", ""));
  if (!runs) {
    print_error(err, runs.error());
    return 1;
  }
  nlohmann::json list = nlohmann::json::array();
  if (!args->has("json")) {
    out << std::left << std::setw(28) << "run" << std::setw(10) << "platform" << std::setw(16) << "torch"
        << std::setw(22) << "created" << std::right << std::setw(7) << "files" << std::setw(8) << "rows"
        << std::setw(6) << "slow" << std::setw(8) << "failed" << std::setw(9) << "acc_fail" << "\n";
  }
  for (const auto& run : *runs) {
    auto c = store->run_counts(run.id, *threshold);
    if (!c) {
      print_error(err, c.error());
      return 1;
    }
    if (args->has("json")) {
      list.push_back(server::run_json(run, *c));
      continue;
    }
    out << std::left << std::setw(28) << run.meta.key << std::setw(10) << run.meta.platform << std::setw(16)
        << run.meta.torch_version << std::setw(22) << run.meta.created_at << std::right << std::setw(7) << c->files
        << std::setw(8) << c->rows << std::setw(6) << c->slow << std::setw(8) << c->failed << std::setw(9)
        << c->accuracy_failed << "\n";
  }
  if (args->has("json")) out << server::dump_json(list) << "\n";
  return 0;
}

}  // namespace perftriage::cli
