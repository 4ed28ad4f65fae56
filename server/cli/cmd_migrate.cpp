// perftriage migrate --from sqlite:PATH --to postgresql://... [--check] [--json]
// Moves a whole SQLite database to PostgreSQL (docs/scaling.md "Moving to PostgreSQL"): both are opened with this
// binary (each migrated to its schema), every table is copied in one transaction on the target, and then each table's
// rows and checksum are read back from both sides and printed; any difference exits 1. --check copies nothing and
// only compares (after a copy, or to see that a target still matches its source). Stop the server first: rows stored
// while the copy runs are not in it.
#include <memory>
#include <ostream>

#include "schema/copy_store.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {

namespace {

struct MigrateOptions {
  std::string from, to;
  bool check = false, json = false;
};

Result<std::string> sqlite_path(const std::string& from) {
  constexpr std::string_view kPrefix = "sqlite:";
  if (!from.starts_with(kPrefix) || from.size() == kPrefix.size()) {
    return make_error(ErrorKind::invalid_input, "bad_from", "--from takes sqlite:PATH (a SQLite database file)",
                      "--from");
  }
  return from.substr(kPrefix.size());
}

Result<int> migrate(const MigrateOptions& o, Io io) {
  PT_ASSIGN(const std::string path, sqlite_path(o.from));
  if (!schema::is_postgres_url(o.to)) {
    return make_error(ErrorKind::invalid_input, "bad_to", "--to takes a postgresql:// URL", "--to");
  }
  PT_ASSIGN(auto from, open_existing_store(path));
  PT_ASSIGN(auto to, open_store(o.to));
  PT_ASSIGN(const auto tables,
            o.check ? schema::compare_databases(from.db(), to.db()) : schema::copy_database(from.db(), to.db()));
  bool same = true;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& t : tables) {
    same = same && t.same();
    rows.push_back({{"table", t.table},
                    {"rows_from", t.rows_from},
                    {"rows_to", t.rows_to},
                    {"checksum_from", t.checksum_from},
                    {"checksum_to", t.checksum_to},
                    {"same", t.same()}});
  }
  if (o.json) {
    io.out << server::rendered_json({{"copied", !o.check}, {"same", same}, {"tables", rows}}).body;
  } else {
    for (const auto& t : tables) {
      io.out << (t.same() ? "  same  " : "  DIFF  ") << t.table << ": " << t.rows_from << " -> " << t.rows_to
             << " rows, sha256-sum " << t.checksum_from.substr(0, 16)
             << (t.same() ? "" : " vs " + t.checksum_to.substr(0, 16)) << "\n";
    }
    io.out << (o.check ? "checked" : "copied") << " " << tables.size()
           << " tables: " << (same ? "every table the same on both sides" : "the databases DIFFER") << "\n";
  }
  return same ? 0 : 1;
}

}  // namespace

void add_migrate(const Command& cmd) {
  auto o = std::make_shared<MigrateOptions>();
  CLI::App& app = *cmd.app;
  app.add_option("--from", o->from, "the source: sqlite:PATH")->required()->type_name("sqlite:PATH");
  app.add_option("--to", o->to, "the target: a postgresql:// URL (an empty database, or one this binary migrated)")
      ->required()
      ->type_name("URL");
  app.add_flag("--check", o->check, "copy nothing: compare each table's rows and checksum on both sides");
  app.add_flag("--json", o->json, "print the per-table report as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return migrate(*o, io); }; });
}

}  // namespace perftriage::cli
