#pragma once
// Raw upload bytes are kept compressed and identified by SHA-256. A result file is stored as one zstd frame (level 1:
// on an 80 MB benchmark CSV 20.7 MB in 0.16 s, where zlib's level 1 gave 25.1 MB in 0.7 s), an artifact that is not
// gzip already as a zlib stream (its metadata says "deflate"); files stored before zstd are zlib streams. Reading tells
// them apart by the frame's magic number, so both forms read back.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace perftriage::schema {

std::string sha256_hex(std::string_view bytes);
std::string deflate_bytes(std::string_view bytes);        // a zlib stream (artifacts)
std::string compress_file_bytes(std::string_view bytes);  // a zstd frame (result and reference files)
// Either form back to its `original_size` bytes; anything else, or another size, is corrupt_blob.
Result<std::string> inflate_bytes(std::string_view compressed, std::size_t original_size);

}  // namespace perftriage::schema
