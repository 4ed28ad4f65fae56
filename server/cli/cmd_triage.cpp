// perftriage triage list --platform P [--state S] [--json] [--db PATH]
//     Every case that has been slower than eager on the platform, with its triage state (schema/triage_store.hpp):
//     {"cases": [{"platform", "suite", "dtype", "mode", "model", "state", "issue", "since_run"}]} with --json.
// perftriage triage set PLATFORM SUITE DTYPE MODE MODEL STATE [--issue owner/repo#N] [--reason TEXT] [--config C]
//     A person's decision (acknowledged, expected, wontfix, or new to drop it), recorded as "cli:$USER".
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/triage_store.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

using nlohmann::json;

struct TriageOptions {
  std::string db, platform, state, suite, dtype, mode, model, config, issue, reason;
  bool json = false;
};

json case_json(const schema::TriageCase& c) {
  return {{"platform", c.platform},
          {"suite", c.suite},
          {"dtype", c.dtype},
          {"mode", c.mode},
          {"model", c.model},
          {"state", c.state},
          {"issue", c.issue.empty() ? json() : json(c.issue)},
          {"since_run", c.since_run}};
}

Result<int> list(const TriageOptions& o, Io io) {
  if (!o.state.empty() && !schema::is_triage_state(o.state)) {
    return make_error(ErrorKind::invalid_input, "bad_state",
                      "--state is new, acknowledged, expected, wontfix, fixed or regressed", {}, 0, "state");
  }
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto cases, schema::list_triage(store.db(), o.platform, o.state));
  if (o.json) {
    json out = json::array();
    for (const auto& c : cases) out.push_back(case_json(c));
    io.out << server::rendered_json({{"cases", out}}).body;
    return 0;
  }
  for (const auto& c : cases) {
    io.out << c.state << "\t" << c.suite << " " << c.dtype << " " << c.mode << " " << c.model << "\tsince "
           << c.since_run << (c.issue.empty() ? "" : "\t" + c.issue) << "\n";
  }
  return 0;
}

Result<int> set(const TriageOptions& o, Io io) {
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(auto tx, schema::Transaction::begin(store.db()));
  PT_ASSIGN(const auto c, schema::set_triage(store.db(), {o.platform, o.suite, o.dtype, o.mode, o.model, o.config},
                                             o.state, o.issue, o.reason, cli_actor()));
  PT_TRY(tx.commit());
  if (o.json) {
    io.out << server::rendered_json(case_json(c)).body;
  } else {
    io.out << c.suite << " " << c.dtype << " " << c.mode << " " << c.model << " on " << c.platform << ": " << c.state
           << "\n";
  }
  return 0;
}

}  // namespace

void add_triage(const Command& cmd) {
  CLI::App& app = *cmd.app;
  app.require_subcommand(1, 1);
  auto l = std::make_shared<TriageOptions>();
  const Command ls{app.add_subcommand("list", "every case slow on a platform, with its triage state"), cmd.io,
                   cmd.chosen};
  add_db_option(*ls.app, l->db);
  ls.app->add_option("--platform", l->platform, "the platform")->required();
  ls.app->add_option("--state", l->state, "only this state");
  ls.app->add_flag("--json", l->json, "print JSON");
  ls.on_run([l, io = cmd.io] { return [l, io] { return list(*l, io); }; });

  auto s = std::make_shared<TriageOptions>();
  const Command st{app.add_subcommand("set", "decide a case: acknowledged, expected, wontfix, or new"), cmd.io,
                   cmd.chosen};
  add_db_option(*st.app, s->db);
  for (auto [name, field] : {std::pair{"platform", &s->platform},
                             {"suite", &s->suite},
                             {"dtype", &s->dtype},
                             {"mode", &s->mode},
                             {"model", &s->model},
                             {"state", &s->state}}) {
    st.app->add_option(name, *field, name)->required();
  }
  st.app->add_option("--issue", s->issue, "the issue it is tracked in: owner/repo#N");
  st.app->add_option("--reason", s->reason, "why (an expected case needs one)");
  st.app->add_option("--config", s->config, "the file layout's config, when it names one");
  st.app->add_flag("--json", s->json, "print the case as JSON");
  st.on_run([s, io = cmd.io] { return [s, io] { return set(*s, io); }; });
}

}  // namespace perftriage::cli
