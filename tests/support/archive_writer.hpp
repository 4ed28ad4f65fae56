#pragma once
// Builds zip / tar.gz bytes in memory with libarchive, for upload tests.
#include <archive.h>
#include <archive_entry.h>

#include <string>
#include <vector>

#include "ingest/records.hpp"

namespace perftriage::testing {

enum class ArchiveFormat { zip, tar_gz };

inline std::string make_archive(const std::vector<ingest::InputFile>& files, ArchiveFormat format) {
  std::vector<char> buffer(64ull << 20);
  size_t used = 0;
  archive* a = archive_write_new();
  if (format == ArchiveFormat::zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  archive_write_open_memory(a, buffer.data(), buffer.size(), &used);
  for (const auto& f : files) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, f.path.c_str());
    archive_entry_set_size(e, static_cast<la_int64_t>(f.bytes.size()));
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_write_header(a, e);
    archive_write_data(a, f.bytes.data(), f.bytes.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buffer.data(), used);
}

}  // namespace perftriage::testing
