// perftriage report --run KEY --kind slow [--threshold 1.0] [--db PATH]
// perftriage report --target KEY [--base KEY|previous|TAG] --kind regressions [--regression --red --improvement]
#include <ostream>

#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/report.hpp"
#include "schema/history_store.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/app/comparison.hpp"
#include "server/app/slow_report.hpp"
#include "server/app/queries.hpp"

namespace perftriage::cli {
namespace {

namespace cmp = analyzers::compare;

int slow_report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.get("run")) {
    err << "perftriage: report --kind slow needs --run KEY\n";
    return 2;
  }
  auto threshold = server::parse_threshold(args.get_or("threshold", ""), 1.0);
  if (!threshold) {
    print_error(err, threshold.error());
    return 2;
  }
  auto store = open_store(args.get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto body = server::slow_report(*store, *args.get("run"), *threshold);
  if (!body) {
    print_error(err, body.error());
    return 1;
  }
  out << *body;
  return 0;
}

int regression_report(const ParsedArgs& args, std::ostream& out, std::ostream& err) {
  if (!args.get("target")) {
    err << "perftriage: report --kind regressions needs --target KEY (and --base KEY|previous|TAG)\n";
    return 2;
  }
  auto thresholds = cmp::parse_thresholds(args.get_or("regression", ""), args.get_or("red", ""),
                                          args.get_or("improvement", ""));
  if (!thresholds) {
    print_error(err, thresholds.error());
    return 2;
  }
  auto store = open_store(args.get_or("db", kDefaultDb));
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  auto c = server::compare_runs(*store, args.get_or("base", "previous"), *args.get("target"), *thresholds);
  if (!c) {
    print_error(err, c.error());
    return 1;
  }
  out << cmp::regression_report_markdown(c->base, c->target, c->cases, c->aggregates, *thresholds);
  return 0;
}

}  // namespace

int cmd_report(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "run", "base", "target", "kind", "threshold", "regression", "red", "improvement"},
                         {});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const std::string kind = args->get_or("kind", "");
  if (kind == "slow") return slow_report(*args, out, err);
  if (kind == "regressions") return regression_report(*args, out, err);
  err << "perftriage: --kind must be slow or regressions\n";
  return 2;
}

}  // namespace perftriage::cli
