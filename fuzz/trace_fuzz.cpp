// Profiler traces and compile logs as uploaded (POST /classify, artifacts, `perftriage classify`): classify_bytes
// on the raw bytes (JSON, gzip, logs), gzip limits small. Differential check: the scanner parses the event array
// in chunks of ClassifyOptions::chunk_bytes (at least 4096); the result must not depend on the chunk size.
#include <fuzzer/FuzzedDataProvider.h>

#include "analyzers/trace/classify.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;
namespace tr = perftriage::analyzers::trace;

namespace {

tr::ClassifyOptions options(std::uint64_t chunk) {
  tr::ClassifyOptions o;
  o.max_decompressed_bytes = 64ull << 20;
  o.ratio_check_min_bytes = 1ull << 20;
  o.chunk_bytes = chunk;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::as_view(data, size);
  auto small = tr::classify_bytes(bytes, "fuzz.json", options(4096));
  if (small) {
    (void)perftriage::dump_json(*small);
    auto d = tr::diff(*small, *small);
    if (d) (void)perftriage::dump_json(*d);
  } else {
    FUZZ_CHECK(!small.error().code.empty(), small.error().message);
  }
  if (size <= 4096 || (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)) return 0;  // one chunk either way
  auto whole = tr::classify_bytes(bytes, "fuzz.json", options(8ull << 20));
  FUZZ_CHECK(small.ok() == whole.ok(), "chunk size changes the outcome: 4096 -> " +
                                           (small ? std::string("ok") : small.error().code) + ", 8 MiB -> " +
                                           (whole ? std::string("ok") : whole.error().code));
  if (small && whole) {
    FUZZ_CHECK(*small == *whole, "chunk size changes the result:\n" + perftriage::dump_json(*small) + "\n" +
                                     perftriage::dump_json(*whole));
  } else if (!small && !whole) {
    // A file with several faults may be refused for a different one: one chunk stops at the first non-object
    // element, the whole array first fails simdjson's stage 1 (UTF-8, unclosed string) further on. Both are
    // refusals of the same kind; only the invalid_json / not_trace_events pair may differ.
    auto family = [](const std::string& code) {
      return code == "not_trace_events" ? std::string("invalid_json") : code;
    };
    FUZZ_CHECK(small.error().kind == whole.error().kind && family(small.error().code) == family(whole.error().code),
               "chunk size changes the error: " + small.error().code + " vs " + whole.error().code);
  }
  return 0;
}
