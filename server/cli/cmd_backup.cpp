// perftriage backup [--db PATH] --to FILE [--json]
//     A consistent copy of the database while the server runs and writes (SQLite's online backup API, one read
//     transaction: the database as of one commit), written to FILE.tmp, checked (PRAGMA integrity_check) and renamed
//     over FILE. Prints the copy's size, schema version and run count.
// perftriage restore --from FILE [--db PATH] [--force] [--json]
//     Verifies FILE (integrity_check, a schema this binary knows), refuses while another process has the target
//     open, and refuses an existing target unless --force; copies FILE into DB.tmp, removes stale DB-wal / DB-shm,
//     renames it over DB, migrates it and writes an audit_log row ("restore", actor cli:$USER).
// See schema/backup.hpp and docs/data-safety.md.
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/backup.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {

namespace {

nlohmann::json info_json(const schema::DatabaseInfo& i) {
  return {{"path", i.path},
          {"bytes", i.bytes},
          {"schema_version", i.schema_version},
          {"runs", i.runs},
          {"integrity_check", i.integrity}};
}

struct BackupOptions {
  std::string db, file;
  bool json = false, force = false;
};

Result<int> backup(const BackupOptions& o, Io io) {
  PT_ASSIGN(const auto info, schema::backup_database(o.db, o.file));
  if (o.json) {
    io.out << server::rendered_json(info_json(info)).body;
  } else {
    io.out << "backup: " << info.path << ": " << info.bytes << " bytes, schema version " << info.schema_version << ", "
           << info.runs << " runs, integrity_check " << info.integrity << "\n";
  }
  return 0;
}

Result<int> restore(const BackupOptions& o, Io io) {
  schema::RestoreOptions options;
  options.force = o.force;
  options.actor = cli_actor();
  PT_ASSIGN(const auto restored, schema::restore_database(o.file, o.db, options));
  if (o.json) {
    io.out << server::rendered_json({{"db", o.db},
                                     {"from", info_json(restored.backup)},
                                     {"replaced", restored.replaced},
                                     {"schema_version", restored.schema_version_after},
                                     {"runs", restored.runs}})
                  .body;
  } else {
    io.out << "restore: " << o.db << (restored.replaced ? " replaced" : " created") << " from " << o.file
           << " (schema version " << restored.backup.schema_version << " -> " << restored.schema_version_after << ", "
           << restored.runs << " runs, integrity_check ok)\n";
  }
  return 0;
}

}  // namespace

void add_backup(const Command& cmd) {
  auto o = std::make_shared<BackupOptions>();
  add_db_option(*cmd.app, o->db);
  cmd.app->add_option("--to", o->file, "the copy to write (FILE.tmp first, renamed once checked)")->required();
  cmd.app->add_flag("--json", o->json, "print the copy's details as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return backup(*o, io); }; });
}

void add_restore(const Command& cmd) {
  auto o = std::make_shared<BackupOptions>();
  add_db_option(*cmd.app, o->db);
  cmd.app->add_option("--from", o->file, "the backup to put in place of the database")->required();
  cmd.app->add_flag("--force", o->force, "replace an existing database");
  cmd.app->add_flag("--json", o->json, "print what was restored as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return restore(*o, io); }; });
}

}  // namespace perftriage::cli
