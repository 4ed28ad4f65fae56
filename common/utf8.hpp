#pragma once
// Characters as GitHub counts them (code points): every byte that does not continue a UTF-8 sequence.
#include <algorithm>
#include <cstddef>
#include <string_view>

namespace perftriage {

inline std::size_t utf8_chars(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0U) != 0x80U; }));
}

}  // namespace perftriage
