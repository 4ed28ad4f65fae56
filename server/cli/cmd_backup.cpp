// perftriage backup [--db PATH] --to FILE [--json]
//     A consistent copy of the database while the server runs and writes (SQLite's online backup API, one read
//     transaction: the database as of one commit), written to FILE.tmp, checked (PRAGMA integrity_check) and renamed
//     over FILE. Prints the copy's size, schema version and run count.
// perftriage restore --from FILE [--db PATH] [--force] [--json]
//     Verifies FILE (integrity_check, a schema this binary knows), refuses while another process has the target
//     open, and refuses an existing target unless --force; copies FILE into DB.tmp, removes stale DB-wal / DB-shm,
//     renames it over DB, migrates it and writes an audit_log row ("restore", actor cli:$USER).
// See schema/backup.hpp and docs/data-safety.md.
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/backup.hpp"
#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::cli {

namespace {

nlohmann::json info_json(const schema::DatabaseInfo& i) {
  return {{"path", i.path},
          {"bytes", i.bytes},
          {"schema_version", i.schema_version},
          {"runs", i.runs},
          {"integrity_check", i.integrity}};
}

}  // namespace

int cmd_backup(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "to"}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const auto to = args->get("to");
  if (!to || !args->positionals.empty()) {
    err << "usage: perftriage backup [--db PATH] --to FILE [--json]\n";
    return 2;
  }
  auto info = schema::backup_database(args->get_or("db", kDefaultDb), *to);
  if (!info) {
    print_error(err, info.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json(info_json(*info)) << "\n";
  } else {
    out << "backup: " << info->path << ": " << info->bytes << " bytes, schema version " << info->schema_version
        << ", " << info->runs << " runs, integrity_check " << info->integrity << "\n";
  }
  return 0;
}

int cmd_restore(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = parse_args(argv, {"db", "from"}, {"force", "json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  const auto from = args->get("from");
  if (!from || !args->positionals.empty()) {
    err << "usage: perftriage restore --from FILE [--db PATH] [--force] [--json]\n";
    return 2;
  }
  const std::string target = args->get_or("db", kDefaultDb);
  schema::RestoreOptions options;
  options.force = args->has("force");
  options.actor = cli_actor();
  auto restored = schema::restore_database(*from, target, options);
  if (!restored) {
    print_error(err, restored.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json({{"db", target},
                              {"from", info_json(restored->backup)},
                              {"replaced", restored->replaced},
                              {"schema_version", restored->schema_version_after},
                              {"runs", restored->runs}})
        << "\n";
  } else {
    out << "restore: " << target << (restored->replaced ? " replaced" : " created") << " from " << *from
        << " (schema version " << restored->backup.schema_version << " -> " << restored->schema_version_after
        << ", " << restored->runs << " runs, integrity_check ok)\n";
  }
  return 0;
}

}  // namespace perftriage::cli
