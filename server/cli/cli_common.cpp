#include "server/cli/cli_common.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <ostream>

#include "server/app/config.hpp"

namespace perftriage::cli {

void Command::on_run(std::function<Action()> make) const {
  CLI::App* self = app;
  Action* into = chosen;
  app->callback([self, into, make = std::move(make)] {
    if (!self->get_subcommands().empty()) return;  // a subcommand of this command was given: its action runs
    *into = make();
  });
}

void print_error(std::ostream& err, const Error& e) {
  err << "perftriage: ";
  if (!e.file.empty()) {
    err << e.file;
    if (e.line > 0) err << ":" << e.line;
    err << ": ";
  }
  if (!e.column.empty()) err << "column " << e.column << ": ";
  err << e.message << " (" << e.code << ")\n";
}

int exit_code(const Result<int>& result, std::ostream& err) {
  if (result) return *result;
  print_error(err, result.error());
  return 1;
}

void usage_error(const std::string& option, const std::string& message) {
  if (option.empty()) throw CLI::ValidationError(message);
  throw CLI::ValidationError(option.rfind("-", 0) == 0 ? option : "--" + option, message);
}

CLI::Option* add_db_option(CLI::App& app, std::string& db) {
  db = server::config::default_db_path(server::config::process_environment());
  return app.add_option("--db", db, "the database file (default: $PERFTRIAGE_DB, else var/perftriage.sqlite)")
      ->type_name("PATH")
      ->capture_default_str();
}

void add_format_options(CLI::App& app, std::string& format, bool& json, const std::string& fallback,
                        const std::vector<std::string>& offered) {
  format = fallback;
  std::string names;
  for (const auto& f : offered) names += (names.empty() ? "" : "|") + f;
  app.add_option("--format", format, "the output format: " + names)
      ->type_name("FORMAT")
      ->check(CLI::IsMember(offered))
      ->capture_default_str();
  app.add_flag("--json", json, "the same as --format json");
}

void add_verdict_threshold_options(CLI::App& app, ThresholdTexts& texts, const std::string& help_prefix) {
  const analyzers::compare::Thresholds defaults;
  const std::pair<const char*, double> help[] = {
      {"the speedup or either latency ratio below this is worse", defaults.regression},
      {"a worse ratio below this (or now slower than eager) is red", defaults.red},
      {"the speedup or either latency ratio above this is better", defaults.improvement},
      {"base / target compile seconds below this: compile time worse", defaults.compile_regression},
      {"base / target compile seconds above this: compile time better", defaults.compile_improvement},
      {"target / base memory compression ratio below this: memory worse", defaults.memory_regression},
      {"target / base memory compression ratio above this: memory better", defaults.memory_improvement}};
  static_assert(std::size(help) == std::size(analyzers::compare::kThresholdNames));
  for (std::size_t i = 0; i < std::size(help); ++i) {
    std::string flag = std::string("--") + analyzers::compare::kThresholdNames[i];
    std::replace(flag.begin(), flag.end(), '_', '-');
    std::ostringstream value;
    value << help[i].second;
    app.add_option(flag, texts[analyzers::compare::kThresholdNames[i]], help_prefix + help[i].first)
        ->type_name("X")
        ->default_str(value.str());
  }
}

analyzers::compare::Thresholds verdict_thresholds(const ThresholdTexts& texts) {
  auto parsed = analyzers::compare::parse_thresholds([&](std::string_view name) -> std::string {
    const auto it = texts.find(name);
    return it == texts.end() ? std::string() : it->second;
  });
  if (!parsed) {
    std::string flag = parsed.error().column;
    std::replace(flag.begin(), flag.end(), '_', '-');
    usage_error(flag.empty() ? "regression" : flag, parsed.error().message);
  }
  return *parsed;
}

server::Format chosen_format(const std::string& format, bool json) {
  // --format was checked against the offered names by CLI11; the dispatch shared with the routes decodes it.
  auto parsed =
      server::parse_format(json ? "json" : format, server::Format::md,
                           {server::Format::json, server::Format::md, server::Format::csv, server::Format::text});
  return parsed ? *parsed : server::Format::md;
}

CLI::Option* add_threshold_option(CLI::App& app, double& threshold, const std::string& what) {
  threshold = 1.0;
  return app.add_option("--threshold", threshold, what)
      ->type_name("X")
      ->check(CLI::PositiveNumber.description(""))
      ->capture_default_str();
}

Result<schema::Store> open_store(const std::string& path) {
  if (path != ":memory:" && !schema::is_postgres_url(path)) {
    const auto parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) {
      return make_error(ErrorKind::internal, "db_dir", "cannot create " + parent.string() + ": " + ec.message());
    }
  }
  return schema::Store::open(path);
}

Result<std::string> read_input_file(const std::string& path) {
  std::ostringstream bytes;
  if (path == "-") {
    bytes << std::cin.rdbuf();
    return bytes.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::invalid_input, "unreadable", "cannot read " + path, path);
  std::error_code ec;
  if (const auto size = std::filesystem::file_size(path, ec); !ec) {
    // A regular file (file_size refuses anything else: a pipe, a device, a directory) is read in one piece into a
    // string of its size: a stream would grow its buffer by doubling and copy it once more, 3-4 times the file's bytes
    // moved (an 80 MB CSV: 6 % of its ingest). A file that grows while it is read is read as it was when its size was
    // taken.
    std::string whole(size, '\0');
    in.read(whole.data(), static_cast<std::streamsize>(size));
    if (in.bad()) return make_error(ErrorKind::invalid_input, "unreadable", "cannot read " + path, path);
    whole.resize(static_cast<std::size_t>(in.gcount()));
    return whole;
  }
  bytes << in.rdbuf();
  return bytes.str();
}

Result<std::vector<analyzers::labeler::EvalIssue>> read_issue_sets(const std::vector<std::string>& files,
                                                                   const std::string& split, const std::string& part) {
  namespace lb = analyzers::labeler;
  if (split.empty() != part.empty())
    return make_error(ErrorKind::invalid_input, "bad_split", "--split FILE and --part older|newer come together");
  std::optional<lb::TimeSplit> cut;
  const auto which = lb::split_part_from_name(part);
  if (!split.empty()) {
    if (!which)
      return make_error(ErrorKind::invalid_input, "bad_split", "--part is older or newer, not '" + part + "'");
    PT_ASSIGN(const auto text, read_input_file(split));
    PT_ASSIGN(cut, lb::parse_split(text, split));
  }
  std::vector<lb::EvalIssue> out;
  for (const auto& f : files) {
    PT_ASSIGN(const auto text, read_input_file(f));
    PT_ASSIGN(auto set, lb::parse_eval_set(text, f));
    if (cut) {
      PT_ASSIGN(set, lb::split_part(std::move(set), *cut, *which));
    }
    for (auto& is : set) out.push_back(std::move(is));
  }
  return out;
}

Result<schema::Store> open_existing_store(const std::string& path) {
  std::error_code ec;
  if (path != ":memory:" && !schema::is_postgres_url(path) && !std::filesystem::is_regular_file(path, ec)) {
    return make_error(ErrorKind::not_found, "no_database",
                      "no database at " + path +
                          " (give --db PATH or set PERFTRIAGE_DB; `perftriage ingest` or `serve` creates one)");
  }
  return schema::Store::open(path);
}

std::string cli_actor() {
  if (const char* user = std::getenv("USER"); user && *user) return std::string("cli:") + user;
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_name) return std::string("cli:") + pw->pw_name;
  return "cli:uid" + std::to_string(::getuid());
}

void refuse_options_as_values(CLI::App& app) {
  const CLI::Validator not_an_option(
      [](std::string& value) -> std::string {
        const bool option = value.size() > 1 && value[0] == '-' && (value[1] == '-' || std::isalpha(value[1]));
        return option ? "needs a value, got the option " + value : std::string();
      },
      "", "");
  for (CLI::Option* opt : app.get_options()) {
    if (!opt->nonpositional() || opt->get_type_size_max() == 0) continue;
    opt->check(not_an_option);
    if (opt->get_expected_max() > 1) opt->allow_extra_args(false);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_options_as_values(*sub);
}

}  // namespace perftriage::cli
