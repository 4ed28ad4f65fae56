// Query strings and percent-encoding (every GET/POST query, route parameters): parse_query and url_decode.
#include "fuzz/fuzz_util.hpp"
#include "server/http/http_types.hpp"

using namespace perftriage;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_view(data, size);
  const std::string plus = server::url_decode(text, true);
  const std::string raw = server::url_decode(text, false);
  FUZZ_CHECK(plus.size() <= text.size() && raw.size() == plus.size(), "url_decode grew the text");
  for (const auto& [key, value] : server::parse_query(text)) {
    FUZZ_CHECK(key.size() + value.size() <= text.size(), "parse_query grew a pair");
  }
  return 0;
}
