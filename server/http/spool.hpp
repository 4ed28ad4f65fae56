#pragma once
// A request body too large for memory ([limits] spool_threshold_mb): written as it arrives to an unlinked temporary
// file, then mapped read-only for the route (MappedBody, server/http/http_types.hpp). No name on disk, so nothing is
// left behind by a crash; the disk is freed when the mapping goes.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "common/result.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server::transport {

// The configured directory ([limits] spool_dir), else $TMPDIR, else /tmp.
std::string spool_directory(const std::string& configured);

class SpoolFile {
 public:
  SpoolFile(const SpoolFile&) = delete;
  SpoolFile& operator=(const SpoolFile&) = delete;
  ~SpoolFile();

  // Errors are 503 spool_failed, naming the directory and the setting.
  static Result<std::unique_ptr<SpoolFile>> create(const std::string& dir);
  std::optional<Error> write(const char* data, std::size_t size);
  // The bytes written so far, mapped; the file is closed (the mapping keeps it).
  Result<std::shared_ptr<const MappedBody>> map();

 private:
  SpoolFile(int fd, std::string dir) : fd_(fd), dir_(std::move(dir)) {}
  int fd_;
  std::string dir_;
  std::size_t size_ = 0;
};

}  // namespace perftriage::server::transport
