#pragma once
// Helpers shared by the harnesses (fuzz/*_fuzz.cpp). A harness never catches: an escaping exception, a sanitizer
// report or a failed FUZZ_CHECK is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/json_text.hpp"

namespace perftriage::fuzz {

inline std::string_view as_view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void check_failed(const char* expr, const char* file, int line, const std::string& detail) {
  std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n%s\n", file, line, expr, detail.c_str());
  std::abort();
}

}  // namespace perftriage::fuzz

// An invariant the code under test must keep; `detail` is printed when it does not.
#define FUZZ_CHECK(cond, detail)                                                        \
  do {                                                                                  \
    if (!(cond)) ::perftriage::fuzz::check_failed(#cond, __FILE__, __LINE__, (detail)); \
  } while (0)
