#pragma once
// What every command shares: how it registers with the one CLI11 App (server/cli/cli.cpp), how an error becomes an
// exit code and a message (exit_code, the only place), and the helpers its body is made of (the database option,
// opening the store, a transaction, the table format).
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyzers/compare/case_compare.hpp"
#include "analyzers/labeler/eval.hpp"
#include "common/result.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"
#include "server/app/tables.hpp"

namespace perftriage::cli {

using Args = std::vector<std::string>;  // argv without the program name

// Where a command writes: standard output (its result) and standard error (messages, progress).
struct Io {
  std::ostream& out;
  std::ostream& err;
};

// What a command does once its options are parsed and checked: the exit code, or an error (see exit_code).
using Action = std::function<Result<int>()>;

// The command being registered: its CLI11 subcommand, where it writes, and the action the parse selects. A command's
// callback (run by CLI11 once its options are parsed) sets `chosen`; usage errors found there are thrown as
// CLI::ValidationError, so that they exit 2 like any other parse error.
struct Command {
  CLI::App* app;
  Io io;
  Action* chosen;
  // Sets the action of this command (its callback runs when the command, and none of its subcommands, was given).
  void on_run(std::function<Action()> make) const;
};

// Exit codes: 0 ok, 1 the input was refused or nothing was found, 2 a usage error (CLI11's parse errors and the
// checks of a command's callback). The one mapping of a command's result: prints the error, returns its code.
int exit_code(const Result<int>& result, std::ostream& err);
// "perftriage: FILE:LINE: column COLUMN: message (code)" on one line.
void print_error(std::ostream& err, const Error& e);

// A usage error: a CLI::ValidationError naming the option (thrown from a command's callback).
[[noreturn]] void usage_error(const std::string& option, const std::string& message);
template <class T>
T or_usage(Result<T> r, const std::string& option) {
  if (!r) usage_error(option.empty() ? r.error().column : option, r.error().message);
  return std::move(r).value();
}

// --db PATH, defaulting to config::default_db_path (PERFTRIAGE_DATABASE_PATH, PERFTRIAGE_DB, var/perftriage.sqlite).
CLI::Option* add_db_option(CLI::App& app, std::string& db);
// --format md|csv|json (default `fallback`) and --json (= --format json).
void add_format_options(CLI::App& app, std::string& format, bool& json, const std::string& fallback,
                        const std::vector<std::string>& offered = {"md", "csv", "json"});
// The format --format / --json chose (through the dispatch shared with the routes, server/app/tables.hpp).
server::Format chosen_format(const std::string& format, bool json);
// --threshold X (a number > 0), default 1.0.
CLI::Option* add_threshold_option(CLI::App& app, double& threshold, const std::string& what);
// The verdict thresholds of compare and report (docs/verdicts.md), one flag each (--regression, --red, ...,
// --memory-improvement), kept as text by name until analyzers::compare::parse_thresholds reads them.
using ThresholdTexts = std::map<std::string, std::string, std::less<>>;
void add_verdict_threshold_options(CLI::App& app, ThresholdTexts& texts, const std::string& help_prefix);
// The thresholds the flags gave (the defaults for the rest); a usage error naming the flag for a bad one.
analyzers::compare::Thresholds verdict_thresholds(const ThresholdTexts& texts);

// Opens the store, creating the database (and its directory) when missing: for the commands that write.
Result<schema::Store> open_store(const std::string& path);
// Opens an existing database; a path that does not exist is refused (not_found naming it), never created: for the
// commands that only read (slow, runs, compare, report, token list|revoke).
Result<schema::Store> open_existing_store(const std::string& path);
// Runs `body` in one write transaction, committed when it succeeds (rolled back otherwise).
template <class F>
auto in_transaction(schema::Store& store, F&& body) -> decltype(body()) {
  PT_ASSIGN(auto tx, schema::Transaction::begin(store.db()));
  auto result = body();
  if (!result) return result;
  PT_TRY(tx.commit());
  return result;
}

// A file named on the command line, whole ("-" = standard input); invalid_input "unreadable" naming it otherwise.
Result<std::string> read_input_file(const std::string& path);
// The issues of label-eval's JSONL files, in file order; with `split` (a TimeSplit file, analyzers/labeler/eval.hpp)
// only those of `part` ("older" or "newer"). --split and --part come together or not at all.
Result<std::vector<analyzers::labeler::EvalIssue>> read_issue_sets(const std::vector<std::string>& files,
                                                                   const std::string& split, const std::string& part);

// The audit_log actor of a command run by hand: "cli:$USER" (the login name when USER is unset).
std::string cli_actor();

// Every option that takes a value refuses one that is itself an option (`--platform --run x` is an error naming
// --platform) and takes one value per occurrence (`--tag a x.csv`: x.csv stays a path). Applied to `app` and all
// its subcommands once they are declared.
void refuse_options_as_values(CLI::App& app);

}  // namespace perftriage::cli
