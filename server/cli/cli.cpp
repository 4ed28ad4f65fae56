#include "server/cli/cli.hpp"

#include <ostream>
#include <string>

#include "server/app/observability.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

constexpr const char* kDescription =
    "perftriage: stores TorchInductor benchmark results, finds slow cases and regressions, and serves them.\n"
    "Run `perftriage COMMAND --help` for the options of a command (each with its default).";

// The program's own help, whichever command was selected.
std::string root_help(CLI::App& app) {
  return app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
}

// `perftriage help [COMMAND]`: the help of the program or of one command.
void add_help(CLI::App& app, const Command& cmd) {
  auto command = std::make_shared<std::string>();
  cmd.app->add_option("command", *command, "the command to describe");
  cmd.on_run([&app, command, io = cmd.io]() -> Action {
    return [&app, command, io]() -> Result<int> {
      if (command->empty()) {
        io.out << root_help(app);
        return 0;
      }
      for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
        if (sub->get_name() == *command) {
          io.out << sub->help(app.get_name());
          return 0;
        }
      }
      return make_error(ErrorKind::not_found, "unknown_command", "no command '" + *command + "' (perftriage help)");
    };
  });
}

void build(CLI::App& app, Io io, Action& chosen) {
  app.set_version_flag("--version", std::string(server::build_version()), "print the version and exit");
  app.require_subcommand(1);
  app.fallthrough(false);
  auto sub = [&](const char* name, const char* what) { return Command{app.add_subcommand(name, what), io, &chosen}; };
  add_serve(sub("serve", "run the HTTP server and the dashboard (settings: flags > environment > file > defaults)"));
  add_ingest(sub("ingest", "store benchmark CSV files, directory trees and archives as one run"));
  add_slow(sub("slow", "the slow cases (0 < speedup < threshold) of a run, a platform or every platform"));
  add_runs(sub("runs", "list the runs with their counts, or delete one"));
  add_compare(sub("compare", "compare two runs case by case"));
  add_report(sub("report", "a tracking-issue body: the slow cases of a run, or the regressions between two runs"));
  add_classify(sub("classify", "classify profiler traces and compile logs (no database)"));
  add_label(sub("label", "suggest labels for a GitHub issue (no database)"));
  add_label_eval(sub("label-eval", "score the labeler against the labels a tracker set (JSONL of real issues)"));
  add_token(sub("token", "API tokens: create, list, revoke"));
  add_backup(sub("backup", "a consistent copy of the database, while the server runs"));
  add_restore(sub("restore", "put a backup in place of the database"));
  add_retention(sub("retention", "one retention pass outside the server"));
  add_explain(sub("explain", "one case end to end: history, source, triage, findings, verdict, what to attach"));
  add_triage(sub("triage", "triage state per case: list a platform's, or decide one"));
  add_tracker(sub("tracker", "a tracker's issues and labels: sync them from GitHub (resumable), export them as JSONL"));
  add_migrate(sub("migrate", "copy a SQLite database into PostgreSQL, and check the copy table by table"));
  add_config(sub("config", "check config files, show the effective settings, list every key"));
  add_help(app, sub("help", "this help, or the help of one command"));
  refuse_options_as_values(app);
}

}  // namespace

int run_cli(const Args& argv, std::ostream& out, std::ostream& err) {
  CLI::App app{kDescription, "perftriage"};
  Action chosen;
  build(app, Io{out, err}, chosen);
  if (argv.empty()) {
    err << root_help(app);
    return 2;
  }
  try {
    std::vector<std::string> reversed(argv.rbegin(), argv.rend());
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();  // the help of the command given, if any
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::CallForVersion&) {
    out << server::build_version() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "perftriage: " << e.what() << "\n(perftriage help, or perftriage COMMAND --help)\n";
    return 2;
  }
  return chosen ? exit_code(chosen(), err) : 2;
}

}  // namespace perftriage::cli
