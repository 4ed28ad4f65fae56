#pragma once
// Archive and multipart unpacking (pure: bytes in, files out), with limits against bombs.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "ingest/records.hpp"

namespace perftriage::ingest {

struct UnpackLimits {
  std::size_t max_entries = 10'000;
  // parts of a multipart/form-data body (one per file): a nightly is ~60 files, a release tree a few hundred;
  // more files travel as an archive. Past it: 413 "too_many_parts", before the extra parts are read.
  std::size_t max_parts = 1'000;
  std::size_t max_entry_bytes = 512ull << 20;   // one uncompressed member
  std::size_t max_total_bytes = 2048ull << 20;  // all members together
  // A bomb: past `ratio_floor_bytes` unpacked, the members together may be at most `max_ratio` times the bytes of
  // the archive read so far (CSV compresses 5-20x). Judged while unpacking, so a bomb is refused a few MiB in.
  // 0 = no ratio check.
  std::size_t max_ratio = 100;
  std::size_t ratio_floor_bytes = 8ull << 20;
};

enum class ArchiveType { none, zip, tar, tar_gz, gzip };

// By magic bytes (and, for a bare gzip, by what is inside): zip "PK\3\4", gzip 1f 8b, tar "ustar" at 257.
ArchiveType detect_archive(std::string_view bytes);

// Members of a zip / tar / tar.gz, or the single member of a .gz (named `archive_name` minus ".gz").
// Directories are skipped; paths are normalised ("./" and "//" removed). Refused with 400 "bad_archive_path" naming
// the entry (zip-slip): a ".." segment, an absolute path ("/x", "C:/x"), a symlink or hardlink, a device or fifo.
// Refused with 413 "archive_too_large": more than max_entries entries, a member or all members over their size
// limits, a member whose header states more than max_ratio allows for the whole archive (before any of it is
// unpacked), or an expansion over max_ratio while unpacking (the message says how many bytes were unpacked from how
// many). Only members ending in .csv are returned; an archive without one is an error (code "no_csv_in_archive")
// naming `archive_name`.
Result<std::vector<InputFile>> unpack_archive(std::string_view bytes, std::string_view archive_name,
                                              const UnpackLimits& limits = {});

struct MultipartPart {
  std::string name;          // form field name
  std::string filename;      // filename= parameter, may be empty
  std::string content_type;  // part Content-Type, may be empty
  std::string body;
};

// A part whose body is a view into the request body (valid while the body is).
struct MultipartPartView {
  std::string name;
  std::string filename;
  std::string content_type;
  std::string_view body;
};

// RFC 7578 multipart/form-data. `content_type` is the request's full Content-Type header value. More than
// `max_parts` parts: Error too_large "too_many_parts", found when part max_parts + 1 starts.
Result<std::vector<MultipartPart>> parse_multipart(std::string_view body, std::string_view content_type,
                                                   std::size_t max_parts = UnpackLimits{}.max_parts);
// The same without copying the part bodies.
Result<std::vector<MultipartPartView>> parse_multipart_views(std::string_view body, std::string_view content_type,
                                                             std::size_t max_parts = UnpackLimits{}.max_parts);

}  // namespace perftriage::ingest
