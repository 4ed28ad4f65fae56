#include "server/http/spool.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/log.hpp"

namespace perftriage::server::transport {
namespace {

// A spooled body, mapped read-only. The file was unlinked when it was made: closing the mapping frees the disk.
class SpooledBody final : public MappedBody {
 public:
  SpooledBody(void* data, std::size_t size) : data_(data), size_(size) {}
  ~SpooledBody() override {
    if (data_ != nullptr) ::munmap(data_, size_);
  }
  [[nodiscard]] std::string_view bytes() const noexcept override {
    return data_ == nullptr ? std::string_view{} : std::string_view(static_cast<const char*>(data_), size_);
  }

 private:
  void* data_;
  std::size_t size_;
};

Error spool_error(const std::string& dir, const char* what, int err) {
  log().error("spool: {} in {}: {}", what, dir, std::strerror(err));
  return make_error(ErrorKind::unavailable, "spool_failed",
                    std::string("cannot ") + what + " for the request body in " + dir +
                        " ([limits] spool_dir): " + std::strerror(err));
}

}  // namespace

std::string spool_directory(const std::string& configured) {
  if (!configured.empty()) return configured;
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

SpoolFile::~SpoolFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<SpoolFile>> SpoolFile::create(const std::string& dir) {
  // O_TMPFILE: a file with no name at all (Linux 3.11+, most file systems); otherwise mkstemp and unlink at once.
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::string path = dir + "/perftriage-spool-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return spool_error(dir, "create a temporary file", errno);
    ::unlink(path.c_str());
  }
  return std::unique_ptr<SpoolFile>(new SpoolFile(fd, dir));
}

std::optional<Error> SpoolFile::write(const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return spool_error(dir_, "write a temporary file", n < 0 ? errno : ENOSPC);
    data += n;
    size -= static_cast<std::size_t>(n);
    size_ += static_cast<std::size_t>(n);
  }
  return std::nullopt;
}

Result<std::shared_ptr<const MappedBody>> SpoolFile::map() {
  if (size_ == 0) return std::shared_ptr<const MappedBody>(std::make_shared<SpooledBody>(nullptr, 0));
  void* data = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (data == MAP_FAILED) return spool_error(dir_, "map the temporary file", errno);
  ::close(fd_);  // the mapping keeps the file
  fd_ = -1;
  return std::shared_ptr<const MappedBody>(std::make_shared<SpooledBody>(data, size_));
}

}  // namespace perftriage::server::transport
