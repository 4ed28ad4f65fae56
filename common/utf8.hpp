#pragma once
// Characters as GitHub counts them (code points): every byte that does not continue a UTF-8 sequence.
#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace perftriage {

inline std::size_t utf8_chars(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char ch) { return (static_cast<unsigned char>(ch) & 0xC0U) != 0x80U; }));
}

// `text` cut to at most `max_chars` code points and `max_bytes` bytes, never inside a UTF-8 sequence (a stray
// continuation byte counts with the character before it); `cut` is set when something was dropped. Stops at the cut:
// a 1 MB text costs no more than its kept prefix.
inline std::string cut_utf8(std::string_view text, std::size_t max_chars, std::size_t max_bytes, bool& cut) {
  std::size_t chars = 0, end = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    const bool boundary = i == text.size() || (static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U;
    if (!boundary) continue;
    if (i > max_bytes || chars > max_chars) break;
    end = i;
    ++chars;
  }
  if (end < text.size()) cut = true;
  return std::string(text.substr(0, end));
}

}  // namespace perftriage
