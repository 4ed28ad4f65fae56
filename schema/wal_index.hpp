#pragma once
// Has anything committed since I last looked? For a database in WAL mode, without a system call: the wal-index header
// at the start of the "-shm" file (https://www.sqlite.org/walformat.html, "The WAL-Index Header"), which every
// commit rewrites (its iChange counter moves by one, its mxFrame with it) and which SQLite shares between the
// processes that open the file through a shared mapping. An unchanged header means no commit; a changed one (or a
// read torn by a write in progress) is only a reason to ask SQLite (PRAGMA data_version), which stays the answer.
//
// The probe reads SQLite's own mapping of the file, through the connection it is given (the watcher's), and is valid
// as long as that connection is open: it never opens the file itself. A descriptor of our own on the -shm file,
// once closed, would drop every POSIX lock this process holds on it (fcntl locks belong to the process, not to the
// descriptor), SQLite's "someone has the index open" lock among them. The next process to open the database would
// then take itself for the first, truncate the -shm file and rebuild the index under this process's mapping: a
// SIGBUS in the server while `perftriage runs delete --db` ran beside it, found by bench/load.sh.
#include <array>
#include <optional>
#include <string>

#include "schema/database.hpp"

namespace perftriage::schema {

class WalIndexProbe {
 public:
  // nullopt when `db` has no wal-index in shared memory (PostgreSQL, not WAL, in-memory). `db` must outlive the probe.
  static std::optional<WalIndexProbe> open(Database& db);
  WalIndexProbe(WalIndexProbe&& other) noexcept = default;
  WalIndexProbe& operator=(WalIndexProbe&&) = delete;
  WalIndexProbe(const WalIndexProbe&) = delete;
  WalIndexProbe& operator=(const WalIndexProbe&) = delete;
  ~WalIndexProbe() = default;  // the mapping is SQLite's: unmapped when the connection closes

  // Whether the header differs from the one seen at the last call (true at the first call).
  bool changed() noexcept;

  static constexpr std::size_t kHeaderBytes = 48;  // one copy of the header; SQLite keeps two, the first written last

 private:
  explicit WalIndexProbe(const void* map) : map_(map) {}
  const void* map_;
  std::array<unsigned char, kHeaderBytes> last_{};
  bool seen_ = false;
};

}  // namespace perftriage::schema
