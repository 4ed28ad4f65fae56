#include "schema/wal_index.hpp"

#include <atomic>
#include <cstring>

#include "schema/sqlite.hpp"

namespace perftriage::schema {
namespace {

// The size SQLite maps the wal-index in (WALINDEX_PGSZ, https://www.sqlite.org/walformat.html): region 0 holds the
// header.
constexpr int kRegionBytes = 32768;

}  // namespace

std::optional<WalIndexProbe> WalIndexProbe::open(Database& db) {
  if (db.dialect() != Dialect::sqlite) return std::nullopt;
  // Only a database in WAL mode has the index; asking for it on another would make SQLite create a -shm file.
  auto mode = Statement::prepare(db, "PRAGMA journal_mode");
  if (!mode) return std::nullopt;
  const auto row = mode->step();
  if (!row || !*row || mode->text(0) != "wal") return std::nullopt;
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(sqlite_handle(db), "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr || file->pMethods->iVersion < 2 ||
      file->pMethods->xShmMap == nullptr) {
    return std::nullopt;
  }
  // Region 0 as SQLite mapped it for this connection (bExtend 0: nothing is created or grown).
  void volatile* region = nullptr;
  if (file->pMethods->xShmMap(file, 0, kRegionBytes, 0, &region) != SQLITE_OK || region == nullptr) {
    return std::nullopt;
  }
  return WalIndexProbe(const_cast<const void*>(region));
}

bool WalIndexProbe::changed() noexcept {
  std::array<unsigned char, kHeaderBytes> now{};
  std::atomic_thread_fence(std::memory_order_acquire);
  std::memcpy(now.data(), map_, kHeaderBytes);  // the first copy: SQLite writes it after the second, after a barrier
  const bool moved = !seen_ || now != last_;
  last_ = now;
  seen_ = true;
  return moved;
}

}  // namespace perftriage::schema
