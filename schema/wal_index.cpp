#include "schema/wal_index.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace perftriage::schema {
namespace {

// The first page of the file: both header copies and the checkpoint information.
constexpr std::size_t kMapBytes = 4096;

}  // namespace

std::optional<WalIndexProbe> WalIndexProbe::open(const std::string& db_path) {
  const std::string shm = db_path + "-shm";
  const int fd = ::open(shm.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  void* map = MAP_FAILED;
  if (::fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(2 * kHeaderBytes)) {
    map = ::mmap(nullptr, kMapBytes, PROT_READ, MAP_SHARED, fd, 0);
  }
  ::close(fd);  // the mapping keeps the file
  if (map == MAP_FAILED) return std::nullopt;
  return WalIndexProbe(map);
}

WalIndexProbe::WalIndexProbe(WalIndexProbe&& other) noexcept
    : map_(other.map_), last_(other.last_), seen_(other.seen_) {
  other.map_ = nullptr;
}

WalIndexProbe::~WalIndexProbe() {
  if (map_ != nullptr) ::munmap(const_cast<void*>(map_), kMapBytes);
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
