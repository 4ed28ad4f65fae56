#pragma once
// Raw upload bytes are kept compressed (zlib) and identified by SHA-256.
#include <string>
#include <string_view>

#include "common/result.hpp"

namespace perftriage::schema {

std::string sha256_hex(std::string_view bytes);
std::string deflate_bytes(std::string_view bytes);
Result<std::string> inflate_bytes(std::string_view compressed, std::size_t original_size);

}  // namespace perftriage::schema
