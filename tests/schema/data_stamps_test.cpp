// What the response cache relies on from the store: the wal-index probe (an unchanged -shm header means no commit;
// every commit, through any connection, changes it) and the data stamps of migration 011 on a database written by
// schema version 10.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "schema/backup.hpp"
#include "schema/data_stamps.hpp"
#include "schema/migrate.hpp"
#include "schema/migrations_embedded.hpp"
#include "schema/run_delete.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"
#include "schema/wal_index.hpp"
#include "tests/support/files.hpp"

namespace perftriage::schema {
namespace {

TEST(WalIndexProbe, EveryCommitMovesTheHeaderAndNothingElseDoes) {
  testing::TempDir dir{"perftriage-wal-index"};
  const std::string path = dir.file("db.sqlite");
  auto watcher = Database::open(path);
  ASSERT_TRUE(watcher) << watcher.error().message;
  ASSERT_TRUE(watcher->exec("CREATE TABLE t (x INTEGER)"));
  auto probe = WalIndexProbe::open(*watcher);
  ASSERT_TRUE(probe);
  EXPECT_TRUE(probe->changed());  // the first look
  EXPECT_FALSE(probe->changed());
  auto writer = Database::open(path);
  ASSERT_TRUE(writer);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(writer->exec("INSERT INTO t VALUES (1)"));
    EXPECT_TRUE(probe->changed()) << i;
    EXPECT_FALSE(probe->changed()) << i;
  }
  // Reads and a rolled-back write commit nothing.
  ASSERT_TRUE(writer->exec("SELECT count(*) FROM t"));
  ASSERT_TRUE(writer->exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (2); ROLLBACK"));
  EXPECT_FALSE(probe->changed());
  // A checkpoint that restarts the log, then a commit into the new log: still seen.
  ASSERT_TRUE(writer->exec("PRAGMA wal_checkpoint(TRUNCATE)"));
  probe->changed();
  ASSERT_TRUE(writer->exec("INSERT INTO t VALUES (3)"));
  EXPECT_TRUE(probe->changed());
}

TEST(WalIndexProbe, NoWalNoProbeAndNoShmFileMade) {
  testing::TempDir dir{"perftriage-wal-index"};
  const std::string path = dir.file("rollback.sqlite");
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db);
    ASSERT_TRUE(db->exec("PRAGMA journal_mode=DELETE; CREATE TABLE t (x INTEGER)"));
    EXPECT_FALSE(WalIndexProbe::open(*db));
    EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
  }
  auto memory = Database::open(":memory:");
  ASSERT_TRUE(memory);
  EXPECT_FALSE(WalIndexProbe::open(*memory));
}

// What another process finds (fcntl locks belong to a process, so a child asks): 1 when the database looks free,
// as `restore` would find it (schema::database_in_use: the -shm file's DMS byte, which every process with the
// database open holds shared), and as SQLite in that process would, which then takes itself for the first, truncates
// the -shm file and rebuilds the index.
int dms_free_for_another_process(const std::string& db_path) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(database_in_use(db_path) ? 0 : 1);
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(WalIndexProbe, LeavesSQLitesLockOnTheIndexInPlace) {
  testing::TempDir dir{"perftriage-wal-index"};
  const std::string path = dir.file("db.sqlite");
  auto watcher = Database::open(path);
  ASSERT_TRUE(watcher);
  ASSERT_TRUE(watcher->exec("CREATE TABLE t (x INTEGER)"));
  ASSERT_EQ(dms_free_for_another_process(path), 0);  // held while the connection is open
  auto probe = WalIndexProbe::open(*watcher);
  ASSERT_TRUE(probe);
  EXPECT_TRUE(probe->changed());
  // A probe that opened and closed the -shm file itself dropped the process's locks on it: 1 here.
  EXPECT_EQ(dms_free_for_another_process(path), 0);
  ASSERT_TRUE(watcher->exec("INSERT INTO t VALUES (1)"));
  EXPECT_TRUE(probe->changed());
  EXPECT_EQ(dms_free_for_another_process(path), 0);
}

// Why the probe never opens the file itself: what the probe before it did (open, map, close) frees the lock.
TEST(WalIndexProbe, ADescriptorOfOurOwnOnceClosedWouldFreeIt) {
  testing::TempDir dir{"perftriage-wal-index"};
  const std::string path = dir.file("db.sqlite");
  auto watcher = Database::open(path);
  ASSERT_TRUE(watcher);
  ASSERT_TRUE(watcher->exec("CREATE TABLE t (x INTEGER)"));
  ASSERT_EQ(dms_free_for_another_process(path), 0);
  const int fd = ::open((path + "-shm").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ::close(fd);
  EXPECT_EQ(dms_free_for_another_process(path), 1);
}

std::map<std::string, std::int64_t> all_stamps(Database& db) {
  std::optional<Statement> prepared;
  auto rows = stamps_since(db, -1, prepared);
  EXPECT_TRUE(rows) << rows.error().message;
  std::map<std::string, std::int64_t> out;
  if (rows) out.insert(rows->begin(), rows->end());
  return out;
}

TEST(DataStampsMigration, AVersion10DatabaseIsCarriedForwardAndStampedFromItsNextWrite) {
  testing::TempDir dir{"perftriage-stamps-migration"};
  const std::string path = dir.file("v10.sqlite");
  {
    auto db = Database::open(path);
    ASSERT_TRUE(db) << db.error().message;
    for (const auto& m : kMigrations) {
      if (m.version >= 11) break;
      ASSERT_TRUE(db->exec(m.sql)) << m.name;
    }
    ASSERT_TRUE(db->exec("PRAGMA user_version = 10"));
    ASSERT_TRUE(db->exec(
        "INSERT INTO runs(id, key, platform, created_at, tags) VALUES(1, 'r1', 'BMG', '2026-01-01T00:00:00Z',"
        " '[\"release-2.12\"]'), (2, 'r2', 'PVC', '2026-01-02T00:00:00Z', '[]');"
        "INSERT INTO result_files(id, run_id, path, format, suite, dtype, mode, kind, sha256, size, uploaded_at)"
        " VALUES(1, 1, 'a.csv', 'performance', 'huggingface', 'bfloat16', 'inference', 'performance', 'x', 1,"
        " '2026-01-01T00:00:00Z');"));
  }
  auto s = Store::open(path);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(schema_version(s->db()).value(), latest_schema_version());
  EXPECT_EQ(all_stamps(s->db()), (std::map<std::string, std::int64_t>{{"*", 0}}));  // nothing written since
  ASSERT_TRUE(delete_run(s->db(), "r1", "test"));
  const auto stamps = all_stamps(s->db());
  EXPECT_GT(stamps.at("*"), 0);
  EXPECT_EQ(stamps.at("run:1"), stamps.at("*"));
  EXPECT_EQ(stamps.at("platform:bmg"), stamps.at("*"));
  EXPECT_EQ(stamps.at("tag:bmg:release-2.12"), stamps.at("*"));
  EXPECT_EQ(stamps.count("run:2"), 0u);  // PVC was not touched
  EXPECT_EQ(stamps.count("platform:pvc"), 0u);
}

}  // namespace
}  // namespace perftriage::schema
