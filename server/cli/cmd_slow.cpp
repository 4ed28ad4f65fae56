#include <ostream>

#include "analyzers/flags/slow_table.hpp"
#include "server/app/case_findings.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/http/http_types.hpp"
#include "server/app/queries.hpp"

namespace perftriage::cli {

int cmd_slow(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "run", "platform", "threshold", "format"}, {"json", "with-findings"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const auto format_choice = table_format(*args, err);
  if (!format_choice) return 2;
  const std::string& format = *format_choice;
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
  auto runs = server::resolve_runs(*store, args->get_or("run", ""), args->get_or("platform", ""));
  if (!runs) {
    print_error(err, runs.error());
    return 1;
  }
  auto rows = server::slow_cases(*store, *runs, *threshold);
  if (!rows) {
    print_error(err, rows.error());
    return 1;
  }
  if (format == "csv") {
    out << analyzers::slow_table_csv(*rows);
    return 0;
  }
  if (format == "md" && !args->has("with-findings")) {
    out << analyzers::slow_table_markdown(*rows);
    return 0;
  }
  auto findings = server::findings_for_rows(store->db(), *runs, *rows);
  if (!findings) {
    print_error(err, findings.error());
    return 1;
  }
  if (format == "md") {
    out << server::slow_table_markdown_with_findings(*rows, *findings);
    return 0;
  }
  auto cases = analyzers::slow_table_json(*rows);
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i]["findings"] = server::findings_json((*findings)[i]);
  out << server::dump_json(cases) << "\n";
  return 0;
}

}  // namespace perftriage::cli
