// perftriage report --run KEY [--kind slow] [--threshold 1.0] [--db PATH]
// perftriage report --target KEY [--base KEY|previous|TAG] --kind regressions [--regression --red ... thresholds]
// The bodies of GET /api/v1/runs/{key}/report.md and /api/v1/report.md (server/app/slow_report.hpp). --kind
// defaults to slow with --run, to regressions with --target.
#include <memory>
#include <ostream>

#include "analyzers/compare/case_compare.hpp"
#include "server/app/slow_report.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace cmp = analyzers::compare;

struct ReportOptions {
  std::string db, run, base = "previous", target, kind, format;
  ThresholdTexts thresholds;
  double threshold = 1.0;
};

Result<int> report(const ReportOptions& o, const cmp::Thresholds& thresholds, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  std::string body;
  if (o.kind == "slow") {
    PT_ASSIGN(body, server::slow_report(store, o.run, o.threshold));
  } else {
    PT_ASSIGN(body, server::regression_report(store, o.base, o.target, thresholds));
  }
  io.out << server::render_report(std::move(body)).body;
  return 0;
}

// The kind given, else the one the other options imply; a usage error when the options do not fit it.
std::string kind_of(const ReportOptions& o) {
  std::string kind = o.kind;
  if (kind.empty()) {
    if (!o.run.empty() == !o.target.empty()) usage_error("kind", "give --run KEY (slow) or --target KEY (regressions)");
    kind = o.run.empty() ? "regressions" : "slow";
  }
  if (kind == "slow" && o.run.empty()) usage_error("run", "report --kind slow needs --run KEY");
  if (kind == "regressions" && o.target.empty()) {
    usage_error("target", "report --kind regressions needs --target KEY (and --base KEY|previous|TAG)");
  }
  return kind;
}

}  // namespace

void add_report(const Command& cmd) {
  auto o = std::make_shared<ReportOptions>();
  CLI::App& app = *cmd.app;
  add_db_option(app, o->db);
  app.add_option("--kind", o->kind, "slow (the default with --run) or regressions (the default with --target)")
      ->check(CLI::IsMember({"slow", "regressions"}));
  app.add_option("--run", o->run, "slow: the run");
  add_threshold_option(app, o->threshold, "slow: a case is slow when 0 < speedup < this");
  app.add_option("--target", o->target, "regressions: the run to judge");
  app.add_option("--base", o->base, "regressions: a key, previous or a tag")->capture_default_str();
  add_verdict_threshold_options(app, o->thresholds, "regressions: ");
  app.add_option("--format", o->format, "md, the only format of a report")
      ->check(CLI::IsMember({"md"}))
      ->default_str("md");
  cmd.on_run([o, io = cmd.io] {
    o->kind = kind_of(*o);
    const auto thresholds = verdict_thresholds(o->thresholds);
    return [o, io, thresholds] { return report(*o, thresholds, io); };
  });
}

}  // namespace perftriage::cli
