// perftriage compare --target KEY [--base KEY|previous|TAG] [--format md|csv|json] [--json] [--db PATH]
//                    [--regression 0.9] [--red 0.8] [--improvement 1.1]
#include <ostream>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "schema/history_store.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/app/comparison.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::cli {

namespace cmp = analyzers::compare;

int cmd_compare(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "base", "target", "format", "regression", "red", "improvement"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const auto format_choice = table_format(*args, err);
  if (!format_choice) return 2;
  const std::string& format = *format_choice;
  if (!args->get("target")) {
    err << "perftriage: compare needs --target KEY (and --base KEY|previous|TAG, default previous)\n";
    return 2;
  }
  auto thresholds = cmp::parse_thresholds(args->get_or("regression", ""), args->get_or("red", ""),
                                          args->get_or("improvement", ""));
  if (!thresholds) {
    print_error(err, thresholds.error());
    return 2;
  }
  auto store = open_store(args->get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto comparison = server::compare_runs(*store, args->get_or("base", "previous"), *args->get("target"), *thresholds);
  if (!comparison) {
    print_error(err, comparison.error());
    return 1;
  }
  const auto& cases = comparison->cases;
  const auto& aggregates = comparison->aggregates;
  const auto& base = comparison->base.meta.key;
  const auto& target = comparison->target.meta.key;
  if (format == "md") out << cmp::compare_markdown(base, target, *thresholds, cases, aggregates);
  if (format == "csv") out << cmp::compare_csv(cases);
  if (format == "json") out << server::dump_json(cmp::compare_json(base, target, *thresholds, cases, aggregates)) << "\n";
  return 0;
}

}  // namespace perftriage::cli
