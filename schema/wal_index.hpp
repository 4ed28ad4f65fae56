#pragma once
// Has anything committed since I last looked? For a database in WAL mode, without a system call: the wal-index header
// at the start of the "-shm" file (https://www.sqlite.org/walformat.html, "The WAL-Index Header"), which every
// commit rewrites (its iChange counter moves by one, its mxFrame with it) and which SQLite shares between the
// processes that open the file through a shared mapping. An unchanged header means no commit; a changed one (or a
// read torn by a write in progress) is only a reason to ask SQLite (PRAGMA data_version), which stays the answer.
//
// The mapping must be made while a connection of this process holds the database open (the watcher's): then no
// process can delete or truncate the -shm file under it.
#include <array>
#include <optional>
#include <string>

namespace perftriage::schema {

class WalIndexProbe {
 public:
  // nullopt when there is no -shm file to map (not WAL, or SQLite keeps the index in heap memory).
  static std::optional<WalIndexProbe> open(const std::string& db_path);
  WalIndexProbe(WalIndexProbe&& other) noexcept;
  WalIndexProbe& operator=(WalIndexProbe&&) = delete;
  WalIndexProbe(const WalIndexProbe&) = delete;
  WalIndexProbe& operator=(const WalIndexProbe&) = delete;
  ~WalIndexProbe();

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
